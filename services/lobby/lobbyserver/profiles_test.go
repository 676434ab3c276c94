package lobbyserver

import (
	"fmt"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	"tabuleiro.dev/pkg/platform/ratelimit"
	"tabuleiro.dev/pkg/platform/reason"
)

// insertGame records a finished game between two players as the match
// service would, each seat under the player's name at the time (names):
// first wins, ended minutes ago.
func (l *accountsLobby) insertGame(id, first, second string, names map[string]string, private bool, minutes int) {
	ended := time.Now().Add(-time.Duration(minutes) * time.Minute)
	l.exec(`INSERT INTO games (game_id, game, variant, rated, first_player_id, first_display_name, second_player_id,
		second_display_name, base_ms, increment_ms, plies, ply_clock_ms, ply_think_ms, ply_count, result, winner, reason, started_at, ended_at, private)
		VALUES ($1, 'quoridor', 'standard', false, $2, $7, $3, $8, 180000, 2000, 'e2 e8', '179000 178000', '1000 900', 2,
		'win', 'first', 'goal', $4, $5, $6)`, id, first, second, ended.Add(-time.Minute), ended, private, names[first], names[second])
}

// An account's public profile, read by anyone without a token over
// Connect: its username, since when it plays, its record and its recent
// public games (never a private one), whose seats show it by its
// username (the games it played as a guest too) and a guest by its
// display name. Unknown usernames, a guest's display name and a deleted
// account are NOT_FOUND; bad requests INVALID_ARGUMENT.
func TestGetProfile(t *testing.T) {
	t.Parallel()
	l := newAccountsLobby(t)
	ctx := t.Context()
	const web, reader = "198.51.100.10", "203.0.113.20"
	ana, err := l.grpc.SignInGuest(grpcFrom(ctx, web, ""), &lobbyv1.SignInGuestRequest{DisplayName: "Ana"})
	if err != nil {
		t.Fatal(err)
	}
	bia, _ := l.grpc.SignInGuest(grpcFrom(ctx, web, ""), &lobbyv1.SignInGuestRequest{DisplayName: "Bia"})
	names := map[string]string{ana.GetPlayerId(): "Ana", bia.GetPlayerId(): "Bia"}
	l.insertGame("g-old", ana.GetPlayerId(), bia.GetPlayerId(), names, false, 30) // as a guest
	l.insertGame("g-private", bia.GetPlayerId(), ana.GetPlayerId(), names, true, 20)
	claim, err := l.grpc.ClaimAccount(grpcFrom(ctx, web, ana.GetToken()), &lobbyv1.ClaimAccountRequest{Username: "Ana_B", Password: "tabuleiro é bom"})
	if err != nil {
		t.Fatal(err)
	}
	names[ana.GetPlayerId()] = "Ana_B"
	l.insertGame("g-new", bia.GetPlayerId(), ana.GetPlayerId(), names, false, 10)

	getProfile := func(user string, recent int32) (*lobbyv1.GetProfileResponse, error) {
		return call[lobbyv1.GetProfileRequest, lobbyv1.GetProfileResponse](l, lobbyv1.LobbyService_GetProfile_FullMethodName, reader, "",
			&lobbyv1.GetProfileRequest{Username: user, RecentGames: recent})
	}
	res, err := getProfile("ANA_b", 0)
	if err != nil {
		t.Fatal(err)
	}
	p := res.GetProfile()
	if p.GetUsername() != "Ana_B" || p.GetPlayerId() != ana.GetPlayerId() || p.GetMemberSince() == nil {
		t.Fatalf("profile = %v", p)
	}
	if len(p.GetRecords()) != 1 || p.GetRecords()[0].GetGame() != gamev1.Game_GAME_QUORIDOR || p.GetRecords()[0].GetWins() != 1 || p.GetRecords()[0].GetLosses() != 1 {
		t.Errorf("records = %v; want 1 win and 1 loss (the private game not counted)", p.GetRecords())
	}
	var ids []string
	for _, g := range p.GetRecentGames() {
		ids = append(ids, g.GetMatchId())
		for _, s := range g.GetParticipants() {
			switch s.GetPlayerId() {
			case ana.GetPlayerId():
				if s.GetUsername() != "Ana_B" || s.GetDisplayName() != "Ana_B" {
					t.Errorf("%s: the account's seat %v, want it named by its username", g.GetMatchId(), s)
				}
			case bia.GetPlayerId():
				if s.GetUsername() != "" || s.GetDisplayName() != "Bia" {
					t.Errorf("%s: the guest's seat %v", g.GetMatchId(), s)
				}
			}
		}
		if g.GetYourSeat() == gamev1.Seat_SEAT_UNSPECIFIED {
			t.Errorf("%s: your_seat is unset; want the account's seat", g.GetMatchId())
		}
	}
	if fmt.Sprint(ids) != "[g-new g-old]" {
		t.Errorf("recent games = %v, want [g-new g-old] (never the private one)", ids)
	}
	if res, err := getProfile("ana_b", 1); err != nil || len(res.GetProfile().GetRecentGames()) != 1 {
		t.Errorf("one recent game: %v, %v", res, err)
	}
	// The other player's history and the game record name the account
	// by its username too.
	games, err := l.grpc.ListGames(grpcFrom(ctx, web, bia.GetToken()), &lobbyv1.ListGamesRequest{})
	if err != nil || len(games.GetGames()) != 3 {
		t.Fatalf("bia's games: %v, %v", games, err)
	}
	for _, g := range games.GetGames() {
		if s := g.GetParticipants()[0]; g.GetMatchId() == "g-old" && (s.GetUsername() != "Ana_B" || s.GetDisplayName() != "Ana_B") {
			t.Errorf("g-old in bia's history: first seat %v", s)
		}
	}
	rec, err := l.grpc.GetGame(grpcFrom(ctx, web, bia.GetToken()), &lobbyv1.GetGameRequest{GameId: "g-old"})
	if err != nil || rec.GetRecord().GetSummary().GetParticipants()[0].GetUsername() != "Ana_B" {
		t.Errorf("g-old's record: %v, %v", rec, err)
	}

	// Refusals.
	for _, user := range []string{"nobody_here", "Bia", "a\u0000b"} {
		_, err := getProfile(user, 0)
		wantReason(t, "profile of "+user, err, codes.NotFound, reason.NotFound)
	}
	_, err = getProfile("", 0)
	wantReason(t, "an empty username", err, codes.InvalidArgument, reason.InvalidRequest)
	_, err = getProfile(string(make([]byte, 200)), 0)
	wantReason(t, "a too long username", err, codes.InvalidArgument, reason.InvalidRequest)
	for _, n := range []int32{-1, 51} {
		_, err = getProfile("Ana_B", n)
		wantReason(t, fmt.Sprint(n, " recent games"), err, codes.InvalidArgument, reason.InvalidRequest)
	}

	// A deleted account has no profile.
	if _, err := l.grpc.DeleteAccount(grpcFrom(ctx, web, claim.GetToken()), &lobbyv1.DeleteAccountRequest{Password: "tabuleiro é bom"}); err != nil {
		t.Fatal(err)
	}
	_, err = getProfile("Ana_B", 0)
	wantReason(t, "a deleted account's profile", err, codes.NotFound, reason.NotFound)
}

