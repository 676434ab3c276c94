package scaletest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"tabuleiro.dev/cmd/tabuleiro/internal/client"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
)

// The lobby's matchmaking keys in Redis: lobbyserver's default prefix and
// the matchmaker's hash tags, one per queue and one per player
// (services/lobby/internal/matchmaking/scripts.go).
const lobbyPrefix = "tabuleiro:lobby:"

// queueKey is one of a queue's keys ("t", "q").
func queueKey(queue, what string) string { return lobbyPrefix + "{mmq:" + queue + "}:" + what }

// resultKey is where a ticket's result is kept.
func resultKey(player, ticket string) string {
	return lobbyPrefix + "{mmp:" + player + "}:res:" + ticket
}

// ticketTTL is the lobbies' ticket TTL here: longer than any wait of the
// test, so that a dead ticket stays pairable until its opponent comes
// however slow the machine; the test ages the tickets it wants expired.
const ticketTTL = time.Hour

// finding is one FindMatch stream.
type finding struct {
	player client.Player
	lobby  int
	base   int64 // the queue's clock: one queue per base
	queued chan struct{}
	done   chan struct{}

	// set before queued / done close
	ticket  string
	matched *lobbyv1.Matched
	err     error
}

// findMatch opens a FindMatch stream for p on lc in the queue of clock
// base and follows it until it is matched or fails.
func findMatch(ctx context.Context, lc *client.Client, lobby int, p client.Player, base int64) *finding {
	f := &finding{player: p, lobby: lobby, base: base, queued: make(chan struct{}), done: make(chan struct{})}
	go func() { // ends with the stream, which ctx (the test's) bounds
		defer close(f.done)
		queued := false
		defer func() {
			if !queued {
				close(f.queued)
			}
		}()
		s, err := lc.Lobby.FindMatch(p.Context(ctx), &lobbyv1.FindMatchRequest{Game: gamev1.Game_GAME_QUORIDOR,
			Variant: "standard", TimeControl: &gamev1.TimeControl{BaseMs: base}})
		for err == nil {
			var m *lobbyv1.FindMatchResponse
			if m, err = s.Recv(); err != nil {
				break
			}
			if q := m.GetQueued(); q != nil && !queued {
				f.ticket, queued = q.GetTicketId(), true
				close(f.queued)
			}
			if mt := m.GetMatched(); mt != nil {
				f.matched = mt
				return
			}
		}
		f.err = err
	}()
	return f
}

// await waits for ch to close, until the test's time runs out (Deadline):
// a busy machine may take its time.
func await(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	start := time.Now()
	select {
	case <-ch:
	case <-time.After(time.Until(Deadline(t))):
		t.Fatalf("%s: not after %v, when the test's time ran out", what, time.Since(start).Round(time.Millisecond))
	}
}

