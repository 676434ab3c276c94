//go:build !unix

package walredis

import "os"

// lockDir takes no lock where flock(2) is missing: one process per data
// directory is then the user's to keep.
func lockDir(string) (*os.File, error) { return nil, nil }
