package testenv

import (
	"context"
	"testing"
	"time"
)

// Deadline is when a test that waits for something to happen (a server
// to print its address or serve, a background write to land, a message to
// arrive) gives up. How long a busy machine takes is no failure, a hang
// is: so it is shortly before the test binary's own -timeout (a tenth of
// the time left, at most 30 s, early, so that the test fails with its own
// message rather than the binary's panic), or 15 minutes from now when
// the binary has no timeout.
func Deadline(t testing.TB) time.Time {
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if end, ok := d.Deadline(); ok {
			return end.Add(-min(time.Until(end)/10, 30*time.Second))
		}
	}
	return time.Now().Add(15 * time.Minute)
}

// Context returns a context of parent that ends at Deadline(t).
func Context(t testing.TB, parent context.Context) context.Context {
	ctx, cancel := context.WithDeadline(parent, Deadline(t))
	t.Cleanup(cancel)
	return ctx
}
