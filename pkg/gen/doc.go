// Package gen is the root of the Go code generated from proto/ by buf; the
// generated packages live below it and are never edited by hand.
package gen
