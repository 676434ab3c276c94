package lobbyserver

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/reason"
)

// liveMatches creates no match, and lists the live match set for a
// player (the match service's ListMatches).
type liveMatches struct {
	noMatches
	mu   sync.Mutex
	live map[string]string // player id: match id
}

func (m *liveMatches) set(playerID, matchID string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if matchID == "" {
		delete(m.live, playerID)
		return
	}
	m.live[playerID] = matchID
}

func (m *liveMatches) ListMatches(_ context.Context, playerID string, matchIDs ...string) ([]*matchv1.MatchSummary, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if id, ok := m.live[playerID]; ok && (len(matchIDs) == 0 || slices.Contains(matchIDs, id)) {
		return []*matchv1.MatchSummary{{MatchId: id}}, nil
	}
	return nil, nil
}

// A browser holds a guest with finished games; its player signs in to an
// account there and merges the guest (PostgreSQL and Redis, over Connect
// as the web client calls). The merge is refused, changing nothing, to a
// guest caller, for a forged, expired or already exchanged (replayed)
// refresh token, for the account's own token, for another account's, and
// while the guest plays a live match. Then it moves the guest's games to
// the account, keeps the account's rating, ends the guest's sign-ins; a
// second merge by the same account moves nothing, one by another account
// is refused. A guest proven by its bearer token merges too.
func TestMergeGuest(t *testing.T) {
	t.Parallel()
	live := &liveMatches{live: map[string]string{}}
	l := newLobbyOf(t, live, nil)
	ctx := t.Context()
	const web = "198.51.100.30"
	ana, tok := claimed(t, l, web, "Ana", "ana_merge", "a long password")
	_, cyTok := claimed(t, l, web, "Cy", "cy_merge", "a long password")
	cyIn, err := l.grpc.SignIn(grpcFrom(ctx, web, ""), &lobbyv1.SignInRequest{Username: "cy_merge", Password: "a long password"})
	if err != nil {
		t.Fatal(err)
	}
	gus, err := l.grpc.SignInGuest(grpcFrom(ctx, web, ""), &lobbyv1.SignInGuestRequest{DisplayName: "Gus"})
	if err != nil {
		t.Fatal(err)
	}
	bia, _ := l.grpc.SignInGuest(grpcFrom(ctx, web, ""), &lobbyv1.SignInGuestRequest{DisplayName: "Bia"})
	end := time.Now().Add(-time.Minute)
	for i, id := range []string{"gm-1", "gm-2"} {
		l.exec(`INSERT INTO games (game_id, game, variant, rated, first_player_id, first_display_name, second_player_id,
		second_display_name, base_ms, increment_ms, plies, ply_clock_ms, ply_think_ms, ply_count, result, winner, reason, started_at, ended_at,
		rating_processed_at)
		VALUES ($1, 'quoridor', 'standard', $2, $3, 'Gus', $4, 'Bia', 180000, 2000, 'e2 e8 e3', '179000 178000 177000', '1000 1000 1000', 3,
		'win', 'first', 'resignation', $5, $6, $6)`, id, i == 1, gus.GetPlayerId(), bia.GetPlayerId(), end.Add(-time.Hour), end.Add(time.Duration(i)*time.Second))
	}
	for id, r := range map[string]int{ana.GetPlayerId(): 1620, gus.GetPlayerId(): 1710} {
		l.exec(`INSERT INTO ratings (player_id, game, variant, rating, deviation, volatility, games, updated_at)
		VALUES ($1, 'quoridor', 'standard', $2, 200, 0.06, 2, now())`, id, r)
	}
	merge := func(callerTok string, req *lobbyv1.MergeGuestRequest) (*lobbyv1.MergeGuestResponse, error) {
		return call[lobbyv1.MergeGuestRequest, lobbyv1.MergeGuestResponse](l, lobbyv1.LobbyService_MergeGuest_FullMethodName, web, callerTok, req)
	}
	games := func(tok string) int {
		t.Helper()
		res, err := l.grpc.ListGames(grpcFrom(ctx, web, tok), &lobbyv1.ListGamesRequest{})
		if err != nil {
			t.Fatal(err)
		}
		return len(res.GetGames())
	}

	// Refusals, each changing nothing.
	_, err = merge(gus.GetToken(), &lobbyv1.MergeGuestRequest{GuestRefreshToken: bia.GetRefreshToken()})
	wantReason(t, "a guest merging another", err, codes.FailedPrecondition, reason.AccountNeeded)
	_, err = merge(tok, &lobbyv1.MergeGuestRequest{})
	wantReason(t, "no proof", err, codes.InvalidArgument, reason.InvalidRequest)
	_, err = merge(tok, &lobbyv1.MergeGuestRequest{GuestRefreshToken: gus.GetRefreshToken(), GuestToken: gus.GetToken()})
	wantReason(t, "two proofs", err, codes.InvalidArgument, reason.InvalidRequest)
	otherKey, _ := auth.GenerateKey()
	forger, _ := auth.NewIssuer(otherKey)
	forged, _, _ := forger.IssueRefresh(gus.GetPlayerId(), "f_forged", 1, time.Hour)
	_, err = merge(tok, &lobbyv1.MergeGuestRequest{GuestRefreshToken: forged})
	wantReason(t, "a forged refresh token", err, codes.Unauthenticated, reason.GuestProofInvalid)
	forgedBearer, _, _ := forger.IssuePlayer(gus.GetPlayerId(), "Gus", true, time.Hour)
	_, err = merge(tok, &lobbyv1.MergeGuestRequest{GuestToken: forgedBearer})
	wantReason(t, "a forged bearer token", err, codes.Unauthenticated, reason.GuestProofInvalid)
	past, _ := auth.NewIssuer(l.key, auth.WithClock(func() time.Time { return time.Now().Add(-48 * time.Hour) }))
	expired, _, _ := past.IssueRefresh(gus.GetPlayerId(), "f_old", 1, time.Hour)
	_, err = merge(tok, &lobbyv1.MergeGuestRequest{GuestRefreshToken: expired})
	wantReason(t, "an expired refresh token", err, codes.Unauthenticated, reason.GuestProofInvalid)
	unknownFam, _, _ := func() (string, time.Time, error) {
		iss, _ := auth.NewIssuer(l.key)
		return iss.IssueRefresh(gus.GetPlayerId(), "f_never", 1, time.Hour)
	}()
	_, err = merge(tok, &lobbyv1.MergeGuestRequest{GuestRefreshToken: unknownFam})
	wantReason(t, "a refresh token of no sign-in", err, codes.Unauthenticated, reason.GuestProofInvalid)
	// The guest's device refreshes: the refresh token it held before is
	// spent, and presenting it again (a copy) proves nothing.
	ref, err := l.grpc.RefreshToken(grpcFrom(ctx, web, ""), &lobbyv1.RefreshTokenRequest{RefreshToken: gus.GetRefreshToken()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = merge(tok, &lobbyv1.MergeGuestRequest{GuestRefreshToken: gus.GetRefreshToken()})
	wantReason(t, "a replayed (exchanged) refresh token", err, codes.Unauthenticated, reason.GuestProofInvalid)
	_, err = merge(tok, &lobbyv1.MergeGuestRequest{GuestToken: tok})
	wantReason(t, "the account's own token", err, codes.FailedPrecondition, reason.GuestIsCaller)
	_, err = merge(tok, &lobbyv1.MergeGuestRequest{GuestRefreshToken: cyIn.GetRefreshToken()})
	wantReason(t, "another account's token", err, codes.FailedPrecondition, reason.GuestIsAccount)
	live.set(gus.GetPlayerId(), "m-live")
	_, err = merge(tok, &lobbyv1.MergeGuestRequest{GuestRefreshToken: ref.GetRefreshToken()})
	wantReason(t, "a guest in a live match", err, codes.FailedPrecondition, reason.GuestInGame)
	live.set(gus.GetPlayerId(), "")
	if n := games(tok); n != 0 {
		t.Fatalf("the account has %d games after the refusals, want 0", n)
	}
	if n := games(ref.GetToken()); n != 2 {
		t.Fatalf("the guest has %d games after the refusals, want 2", n)
	}

	// The merge.
	res, err := merge(tok, &lobbyv1.MergeGuestRequest{GuestRefreshToken: ref.GetRefreshToken()})
	if err != nil || res.GetGames() != 2 || res.GetAlreadyMerged() || res.GetSessionsEnded() != 1 || res.GetGuestPlayerId() != gus.GetPlayerId() {
		t.Fatalf("MergeGuest = %v, %v; want 2 games, 1 sign-in ended", res, err)
	}
	if n := games(tok); n != 2 {
		t.Errorf("the account has %d games after the merge, want 2", n)
	}
	st, err := l.grpc.GetStats(grpcFrom(ctx, web, tok), &lobbyv1.GetStatsRequest{})
	if err != nil || len(st.GetRatings()) != 1 || st.GetRatings()[0].GetRating() != 1620 {
		t.Errorf("the account's ratings after the merge: %v, %v; want its own 1620", st.GetRatings(), err)
	}
	_, err = l.grpc.ListGames(grpcFrom(ctx, web, ref.GetToken()), &lobbyv1.ListGamesRequest{})
	wantReason(t, "the merged guest's token", err, codes.Unauthenticated, reason.SignedOut)
	_, err = l.grpc.RefreshToken(grpcFrom(ctx, web, ""), &lobbyv1.RefreshTokenRequest{RefreshToken: ref.GetRefreshToken()})
	wantReason(t, "the merged guest's refresh token", err, codes.Unauthenticated, reason.SignedOut)
	again, err := merge(tok, &lobbyv1.MergeGuestRequest{GuestRefreshToken: ref.GetRefreshToken()})
	if err != nil || !again.GetAlreadyMerged() || again.GetGames() != 0 {
		t.Errorf("merging twice = %v, %v; want already merged, nothing moved", again, err)
	}
	_, err = merge(cyTok, &lobbyv1.MergeGuestRequest{GuestRefreshToken: ref.GetRefreshToken()})
	wantReason(t, "the merged guest by another account", err, codes.FailedPrecondition, reason.GuestIsAccount)
	if n := games(tok); n != 2 {
		t.Errorf("the account has %d games after merging twice, want 2", n)
	}

	// A device that keeps only the bearer token.
	dan, err := l.grpc.SignInGuest(grpcFrom(ctx, web, ""), &lobbyv1.SignInGuestRequest{DisplayName: "Dan"})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := merge(tok, &lobbyv1.MergeGuestRequest{GuestToken: dan.GetToken()}); err != nil || res.GetGames() != 0 || res.GetSessionsEnded() != 1 {
		t.Errorf("merging a guest by its bearer token = %v, %v", res, err)
	}
}
