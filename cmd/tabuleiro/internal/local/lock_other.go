//go:build !unix

package local

import "os"

// lockDataDir takes no lock where flock(2) is missing: one command per data
// directory is then the user's to keep.
func lockDataDir(string) (*os.File, error) { return nil, nil }
