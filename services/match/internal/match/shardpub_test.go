package match_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/redisstore"
)

// On a Redis Cluster a commit publishes its events on the match's
// sharded channel (SPUBLISH: only the nodes of the match's shard hear
// it), never with PUBLISH, which every node of a cluster relays; on a
// single Redis, with PUBLISH. Checked on the match's primary: a
// subscriber of the kind the store uses gets the ply's event, and on a
// cluster a plain subscriber of the same channel gets a marker published
// after the ply as its first message (a PUBLISH of the ply, on the same
// node, would come first).
func TestCommitPublishesOnTheMatchShard(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1, redisstore.Options{}, match.Config{})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	st := e.create(e.svcs[0], nil)
	channel := e.store.Channel(st.ID)
	var node redis.UniversalClient = e.rdb
	cluster, sharded := e.rdb.(*redis.ClusterClient)
	if sharded {
		primary, err := cluster.MasterForKey(ctx, channel)
		if err != nil {
			t.Fatal(err)
		}
		node = primary
	}
	subscribe := func(ps *redis.PubSub) *redis.PubSub {
		t.Helper()
		t.Cleanup(func() { _ = ps.Close() })
		if _, err := ps.Receive(ctx); err != nil { // the confirmation
			t.Fatal(err)
		}
		return ps
	}
	var want, plain *redis.PubSub
	if sharded {
		want, plain = subscribe(node.SSubscribe(ctx, channel)), subscribe(node.Subscribe(ctx, channel))
	} else {
		want = subscribe(node.Subscribe(ctx, channel))
	}
	ev := e.play(e.svcs[0], st.ID)
	m, err := want.ReceiveMessage(ctx)
	if err != nil {
		t.Fatalf("no publication of ply %d's event on %s (sharded %v): %v", ev.Plies, channel, sharded, err)
	}
	if m.Channel != channel {
		t.Fatalf("publication on %s, want %s", m.Channel, channel)
	}
	if plain == nil {
		return
	}
	if err := node.Publish(ctx, channel, "marker").Err(); err != nil {
		t.Fatal(err)
	}
	m, err = plain.ReceiveMessage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if m.Payload != "marker" {
		t.Fatalf("a plain subscriber's first message: %.40q, want the marker: the commit used PUBLISH", m.Payload)
	}
}