// TestFaultLobbyKilled: a lobby instance is killed (kill -9) while players
// wait in queues with FindMatch streams open on it. Their tickets live in
// Redis, so the other instance's pairing waves go on serving them:
//   - players whose stream died and who queue again on the other instance
//     replace their old ticket (same player, same queue) and get matched;
//   - a dead ticket whose owner does not come back is paired by the other
//     instance when an opponent turns up before it expires (the opponent
//     gets a normal match), or
//   - expires after the ticket TTL when nobody turns up (the test ages
//     those tickets: the TTL is an hour, so that the others cannot lapse
//     before their opponents come however slow the machine is);
//   - players queued on the surviving instance are unaffected and are
//     matched with opponents queued on the restarted instance.
//
// Every pairing is checked: no ticket matched twice, no player in two
// matches, every match has the two players who were told of it.
func TestFaultLobbyKilled(t *testing.T) {
	if testing.Short() {
		return
	}
	const n = 20 // players per group
	c := Start(t, Options{Lobbies: 2, Matches: 1, LobbyEnv: []string{"LOBBY_TICKET_TTL=" + ticketTTL.String()}})
	var lcs []*client.Client
	for _, a := range c.LobbyAddrs {
		lc, err := client.Dial(a)
		if err != nil {
			t.Fatal(err)
		}
		defer lc.Close()
		lcs = append(lcs, lc)
	}
	ctx := t.Context()
	signIn := func(name string) client.Player {
		p, err := lcs[1].SignIn(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Groups, each player alone in its own queue (distinct clocks) so
	// nothing pairs before the kill: A requeue, B ghost-paired, C expire
	// (all on lobby 0, which dies), D on lobby 1 (survives).
	base := func(group, i int) int64 { return 60_000 + int64(group*n+i)*1000 }
	var all []*finding
	var mu sync.Mutex
	start := func(lobby int, p client.Player, b int64) *finding {
		f := findMatch(ctx, lcs[lobby], lobby, p, b)
		mu.Lock()
		all = append(all, f)
		mu.Unlock()
		return f
	}
	groups := make([][]*finding, 4)
	for g, name := range []string{"requeue", "ghost", "expire", "survivor"} {
		lobby := 0
		if g == 3 {
			lobby = 1
		}
		for i := range n {
			groups[g] = append(groups[g], start(lobby, signIn(fmt.Sprintf("%s-%d", name, i)), base(g, i)))
		}
	}
	for _, gr := range groups {
		for _, f := range gr {
			await(t, f.queued, "queued")
			if f.ticket == "" {
				t.Fatalf("%s: no ticket: %v", f.player.Name, f.err)
			}
		}
	}
	for _, f := range all {
		select {
		case <-f.done:
			t.Fatalf("%s: stream ended before the kill: matched %v, %v", f.player.Name, f.matched, f.err)
		default:
		}
	}

	c.Lobby[0].Kill()
	killed := time.Now()
	t.Logf("killed %s with %d players queued on it", c.Lobby[0].Name, 3*n)
	// C: the tickets nobody will come back for reach their expiry now, as
	// if the TTL had passed (nobody heartbeats them any more).
	for _, f := range groups[2] {
		age(t, c.RDB(), f)
	}
	for _, gr := range groups[:3] {
		for _, f := range gr {
			await(t, f.done, f.player.Name+" stream end after the kill")
			if status.Code(f.err) != codes.Unavailable || f.matched != nil {
				t.Errorf("%s: stream ended with %v (matched %v), want UNAVAILABLE", f.player.Name, f.err, f.matched)
			}
		}
	}

	// B: opponents turn up on lobby 1 while the dead tickets live.
	ghostPartner := make([]*finding, n)
	for i := range n {
		ghostPartner[i] = start(1, signIn(fmt.Sprintf("ghost-opp-%d", i)), base(1, i))
	}
	// A: the players whose stream died queue again on lobby 1, then
	// opponents join them there.
	requeued := make([]*finding, n)
	for i, old := range groups[0] {
		requeued[i] = start(1, old.player, old.base)
	}
	for i, f := range requeued {
		await(t, f.queued, "requeued")
		if f.ticket == "" || f.ticket == groups[0][i].ticket {
			t.Fatalf("%s requeued: ticket %q (old %q), %v", f.player.Name, f.ticket, groups[0][i].ticket, f.err)
		}
	}
	requeuePartner := make([]*finding, n)
	for i := range n {
		requeuePartner[i] = start(1, signIn(fmt.Sprintf("requeue-opp-%d", i)), base(0, i))
	}
	// D: lobby 0 comes back; opponents of the survivors queue on it.
	t0 := time.Now()
	c.Restart(c.Lobby[0])
	t.Logf("%s back in %v", c.Lobby[0].Name, time.Since(t0).Round(time.Millisecond))
	survivorPartner := make([]*finding, n)
	for i := range n {
		survivorPartner[i] = start(0, signIn(fmt.Sprintf("survivor-opp-%d", i)), base(3, i))
	}

	pairedWith := func(what string, a, b *finding) {
		t.Helper()
		if a.matched == nil || b.matched == nil {
			t.Errorf("%s: %s matched %v (%v), %s matched %v (%v)", what, a.player.Name, a.matched, a.err, b.player.Name, b.matched, b.err)
			return
		}
		if a.matched.GetMatchId() != b.matched.GetMatchId() || a.matched.GetOpponent().GetPlayerId() != b.player.ID ||
			b.matched.GetOpponent().GetPlayerId() != a.player.ID || a.matched.GetYourSeat() == b.matched.GetYourSeat() {
			t.Errorf("%s: %s got %v, %s got %v", what, a.player.Name, a.matched, b.player.Name, b.matched)
		}
	}
	for i := range n {
		for _, f := range []*finding{requeued[i], requeuePartner[i], survivorPartner[i], groups[3][i], ghostPartner[i]} {
			await(t, f.done, f.player.Name+" matched")
		}
		pairedWith("requeued", requeued[i], requeuePartner[i])
		pairedWith("survivor", groups[3][i], survivorPartner[i])
	}

	// What Redis says of the dead instance's tickets.
	rdb := c.RDB()
	result := func(f *finding) string {
		v, err := rdb.Get(ctx, resultKey(f.player.ID, f.ticket)).Result()
		if err != nil {
			return "none: " + err.Error()
		}
		return v
	}
	var served int
	for i, f := range ghostPartner {
		ghost := groups[1][i]
		if f.matched == nil {
			t.Errorf("%s: not matched: %v", f.player.Name, f.err)
			continue
		}
		if f.matched.GetOpponent().GetPlayerId() != ghost.player.ID {
			t.Errorf("%s: matched with %v, want the dead ticket's owner %s", f.player.Name, f.matched.GetOpponent(), ghost.player.ID)
		}
		// The dead ticket's result: matched to the same match, once.
		v := result(ghost)
		var m struct {
			MatchID string `json:"match_id"`
		}
		if !strings.HasPrefix(v, "matched|") || json.Unmarshal([]byte(v[len("matched|"):]), &m) != nil || m.MatchID != f.matched.GetMatchId() {
			t.Errorf("dead ticket %s of %s: result %q, want matched to %s", ghost.ticket, ghost.player.Name, v, f.matched.GetMatchId())
			continue
		}
		served++
	}
	for _, f := range groups[0] {
		if v := result(f); v != "replaced" {
			t.Errorf("dead ticket %s of %s, requeued: result %q, want replaced", f.ticket, f.player.Name, v)
		}
	}
	// C: the tickets nobody came back for expire.
	deadline := Deadline(t)
	expired := 0
	for _, f := range groups[2] {
		for {
			v := result(f)
			if v == "expired" {
				expired++
				break
			}
			if strings.HasPrefix(v, "matched") || strings.HasPrefix(v, "paired") || time.Now().After(deadline) {
				t.Errorf("dead ticket %s of %s: result %q %v after the kill, want expired", f.ticket, f.player.Name, v, time.Since(killed).Round(time.Millisecond))
				break
			}
			poll(200 * time.Millisecond)
		}
		q := fmt.Sprintf("quoridor/standard/%d+0/casual", f.base)
		if k, err := rdb.ZCard(ctx, queueKey(q, "q")).Result(); err != nil || k != 0 {
			t.Errorf("queue %s: %d tickets left (%v), want 0", q, k, err)
		}
	}
	t.Logf("dead tickets: %d replaced by a requeue and matched, %d paired by the surviving instance, %d expired %v after the kill",
		n, served, expired, time.Since(killed).Round(time.Millisecond))

	// Every pairing told to a client (the ghosts' from Redis): no ticket
	// twice, no player in two matches, two players per match.
	mu.Lock()
	defer mu.Unlock()
	type seat struct{ player, opponent, ticket string }
	byMatch := map[string][]seat{}
	for i, f := range ghostPartner {
		if f.matched != nil {
			byMatch[f.matched.GetMatchId()] = append(byMatch[f.matched.GetMatchId()], seat{groups[1][i].player.ID, f.player.ID, groups[1][i].ticket})
		}
	}
	pairings := 0
	for _, f := range all {
		if f.matched != nil {
			pairings++
			byMatch[f.matched.GetMatchId()] = append(byMatch[f.matched.GetMatchId()], seat{f.player.ID, f.matched.GetOpponent().GetPlayerId(), f.ticket})
		}
	}
	tickets, players := map[string]string{}, map[string]string{}
	for id, seats := range byMatch {
		if len(seats) != 2 || seats[0].player == seats[1].player || seats[0].opponent != seats[1].player || seats[1].opponent != seats[0].player {
			t.Errorf("match %s: seats %+v", id, seats)
		}
		for _, s := range seats {
			if m, ok := tickets[s.ticket]; ok {
				t.Errorf("ticket %s matched twice: %s and %s", s.ticket, m, id)
			}
			if m, ok := players[s.player]; ok {
				t.Errorf("player %s in two matches: %s and %s", s.player, m, id)
			}
			tickets[s.ticket], players[s.player] = id, id
		}
	}
	t.Logf("%d matches checked (%d pairings told to clients): no ticket or player paired twice", len(byMatch), pairings)
	if want := 3 * n; len(byMatch) != want {
		t.Errorf("%d matches, want %d", len(byMatch), want)
	}
}

// ageScript sets a queued ticket's expiry (the third field of its value,
// "id|enqueued ms|expires ms|name") to 1 ms after the epoch, if the ticket
// is still there. KEYS: the queue's ticket hash; ARGV: player, ticket id.
var ageScript = redis.NewScript(`
local v = redis.call('HGET', KEYS[1], ARGV[1])
if not v then return 0 end
local id, enq, rest = string.match(v, '^([^|]*)|([^|]*)|[^|]*|(.*)$')
if id ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], id .. '|' .. enq .. '|1|' .. rest)
return 1
`)

// age makes f's dead ticket expired, as the TTL passing would.
func age(t *testing.T, rdb redis.UniversalClient, f *finding) {
	t.Helper()
	q := fmt.Sprintf("quoridor/standard/%d+0/casual", f.base)
	n, err := ageScript.Run(t.Context(), rdb, []string{queueKey(q, "t")}, f.player.ID, f.ticket).Int()
	if err != nil || n != 1 {
		t.Fatalf("age ticket %s of %s: %d, %v (want the ticket still queued)", f.ticket, f.player.Name, n, err)
	}
}
