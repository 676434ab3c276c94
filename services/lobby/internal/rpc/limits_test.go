package rpc

import (
	"context"
	"net"
	"net/netip"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/ratelimit"
	"tabuleiro.dev/services/lobby/internal/glicko"
	"tabuleiro.dev/services/lobby/internal/sqlstore"
	"tabuleiro.dev/services/lobby/internal/testenv"
)

func from(ctx context.Context, ip string) context.Context {
	return peer.NewContext(ctx, &peer.Peer{Addr: &net.TCPAddr{IP: net.ParseIP(ip), Port: 4000}})
}

func wantExhausted(t *testing.T, what string, err error) {
	t.Helper()
	if status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("%s: %v, want ResourceExhausted", what, err)
	}
	if d, ok := ratelimit.RetryDelay(err); !ok || d <= 0 {
		t.Fatalf("%s: retry delay %v (%v), want one", what, d, ok)
	}
}

// Guest sign-ins, room creation and invite lookups are limited per client
// address, with RESOURCE_EXHAUSTED and a retry delay; another address is
// not affected, and a refused sign-in creates no player.
func TestPerAddressLimits(t *testing.T) {
	t.Parallel()
	s, _ := newServer(t)
	rdb, prefix := testenv.Redis(t)
	db := testenv.SQLite(t)
	s.d.Store = sqlstore.NewSQLite(db, glicko.Default(), nil)
	key, _ := auth.GenerateKey()
	s.d.Issuer, _ = auth.NewIssuer(key)
	s.d.Limiter = ratelimit.New(rdb, prefix)
	rule := func(what string) ratelimit.Rule {
		return ratelimit.Rule{What: what, Rate: 3, Burst: 3, Period: time.Hour}
	}
	s.d.Limits = Limits{SignIn: rule("guest sign-ins"), CreateRoom: rule("rooms created"), InviteLookup: rule("invite code lookups")}
	ctx := t.Context()
	players := func() int {
		var n int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM players`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for i := range 3 {
		if _, err := s.SignInGuest(from(ctx, "198.51.100.1"), &lobbyv1.SignInGuestRequest{DisplayName: "Ana"}); err != nil {
			t.Fatalf("sign-in %d: %v", i+1, err)
		}
	}
	_, err := s.SignInGuest(from(ctx, "198.51.100.1"), &lobbyv1.SignInGuestRequest{DisplayName: "Ana"})
	wantExhausted(t, "fourth sign-in", err)
	if n := players(); n != 3 {
		t.Fatalf("%d players after a refused sign-in, want 3", n)
	}
	if _, err := s.SignInGuest(from(ctx, "198.51.100.2"), &lobbyv1.SignInGuestRequest{DisplayName: "Bo"}); err != nil {
		t.Fatalf("sign-in from another address: %v", err)
	}

	// Rooms: three hosts from one address (under the per-host cap of 5).
	for i, host := range []string{"p_a", "p_b", "p_c"} {
		if _, err := s.CreateRoom(from(as(ctx, host), "198.51.100.1"), &lobbyv1.CreateRoomRequest{Game: gamev1.Game_GAME_QUORIDOR,
			Visibility: lobbyv1.RoomVisibility_ROOM_VISIBILITY_PUBLIC}); err != nil {
			t.Fatalf("room %d: %v", i+1, err)
		}
	}
	_, err = s.CreateRoom(from(as(ctx, "p_d"), "198.51.100.1"), &lobbyv1.CreateRoomRequest{Game: gamev1.Game_GAME_QUORIDOR,
		Visibility: lobbyv1.RoomVisibility_ROOM_VISIBILITY_PUBLIC})
	wantExhausted(t, "fourth room from one address", err)

	// Invite lookups: guessing codes.
	for i := range 3 {
		_, err := s.JoinRoom(from(as(ctx, "p_x"), "198.51.100.1"), &lobbyv1.JoinRoomRequest{Target: &lobbyv1.JoinRoomRequest_InviteCode{InviteCode: "ZZZZZZZZ"}})
		if status.Code(err) != codes.NotFound {
			t.Fatalf("lookup %d: %v, want NotFound", i+1, err)
		}
	}
	_, err = s.JoinRoom(from(as(ctx, "p_x"), "198.51.100.1"), &lobbyv1.JoinRoomRequest{Target: &lobbyv1.JoinRoomRequest_InviteCode{InviteCode: "ZZZZZZZZ"}})
	wantExhausted(t, "fourth invite lookup", err)
	_, err = s.GetInvite(from(ctx, "198.51.100.1"), &lobbyv1.GetInviteRequest{InviteCode: "ZZZZZZZZ"})
	wantExhausted(t, "an invite read after the lookups, signed out", err)
	if _, err := s.GetInvite(from(ctx, "198.51.100.2"), &lobbyv1.GetInviteRequest{InviteCode: "ZZZZZZZZ"}); status.Code(err) != codes.NotFound {
		t.Fatalf("an invite read from another address: %v, want NotFound", err)
	}
}

// A player's open lobby streams are capped: past the cap a stream is
// refused with RESOURCE_EXHAUSTED before it does anything.
func TestStreamCap(t *testing.T) {
	t.Parallel()
	s, _ := newServer(t)
	rdb, prefix := testenv.Redis(t)
	s.d.Streams = ratelimit.NewStreams(rdb, prefix, "lobby streams", 2)
	ctx := as(t.Context(), "p_a")
	var rels []func()
	for range 2 {
		rel, err := s.d.Streams.Acquire(ctx, "p_a")
		if err != nil {
			t.Fatal(err)
		}
		rels = append(rels, rel)
	}
	st := &findStream{ctx: ctx}
	err := s.FindMatch(&lobbyv1.FindMatchRequest{Game: gamev1.Game_GAME_BANQI}, st)
	if status.Code(err) != codes.ResourceExhausted || len(st.sent) != 0 {
		t.Fatalf("FindMatch over the stream cap: %v, sent %v", err, st.sent)
	}
	rels[0]()
	_ = s.FindMatch(&lobbyv1.FindMatchRequest{Game: gamev1.Game_GAME_BANQI}, st)
	if len(st.sent) != 1 || st.sent[0].GetQueued() == nil {
		t.Fatalf("FindMatch after a stream closed: sent %v", st.sent)
	}
}

// Where several live matches per player are allowed, a player's live bot
// games are capped.
func TestBotGameCap(t *testing.T) {
	t.Parallel()
	s, m := newServer(t)
	bot := func(id string) *matchv1.MatchSummary {
		return &matchv1.MatchSummary{MatchId: id, Seats: []*gamev1.Participant{{PlayerId: "p_a"}, {BotLevel: gamev1.BotLevel_BOT_LEVEL_EXPERT}}}
	}
	s.d.Live = fakeLive{bot("m1"), bot("m2"), liveMatch("m3", false, 0)}
	s.d.MaxBotMatches = 2
	_, err := s.PlayBot(as(t.Context(), "p_a"), &lobbyv1.PlayBotRequest{Game: gamev1.Game_GAME_QUORIDOR, Level: gamev1.BotLevel_BOT_LEVEL_EXPERT})
	if status.Code(err) != codes.ResourceExhausted || m.Calls() != 0 {
		t.Fatalf("third live bot game: %v (%d matches created), want ResourceExhausted and none", err, m.Calls())
	}
	s.d.MaxBotMatches = 3
	if _, err := s.PlayBot(as(t.Context(), "p_a"), &lobbyv1.PlayBotRequest{Game: gamev1.Game_GAME_QUORIDOR, Level: gamev1.BotLevel_BOT_LEVEL_EXPERT}); err != nil {
		t.Fatalf("under the cap: %v", err)
	}
}

// An allow-listed address (LOBBY_RATE_LIMIT_EXEMPT: a load generator's)
// signs in past the per-address rate; every other address keeps it.
func TestRateLimitExempt(t *testing.T) {
	t.Parallel()
	s, _ := newServer(t)
	rdb, prefix := testenv.Redis(t)
	s.d.Store = sqlstore.NewSQLite(testenv.SQLite(t), glicko.Default(), nil)
	key, _ := auth.GenerateKey()
	s.d.Issuer, _ = auth.NewIssuer(key)
	s.d.Limiter = ratelimit.New(rdb, prefix)
	s.d.Limits = Limits{SignIn: ratelimit.Rule{What: "guest sign-ins", Rate: 2, Burst: 2, Period: time.Hour}}
	s.d.Exempt = []netip.Prefix{netip.MustParsePrefix("203.0.113.0/28"), netip.MustParsePrefix("2001:db8:1::/48")}
	ctx := t.Context()
	for _, ip := range []string{"203.0.113.9", "2001:db8:1:2::7"} {
		for i := range 10 {
			if _, err := s.SignInGuest(from(ctx, ip), &lobbyv1.SignInGuestRequest{DisplayName: "Load"}); err != nil {
				t.Fatalf("allow-listed %s, sign-in %d: %v", ip, i+1, err)
			}
		}
	}
	for i := range 2 {
		if _, err := s.SignInGuest(from(ctx, "203.0.113.200"), &lobbyv1.SignInGuestRequest{DisplayName: "Ana"}); err != nil {
			t.Fatalf("sign-in %d: %v", i+1, err)
		}
	}
	_, err := s.SignInGuest(from(ctx, "203.0.113.200"), &lobbyv1.SignInGuestRequest{DisplayName: "Ana"})
	wantExhausted(t, "third sign-in from an address not listed", err)
}
