package match

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"tabuleiro.dev/pkg/engine"
)

// Lag compensation, as lichess does it (scalachess LagTracker): the time a
// ply spent in transit is credited back to the mover's clock, within a
// per-player quota, so that a player on a slow network does not lose on
// time to latency.
//
// The transit time is estimated by the server, never taken from the
// client: every seat stream (Play or Follow) gets probes (at the start,
// then at the seat's turns at most every rpc ProbeEvery, see the rpc
// package's prober), and the time until an answer is a round-trip
// sample; the seat's estimate is the smoothed round trip (an exponential
// average, a quarter weight to each new sample), and a ply's transit is
// estimated at half of it (the one-way lag). The credit of a ply is
//
//	credit = min(one-way lag, quota, think time)
//
// and after it quota = min(quota + gain - credit, 7 gain), starting at 3
// gain, where the gain per ply is min(1 s, 150 ms + 4 ms per second of the
// game's estimated length, base + 40 increments): lichess's numbers
// (quotaGain = min(100, estimateTotalSeconds * 2/5 + 15) centiseconds,
// quota 3 gains, at most 7). So a 5+3 game gains 1 s a ply (quota 3 s,
// at most 7 s), a 1+0 game 390 ms (quota 1.17 s, at most 2.73 s): on a
// steady lag the credit per ply tends to min(lag, gain).
//
// A client cannot gain more than the quota: one that never answers has no
// estimate and no credit. A probe's answer carries only its id, so it
// cannot come early; one answered late counts as no longer than the round
// trip the server measures on the client's connection itself (HTTP/2
// PINGs, or the kernel's TCP round trip; see grpcserve.TransportRTT) plus
// a margin (rpc's lagMargin): a client holding its answers claims no lag
// its connection does not have.
//
// The flag falls when no ply could save the mover any more: at TurnStart
// + Remaining + the credit a ply would get at that moment (min of the
// mover's estimate at the turn's start and its quota); a ply that arrives
// later, or whose credit does not cover its think time, loses on time.

// Lag is a seat's round-trip estimate.
type Lag struct {
	RTTMS   int64 // smoothed round trip, ms
	Samples int64
}

// OneWayMS is the estimated transit of a ply: half the round trip.
func (l Lag) OneWayMS() int64 { return l.RTTMS / 2 }

// maxRTTSample caps one round-trip sample (ms): a probe answered later
// counts as this.
const maxRTTSample = 10_000

// With adds a round-trip sample (ms) to the estimate: the first sets it,
// later ones move it by a quarter of the difference.
func (l Lag) With(sample int64) Lag {
	sample = min(max(sample, 0), maxRTTSample)
	if l.Samples == 0 {
		return Lag{RTTMS: sample, Samples: 1}
	}
	return Lag{RTTMS: l.RTTMS + (sample-l.RTTMS)/4, Samples: l.Samples + 1}
}

// LagGainMS is the quota a player gains with each ply under time control
// tc (lichess's quotaGain): 150 ms plus 4 ms per second of the game's
// estimated length (base + 40 increments), at most 1 s.
func LagGainMS(tc *TimeControl) int64 {
	if tc == nil {
		return 0
	}
	total := (tc.BaseMS + 40*tc.IncrementMS) / 1000
	return min(1000, 150+4*total)
}

// Lag quota: a player starts with LagQuotaStart gains and holds at most
// LagQuotaMax.
const (
	LagQuotaStart = 3
	LagQuotaMax   = 7
)

// lagCredit is the credit of a ply: its estimated one-way lag, within the
// quota and the ply's think time (a ply is never charged less than
// nothing).
func lagCredit(oneWay, quota, think int64) int64 {
	return max(0, min(oneWay, quota, think))
}

// nextQuota is the quota after a ply credited credit.
func nextQuota(quota, credit, gain int64) int64 {
	return min(quota+gain-credit, LagQuotaMax*gain)
}

// Probes measure each seat's round trip; the Redis implementation keeps
// them with the match.
type Probes interface {
	// SendProbe records probe as seat's pending probe, sent at (unix ms),
	// in place of any unanswered one.
	SendProbe(ctx context.Context, id string, seat engine.Seat, probe uint64, at int64) error
	// TakeProbe removes seat's pending probe if it is probe and returns
	// when it was sent with seat's estimate; ok is false otherwise.
	TakeProbe(ctx context.Context, id string, seat engine.Seat, probe uint64) (sentAt int64, est Lag, ok bool, err error)
	// SetLag stores seat's estimate.
	SetLag(ctx context.Context, id string, seat engine.Seat, est Lag) error
	// Lags returns both seats' estimates (zero when none).
	Lags(ctx context.Context, id string) ([2]Lag, error)
}

// SendProbe records a new probe of seat's stream and returns its id, to
// send to the client; its answer (AnswerProbe) is a round-trip sample.
func (s *Service) SendProbe(ctx context.Context, id string, seat engine.Seat) (uint64, error) {
	probe := rand.Uint64() | 1 // never 0, the proto's unset
	if err := s.d.Store.SendProbe(ctx, id, seat, probe, s.nowMS()); err != nil {
		return 0, fmt.Errorf("send probe: %w", err)
	}
	return probe, nil
}

// AnswerProbe takes the answer to probe from seat's client: when it is
// the seat's pending probe, the time since it was sent is a round-trip
// sample of the seat's estimate. Any other answer is ignored.
func (s *Service) AnswerProbe(ctx context.Context, id string, seat engine.Seat, probe uint64) error {
	return s.AnswerProbeWithin(ctx, id, seat, probe, -1)
}

