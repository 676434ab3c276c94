package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/services/match/internal/match"
)

// The outbox is one stream per bucket (slots.go), each with the
// recorder's consumer group; an entry's StreamID names its bucket
// ("BUCKET/ID"; the legacy stream's entries are bare IDs).

// OutboxEntry is one finished game waiting for the recorder.
type OutboxEntry struct {
	StreamID string
	Record   *match.Record // nil when the entry cannot be decoded
}

func entryID(b int, id string) string {
	if b == legacy {
		return id
	}
	return strconv.Itoa(b) + "/" + id
}

// bucketOfEntry splits an OutboxEntry's StreamID.
func bucketOfEntry(e string) (int, string) {
	bs, id, ok := strings.Cut(e, "/")
	if !ok {
		return legacy, e
	}
	b, err := strconv.Atoi(bs)
	if err != nil || b < 0 || b >= Buckets {
		return legacy, e
	}
	return b, id
}

// EnsureGroup creates the recorder's consumer group (and the outbox
// stream) of every bucket if missing.
func (s *Store) EnsureGroup(ctx context.Context, group string) error {
	bs := s.buckets()
	cmds := make([]*redis.StatusCmd, len(bs))
	_, _ = s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, b := range bs {
			cmds[i] = p.XGroupCreateMkStream(ctx, s.bucketKey("outbox", b), group, "0")
		}
		return nil
	})
	for _, c := range cmds {
		if err := c.Err(); err != nil && !strings.HasPrefix(err.Error(), "BUSYGROUP") {
			return fmt.Errorf("create outbox group: %w", err)
		}
	}
	return nil
}

// PruneConsumers deletes the group's consumers that hold no pending entry
// and have not read for idle, in every bucket: those of match instances
// that stopped (each start names a new consumer, so without pruning the
// group keeps one per restart). It returns how many it deleted.
func (s *Store) PruneConsumers(ctx context.Context, group string, idle time.Duration) (int, error) {
	n := 0
	for _, b := range s.buckets() {
		key := s.bucketKey("outbox", b)
		cs, err := s.rdb.XInfoConsumers(ctx, key, group).Result()
		if err != nil {
			return n, fmt.Errorf("list outbox consumers: %w", err)
		}
		for _, c := range cs {
			if c.Pending > 0 || c.Idle < idle {
				continue
			}
			if err := s.rdb.XGroupDelConsumer(ctx, key, group, c.Name).Err(); err != nil {
				return n, fmt.Errorf("delete outbox consumer %s: %w", c.Name, err)
			}
			n++
		}
	}
	return n, nil
}

// ReadOutbox returns new outbox entries for consumer, waiting up to block
// when there are none. The buckets' streams are in different slots, which
// one blocking read cannot wait on together: every bucket is read at once
// (one pipeline), and with nothing new the call waits block before it
// returns (the recorder calls again).
func (s *Store) ReadOutbox(ctx context.Context, group, consumer string, count int, block time.Duration) ([]OutboxEntry, error) {
	out, err := s.readGroup(ctx, group, consumer, ">", count)
	if err != nil || len(out) > 0 || block <= 0 {
		return out, err
	}
	t := time.NewTimer(block)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return nil, fmt.Errorf("read outbox: %w", ctx.Err())
	case <-t.C:
	}
	return nil, nil
}

// ReadPending returns up to count entries that consumer read but has not
// acknowledged (a write interrupted by a shutdown), oldest first in each
// bucket.
func (s *Store) ReadPending(ctx context.Context, group, consumer string, count int) ([]OutboxEntry, error) {
	return s.readGroup(ctx, group, consumer, "0", count)
}

// readGroup reads every bucket's outbox for consumer from id (">" new
// entries, "0" its pending ones), up to count entries in all.
func (s *Store) readGroup(ctx context.Context, group, consumer, id string, count int) ([]OutboxEntry, error) {
	bs := s.buckets()
	cmds := make([]*redis.XStreamSliceCmd, len(bs))
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, b := range bs {
			cmds[i] = p.XReadGroup(ctx, &redis.XReadGroupArgs{
				Group: group, Consumer: consumer, Streams: []string{s.bucketKey("outbox", b), id}, Count: int64(count), Block: -1,
			})
		}
		return nil
	})
	for _, c := range cmds {
		if err := c.Err(); err != nil && !errors.Is(err, redis.Nil) {
			return nil, fmt.Errorf("read outbox: %w", err)
		}
	}
	if err != nil && !errors.Is(err, redis.Nil) && len(cmds) == 0 {
		return nil, fmt.Errorf("read outbox: %w", err)
	}
	var out []OutboxEntry
	for i, b := range bs {
		for _, st := range cmds[i].Val() {
			out = append(out, decodeEntries(b, st.Messages)...)
		}
	}
	// Entries beyond count were read (they are pending for consumer now):
	// return them all, so none waits for ClaimStale.
	return out, nil
}

