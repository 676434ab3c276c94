package match

import (
	"context"
	"fmt"
	"strconv"
)

// Feed is one subscriber's ordered, gap-free view of a match's events:
// live events from the Hub, holes filled from the Store's event stream. A
// feed has no timer and makes no Redis call while its match is idle: the
// Hub checks each quiet match once for all its subscribers (a lost
// publication), and a feed reads the stream only when it sees a gap.
type Feed struct {
	s       *Service
	id      string
	ch      <-chan *Event
	cancel  func()
	last    int64
	backlog []Event
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
//
// Next only waits; what arrives is taken by take. An idle stream's
// goroutine waits here, under every frame of its call, and the runtime
// halves a waiting goroutine's stack only while it uses under a quarter
// of it: the wait's frame is kept small.
func (f *Feed) Next(ctx context.Context) (e Event, err error) {
	for {
		if f.fromBacklog(&e) {
			return e, nil
		}
		var ep *Event
		var open bool
		select {
		case <-ctx.Done():
			return Event{}, ctx.Err()
		case ep, open = <-f.ch:
		}
		if done, err := f.take(ctx, ep, open, &e); done {
			return e, err
		}
	}
}

// fromBacklog sets e to the next event of the backlog (what fill read),
// if any.
func (f *Feed) fromBacklog(e *Event) bool {
	for len(f.backlog) > 0 {
		next := &f.backlog[0]
		f.backlog = f.backlog[1:]
		if next.Seq == f.last+1 {
			f.last = next.Seq
			*e = *next
			return true
		}
	}
	return false
}

// take handles what Next received: an event of the match (ep), or the
// subscription's end (!open). done: Next returns (e set to the event, or
// err); otherwise it waits again (a repeat, or a gap filled into the
// backlog).
//
//go:noinline
func (f *Feed) take(ctx context.Context, ep *Event, open bool, e *Event) (done bool, err error) {
	if !open {
		// Fell behind (or the hub reconnected): subscribe again, then
		// fill the hole from the stream.
		ch, cancel, err := f.s.d.Hub.Subscribe(ctx, f.id)
		if err != nil {
			return true, fmt.Errorf("resubscribe to match %s: %w", f.id, err)
		}
		f.ch, f.cancel = ch, cancel
		if err := f.fill(ctx); err != nil {
			return true, err
		}
		return false, nil
	}
	switch {
	case ep.Seq == 0: // a notice (EventSuperseded): not in the sequence
		*e = *ep
		return true, nil
	case ep.Seq <= f.last:
	case ep.Seq == f.last+1:
		f.last = ep.Seq
		*e = *ep
		return true, nil
	default:
		if err := f.fill(ctx); err != nil {
			return true, err
		}
	}
	return false, nil
}

// fill reads the events after f.last from the stream. The feeds of a
// match on this instance that see the same gap at once (every spectator
// of a popular game, after a lost publication) share one read.
func (f *Feed) fill(ctx context.Context) error {
	key := f.id + "/" + strconv.FormatInt(f.last, 10)
	v, err, _ := f.s.fills.Do(key, func() (any, error) {
		return f.s.d.Store.Events(context.WithoutCancel(ctx), f.id, f.last, 1000)
	})
	if err != nil {
		return fmt.Errorf("read events of match %s: %w", f.id, err)
	}
	evs := v.([]Event) // shared with the other feeds: read only
	if len(evs) > 0 && evs[0].Seq != f.last+1 {
		return ErrSnapshotNeeded
	}
	f.backlog = evs
	return nil
}
