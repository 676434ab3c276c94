package cutstream_test

import (
	"context"
	"errors"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"tabuleiro.dev/pkg/platform/cutstream"
)

func TestUnavailable(t *testing.T) {
	live := context.Background()
	done, cancel := context.WithCancel(live)
	cancel()
	for _, c := range []struct {
		name string
		ctx  context.Context
		err  error
		want codes.Code
	}{
		{"stream ended without trailers", live, status.Error(codes.Internal, "server closed the stream without sending trailers"), codes.Unavailable},
		{"reset INTERNAL_ERROR", live, status.Error(codes.Internal, "stream terminated by RST_STREAM with error code: INTERNAL_ERROR"), codes.Unavailable},
		{"reset CANCEL", live, status.Error(codes.Canceled, "stream terminated by RST_STREAM with error code: CANCEL"), codes.Unavailable},
		{"reset after the caller's cancel", done, status.Error(codes.Canceled, "stream terminated by RST_STREAM with error code: CANCEL"), codes.Canceled},
		{"the server's INTERNAL", live, status.Error(codes.Internal, "internal error"), codes.Internal},
		{"the server's CANCELED", live, status.Error(codes.Canceled, "context canceled"), codes.Canceled},
		{"not a status", live, errors.New("server closed the stream without sending trailers"), codes.Unknown},
	} {
		if got := status.Code(cutstream.Unavailable(c.ctx, c.err)); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	if cutstream.Unavailable(live, nil) != nil {
		t.Error("nil error changed")
	}
}
