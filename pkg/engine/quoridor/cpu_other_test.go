//go:build !linux

package quoridor

import "time"

// cpuTime is not measured here: reportCPU then reports nothing.
func cpuTime() time.Duration { return 0 }
