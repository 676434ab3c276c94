package autoplay

import (
	"context"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
)

func exhausted(t *testing.T, after time.Duration) error {
	st, err := status.New(codes.ResourceExhausted, "too many match calls").
		WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(after)})
	if err != nil {
		t.Fatal(err)
	}
	return st.Err()
}

func TestRetryExhaustedWaitsAndRetries(t *testing.T) {
	calls := 0
	v, err := retryExhausted(t.Context(), func() (int, error) {
		calls++
		if calls < 3 {
			return 0, exhausted(t, time.Millisecond)
		}
		return 7, nil
	})
	if err != nil || v != 7 || calls != 3 {
		t.Fatalf("got %d, %v after %d calls; want 7 after 3", v, err, calls)
	}
}

func TestRetryExhaustedGivesUp(t *testing.T) {
	calls := 0
	_, err := retryExhausted(t.Context(), func() (int, error) {
		calls++
		if calls == 1 {
			return 0, status.Error(codes.NotFound, "no such match")
		}
		return 1, nil
	})
	if status.Code(err) != codes.NotFound || calls != 1 {
		t.Fatalf("other errors are not retried: %v after %d calls", err, calls)
	}
	calls = 0
	_, err = retryExhausted(t.Context(), func() (int, error) { calls++; return 0, exhausted(t, time.Millisecond) })
	if status.Code(err) != codes.ResourceExhausted || calls != 10 {
		t.Fatalf("a refusal that lasts: %v after %d calls, want RESOURCE_EXHAUSTED after 10", err, calls)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	calls = 0
	if _, err := retryExhausted(ctx, func() (int, error) { calls++; return 0, exhausted(t, time.Hour) }); err == nil || calls != 1 {
		t.Fatalf("a cancelled context stops the retries: %v after %d calls", err, calls)
	}
}
