package grpcserve_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/grpcserve"
	"tabuleiro.dev/pkg/platform/grpcserve/grpcservetest"
	"tabuleiro.dev/pkg/platform/reason"
)

// details returns the ErrorInfo and the LocalizedMessage of err, from
// either client library.
func details(t *testing.T, err error) (*errdetails.ErrorInfo, *errdetails.LocalizedMessage) {
	t.Helper()
	var msgs []proto.Message
	var ce *connect.Error
	if errors.As(err, &ce) {
		for _, d := range ce.Details() {
			m, derr := d.Value()
			if derr != nil {
				t.Fatalf("detail %s: %v", d.Type(), derr)
			}
			msgs = append(msgs, m)
		}
	} else {
		for _, d := range status.Convert(err).Details() {
			if m, ok := d.(proto.Message); ok {
				msgs = append(msgs, m)
			}
		}
	}
	var info *errdetails.ErrorInfo
	var lm *errdetails.LocalizedMessage
	for _, m := range msgs {
		switch m := m.(type) {
		case *errdetails.ErrorInfo:
			info = m
		case *errdetails.LocalizedMessage:
			lm = m
		}
	}
	return info, lm
}

// TestLocalizedMessageOnEveryProtocol: a refusal carries its ErrorInfo
// over gRPC, Connect and gRPC-Web, and a LocalizedMessage in the language
// the call names (the accept-language metadata, or a browser's
// Accept-Language header), on a unary call refused by authentication and on
// a stream refused by its handler; a call that names no language gets none.
func TestLocalizedMessageOnEveryProtocol(t *testing.T) {
	t.Parallel()
	f := startWeb(t, grpcserve.Options{ShutdownTimeout: time.Minute})
	valid, _, err := f.issuer.IssuePlayer("p-1", "Ana", true, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	// call returns the errors of GetStats without a token and of Watch
	// with no match id, naming lang ("" for none).
	type caller func(ctx context.Context, lang string) (unary, stream error)
	grpcCall := func(ctx context.Context, lang string) (error, error) {
		if lang != "" {
			ctx = metadata.AppendToOutgoingContext(ctx, grpcserve.AcceptLanguage, lang)
		}
		_, uerr := lobbyv1.NewLobbyServiceClient(f.srv.Conn).GetStats(ctx, &lobbyv1.GetStatsRequest{})
		s, err := matchv1.NewMatchServiceClient(f.srv.Conn).Watch(auth.WithToken(ctx, valid), &matchv1.WatchRequest{})
		if err == nil {
			_, err = s.Recv()
		}
		return uerr, err
	}
	connectCall := func(opts ...connect.ClientOption) caller {
		hc := f.srv.HTTPClient(t)
		getStats := connect.NewClient[lobbyv1.GetStatsRequest, lobbyv1.GetStatsResponse](hc, grpcservetest.BaseURL+lobbyv1.LobbyService_GetStats_FullMethodName, opts...)
		watch := connect.NewClient[matchv1.WatchRequest, matchv1.WatchResponse](hc, grpcservetest.BaseURL+matchv1.MatchService_Watch_FullMethodName, opts...)
		return func(ctx context.Context, lang string) (error, error) {
			set := func(h http.Header) {
				if lang != "" {
					h.Set("Accept-Language", lang)
				}
			}
			r := connect.NewRequest(&lobbyv1.GetStatsRequest{})
			set(r.Header())
			_, uerr := getStats.CallUnary(ctx, r)
			w := connect.NewRequest(&matchv1.WatchRequest{})
			set(w.Header())
			w.Header().Set("Authorization", "Bearer "+valid)
			s, err := watch.CallServerStream(ctx, w)
			if err == nil {
				defer s.Close()
				for s.Receive() {
				}
				err = s.Err()
			}
			return uerr, err
		}
	}
	for _, p := range []struct {
		name string
		call caller
	}{
		{"grpc", grpcCall},
		{"connect", connectCall()},
		{"connect-json", connectCall(connect.WithProtoJSON())},
		{"grpc-web", connectCall(connect.WithGRPCWeb())},
	} {
		t.Run(p.name, func(t *testing.T) {
			uerr, serr := p.call(t.Context(), "pt-BR,pt;q=0.9,en;q=0.5")
			for _, c := range []struct {
				err    error
				code   codes.Code
				reason string
				text   string
			}{
				{uerr, codes.Unauthenticated, reason.TokenMissing, "Você não está conectado: entre para continuar."},
				{serr, codes.InvalidArgument, reason.InvalidRequest, "O pedido não é válido."},
			} {
				info, lm := details(t, c.err)
				if code(c.err) != c.code || info.GetReason() != c.reason || info.GetDomain() != reason.Domain {
					t.Errorf("%v: ErrorInfo %v, want %v %s", c.err, info, c.code, c.reason)
				}
				if lm.GetLocale() != "pt-BR" || lm.GetMessage() != c.text {
					t.Errorf("%v: LocalizedMessage %v, want pt-BR %q", c.err, lm, c.text)
				}
			}
			uerr, serr = p.call(t.Context(), "")
			for _, err := range []error{uerr, serr} {
				if info, lm := details(t, err); info == nil || lm != nil {
					t.Errorf("no language named: ErrorInfo %v, LocalizedMessage %v", info, lm)
				}
			}
		})
	}
}
