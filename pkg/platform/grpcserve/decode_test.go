package grpcserve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"

	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/grpcserve"
)

// rawCodec sends bytes as they are: messages no proto library would
// produce.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(*v.(*[]byte))}, nil
}
func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	*v.(*[]byte) = data.Materialize()
	return nil
}
func (rawCodec) Name() string { return "proto" }

// malformed are request bodies that do not decode: field 1 (a string in
// every request used here) with bytes that are not UTF-8, and a length
// that runs past the end.
var malformed = map[string][]byte{
	"invalid UTF-8": {0x0a, 0x03, 'A', 0xff, 0xfe},
	"truncated":     {0x0a, 0x10, 'A'},
}

// A request that does not decode is INVALID_ARGUMENT with the reason, on a
// unary call and on a stream, never INTERNAL.
func TestMalformedRequestsAreInvalidArgument(t *testing.T) {
	t.Parallel()
	f := start(t, 0)
	conn := f.srv.Dial(t, grpc.WithDefaultCallOptions(grpc.ForceCodecV2(rawCodec{})))
	for name, body := range malformed {
		var out []byte
		err := conn.Invoke(t.Context(), lobbyv1.LobbyService_SignInGuest_FullMethodName, &body, &out)
		if st, _ := status.FromError(err); st.Code() != codes.InvalidArgument || !bytes.Contains([]byte(st.Message()), []byte("malformed request")) {
			t.Errorf("unary, %s: %v, want InvalidArgument", name, err)
		}
		s, err := conn.NewStream(t.Context(), &grpc.StreamDesc{ServerStreams: true}, "/grpc.health.v1.Health/Watch")
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SendMsg(&body); err != nil {
			t.Fatal(err)
		}
		_ = s.CloseSend()
		if err := s.RecvMsg(&out); status.Code(err) != codes.InvalidArgument {
			t.Errorf("stream, %s: %v, want InvalidArgument", name, err)
		}
	}
	// The server still serves well-formed requests afterwards.
	good := []byte{0x0a, 0x03, 'A', 'n', 'a'}
	var out []byte
	if err := conn.Invoke(t.Context(), lobbyv1.LobbyService_SignInGuest_FullMethodName, &good, &out); err != nil {
		t.Errorf("a good request after bad ones: %v", err)
	}
}

// A server-streaming call over native gRPC whose client sends no request
// message is the caller's mistake, not the server's: no ERROR line in the
// log. (grpc-go itself has answered INTERNAL "cardinality violation" from
// RecvMsg by then, where no interceptor can change it.)
func TestEmptyGRPCStreamIsNotAServerError(t *testing.T) {
	t.Parallel()
	f := start(t, 0)
	conn := f.srv.Dial(t, grpc.WithDefaultCallOptions(grpc.ForceCodecV2(rawCodec{})))
	ctx := metadataWith(t.Context(), "Bearer "+f.playerToken(t))
	s, err := conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, matchv1.MatchService_Watch_FullMethodName)
	if err != nil {
		t.Fatal(err)
	}
	_ = s.CloseSend()
	var out []byte
	if err := s.RecvMsg(&out); status.Code(err) == codes.OK {
		t.Fatalf("a stream without its request: %v, want an error", err)
	}
	testenvWait(t, func() bool { return strings.Contains(f.logs.String(), "MatchService/Watch") })
	if logs := f.logs.String(); strings.Contains(logs, `"level":"ERROR"`) || !strings.Contains(logs, `"code":"InvalidArgument"`) {
		t.Errorf("the caller's mistake was not logged as InvalidArgument (DEBUG: the access log):\n%s", logs)
	}
}

func testenvWait(t *testing.T, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("timed out")
		}
	}
}

// Over Connect and gRPC-Web an empty body on a server stream ends it with
// invalid_argument saying so, and logs no error.
func TestEmptyConnectStreamBodyIsInvalidArgument(t *testing.T) {
	t.Parallel()
	f := startWeb(t, grpcserve.Options{})
	hc := f.srv.HTTPClient(t)
	for _, ct := range []string{"application/connect+json", "application/connect+proto", "application/grpc-web+proto"} {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, "http://test-server/grpc.health.v1.Health/Watch", bytes.NewReader(nil))
		req.Header.Set("Content-Type", ct)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.HasPrefix(ct, "application/grpc-web") {
			st := resp.Header.Get("Grpc-Status") + resp.Trailer.Get("Grpc-Status")
			msg := resp.Header.Get("Grpc-Message") + resp.Trailer.Get("Grpc-Message")
			if !bytes.Contains(b, []byte("grpc-status:3")) && st != "3" || !strings.Contains(msg+string(b), "the request is empty") {
				t.Errorf("%s: HTTP %d %v %q, want grpc-status 3 saying the request is empty", ct, resp.StatusCode, resp.Header, b)
			}
			continue
		}
		if !bytes.Contains(b, []byte(`"code":"invalid_argument"`)) || !bytes.Contains(b, []byte("the request is empty")) {
			t.Errorf("%s: HTTP %d %q, want invalid_argument saying the request is empty", ct, resp.StatusCode, b)
		}
	}
	// A request with its message still works.
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, "http://test-server/grpc.health.v1.Health/Watch", bytes.NewReader([]byte{0, 0, 0, 0, 2, '{', '}'}))
	req.Header.Set("Content-Type", "application/connect+json")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	resp, err := hc.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	first := make([]byte, 5)
	if _, err := io.ReadFull(resp.Body, first); err != nil || first[0] != 0 {
		t.Errorf("a Watch with its request: first frame %v, %v; want a message", first, err)
	}
	cancel()
	resp.Body.Close()
	if logs := f.logs.String(); strings.Contains(logs, `"level":"ERROR"`) {
		t.Errorf("the caller's mistake was logged as a server error:\n%s", logs)
	}
}

// Over Connect (HTTP and JSON, or binary), a body that does not decode is
// invalid_argument too.
func TestMalformedConnectBodiesAreInvalidArgument(t *testing.T) {
	t.Parallel()
	f := startWeb(t, grpcserve.Options{})
	hc := f.srv.HTTPClient(t)
	url := "http://test-server" + lobbyv1.LobbyService_SignInGuest_FullMethodName
	for _, tc := range []struct {
		name, contentType string
		body              []byte
	}{
		{"JSON cut short", "application/json", []byte(`{"displayName": `)},
		{"not JSON", "application/json", []byte(`hello`)},
		{"JSON with a wrong type", "application/json", []byte(`{"displayName": 7}`)},
		{"JSON with invalid UTF-8", "application/json", []byte("{\"displayName\": \"A\xff\"}")},
		{"binary with invalid UTF-8", "application/proto", malformed["invalid UTF-8"]},
		{"binary truncated", "application/proto", malformed["truncated"]},
	} {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, url, bytes.NewReader(tc.body))
		req.Header.Set("Content-Type", tc.contentType)
		req.Header.Set("Connect-Protocol-Version", "1")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var e struct{ Code, Message string }
		_ = json.Unmarshal(b, &e)
		if resp.StatusCode != http.StatusBadRequest || e.Code != "invalid_argument" {
			t.Errorf("%s: HTTP %d %s, want 400 invalid_argument", tc.name, resp.StatusCode, b)
		}
	}
}
