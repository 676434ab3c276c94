package redisstore

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/services/match/internal/match"
)

// maxGroup bounds the commits sent in one pipeline.
const maxGroup = 256

// scriptGroup sends an instance's runs of one script to Redis in group
// (the commits, and the loads, each in a group of their own): while one
// round trip is in flight, the runs that arrive wait, and the first of
// them then sends them all in one pipeline (EVALSHA, and EVAL again for
// those the server answers NOSCRIPT). One round trip, one write and one
// read for many runs, on the instance and on Redis. Each run still
// returns only its own script's reply: a commit's acknowledgement is not
// weakened, and a pipeline that fails fails the runs in it and no other.
//
// With replicas waited for (Options.WaitReplicas), each pipeline ends
// with one WAIT, which counts the replicas holding every write sent
// before it on that connection, so the whole group's scripts: a commit
// is acknowledged when its own script committed and the WAIT of the
// pipeline that carried it was met. The events of the group's replicated
// commits are then published in one more pipeline, before any of the
// group's callers returns (a match's next commit publishes after them).
type scriptGroup struct {
	rdb         *redis.Client
	script      *redis.Script
	wait        int           // replicas to wait for, 0 none
	waitTimeout time.Duration // bound of each WAIT
	// mark, for a group of reads (the loads), is a key written before the
	// WAIT: WAIT counts the replicas holding the connection's last write,
	// and a connection that only read may have written long ago. A read
	// of a group is then returned only once a waited-for replica holds
	// everything it read: a change a replica does not have yet (a commit
	// that failed its own WAIT) is never shown, since a failover could
	// lose it.
	mark string

	mu    sync.Mutex
	busy  bool          // a caller is sending
	queue []*commitCall // waiting for the next round trip
}

type commitCall struct {
	keys []string
	args []any
	// publish adds the commit's publications to p; with replicas waited
	// for, it runs once the commit is replicated.
	publish func(p redis.Pipeliner)
	res     any
	err     error
	lead    bool          // set before done is signalled: send the queue
	done    chan struct{} // signalled once: res and err set, or lead
}

// run runs the script with keys and args, in a group with the runs that
// wait at the same time; publish (of a commit) may be nil.
func (g *scriptGroup) run(ctx context.Context, keys []string, args []any, publish func(p redis.Pipeliner)) (any, error) {
	c := &commitCall{keys: keys, args: args, publish: publish, done: make(chan struct{}, 1)}
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
	ctx = context.WithoutCancel(ctx)
	g.send(ctx, batch)

	g.mu.Lock()
	if len(g.queue) == 0 {
		g.busy, g.queue = false, nil
	} else {
		next := g.queue[0]
		next.lead = true
		next.done <- struct{}{}
	}
	g.mu.Unlock()

	if g.wait > 0 {
		// While the next group is in flight.
		g.publishAll(ctx, batch)
	}
	for _, o := range batch {
		if o != c {
			o.done <- struct{}{}
		}
	}
	return c.res, c.err
}

// send runs the batch's scripts in one round trip (followed by WAIT when
// replicas are waited for) and sets each call's own reply.
func (g *scriptGroup) send(ctx context.Context, batch []*commitCall) {
	if len(batch) == 1 && g.wait == 0 {
		c := batch[0]
		c.res, c.err = g.script.Run(ctx, g.rdb, c.keys, c.args...).Result()
		return
	}
	cmds := make([]*redis.Cmd, len(batch))
	waits := make([]*redis.IntCmd, len(batch))
	all := make([]int, len(batch))
	for i := range all {
		all[i] = i
	}
	err := g.trip(ctx, batch, all, false, cmds, waits)
	if err != nil {
		// A script the server does not know (a restarted or promoted
		// server's cache is empty) did not run: send it in full, with a
		// WAIT of its own (the pipeline may take another connection).
		var again []int
		for i, cmd := range cmds {
			if redis.HasErrorPrefix(cmd.Err(), "NOSCRIPT") {
				again = append(again, i)
			}
		}
		if len(again) > 0 {
			_ = g.trip(ctx, batch, again, true, cmds, waits)
		}
	}
	for i, c := range batch {
		c.res, c.err = cmds[i].Result()
		if c.err == nil && c.res == nil && err != nil {
			c.err = err // not sent: a hook or the connection failed first
		}
		if c.err == nil && waits[i] != nil {
			c.err = g.replicated(c.res, waits[i])
		}
	}
}

// trip sends the scripts of batch[i] for i in idx in one pipeline, by
// hash or in full, followed by WAIT when replicas are waited for, and
// sets cmds[i] and waits[i]. It returns the pipeline's first error.
func (g *scriptGroup) trip(ctx context.Context, batch []*commitCall, idx []int, full bool, cmds []*redis.Cmd, waits []*redis.IntCmd) error {
	var wait *redis.IntCmd
	_, err := g.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, i := range idx {
			if full {
				cmds[i] = g.script.Eval(ctx, p, batch[i].keys, batch[i].args...)
			} else {
				cmds[i] = g.script.EvalSha(ctx, p, batch[i].keys, batch[i].args...)
			}
		}
		if g.wait > 0 {
			if g.mark != "" {
				p.Set(ctx, g.mark, time.Now().UnixMilli(), time.Minute)
			}
			wait = redis.NewIntCmd(ctx, "WAIT", g.wait, g.waitTimeout.Milliseconds())
			_ = p.Process(ctx, wait)
		}
		return nil
	})
	for _, i := range idx {
		waits[i] = wait
	}
	return err
}

// replicated is the error of a commit whose script replied res, given the
// WAIT that followed it: nil unless it committed (1) and too few replicas
// (or none, the WAIT failing) confirmed it. For a read (mark set), nil
// only when enough replicas confirmed it.
func (g *scriptGroup) replicated(res any, wait *redis.IntCmd) error {
	if r, ok := res.(int64); g.mark == "" && (!ok || r != 1) {
		return nil // a conflict or a match gone: nothing acknowledged
	}
	if err := wait.Err(); err != nil {
		return err
	}
	if n := wait.Val(); n < int64(g.wait) {
		return fmt.Errorf("%d of %d replicas within %v: %w", n, g.wait, g.waitTimeout, match.ErrNotReplicated)
	}
	return nil
}

// publishAll publishes, in one round trip, the events of the batch's
// commits that committed and were replicated. A lost publication is
// caught up by the feeds from the event stream.
func (g *scriptGroup) publishAll(ctx context.Context, batch []*commitCall) {
	_, _ = g.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, c := range batch {
			if r, ok := c.res.(int64); ok && r == 1 && c.err == nil && c.publish != nil {
				c.publish(p)
			}
		}
		return nil
	})
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
