//go:build !unix

package dirlock

import "os"

// Lock takes no lock where flock(2) is missing: one process per
// directory is then the user's care.
func Lock(string) (*os.File, error) { return nil, nil }
