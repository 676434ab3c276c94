package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/services/match/internal/match"
)

// OutboxEntry is one finished game waiting for the recorder.
type OutboxEntry struct {
	StreamID string
	Record   *match.Record // nil when the entry cannot be decoded
}

// EnsureGroup creates the recorder's consumer group (and the outbox
// stream) if missing.
func (s *Store) EnsureGroup(ctx context.Context, group string) error {
	err := s.rdb.XGroupCreateMkStream(ctx, s.outboxKey(), group, "0").Err()
	if err != nil && !strings.HasPrefix(err.Error(), "BUSYGROUP") {
		return fmt.Errorf("create outbox group: %w", err)
	}
	return nil
}

// PruneConsumers deletes the group's consumers that hold no pending entry
// and have not read for idle: those of match instances that stopped (each
// start names a new consumer, so without pruning the group keeps one per
// restart). It returns how many it deleted.
func (s *Store) PruneConsumers(ctx context.Context, group string, idle time.Duration) (int, error) {
	cs, err := s.rdb.XInfoConsumers(ctx, s.outboxKey(), group).Result()
	if err != nil {
		return 0, fmt.Errorf("list outbox consumers: %w", err)
	}
	n := 0
	for _, c := range cs {
		if c.Pending > 0 || c.Idle < idle {
			continue
		}
		if err := s.rdb.XGroupDelConsumer(ctx, s.outboxKey(), group, c.Name).Err(); err != nil {
			return n, fmt.Errorf("delete outbox consumer %s: %w", c.Name, err)
		}
		n++
	}
	return n, nil
}

// ReadOutbox returns new outbox entries for consumer, waiting up to block.
func (s *Store) ReadOutbox(ctx context.Context, group, consumer string, count int, block time.Duration) ([]OutboxEntry, error) {
	return s.readGroup(ctx, group, consumer, ">", count, block)
}

// ReadPending returns up to count entries that consumer read but has not
// acknowledged (a write interrupted by a shutdown), oldest first.
func (s *Store) ReadPending(ctx context.Context, group, consumer string, count int) ([]OutboxEntry, error) {
	return s.readGroup(ctx, group, consumer, "0", count, -1)
}

// readGroup reads the outbox for consumer from id (">" new entries, "0"
// its pending ones); a negative block does not wait.
func (s *Store) readGroup(ctx context.Context, group, consumer, id string, count int, block time.Duration) ([]OutboxEntry, error) {
	res, err := s.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{
		Group: group, Consumer: consumer, Streams: []string{s.outboxKey(), id}, Count: int64(count), Block: block,
	}).Result()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read outbox: %w", err)
	}
	var out []OutboxEntry
	for _, st := range res {
		out = append(out, decodeEntries(st.Messages)...)
	}
	return out, nil
}

// ClaimStale takes over entries another consumer read but did not
// acknowledge within minIdle (a recorder that crashed, or a write that
// failed).
func (s *Store) ClaimStale(ctx context.Context, group, consumer string, minIdle time.Duration, count int) ([]OutboxEntry, error) {
	msgs, _, err := s.rdb.XAutoClaim(ctx, &redis.XAutoClaimArgs{
		Stream: s.outboxKey(), Group: group, Consumer: consumer, MinIdle: minIdle, Start: "0-0", Count: int64(count),
	}).Result()
	if err != nil {
		return nil, fmt.Errorf("claim outbox: %w", err)
	}
	return decodeEntries(msgs), nil
}

// ConfirmOutbox reports which of ids the outbox holds, once replicas
// replicas hold them: the reads, a small write and WAIT go in one
// pipeline on one connection, so the entries read are the ones the
// replicas confirm (a read and a WAIT sent apart could each reach another
// primary across a failover). ErrNotReplicated when fewer replicas
// answered within timeout. An id it does not hold was lost with a
// primary (the promoted replica never had the game's end).
func (s *Store) ConfirmOutbox(ctx context.Context, ids []string, replicas int, timeout time.Duration) (map[string]bool, error) {
	cmds := make([]*redis.XMessageSliceCmd, len(ids))
	var wait *redis.IntCmd
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, id := range ids {
			cmds[i] = p.XRange(ctx, s.outboxKey(), id, id)
		}
		p.Set(ctx, s.o.Prefix+"replicated", time.Now().UnixMilli(), time.Minute)
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
	present := make(map[string]bool, len(ids))
	for i, c := range cmds {
		if len(c.Val()) > 0 {
			present[ids[i]] = true
		}
	}
	return present, nil
}

// AckOutbox acknowledges and deletes recorded entries, so the outbox does
// not grow.
func (s *Store) AckOutbox(ctx context.Context, group string, ids ...string) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.XAck(ctx, s.outboxKey(), group, ids...)
		p.XDel(ctx, s.outboxKey(), ids...)
		return nil
	})
	if err != nil {
		return fmt.Errorf("ack outbox: %w", err)
	}
	observeAck(ctx, ids, time.Now())
	return nil
}

func decodeEntries(msgs []redis.XMessage) []OutboxEntry {
	out := make([]OutboxEntry, 0, len(msgs))
	for _, m := range msgs {
		e := OutboxEntry{StreamID: m.ID}
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
