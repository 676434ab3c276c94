package matchserver_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/redisstore"
	"tabuleiro.dev/services/match/internal/testenv"
)

// TestListMatches: the live-match index lists live matches with ply
// counts, seats and spectators, filters by player, is service-only, and
// forgets a match when it ends.
func TestListMatches(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 2, match.Config{}, nil)
	rating := int32(1612)
	first := &matchv1.SeatSpec{Occupant: &matchv1.SeatSpec_Player{Player: &matchv1.PlayerSeat{PlayerId: "alice", DisplayName: "Alice", Rating: &rating, Username: "Alice"}}}
	a := c.create(&matchv1.CreateMatchRequest{Game: gamev1.Game_GAME_QUORIDOR, First: first})
	b := c.create(&matchv1.CreateMatchRequest{Game: gamev1.Game_GAME_CORNERS, Variant: "classic-3x3", First: playerSeat("carol"), Second: playerSeat("dave")})
	alice := c.play(0, "alice", a, 0)
	alice.submit(1, "e2")
	alice.until("ply 1", hasPly(1))
	watcher := c.watch(1, a)
	watcher.until("snapshot", func(m any) bool { return snapshot(m) != nil })

	lobby := c.as(t.Context(), "lobby")
	list := func(player string) []*matchv1.MatchSummary {
		t.Helper()
		resp, err := c.client(1).ListMatches(lobby, &matchv1.ListMatchesRequest{PlayerId: player})
		if err != nil {
			t.Fatalf("list matches: %v", err)
		}
		return resp.GetMatches()
	}
	ids := func(ms []*matchv1.MatchSummary) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.GetMatchId())
		}
		slices.Sort(out)
		return out
	}
	want := []string{a, b}
	slices.Sort(want)
	if got := ids(list("")); !slices.Equal(got, want) {
		t.Fatalf("live matches %v, want %v", got, want)
	}
	if got := ids(list("alice")); !slices.Equal(got, []string{a}) {
		t.Fatalf("alice's matches %v, want [%s]", got, a)
	}
	if got := list("nobody"); len(got) != 0 {
		t.Fatalf("nobody's matches %v, want none", got)
	}
	var sa *matchv1.MatchSummary
	for _, m := range list("") {
		if m.GetMatchId() == a {
			sa = m
		}
	}
	if sa.GetPlyCount() != 1 || sa.GetSpectators() != 1 || sa.GetGame() != gamev1.Game_GAME_QUORIDOR ||
		sa.GetSeats()[0].GetDisplayName() != "Alice" || sa.GetSeats()[0].GetRating() != rating || sa.GetSeats()[0].GetUsername() != "Alice" ||
		sa.GetSeats()[1].GetUsername() != "" ||
		sa.GetSeats()[1].GetPlayerId() != "bob" || sa.GetStatus() != matchv1.MatchStatus_MATCH_STATUS_IN_PROGRESS ||
		sa.GetStartedAt() == nil || sa.GetCreatedAt() == nil {
		t.Fatalf("summary of %s = %v", a, sa)
	}
	if _, err := c.client(0).ListMatches(c.as(t.Context(), "alice"), &matchv1.ListMatchesRequest{}); status.Code(err) != codes.PermissionDenied {
		t.Fatalf("a player listing: %v, want PermissionDenied", err)
	}
	if _, err := c.client(0).ListMatches(lobby, &matchv1.ListMatchesRequest{Limit: 501}); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("limit 501: %v, want InvalidArgument", err)
	}
	got, err := c.client(0).GetMatch(c.as(t.Context(), "bob"), &matchv1.GetMatchRequest{MatchId: a})
	if err != nil || got.GetMatch().GetSpectators() != 1 {
		t.Fatalf("GetMatch spectators = %d (%v), want 1", got.GetMatch().GetSpectators(), err)
	}

	watcher.cancel()
	testenv.Eventually(t, 5*time.Second, "the spectator to be gone", func() bool {
		for _, m := range list("") {
			if m.GetMatchId() == a {
				return m.GetSpectators() == 0
			}
		}
		return false
	})
	// Asked about matches by id, the service reads those alone: the
	// lobby asks whether a player's last match has ended each time they
	// queue again, and every shard of the index would cost a read each.
	listIDs := func(player string, want codes.Code, matchIDs ...string) []string {
		t.Helper()
		resp, err := c.client(0).ListMatches(lobby, &matchv1.ListMatchesRequest{PlayerId: player, MatchIds: matchIDs})
		if status.Code(err) != want {
			t.Fatalf("list %q among %d ids: %v, want %v", player, len(matchIDs), err, want)
		}
		return ids(resp.GetMatches())
	}
	if got := listIDs("alice", codes.OK, a, b, a); !slices.Equal(got, []string{a}) {
		t.Fatalf("alice's among [%s %s]: %v, want [%s]", a, b, got, a)
	}
	if got := listIDs("", codes.OK, b, "nope"); !slices.Equal(got, []string{b}) {
		t.Fatalf("live among [%s nope]: %v, want [%s]", b, got, b)
	}
	listIDs("", codes.InvalidArgument, a, "")
	listIDs("", codes.InvalidArgument, "a b")
	listIDs("", codes.InvalidArgument, slices.Repeat([]string{a}, match.MaxListIDs+1)...)
	counted := &commandCounter{}
	hooked := redisClientLike(t, c.rdb)
	hooked.AddHook(counted)
	byID := redisstore.New(hooked, redisstore.Options{Prefix: c.prefix})
	sums, err := byID.Live(t.Context(), "alice", 10, time.Now().UnixMilli(), a)
	if err != nil || len(sums) != 1 || sums[0].ID != a {
		t.Fatalf("store's Live of alice among [%s]: %v (%v)", a, sums, err)
	}
	if n := counted.total(); n > 3 {
		t.Fatalf("Live of one match id sent %d commands (%v), want its 3 reads", n, counted.names())
	}

	alice.act(&matchv1.PlayRequest{Action: &matchv1.PlayRequest_Resign{Resign: &matchv1.Resign{}}})
	alice.ended()
	if got := listIDs("alice", codes.OK, a); len(got) != 0 {
		t.Fatalf("alice's among [%s] after it ended: %v", a, got)
	}
	if got := ids(list("")); !slices.Equal(got, []string{b}) {
		t.Fatalf("live matches after %s ended: %v, want [%s]", a, got, b)
	}
	if got := list("alice"); len(got) != 0 {
		t.Fatalf("alice's matches after the end: %v", got)
	}
	store := redisstore.New(c.rdb, redisstore.Options{Prefix: c.prefix})
	for _, k := range append(store.PlayerKeys("alice"), store.PlayerKeys("bob")...) {
		if n, err := c.rdb.Exists(t.Context(), k).Result(); err != nil || n != 0 {
			t.Fatalf("players' live-match key %s left: %d (%v)", k, n, err)
		}
	}
}

// commandCounter is a go-redis hook that counts the commands sent but a
// new connection's handshake (HELLO, CLIENT SETINFO).
type commandCounter struct {
	mu   sync.Mutex
	sent []string
}

func (h *commandCounter) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *commandCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.add(cmd)
		return next(ctx, cmd)
	}
}

func (h *commandCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.add(cmds...)
		return next(ctx, cmds)
	}
}

func (h *commandCounter) add(cmds ...redis.Cmder) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, c := range cmds {
		if n := c.Name(); n == "hello" || n == "client" {
			continue
		}
		h.sent = append(h.sent, c.Name())
	}
}

func (h *commandCounter) total() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sent)
}

func (h *commandCounter) names() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.sent)
}

// redisClientLike returns a new client to the Redis rdb talks to (a
// server or a cluster), closed when the test ends.
func redisClientLike(t *testing.T, rdb redis.UniversalClient) redis.UniversalClient {
	t.Helper()
	var c redis.UniversalClient
	switch r := rdb.(type) {
	case *redis.Client:
		c = redis.NewClient(r.Options())
	case *redis.ClusterClient:
		c = redis.NewClusterClient(r.Options())
	default:
		t.Fatalf("unexpected Redis client %T", rdb)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
