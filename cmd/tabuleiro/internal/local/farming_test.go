package local

import (
	"context"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/testenv"
)

// The rating farm of issue 43, on real Redis and PostgreSQL behind a
// trusted proxy on this host: one player beats 8 fresh guests in rated
// rooms, each guest resigning at once (two with no ply played, two after
// the first ply, four after one ply each). The first four games
// end aborted (a side never moved), the others change no rating (the
// guests are new identities); the farmer gains nothing (at most 10 points
// allowed), and GetStats and the history say why. Before, every one of
// those games was rated: 1500 -> 1959 after eight.
func TestRatingFarmGainsNothing(t *testing.T) {
	t.Parallel()
	_, prefix := testenv.Redis(t, "local")
	ctx, cancel := context.WithCancel(t.Context())
	srv, err := Start(ctx, Options{DataDir: t.TempDir(), RedisURL: testenv.RedisURL(t), DatabaseURL: testenv.PostgresDSN(t),
		KeyPrefix: prefix, TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	defer func() {
		cancel()
		_ = srv.Wait()
	}()
	conn, err := grpc.NewClient(srv.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	lobby, match := lobbyv1.NewLobbyServiceClient(conn), matchv1.NewMatchServiceClient(conn)
	// as is a call from the client address addr (named by the proxy) with
	// token.
	as := func(addr, token string) context.Context {
		md := metadata.Pairs("x-forwarded-for", addr)
		if token != "" {
			md.Set("authorization", "Bearer "+token)
		}
		return metadata.NewOutgoingContext(t.Context(), md)
	}
	signIn := func(addr, name string) (id, token string) {
		t.Helper()
		res, err := lobby.SignInGuest(as(addr, ""), &lobbyv1.SignInGuestRequest{DisplayName: name})
		if err != nil {
			t.Fatalf("sign in %s: %v", name, err)
		}
		return res.GetPlayerId(), res.GetToken()
	}
	farmerID, farmer := signIn("198.51.100.1", "Farmer")
	farmerAt := as("198.51.100.1", farmer)
	ply := func(who context.Context, id string, n int32, notation string) {
		t.Helper()
		if _, err := match.SubmitPly(who, &matchv1.SubmitPlyRequest{MatchId: id, PlyNumber: n, Notation: notation}); err != nil {
			t.Fatalf("ply %d %s: %v", n, notation, err)
		}
	}
	for i := range 8 {
		addr := fmt.Sprintf("203.0.113.%d", 10+i)
		_, guest := signIn(addr, fmt.Sprintf("Guest%d", i))
		guestAt := as(addr, guest)
		room, err := lobby.CreateRoom(farmerAt, &lobbyv1.CreateRoomRequest{Game: gamev1.Game_GAME_QUORIDOR, Variant: "standard",
			Rated: true, Visibility: lobbyv1.RoomVisibility_ROOM_VISIBILITY_PUBLIC, HostSeat: gamev1.Seat_SEAT_FIRST,
			TimeControl: &gamev1.TimeControl{BaseMs: 180_000}})
		if err != nil {
			t.Fatalf("create room %d: %v", i, err)
		}
		joined, err := lobby.JoinRoom(guestAt, &lobbyv1.JoinRoomRequest{Target: &lobbyv1.JoinRoomRequest_RoomId{RoomId: room.GetRoom().GetRoomId()}})
		if err != nil {
			t.Fatalf("join room %d: %v", i, err)
		}
		id := joined.GetRoom().GetMatchId()
		first, second := farmerAt, guestAt
		if joined.GetYourSeat() == gamev1.Seat_SEAT_FIRST {
			first, second = guestAt, farmerAt
		}
		switch {
		case i < 2: // resigns with no ply played
		case i < 4: // after the first ply
			ply(first, id, 1, "e2")
		default: // after a ply each
			ply(first, id, 1, "e2")
			ply(second, id, 2, "e8")
		}
		if _, err := match.Resign(guestAt, &matchv1.ResignRequest{MatchId: id}); err != nil {
			t.Fatalf("resign %d: %v", i, err)
		}
	}
	var stats *lobbyv1.GetStatsResponse
	testenv.Eventually(t, 30*time.Second, "the 8 games recorded and processed", func() bool {
		stats, err = lobby.GetStats(farmerAt, &lobbyv1.GetStatsRequest{})
		if err != nil {
			t.Fatalf("stats: %v", err)
		}
		n := 0
		for _, u := range stats.GetUnratedGames() {
			n += int(u.GetGames())
		}
		return n == 8
	})
	for _, r := range stats.GetRatings() {
		if r.GetRating() > 1510 {
			t.Errorf("farmer's %s rating %.1f after farming, want at most 1510", r.GetVariant(), r.GetRating())
		}
	}
	want := map[lobbyv1.UnratedReason]int32{
		lobbyv1.UnratedReason_UNRATED_REASON_ABORTED:    4,
		lobbyv1.UnratedReason_UNRATED_REASON_NEW_PLAYER: 4,
	}
	for _, u := range stats.GetUnratedGames() {
		if want[u.GetReason()] != u.GetGames() {
			t.Errorf("unrated games %v", stats.GetUnratedGames())
		}
	}
	hist, err := lobby.ListGames(farmerAt, &lobbyv1.ListGamesRequest{PlayerId: farmerID})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range hist.GetGames() {
		wantWhy := lobbyv1.UnratedReason_UNRATED_REASON_NEW_PLAYER
		if g.GetPlyCount() < 2 {
			wantWhy = lobbyv1.UnratedReason_UNRATED_REASON_ABORTED
		}
		if g.GetUnratedReason() != wantWhy {
			t.Errorf("game of %d plies: unrated reason %v, want %v", g.GetPlyCount(), g.GetUnratedReason(), wantWhy)
		}
	}
	if len(hist.GetGames()) != 8 {
		t.Errorf("%d games in the history, want 8", len(hist.GetGames()))
	}
}