// ClaimStale takes over entries another consumer read but did not
// acknowledge within minIdle (a recorder that crashed, or a write that
// failed), in every bucket.
func (s *Store) ClaimStale(ctx context.Context, group, consumer string, minIdle time.Duration, count int) ([]OutboxEntry, error) {
	bs := s.buckets()
	cmds := make([]*redis.XAutoClaimCmd, len(bs))
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, b := range bs {
			cmds[i] = p.XAutoClaim(ctx, &redis.XAutoClaimArgs{
				Stream: s.bucketKey("outbox", b), Group: group, Consumer: consumer, MinIdle: minIdle, Start: "0-0", Count: int64(count),
			})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("claim outbox: %w", err)
	}
	var out []OutboxEntry
	for i, b := range bs {
		msgs, _ := cmds[i].Val()
		out = append(out, decodeEntries(b, msgs)...)
	}
	return out, nil
}

// ConfirmOutbox reports which of ids the outbox holds, once replicas
// replicas hold them: the reads, a small write and WAIT go in one
// pipeline on one connection, so the entries read are the ones the
// replicas confirm (a read and a WAIT sent apart could each reach another
// primary across a failover). ErrNotReplicated when fewer replicas
// answered within timeout. An id it does not hold was lost with a
// primary (the promoted replica never had the game's end).
func (s *Store) ConfirmOutbox(ctx context.Context, ids []string, replicas int, timeout time.Duration) (map[string]bool, error) {
	byBucket := map[int][]string{}
	for _, e := range ids {
		b, _ := bucketOfEntry(e)
		byBucket[b] = append(byBucket[b], e)
	}
	present := make(map[string]bool, len(ids))
	// One pipeline per bucket, on the bucket's primary: its reads, its
	// mark and the WAIT that counts that primary's replicas.
	for b, entries := range byBucket {
		key := s.bucketKey("outbox", b)
		cmds := make([]*redis.XMessageSliceCmd, len(entries))
		var wait *redis.IntCmd
		err := s.pipeOn(ctx, key, func(p redis.Pipeliner) error {
			for i, e := range entries {
				_, id := bucketOfEntry(e)
				cmds[i] = p.XRange(ctx, key, id, id)
			}
			p.Set(ctx, s.bucketKey("replicated", b), time.Now().UnixMilli(), time.Minute)
			wait = redis.NewIntCmd(ctx, "WAIT", replicas, timeout.Milliseconds())
			_ = p.Process(ctx, wait)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("confirm outbox: %w", err)
		}
		if n := wait.Val(); n < int64(replicas) {
			return nil, fmt.Errorf("outbox: %d of %d replicas within %v: %w", n, replicas, timeout, match.ErrNotReplicated)
		}
		for i, c := range cmds {
			if len(c.Val()) > 0 {
				present[entries[i]] = true
			}
		}
	}
	return present, nil
}

// AckOutbox acknowledges and deletes recorded entries, so the outbox does
// not grow: one transaction per bucket.
func (s *Store) AckOutbox(ctx context.Context, group string, ids ...string) error {
	if len(ids) == 0 {
		return nil
	}
	byBucket := map[int][]string{}
	for _, e := range ids {
		b, id := bucketOfEntry(e)
		byBucket[b] = append(byBucket[b], id)
	}
	for b, ids := range byBucket {
		key := s.bucketKey("outbox", b)
		_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.XAck(ctx, key, group, ids...)
			p.XDel(ctx, key, ids...)
			return nil
		})
		if err != nil {
			return fmt.Errorf("ack outbox: %w", err)
		}
	}
	observeAck(ctx, ids, time.Now())
	return nil
}

func decodeEntries(b int, msgs []redis.XMessage) []OutboxEntry {
	out := make([]OutboxEntry, 0, len(msgs))
	for _, m := range msgs {
		e := OutboxEntry{StreamID: entryID(b, m.ID)}
		if raw, ok := m.Values["r"].(string); ok {
			r := &match.Record{}
			if json.Unmarshal([]byte(raw), r) == nil {
				e.Record = r
			}
		}
		out = append(out, e)
	}
	return out
}
