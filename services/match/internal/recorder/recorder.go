// Package recorder moves finished games from the Redis outbox to
// PostgreSQL: it reads the outbox in a consumer group, writes each record
// idempotently, and only then acknowledges it. A record whose write fails
// stays pending and is claimed again (by any instance) after MinIdle, so
// Postgres being down delays records but never loses or doubles them.
//
// A finished game's record in PostgreSQL and its live state in Redis never
// disagree: with Config.WaitReplicas set (MATCH_RECORDER_WAIT_REPLICAS,
// 1 by default behind Sentinel), a record is written only once that many
// Redis replicas hold its outbox entry, and so the game's end, written
// with it in one script. A failover then promotes a replica that has the
// game finished; a replica that never had the end has the game in
// progress and PostgreSQL has no result for it either: the game goes on
// and is recorded when it ends again. While too few replicas answer (a
// replica down or cut off) records wait in the outbox (alert
// TabuleiroOutboxBacklog), as they do while PostgreSQL is down.
package recorder

import (
	"context"
	"log/slog"
	"time"

	"tabuleiro.dev/pkg/platform/telemetry"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/redisstore"
)

// Writer stores a record idempotently on its id.
type Writer interface {
	InsertGame(ctx context.Context, r *match.Record) error
}

// Outbox is the Redis side (redisstore.Store).
type Outbox interface {
	EnsureGroup(ctx context.Context, group string) error
	ReadOutbox(ctx context.Context, group, consumer string, count int, block time.Duration) ([]redisstore.OutboxEntry, error)
	ReadPending(ctx context.Context, group, consumer string, count int) ([]redisstore.OutboxEntry, error)
	ClaimStale(ctx context.Context, group, consumer string, minIdle time.Duration, count int) ([]redisstore.OutboxEntry, error)
	AckOutbox(ctx context.Context, group string, ids ...string) error
}

// Confirmer is implemented by an Outbox that can tell which entries it
// holds once replicas hold them (redisstore.Store.ConfirmOutbox).
type Confirmer interface {
	ConfirmOutbox(ctx context.Context, ids []string, replicas int, timeout time.Duration) (map[string]bool, error)
}

// Config tunes the recorder; zero fields take defaults.
type Config struct {
	Group    string        // default "recorder"
	Consumer string        // this instance's name; required to be unique
	Block    time.Duration // default 500ms: how long a read waits
	MinIdle  time.Duration // default 5s: a pending entry older than this is claimed again
	Retry    time.Duration // default 500ms: pause after a failed write
	Batch    int           // default 64
	// DrainTimeout bounds the recording of waiting entries when Run's
	// context ends (default 2s); what is left is recorded by the next run.
	DrainTimeout time.Duration
	// WaitReplicas, when positive, is how many Redis replicas must hold
	// an outbox entry before its record is written (the Outbox must be a
	// Confirmer); WaitTimeout bounds each wait (default 1s).
	WaitReplicas int
	WaitTimeout  time.Duration
}

// Recorder is the outbox consumer.
type Recorder struct {
	out Outbox
	w   Writer
	cfg Config
	log *slog.Logger
}

