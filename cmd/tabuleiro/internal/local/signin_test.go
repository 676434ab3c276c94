package local

import (
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/reason"
)

// A token whose sign-in was signed out is refused by the match service as
// by the lobby, at once, although it has hours to live: it neither reads
// its game nor plays in it.
func TestMatchRefusesASignedOutToken(t *testing.T) {
	t.Parallel()
	c, _ := start(t, Options{DataDir: t.TempDir()})
	p, err := c.SignIn(t.Context(), "Ana")
	if err != nil {
		t.Fatal(err)
	}
	id := playBot(t, c, p, gamev1.Game_GAME_QUORIDOR, "standard")
	if _, err := c.Match.GetMatch(p.Context(t.Context()), &matchv1.GetMatchRequest{MatchId: id}); err != nil {
		t.Fatalf("GetMatch before the sign-out: %v", err)
	}
	if _, err := c.Lobby.SignOut(p.Context(t.Context()), &lobbyv1.SignOutRequest{}); err != nil {
		t.Fatalf("SignOut: %v", err)
	}
	for name, call := range map[string]func() error{
		"GetMatch": func() error {
			_, err := c.Match.GetMatch(p.Context(t.Context()), &matchv1.GetMatchRequest{MatchId: id})
			return err
		},
		"SubmitPly": func() error {
			_, err := c.Match.SubmitPly(p.Context(t.Context()), &matchv1.SubmitPlyRequest{MatchId: id, PlyNumber: 1, Notation: "e2"})
			return err
		},
		"ListGames": func() error {
			_, err := c.Lobby.ListGames(p.Context(t.Context()), &lobbyv1.ListGamesRequest{})
			return err
		},
	} {
		st := status.Convert(call())
		info, _ := reason.Of(st)
		if st.Code() != codes.Unauthenticated || info.GetReason() != reason.SignedOut {
			t.Errorf("%s with a signed-out token: %v (reason %q), want UNAUTHENTICATED %s", name, st.Err(), info.GetReason(), reason.SignedOut)
		}
	}
}
