package grpcserve_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"

	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
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