// New returns a Recorder.
func New(out Outbox, w Writer, cfg Config, logger *slog.Logger) *Recorder {
	if cfg.Group == "" {
		cfg.Group = "recorder"
	}
	if cfg.Block <= 0 {
		cfg.Block = 500 * time.Millisecond
	}
	if cfg.MinIdle <= 0 {
		cfg.MinIdle = 5 * time.Second
	}
	if cfg.Retry <= 0 {
		cfg.Retry = 500 * time.Millisecond
	}
	if cfg.Batch <= 0 {
		cfg.Batch = 64
	}
	if cfg.DrainTimeout <= 0 {
		cfg.DrainTimeout = 2 * time.Second
	}
	if cfg.WaitTimeout <= 0 {
		cfg.WaitTimeout = time.Second
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Recorder{out: out, w: w, cfg: cfg, log: logger}
}

// Run records until ctx ends, then records what is already in the outbox
// (for at most DrainTimeout), so that a game that ended just before a
// shutdown is in the results when the process exits rather than on its
// next start.
func (r *Recorder) Run(ctx context.Context) error {
	if err := r.out.EnsureGroup(ctx, r.cfg.Group); err != nil {
		return err
	}
	if p, ok := r.out.(interface {
		PruneConsumers(ctx context.Context, group string, idle time.Duration) (int, error)
	}); ok {
		// Consumers of stopped instances (none of their entries pending:
		// ClaimStale takes those over) are deleted once idle a minute; a
		// live recorder reads every Block.
		if n, err := p.PruneConsumers(ctx, r.cfg.Group, max(time.Minute, 2*r.cfg.MinIdle)); err != nil {
			r.log.WarnContext(ctx, "prune recorder consumers", "err", err)
		} else if n > 0 {
			r.log.InfoContext(ctx, "pruned recorder consumers of stopped instances", "count", n)
		}
	}
	defer r.drain(context.WithoutCancel(ctx))
	// Reading the outbox is idle polling: untraced. Recording what it
	// found is traced.
	poll := telemetry.Untraced(ctx)
	work := telemetry.Traced(ctx)
	for ctx.Err() == nil {
		stale, err := r.out.ClaimStale(poll, r.cfg.Group, r.cfg.Consumer, r.cfg.MinIdle, r.cfg.Batch)
		if err == nil && len(stale) > 0 {
			err = r.record(work, stale)
		}
		if err == nil {
			var fresh []redisstore.OutboxEntry
			fresh, err = r.out.ReadOutbox(poll, r.cfg.Group, r.cfg.Consumer, r.cfg.Batch, r.cfg.Block)
			if err == nil && len(fresh) > 0 {
				err = r.record(work, fresh)
			}
		}
		if err != nil && ctx.Err() == nil {
			r.log.WarnContext(ctx, "record games", "err", err)
			t := time.NewTimer(r.cfg.Retry)
			select {
			case <-ctx.Done():
				t.Stop()
			case <-t.C:
			}
		}
	}
	return nil
}

// drain records the entries waiting in the outbox without blocking — first
// those this consumer read but did not acknowledge (a write the shutdown
// interrupted), then new ones — until none is left, a write fails or
// DrainTimeout passes.
func (r *Recorder) drain(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.DrainTimeout)
	defer cancel()
	pending := true
	for ctx.Err() == nil {
		var (
			entries []redisstore.OutboxEntry
			err     error
		)
		if pending {
			entries, err = r.out.ReadPending(ctx, r.cfg.Group, r.cfg.Consumer, r.cfg.Batch)
			if err == nil && len(entries) == 0 {
				pending = false
				continue
			}
		} else {
			entries, err = r.out.ReadOutbox(ctx, r.cfg.Group, r.cfg.Consumer, r.cfg.Batch, -1)
		}
		if err == nil && len(entries) > 0 {
			err = r.record(ctx, entries)
		}
		if err != nil {
			r.log.WarnContext(ctx, "record games on shutdown: left for the next start", "err", err)
			return
		}
		if len(entries) == 0 {
			return
		}
	}
}

// record writes entries in order and acknowledges those written; it stops
// at the first failed write, leaving it and the rest pending.
func (r *Recorder) record(ctx context.Context, entries []redisstore.OutboxEntry) error {
	done := make([]string, 0, len(entries))
	var present map[string]bool
	if c, ok := r.out.(Confirmer); ok && r.cfg.WaitReplicas > 0 {
		ids := make([]string, len(entries))
		for i, e := range entries {
			ids[i] = e.StreamID
		}
		var err error
		if present, err = c.ConfirmOutbox(ctx, ids, r.cfg.WaitReplicas, r.cfg.WaitTimeout); err != nil {
			return err // left pending: claimed again after MinIdle
		}
	}
	var err error
	for _, e := range entries {
		if present != nil && !present[e.StreamID] {
			// Read from a primary that is gone: the one now serving
			// never had the game's end, which is in progress there.
			r.log.WarnContext(ctx, "outbox entry lost in a Redis failover: not recorded", "entry", e.StreamID)
			done = append(done, e.StreamID)
			continue
		}
		if e.Record == nil {
			r.log.ErrorContext(ctx, "undecodable outbox entry dropped", "entry", e.StreamID)
			done = append(done, e.StreamID)
			continue
		}
		if err = r.w.InsertGame(ctx, e.Record); err != nil {
			break
		}
		r.log.InfoContext(ctx, "game recorded", "match_id", e.Record.ID)
		done = append(done, e.StreamID)
	}
	if aerr := r.out.AckOutbox(ctx, r.cfg.Group, done...); aerr != nil && err == nil {
		err = aerr
	}
	return err
}
