package redisstore

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Sharded Pub/Sub. On a Redis Cluster a PUBLISH reaches every node of
// the cluster over the cluster bus (each node passes it to its own
// subscribers), so its cost grows with the number of nodes; an SPUBLISH
// reaches only the nodes of its channel's shard (the slot's primary and
// its replicas). On a cluster, a match's channel (Store.Channel, in the
// match's slot) and each sweeper group's wake-up channel (in the
// group's slot) are sharded channels: the commit script SPUBLISHes
// (a script may, in its own slot), and the readers SSUBSCRIBE. On a
// single Redis, behind Sentinel and on the one-process mode's embedded
// Redis, where a PUBLISH reaches one server, they stay plain channels.
//
// An SSUBSCRIBE names channels of one slot and is served by the slot's
// primary; go-redis's PubSub sends all its channels in one command when
// it reconnects: so a reader keeps one PubSub per slot (shardReader).

// sharded reports whether the store's channels are sharded channels.
func (s *Store) sharded() bool { return s.cluster != nil }

// publish adds a publication of msg on channel to p, sharded or not as
// the store's channels are.
func (s *Store) publish(ctx context.Context, p redis.Cmdable, channel string, msg any) *redis.IntCmd {
	if s.sharded() {
		return p.SPublish(ctx, channel, msg)
	}
	return p.Publish(ctx, channel, msg)
}

// errShardLost is what shardReader passes on when its PubSub can no
// longer serve its slot: the slot moved to another primary (Redis
// unsubscribes the slot's channels, or answers MOVED), or the cluster is
// down. The owner replaces the PubSub (the client's slot map reloaded).
var errShardLost = errors.New("the slot's subscription is lost")

// shardPing is how long a sharded subscription stays silent before it is
// pinged (a connection that died without a reset is then replaced), as
// go-redis's own PubSub channels do.
const shardPing = 30 * time.Second

// shardReader reads ps, a sharded subscription, until ps is closed or
// done is, passing every message and subscription confirmation on to f,
// and errShardLost (once, then it returns) when the slot's primary no
// longer serves it; unsubscribed, reports whether a channel's
// unsubscription was asked for (its confirmation is passed on), any
// other being Redis's (the slot left the node).
//
// A connection that fails (its node killed: a failover) is replaced by
// go-redis, which subscribes the channels again on the slot's primary in
// the client's slot map: each failed read asks for that map to be
// reloaded, so that the replacement finds the replica promoted.
func (s *Store) shardReader(ps *redis.PubSub, done <-chan struct{}, unsubscribed func(channel string) bool, f func(any)) {
	ctx := context.Background()
	for {
		msg, err := ps.ReceiveTimeout(ctx, shardPing)
		if err != nil {
			var rerr redis.Error
			switch {
			case errors.Is(err, redis.ErrClosed):
				return
			case errors.As(err, &rerr) && (strings.HasPrefix(err.Error(), "MOVED") || strings.HasPrefix(err.Error(), "ASK") || strings.HasPrefix(err.Error(), "CLUSTERDOWN")):
				s.cluster.ReloadState(ctx)
				f(errShardLost)
				return
			case isTimeout(err):
				_ = ps.Ping(ctx) // a dead connection fails it, and is replaced
				continue
			}
			s.cluster.ReloadState(ctx)
			select {
			case <-done:
				return
			case <-time.After(100 * time.Millisecond):
			}
			continue
		}
		if m, ok := msg.(*redis.Subscription); ok && m.Kind == "sunsubscribe" && !unsubscribed(m.Channel) {
			s.cluster.ReloadState(ctx)
			f(errShardLost)
			return
		}
		f(msg)
	}
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

// shardRetry is how long the owner of a lost shard subscription waits
// before subscribing again: the client's slot map is being reloaded.
const shardRetry = 250 * time.Millisecond