// An account is shown by its username: the token ClaimAccount returns
// (and a sign-in's) names it so, the rooms it opens show it, and it has
// no display name to change.
func TestAccountShownByUsername(t *testing.T) {
	t.Parallel()
	l := newAccountsLobby(t)
	ctx := t.Context()
	const web = "198.51.100.10"
	ana, err := l.grpc.SignInGuest(grpcFrom(ctx, web, ""), &lobbyv1.SignInGuestRequest{DisplayName: "Ana"})
	if err != nil {
		t.Fatal(err)
	}
	claim, err := l.grpc.ClaimAccount(grpcFrom(ctx, web, ana.GetToken()), &lobbyv1.ClaimAccountRequest{Username: "Ana_B", Password: "tabuleiro é bom"})
	if err != nil {
		t.Fatal(err)
	}
	in, err := l.grpc.SignIn(grpcFrom(ctx, web, ""), &lobbyv1.SignInRequest{Username: "ana_b", Password: "tabuleiro é bom"})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := l.grpc.RefreshToken(grpcFrom(ctx, web, ""), &lobbyv1.RefreshTokenRequest{RefreshToken: in.GetRefreshToken()})
	if err != nil {
		t.Fatal(err)
	}
	for what, tok := range map[string]string{"claimed": claim.GetToken(), "signed in": in.GetToken(), "refreshed": ref.GetToken()} {
		r, err := l.grpc.CreateRoom(grpcFrom(ctx, web, tok), &lobbyv1.CreateRoomRequest{Game: gamev1.Game_GAME_QUORIDOR, Variant: "standard",
			Visibility: lobbyv1.RoomVisibility_ROOM_VISIBILITY_PUBLIC})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if m := r.GetRoom().GetMembers()[0]; m.GetDisplayName() != "Ana_B" {
			t.Errorf("%s token: the room's host is %q, want the username", what, m.GetDisplayName())
		}
		if _, err := l.grpc.LeaveRoom(grpcFrom(ctx, web, tok), &lobbyv1.LeaveRoomRequest{RoomId: r.GetRoom().GetRoomId()}); err != nil {
			t.Fatal(err)
		}
	}
	_, err = l.grpc.SetDisplayName(grpcFrom(ctx, web, claim.GetToken()), &lobbyv1.SetDisplayNameRequest{DisplayName: "Ana Maria"})
	wantReason(t, "an account renamed", err, codes.FailedPrecondition, reason.AlreadyClaimed)
	bia, _ := l.grpc.SignInGuest(grpcFrom(ctx, web, ""), &lobbyv1.SignInGuestRequest{DisplayName: "Bia"})
	if _, err := l.grpc.SetDisplayName(grpcFrom(ctx, web, bia.GetToken()), &lobbyv1.SetDisplayNameRequest{DisplayName: "Bia Maria"}); err != nil {
		t.Errorf("a guest renamed: %v", err)
	}
}

// GetProfile is a public read limited per client address: past the
// burst an address gets RESOURCE_EXHAUSTED (RATE_LIMITED), another
// address does not.
func TestGetProfileRateLimited(t *testing.T) {
	t.Parallel()
	l := newConfiguredLobby(t, func(c *Config) {
		c.Unlimited = false
		c.Limits.Profile = ratelimit.Rule{What: "profile lookups", Rate: 2, Burst: 2, Period: time.Hour}
	})
	get := func(addr string) error {
		_, err := call[lobbyv1.GetProfileRequest, lobbyv1.GetProfileResponse](l, lobbyv1.LobbyService_GetProfile_FullMethodName, addr, "",
			&lobbyv1.GetProfileRequest{Username: "nobody_here"})
		return err
	}
	for i := range 2 {
		wantReason(t, fmt.Sprint("lookup ", i+1), get("198.51.100.10"), codes.NotFound, reason.NotFound)
	}
	wantReason(t, "lookup 3", get("198.51.100.10"), codes.ResourceExhausted, reason.RateLimited)
	wantReason(t, "another address", get("203.0.113.20"), codes.NotFound, reason.NotFound)
}
