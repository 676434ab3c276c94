package grpcserve_test

import (
	"context"
	"net"
	"net/http"
	"testing"

	"connectrpc.com/connect"

	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	"tabuleiro.dev/pkg/platform/grpcserve"
)

// TestEveryProtocolOverH2C: a proxy that speaks cleartext HTTP/2 to the
// services (HAProxy's `proto h2`, a Gateway's h2c backends) carries gRPC,
// gRPC-Web and Connect calls on the same connections; the service answers
// each by its content type, whatever the HTTP version. It used to hand
// every prior-knowledge HTTP/2 connection to grpc-go's own transport,
// which answers 415 to gRPC-Web and Connect.
func TestEveryProtocolOverH2C(t *testing.T) {
	t.Parallel()
	addr := runTCP(t, grpcserve.Options{})
	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true) // h2c with prior knowledge only
	var dials int
	tr.DialContext = func(ctx context.Context, network, a string) (net.Conn, error) {
		dials++
		var d net.Dialer
		return d.DialContext(ctx, network, a)
	}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	for _, p := range []struct {
		name string
		opts []connect.ClientOption
	}{
		{"connect", nil},
		{"connect-json", []connect.ClientOption{connect.WithProtoJSON()}},
		{"grpc-web", []connect.ClientOption{connect.WithGRPCWeb()}},
		{"grpc", []connect.ClientOption{connect.WithGRPC()}},
	} {
		c := connect.NewClient[lobbyv1.SignInGuestRequest, lobbyv1.SignInGuestResponse](hc,
			"http://"+addr+lobbyv1.LobbyService_SignInGuest_FullMethodName, p.opts...)
		res, err := c.CallUnary(t.Context(), connect.NewRequest(&lobbyv1.SignInGuestRequest{DisplayName: "Ana"}))
		if err != nil || res.Msg.GetPlayerId() != "p-new" {
			t.Errorf("%s over h2c: SignInGuest = %v, %v", p.name, res, err)
			continue
		}
	}
	if dials != 1 {
		t.Errorf("the four calls took %d connections; want them all on one HTTP/2 connection", dials)
	}
}
