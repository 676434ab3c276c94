package matchserver_test

import (
	"io"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/services/match/internal/match"
)

// TestListLegalPliesFrom: a malformed or off-board `from` is
// INVALID_ARGUMENT (the proto's promise), with the input not echoed in
// full; a good one filters the plies (RULES.md Q1, C1, B1).
func TestListLegalPliesFrom(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 1, match.Config{}, nil)
	q := c.create(&matchv1.CreateMatchRequest{Game: gamev1.Game_GAME_QUORIDOR})
	b := c.create(&matchv1.CreateMatchRequest{Game: gamev1.Game_GAME_BANQI})
	k := c.create(&matchv1.CreateMatchRequest{Game: gamev1.Game_GAME_CORNERS, Variant: "classic-3x3"})
	h := c.create(&matchv1.CreateMatchRequest{Game: gamev1.Game_GAME_CORNERS, Variant: "halma-16x16"})
	long := strings.Repeat("a", 10000)
	ctx := c.as(t.Context(), "alice")
	tests := []struct {
		name, id, from string
		code           codes.Code
		plies          bool // some plies expected (when OK)
	}{
		{"Q zz", q, "zz", codes.InvalidArgument, false},
		{"Q e10", q, "e10", codes.InvalidArgument, false},
		{"Q E1", q, "E1", codes.InvalidArgument, false},
		{"Q e", q, "e", codes.InvalidArgument, false},
		{"Q 10,000 chars", q, long, codes.InvalidArgument, false},
		{"Q e1 (the pawn)", q, "e1", codes.OK, true},
		{"Q e5 (empty)", q, "e5", codes.OK, false},
		{"B i1", b, "i1", codes.InvalidArgument, false},
		{"B a5", b, "a5", codes.InvalidArgument, false},
		{"B h4", b, "h4", codes.OK, true},
		{"C i1 off 8x8", k, "i1", codes.InvalidArgument, false},
		{"C a9 off 8x8", k, "a9", codes.InvalidArgument, false},
		{"C c3", k, "c3", codes.OK, true},
		{"C halma p16", h, "p16", codes.OK, false},
		{"C halma q1", h, "q1", codes.InvalidArgument, false},
	}
	for _, tt := range tests {
		resp, err := c.client(0).ListLegalPlies(ctx, &matchv1.ListLegalPliesRequest{MatchId: tt.id, From: tt.from})
		if status.Code(err) != tt.code {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.code)
			continue
		}
		if err != nil && len(status.Convert(err).Message()) > 200 {
			t.Errorf("%s: message of %d bytes echoes the input", tt.name, len(status.Convert(err).Message()))
		}
		if err == nil && (len(resp.GetPlies()) > 0) != tt.plies {
			t.Errorf("%s: %d plies, want some: %v", tt.name, len(resp.GetPlies()), tt.plies)
		}
	}
}

// TestPlayClosedBeforeJoin: a Play stream closed without a message ends
// quietly (OK), not as an internal error.
func TestPlayClosedBeforeJoin(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 1, match.Config{}, nil)
	st, err := c.client(0).Play(c.as(t.Context(), "alice"))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.CloseSend(); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Recv(); err != io.EOF {
		t.Fatalf("Play closed before the join ended with %v (code %v), want OK", err, status.Code(err))
	}
}
