package ratelimit_test

import (
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"tabuleiro.dev/pkg/platform/ratelimit"
)

// A Bucket passes its burst, then refuses with RESOURCE_EXHAUSTED and the
// delay until its next token; it refills at its rate (an injected clock,
// no waiting), never past the burst, and a token given back is taken
// again.
func TestBucket(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b := ratelimit.NewBucket(ratelimit.Rule{What: "messages", Rate: 10, Burst: 3, Period: time.Second}, func() time.Time { return now })
	for i := range 3 {
		if err := b.Take(); err != nil {
			t.Fatalf("message %d: %v", i+1, err)
		}
	}
	err := b.Take()
	if status.Code(err) != codes.ResourceExhausted || !strings.Contains(status.Convert(err).Message(), "too many messages (at most 3 at once, then 10 per second)") {
		t.Fatalf("over the burst: %v", err)
	}
	if d, ok := ratelimit.RetryDelay(err); !ok || d != 100*time.Millisecond {
		t.Fatalf("retry delay %v (%v), want 100ms", d, ok)
	}
	b.Give()
	if err := b.Take(); err != nil {
		t.Fatalf("a token given back: %v", err)
	}
	now = now.Add(100 * time.Millisecond)
	if err := b.Take(); err != nil {
		t.Fatalf("after a token's time: %v", err)
	}
	if err := b.Take(); err == nil {
		t.Fatal("a second token after one token's time")
	}
	now = now.Add(time.Hour)
	for i := range 3 {
		if err := b.Take(); err != nil {
			t.Fatalf("after an hour, message %d: %v", i+1, err)
		}
	}
	if err := b.Take(); err == nil {
		t.Fatal("refilled past the burst")
	}
	off := ratelimit.NewBucket(ratelimit.Rule{}, nil)
	for range 1000 {
		if err := off.Take(); err != nil {
			t.Fatalf("an off rule: %v", err)
		}
	}
}
