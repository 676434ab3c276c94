package redisstore

import (
	"context"
	"crypto/rand"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	platformtestenv "tabuleiro.dev/pkg/platform/testenv"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/testenv"
)

// runHub starts a hub on its own Redis client, named name (CLIENT LIST
// shows it), and returns it with that client.
func runHub(t *testing.T, name string) (*Hub, *Store, redis.UniversalClient) {
	t.Helper()
	rdb, prefix := testenv.Redis(t)
	own := platformtestenv.OpenRedis(t, name)
	s := New(own, Options{Prefix: prefix})
	ctx, cancel := context.WithCancel(context.Background())
	h := NewHub(ctx, s, nil)
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := h.Run(ctx); err != nil {
			t.Errorf("hub: %v", err)
		}
	})
	t.Cleanup(func() { cancel(); wg.Wait() })
	return h, s, rdb
}

// publish publishes an event of match id as a commit's publication would.
func publish(t *testing.T, rdb redis.UniversalClient, s *Store, id string, seq int64) {
	t.Helper()
	b := encodeEvent(&match.Event{MatchID: id, Seq: seq, Kind: match.EventDrawOffered, Plies: 3})
	if err := s.publish(t.Context(), rdb, s.Channel(id), b).Err(); err != nil {
		t.Fatal(err)
	}
}

func next(t *testing.T, ch <-chan *match.Event) (*match.Event, bool) {
	t.Helper()
	select {
	case e, ok := <-ch:
		return e, ok
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10 s")
		return nil, false
	}
}

// A lost Pub/Sub connection is replaced and its channels subscribed again:
// the subscribers of the old one are closed (they catch up from the
// stream), and a new subscription gets what is published next.
func TestHubResubscribesAfterConnectionLoss(t *testing.T) {
	t.Parallel()
	name := "hub-" + rand.Text()
	h, s, rdb := runHub(t, name)
	ch := subscribeGets(t, h, s, rdb, "m2", 1)
	// Kill the hub's connection (only it: the Redis is shared), on the
	// server it is on (on a cluster, any of the primaries).
	servers := []redis.UniversalClient{rdb}
	if c, ok := rdb.(*redis.ClusterClient); ok {
		servers = nil
		_ = c.ForEachMaster(t.Context(), func(_ context.Context, m *redis.Client) error {
			servers = append(servers, m)
			return nil
		})
	}
	killed, list := 0, ""
	for _, srv := range servers {
		l, err := srv.ClientList(t.Context()).Result()
		if err != nil && strings.Contains(err.Error(), "unknown subcommand") {
			// The one-process mode's embedded Redis (CI's embedded step runs
			// these suites against it) has no CLIENT LIST or KILL: a dropped
			// connection is checked against a real Redis only.
			t.Skipf("this Redis cannot kill a client connection: %v", err)
		}
		if err != nil {
			t.Fatal(err)
		}
		list += l
		for _, line := range strings.Split(l, "\n") {
			if !strings.Contains(line, " name="+name+" ") || !strings.Contains(line, "cmd=subscribe") && !strings.Contains(line, " sub=1 ") &&
				!strings.Contains(line, "cmd=ssubscribe") && !strings.Contains(line, " ssub=1 ") {
				continue
			}
			for _, f := range strings.Fields(line) {
				if id, ok := strings.CutPrefix(f, "id="); ok {
					if err := srv.Do(t.Context(), "CLIENT", "KILL", "ID", id).Err(); err != nil {
						t.Fatal(err)
					}
					killed++
				}
			}
		}
	}
	if killed != 1 {
		t.Fatalf("killed %d connections named %s, want the hub's one:\n%s", killed, name, list)
	}
	for {
		if _, ok := next(t, ch); !ok {
			break // closed: the follower catches up from the stream
		}
	}
	subscribeGets(t, h, s, rdb, "m2", 2) // after the reconnection
}

// subscribeGets subscribes to match id's events, publishes event seq and
// checks that the subscription gets it; it returns the subscription.
func subscribeGets(t *testing.T, h *Hub, s *Store, rdb redis.UniversalClient, id string, seq int64) <-chan *match.Event {
	t.Helper()
	ch, cancel, err := h.Subscribe(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cancel)
	publish(t, rdb, s, id, seq)
	if e, ok := next(t, ch); !ok || e.Seq != seq {
		t.Fatalf("got %+v (open %v), want event %d", e, ok, seq)
	}
	return ch
}

// On a cluster the hub holds one sharded subscription per slot it
// follows matches in, and closes it when it follows none there any more:
// watching ids of any slot leaves no connection open. (On a single Redis
// its one connection stays.)
func TestHubClosesASlotsSubscriptionWithItsLastChannel(t *testing.T) {
	t.Parallel()
	name := "hub-" + rand.Text()
	h, s, rdb := runHub(t, name)
	cluster, ok := rdb.(*redis.ClusterClient)
	ids := []string{"a1", "b2", "c3", "d4"}
	var cancels []func()
	for i, id := range ids {
		ch, cancel, err := h.Subscribe(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		cancels = append(cancels, cancel)
		publish(t, rdb, s, id, int64(i+1))
		if e, open := next(t, ch); !open || e.Seq != int64(i+1) {
			t.Fatalf("%s: got %+v (open %v)", id, e, open)
		}
	}
	// connections counts the hub's subscription connections over every
	// primary.
	connections := func() int {
		n := 0
		if !ok {
			return len(h.shards)
		}
		_ = cluster.ForEachMaster(t.Context(), func(ctx context.Context, m *redis.Client) error {
			l, err := m.ClientList(ctx).Result()
			if err != nil {
				t.Error(err)
			}
			for _, line := range strings.Split(l, "\n") {
				if strings.Contains(line, " flags=P ") && strings.Contains(line, " name="+name+" ") {
					n++
				}
			}
			return nil
		})
		return n
	}
	if ok {
		if n := connections(); n != len(ids) { // the ids are in 4 slots
			t.Fatalf("%d subscription connections for 4 slots", n)
		}
	}
	for _, cancel := range cancels {
		cancel()
	}
	testenv.Eventually(t, 5*time.Second, "no subscription connection left", func() bool { return connections() == 0 })
}
