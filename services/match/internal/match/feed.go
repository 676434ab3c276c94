package match

import (
	"context"
	"fmt"
	"time"
)

// Feed is one subscriber's ordered, gap-free view of a match's events:
// live events from the Hub, holes filled from the Store's event stream.
type Feed struct {
	s       *Service
	id      string
	ch      <-chan *Event
	cancel  func()
	last    int64
	backlog []Event
	// tick is the resync timer, made once for the feed: Next does not
	// re-arm it per event. heard is when the feed last learnt something
	// (a live event or a read of the stream); the timer reads the stream
	// only after ResyncInterval without either, and otherwise re-arms for
	// the rest of the interval.
	tick  *time.Timer
	heard time.Time
}

// Follow subscribes to match id and returns the feed with the match's
// current state. When after > 0 and every event since after is still kept,
// replay is true and the feed first yields those events; otherwise the
// caller sends the state as a snapshot and the feed yields what follows
// it.
func (s *Service) Follow(ctx context.Context, id string, after int64) (f *Feed, st *State, replay bool, err error) {
	ch, cancel, err := s.d.Hub.Subscribe(ctx, id)
	if err != nil {
		return nil, nil, false, fmt.Errorf("subscribe to match %s: %w", id, err)
	}
	f = &Feed{s: s, id: id, ch: ch, cancel: cancel}
	// The subscription is live before the state is read, so nothing
	// committed after the read can be missed.
	st, _, err = s.Get(ctx, id)
	if err != nil {
		cancel()
		return nil, nil, false, err
	}
	f.last = st.LastSeq
	if after > 0 && after <= st.LastSeq {
		if after == st.LastSeq {
			return f, st, true, nil
		}
		evs, err := s.d.Store.Events(ctx, id, after, int(st.LastSeq-after))
		if err != nil {
			cancel()
			return nil, nil, false, err
		}
		if len(evs) > 0 && evs[0].Seq == after+1 {
			f.last, f.backlog = after, evs
			return f, st, true, nil
		}
	}
	return f, st, false, nil
}

// Close ends the subscription.
func (f *Feed) Close() {
	f.cancel()
	if f.tick != nil {
		f.tick.Stop()
	}
}

// Last is the seq of the last event the feed yielded (or the snapshot's).
func (f *Feed) Last() int64 { return f.last }

// Reset continues the feed after a snapshot taken at seq.
func (f *Feed) Reset(seq int64) {
	f.last = seq
	f.backlog = nil
}

// Next returns the next event, or a notice (Seq 0, not part of the
// sequence: EventSuperseded) as it arrives live; a notice missed while the
// feed catches up from the Store is lost. ErrSnapshotNeeded means the
// events after Last are gone: take a snapshot (Service.Get) and Reset.
func (f *Feed) Next(ctx context.Context) (Event, error) {
	every := f.s.cfg.ResyncInterval
	if f.tick == nil {
		f.heard = time.Now()
		f.tick = time.NewTimer(every)
	}
	for {
		for len(f.backlog) > 0 {
			e := f.backlog[0]
			f.backlog = f.backlog[1:]
			if e.Seq == f.last+1 {
				f.last = e.Seq
				return e, nil
			}
		}
		select {
		case <-ctx.Done():
			return Event{}, ctx.Err()
		case ep, ok := <-f.ch:
			if !ok {
				// Fell behind (or the hub reconnected): subscribe again,
				// then fill the hole from the stream.
				ch, cancel, err := f.s.d.Hub.Subscribe(ctx, f.id)
				if err != nil {
					return Event{}, fmt.Errorf("resubscribe to match %s: %w", f.id, err)
				}
				f.ch, f.cancel = ch, cancel
				if err := f.fill(ctx); err != nil {
					return Event{}, err
				}
				continue
			}
			e := *ep
			f.heard = time.Now()
			switch {
			case e.Seq == 0: // a notice (EventSuperseded): not in the sequence
				return e, nil
			case e.Seq <= f.last:
			case e.Seq == f.last+1:
				f.last = e.Seq
				return e, nil
			default:
				if err := f.fill(ctx); err != nil {
					return Event{}, err
				}
			}
		case <-f.tick.C:
			if quiet := time.Since(f.heard); quiet < every {
				f.tick.Reset(every - quiet)
				continue
			}
			if err := f.fill(ctx); err != nil {
				return Event{}, err
			}
			f.tick.Reset(every)
		}
	}
}

func (f *Feed) fill(ctx context.Context) error {
	evs, err := f.s.d.Store.Events(ctx, f.id, f.last, 1000)
	if err != nil {
		return fmt.Errorf("read events of match %s: %w", f.id, err)
	}
	if len(evs) > 0 && evs[0].Seq != f.last+1 {
		return ErrSnapshotNeeded
	}
	f.backlog = evs
	f.heard = time.Now()
	return nil
}
