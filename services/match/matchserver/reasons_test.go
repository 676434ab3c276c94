package matchserver_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/grpcserve"
	"tabuleiro.dev/pkg/platform/reason"
	"tabuleiro.dev/services/match/internal/match"
)

// TestRefusedWallSaysWhyInTheCallersLanguage: a wall over a wall already
// on the board, submitted through the match service over gRPC and over
// Connect, is refused FAILED_PRECONDITION with ILLEGAL_PLY, its ply, rule
// Q3.2, detail and the wall it overlaps, the same in the PlyRejected
// detail; a call naming pt-BR (the accept-language metadata, or the HTTP
// Accept-Language header) gets a Portuguese LocalizedMessage, and a call
// naming none gets none.
func TestRefusedWallSaysWhyInTheCallersLanguage(t *testing.T) {
	c := newCluster(t, 1, match.Config{}, nil)
	id := c.create(&matchv1.CreateMatchRequest{Game: gamev1.Game_GAME_QUORIDOR})
	if _, err := c.client(0).SubmitPly(c.as(t.Context(), "alice"), &matchv1.SubmitPlyRequest{MatchId: id, PlyNumber: 1, Notation: "e5h"}); err != nil {
		t.Fatal(err)
	}
	req := &matchv1.SubmitPlyRequest{MatchId: id, PlyNumber: 2, Notation: "f5h"}
	const portuguese = "Lance ilegal f5h: o muro se sobrepõe ao muro e5h (Q3.2)"

	grpcSubmit := func(ctx context.Context, lang string) ([]proto.Message, codes.Code) {
		ctx = c.as(ctx, "bob")
		if lang != "" {
			ctx = metadata.AppendToOutgoingContext(ctx, grpcserve.AcceptLanguage, lang)
		}
		_, err := c.client(0).SubmitPly(ctx, req)
		var out []proto.Message
		for _, d := range status.Convert(err).Details() {
			if m, ok := d.(proto.Message); ok {
				out = append(out, m)
			}
		}
		return out, status.Code(err)
	}
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) { return c.lis[0].DialContext(ctx) }}}
	submit := connect.NewClient[matchv1.SubmitPlyRequest, matchv1.SubmitPlyResponse](hc, "http://match"+matchv1.MatchService_SubmitPly_FullMethodName)
	connectSubmit := func(ctx context.Context, lang string) ([]proto.Message, codes.Code) {
		tok, _, err := c.iss.IssuePlayer("bob", "bob", true, 3600e9)
		if err != nil {
			t.Fatal(err)
		}
		r := connect.NewRequest(req)
		r.Header().Set("Authorization", "Bearer "+tok)
		if lang != "" {
			r.Header().Set("Accept-Language", lang)
		}
		_, err = submit.CallUnary(ctx, r)
		var ce *connect.Error
		if !errors.As(err, &ce) {
			t.Fatalf("Connect SubmitPly: %v", err)
		}
		var out []proto.Message
		for _, d := range ce.Details() {
			m, err := d.Value()
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, m)
		}
		return out, codes.Code(ce.Code())
	}
	for _, p := range []struct {
		name   string
		submit func(context.Context, string) ([]proto.Message, codes.Code)
	}{{"grpc", grpcSubmit}, {"connect", connectSubmit}} {
		t.Run(p.name, func(t *testing.T) {
			for _, lang := range []string{"pt-BR,pt;q=0.9", ""} {
				details, code := p.submit(t.Context(), lang)
				var info *errdetails.ErrorInfo
				var lm *errdetails.LocalizedMessage
				var rej *matchv1.PlyRejected
				for _, d := range details {
					switch d := d.(type) {
					case *errdetails.ErrorInfo:
						info = d
					case *errdetails.LocalizedMessage:
						lm = d
					case *matchv1.PlyRejected:
						rej = d
					}
				}
				md := info.GetMetadata()
				if code != codes.FailedPrecondition || info.GetReason() != reason.IllegalPly || info.GetDomain() != reason.Domain ||
					md["ply"] != "f5h" || md["rule"] != "Q3.2" || md["detail"] != "wall_overlaps" || md["wall"] != "e5h" {
					t.Errorf("lang %q: %v ErrorInfo %v, want FailedPrecondition ILLEGAL_PLY f5h Q3.2 wall_overlaps e5h", lang, code, info)
				}
				if rej.GetErrorReason() != reason.IllegalPly || !proto.Equal(&errdetails.ErrorInfo{Metadata: rej.GetErrorMetadata()}, &errdetails.ErrorInfo{Metadata: md}) {
					t.Errorf("lang %q: PlyRejected %v, want the ErrorInfo's reason and metadata", lang, rej)
				}
				switch {
				case lang != "" && (lm.GetLocale() != "pt-BR" || lm.GetMessage() != portuguese):
					t.Errorf("lang %q: LocalizedMessage %v, want pt-BR %q", lang, lm, portuguese)
				case lang == "" && lm != nil:
					t.Errorf("no language named, but LocalizedMessage %v", lm)
				}
			}
		})
	}
}

// A ply checked with ListLegalPlies says why it is refused as a submission
// would: the same ErrorInfo reason and parameters, for the client's words
// (the wall a player points at, before placing it).
func TestCheckedPlyCarriesItsReason(t *testing.T) {
	c := newCluster(t, 1, match.Config{}, nil)
	id := c.create(&matchv1.CreateMatchRequest{Game: gamev1.Game_GAME_QUORIDOR})
	if _, err := c.client(0).SubmitPly(c.as(t.Context(), "alice"), &matchv1.SubmitPlyRequest{MatchId: id, PlyNumber: 1, Notation: "e5h"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		ply, reason string
		want        map[string]string
	}{
		{ply: "f5h", reason: "ILLEGAL_PLY", want: map[string]string{"ply": "f5h", "rule": "Q3.2", "detail": "wall_overlaps", "wall": "e5h"}},
		{ply: "e9", reason: "ILLEGAL_PLY", want: map[string]string{"ply": "e9", "rule": "Q2.1"}},
		{ply: "z0", reason: "PLY_SYNTAX", want: map[string]string{"ply": "z0", "game": "quoridor"}},
		{ply: "e8", reason: "", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.ply, func(t *testing.T) {
			r, err := c.client(0).ListLegalPlies(c.as(t.Context(), "bob"), &matchv1.ListLegalPliesRequest{MatchId: id, Ply: tt.ply})
			if err != nil {
				t.Fatal(err)
			}
			check := r.GetCheck()
			if got := check.GetErrorReason(); got != tt.reason {
				t.Fatalf("error_reason = %q, want %q (check %v)", got, tt.reason, check)
			}
			if tt.reason == "" {
				if !check.GetLegal() || len(check.GetErrorMetadata()) != 0 {
					t.Errorf("a legal ply's check = %v", check)
				}
				return
			}
			for k, v := range tt.want {
				if got := check.GetErrorMetadata()[k]; got != v {
					t.Errorf("error_metadata[%s] = %q, want %q (all: %v)", k, got, v, check.GetErrorMetadata())
				}
			}
			if check.GetReason() == "" {
				t.Error("the English reason is gone")
			}
		})
	}
}
