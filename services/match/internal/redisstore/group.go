package redisstore

import (
	"context"
	"sync"

	"github.com/redis/go-redis/v9"
)

// maxGroup bounds the commits sent in one pipeline.
const maxGroup = 256

// committer sends an instance's commit scripts to Redis in group: while
// one round trip is in flight, the commits that arrive wait, and the
// first of them then sends them all in one pipeline (EVALSHA, and EVAL
// again for those the server answers NOSCRIPT). One round trip, one write
// and one read for many commits, on the instance and on Redis. Each
// commit still returns only its own script's reply: acknowledgement is
// not weakened, and a pipeline that fails fails the commits in it and no
// other.
type committer struct {
	rdb *redis.Client

	mu    sync.Mutex
	busy  bool          // a caller is sending
	queue []*commitCall // waiting for the next round trip
}

type commitCall struct {
	keys []string
	args []any
	res  any
	err  error
	lead bool          // set before done is signalled: send the queue
	done chan struct{} // signalled once: res and err set, or lead
}

// run runs the commit script with keys and args, in a group with the
// commits that wait at the same time.
func (g *committer) run(ctx context.Context, keys []string, args []any) (any, error) {
	c := &commitCall{keys: keys, args: args, done: make(chan struct{}, 1)}
	g.mu.Lock()
	g.queue = append(g.queue, c)
	if g.busy {
		g.mu.Unlock()
		<-c.done
		if !c.lead {
			return c.res, c.err
		}
		g.mu.Lock() // handed the sending, with c first in the queue
	}
	g.busy = true
	n := min(len(g.queue), maxGroup)
	batch := g.queue[:n:n]
	g.queue = g.queue[n:]
	g.mu.Unlock()

	// The round trip serves the whole group: a caller's cancellation
	// must not fail the others' commits (the client's timeouts bound it).
	g.send(context.WithoutCancel(ctx), batch)

	g.mu.Lock()
	if len(g.queue) == 0 {
		g.busy, g.queue = false, nil
	} else {
		next := g.queue[0]
		next.lead = true
		next.done <- struct{}{}
	}
	g.mu.Unlock()
	return c.res, c.err
}

// send runs the batch's scripts in one round trip and gives each call its
// own reply.
func (g *committer) send(ctx context.Context, batch []*commitCall) {
	if len(batch) == 1 {
		c := batch[0]
		c.res, c.err = commitScript.Run(ctx, g.rdb, c.keys, c.args...).Result()
		c.done <- struct{}{}
		return
	}
	cmds := make([]*redis.Cmd, len(batch))
	_, err := g.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, c := range batch {
			cmds[i] = commitScript.EvalSha(ctx, p, c.keys, c.args...)
		}
		return nil
	})
	if err != nil {
		// A script the server does not know (a restarted or promoted
		// server's cache is empty) did not run: send it in full.
		var again []int
		for i, cmd := range cmds {
			if redis.HasErrorPrefix(cmd.Err(), "NOSCRIPT") {
				again = append(again, i)
			}
		}
		if len(again) > 0 {
			_, _ = g.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
				for _, i := range again {
					cmds[i] = commitScript.Eval(ctx, p, batch[i].keys, batch[i].args...)
				}
				return nil
			})
		}
	}
	for i, c := range batch {
		c.res, c.err = cmds[i].Result()
		if c.err == nil && c.res == nil && err != nil {
			c.err = err // not sent: a hook or the connection failed first
		}
		c.done <- struct{}{}
	}
}

// CommitsWaiting reports the commits waiting for the round trip in flight
// to end, to go in the next one.
func (s *Store) CommitsWaiting() int {
	s.group.mu.Lock()
	defer s.group.mu.Unlock()
	if !s.group.busy {
		return 0
	}
	return len(s.group.queue)
}
