//go:build !linux

package play

import "os"

// dropTypeahead would discard the keys typed before the game screen
// starts; only Linux does so.
func dropTypeahead(*os.File) {}