// AnswerProbeWithin is AnswerProbe with the sample at most maxMS (the
// round trip the server measured on the client's connection, with its
// margin: see rpc); negative: no bound.
func (s *Service) AnswerProbeWithin(ctx context.Context, id string, seat engine.Seat, probe uint64, maxMS int64) error {
	if seat == engine.NoSeat {
		return ErrNotSeated
	}
	sentAt, est, ok, err := s.d.Store.TakeProbe(ctx, id, seat, probe)
	if err != nil || !ok {
		return err
	}
	sample := s.nowMS() - sentAt
	if maxMS >= 0 {
		sample = min(sample, maxMS)
	}
	est = est.With(sample)
	if err := s.d.Store.SetLag(ctx, id, seat, est); err != nil {
		return err
	}
	s.cacheLag(id, seat, est)
	return nil
}

// LagStoreStepMS is how far (ms of round trip) a seat's estimate moves
// from the one in the store before RecordRoundTrip writes it there: the
// instance that holds the seat's stream uses its own estimate, exact; any
// other instance (a ply sent elsewhere, a failover) credits at most half
// of this (one way) more or less than the exact estimate would. Probes run
// on every seat stream, about one a turn: writing each small
// move of the estimate cost a Redis call per seat every few seconds.
const LagStoreStepMS = 4

// RecordRoundTrip adds a round-trip sample (ms) to seat's estimate: the
// answer to a probe that its stream kept itself (a Play stream's, answered
// on the stream, needs nothing stored but the estimate). The estimate is
// written to the store only when it is the seat's first, or has moved
// LagStoreStepMS or more from the stored one; otherwise this instance
// keeps it.
func (s *Service) RecordRoundTrip(ctx context.Context, id string, seat engine.Seat, sample int64) error {
	if seat == engine.NoSeat {
		return ErrNotSeated
	}
	all, err := s.estimates(ctx, id)
	if err != nil {
		return err
	}
	est := all[seat.Index()]
	next := est.With(sample)
	if est.Samples > 0 && next.RTTMS == est.RTTMS {
		return nil
	}
	if s.keepLag(id, seat, next) {
		return nil
	}
	if err := s.d.Store.SetLag(ctx, id, seat, next); err != nil {
		return err
	}
	s.cacheLag(id, seat, next)
	return nil
}

// keepLag updates seat's estimate in the cached copy only, and reports
// whether it did: when a copy is cached and the store holds an estimate of
// the seat within LagStoreStepMS of est.
func (s *Service) keepLag(id string, seat engine.Seat, est Lag) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.cache[id]
	if e == nil || e.lagsAt == 0 {
		return false
	}
	i := seat.Index()
	if st := e.stored[i]; st.Samples == 0 || abs(est.RTTMS-st.RTTMS) >= LagStoreStepMS {
		return false
	}
	e.lags[i] = est
	return true
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// cacheLag updates seat's estimate, just written to the store, in the
// cached copy of both, if any.
func (s *Service) cacheLag(id string, seat engine.Seat, est Lag) {
	s.mu.Lock()
	if e := s.cache[id]; e != nil && e.lagsAt > 0 {
		e.lags[seat.Index()] = est
		e.stored[seat.Index()] = est
	}
	s.mu.Unlock()
}

// lagsFresh is how long (ms) an instance uses the seats' estimates it read
// or set without reading them again: a seat's probes are answered on the
// instance that holds its stream, which keeps its copy current, so its
// plies need no read; an estimate set on another instance (a unary answer
// routed elsewhere) counts here at most this much later.
const lagsFresh = 5000

// estimates returns both seats' estimates: the cached ones while fresh
// (lagsFresh), else read from the store (and cached).
func (s *Service) estimates(ctx context.Context, id string) ([2]Lag, error) {
	now := s.nowMS()
	s.mu.Lock()
	e := s.cache[id]
	if e != nil && e.lagsAt > 0 && now >= e.lagsAt && now-e.lagsAt < lagsFresh {
		l := e.lags
		s.mu.Unlock()
		return l, nil
	}
	s.mu.Unlock()
	read, err := s.d.Store.Lags(ctx, id)
	if err != nil {
		return read, err
	}
	l := read
	if e != nil {
		s.mu.Lock()
		for i := range l {
			// Unchanged since this instance wrote or read it: its own
			// estimate (keepLag) is the finer one.
			if e.lagsAt > 0 && read[i] == e.stored[i] {
				l[i] = e.lags[i]
			}
		}
		e.lags, e.lagsAt, e.stored = l, now, read
		s.mu.Unlock()
	}
	return l, nil
}

// lags returns the seats' estimates for a ply of match id: none for a
// match cached without a clock (nothing to credit), and none when the
// store cannot say (no credit rather than no ply).
func (s *Service) lags(ctx context.Context, id string) [2]Lag {
	s.mu.Lock()
	e := s.cache[id]
	s.mu.Unlock()
	if e != nil && e.mu.TryLock() {
		noClock := e.st != nil && e.st.Clock == nil
		e.mu.Unlock()
		if noClock {
			return [2]Lag{}
		}
	}
	l, err := s.estimates(ctx, id)
	if err != nil && !errors.Is(err, context.Canceled) {
		s.d.Logger.WarnContext(ctx, "read lag estimates", "match_id", id, "err", err)
	}
	return l
}
