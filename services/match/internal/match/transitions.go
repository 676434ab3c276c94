package match

import (
	"fmt"

	"tabuleiro.dev/pkg/engine"
)

// change is the result of one transition: the new state and position, the
// plies it appends and the events it emits. The Service commits it in one
// atomic step.
type change struct {
	st     *State
	pos    engine.Position
	plies  []PlyRecord
	events []Event
	// notices are published to the match's followers but neither stored
	// nor numbered (EventSuperseded).
	notices []Event
	now     int64
	lease   *Lease // a join's new lease
}

// newChange starts a change of st, the cached state of a match (mutate
// calls the transitions under the entry's lock). Unlike clone, the new
// state keeps the plies' spare capacity, so that a ply is appended in
// place rather than by copying every ply before it: the slots past
// len(st.Plies) belong to no state anyone holds (readers get clones,
// capped at their length; states read from the store or a publication
// have arrays of their own), and a change that is not committed leaves
// its ply there for the next change of the same state to overwrite.
func newChange(st *State, pos engine.Position, now int64) *change {
	c := &change{st: st.clone(), pos: pos, now: now}
	c.st.Plies = st.Plies
	return c
}

func (c *change) emit(e Event) {
	c.st.LastSeq++
	e.MatchID = c.st.ID
	e.Seq = c.st.LastSeq
	e.At = c.now
	e.Plies = len(c.st.Plies)
	c.events = append(c.events, e)
}

// end finishes the match with outcome o: the running clock stops at now.
// A game of two seats that ends before each seat has made a ply (by
// resignation, on time, by abandonment or by agreement) ends aborted
// instead: no winner, never rated, not counted (lichess's rule; a win
// handed over before the loser has played is no game).
func (c *change) end(o engine.Outcome) {
	st := c.st
	if st.Players == 2 && o.Reason != engine.ReasonAborted &&
		(!playedBy(st, engine.First) || !playedBy(st, engine.Second)) {
		o = engine.DrawBy(engine.ReasonAborted)
	}
	clocks := st.ClocksAt(c.now)
	if clocks != nil {
		st.Remaining = clocks.Remaining
		clocks.Running = engine.NoSeat
	}
	st.Status = StatusFinished
	st.Outcome = o
	st.EndedAt = c.now
	st.ToMove = engine.NoSeat
	st.DrawOffer = engine.NoSeat
	if o.Reason == engine.ReasonAborted {
		st.Rated = false // an aborted game does not count
	}
	c.emit(Event{Kind: EventEnded, Clocks: clocks, Outcome: o, Seed: st.Seed, Layout: st.Layout})
}

// playPly plays notation as ply number for seat. It may return a change
// together with an error: a ply that arrives after the mover's flag fell
// ends the game on time and is refused.
//
// A ply already accepted, sent again with its number, is recognised by
// its resolved notation: canonical returns the notation as ply number
// would have stored it (parsed against the position before that ply), so
// a Corners chain sent by its ends matches the full path stored (C1).
//
// lags are the seats' round-trip estimates: the mover's ply is credited
// its estimated transit within its quota (lag.go).
func playPly(st *State, pos engine.Position, seat engine.Seat, number int, notation string, now int64, lags [2]Lag,
	canonical func(number int, notation string) string,
) (*change, *PlyRecord, error) {
	if seat == engine.NoSeat {
		return nil, nil, ErrNotSeated
	}
	if number >= 1 && number <= len(st.Plies) {
		if p := st.Plies[number-1]; p.Seat == seat && (p.Notation == notation || canonical != nil && canonical(number, notation) == p.Notation) {
			return nil, &p, nil // an accepted ply sent again
		}
	}
	if st.Status == StatusFinished {
		return nil, nil, &PlyError{Given: number, Current: st.NextPly(), Over: true}
	}
	if number != st.NextPly() {
		return nil, nil, &PlyError{Given: number, Current: st.NextPly()}
	}
	if st.ToMove != seat {
		return nil, nil, fmt.Errorf("ply %d: %w", number, ErrOtherSeat)
	}
	c := newChange(st, pos, now)
	var credit int64
	if st.Clock != nil && st.Status == StatusInProgress {
		i := seat.Index()
		think := now - st.TurnStart
		credit = lagCredit(lags[i].OneWayMS(), st.LagQuota[i], think)
		if st.Remaining[i]-think+credit <= 0 {
			c.end(lossFor(st, seat, engine.ReasonTime))
			return c, nil, &PlyError{Given: number, Current: st.NextPly(), Over: true}
		}
	}
	p, err := pos.ParsePly(notation)
	if err != nil {
		return nil, nil, fmt.Errorf("ply %q: %w: %w", notation, ErrInvalid, err)
	}
	next, err := pos.Play(p)
	if err != nil {
		return nil, nil, err
	}
	s := c.st
	rec := PlyRecord{Number: number, Seat: seat, Notation: p.String(), ClockMS: -1, At: now}
	if s.Status == StatusInProgress {
		rec.ThinkMS = now - s.TurnStart
	} else {
		rec.ThinkMS = now - s.CreatedAt
	}
	if s.Clock != nil {
		i := seat.Index()
		if s.Status == StatusInProgress {
			s.Remaining[i] += s.Clock.IncrementMS - rec.ThinkMS + credit
			rec.LagMS = credit
			s.LagQuota[i] = nextQuota(s.LagQuota[i], credit, LagGainMS(s.Clock))
		}
		rec.ClockMS = s.Remaining[i]
		for j := range s.Players {
			s.LagMS[j] = lags[j].OneWayMS()
		}
	}
	if s.Status == StatusWaiting {
		// The first ply restarts the window of a seat that never joined:
		// it has the whole window from the game's real start.
		for i := range s.Players {
			if seat := &s.Seats[i]; seat.Conn == NeverJoined && seat.ReconnectDeadline != 0 {
				seat.ReconnectDeadline = now + s.WindowMS
			}
		}
	}
	s.Status = StatusInProgress
	s.TurnStart = now
	s.ToMove = next.ToMove()
	if s.DrawOffer != engine.NoSeat && s.DrawOffer != seat {
		s.DrawOffer = engine.NoSeat // an offer lapses when the other seat plays
	}
	rec.Seq = s.LastSeq + 1
	s.Plies = append(s.Plies, rec)
	c.plies = append(c.plies, rec)
	c.pos = next
	c.emit(Event{Kind: EventPly, Ply: &rec, Clocks: s.ClocksAt(now)})
	if o := next.Outcome(); o.Over() {
		c.end(o)
	}
	return c, &rec, nil
}

// lossFor is the outcome of seat losing for reason r: a win for the
// other seat — except in a solo game (Corners training, RULES.md C2),
// which has no other seat: a solo game that ends without reaching its goal
// (resigned or abandoned) ends without a winner, as aborted — a draw by
// ReasonAborted, the outcome that never counts — since engine.Outcome has
// no "lost alone" result.
func lossFor(st *State, seat engine.Seat, r engine.Reason) engine.Outcome {
	if st.Players < 2 {
		return engine.DrawBy(engine.ReasonAborted)
	}
	return engine.WinFor(seat.Other(), r)
}

func checkActive(st *State, seat engine.Seat) error {
	if seat == engine.NoSeat {
		return ErrNotSeated
	}
	if st.Status == StatusFinished {
		return fmt.Errorf("match %s: %w", st.ID, engine.ErrGameOver)
	}
	return nil
}

func resign(st *State, pos engine.Position, seat engine.Seat, now int64) (*change, error) {
	if err := checkActive(st, seat); err != nil {
		return nil, err
	}
	c := newChange(st, pos, now)
	c.end(lossFor(st, seat, engine.ReasonResignation))
	return c, nil
}

func offerDraw(st *State, pos engine.Position, seat engine.Seat, now int64) (*change, error) {
	if err := checkActive(st, seat); err != nil {
		return nil, err
	}
	if !st.Draws {
		return nil, ErrNoDraws
	}
	if st.DrawOffer != engine.NoSeat {
		return nil, ErrOfferPending
	}
	c := newChange(st, pos, now)
	c.st.DrawOffer = seat
	c.emit(Event{Kind: EventDrawOffered, Seat: seat})
	return c, nil
}

func answerDraw(st *State, pos engine.Position, seat engine.Seat, accept bool, now int64) (*change, error) {
	if err := checkActive(st, seat); err != nil {
		return nil, err
	}
	if st.DrawOffer != seat.Other() || st.DrawOffer == engine.NoSeat {
		return nil, ErrNoOffer
	}
	c := newChange(st, pos, now)
	if accept {
		c.end(engine.DrawBy(engine.ReasonAgreement))
		return c, nil
	}
	c.st.DrawOffer = engine.NoSeat
	c.emit(Event{Kind: EventDrawDeclined, Seat: seat})
	return c, nil
}

// join connects seat on a new stream; it returns the stream's epoch.
//
// Presence is coalesced: only a change the opponent could notice is an
// event. A seat that never joined, or whose departure was announced
// (player_disconnected), comes back with player_reconnected. A join of a
// seat already connected (a second stream, a reconnect storm), or back
// within the presence grace after a leave that was not yet announced,
// emits no event: only a notice (EventSuperseded) that ends the seat's
// older stream.
func join(st *State, pos engine.Position, seat engine.Seat, now int64) (*change, int64, error) {
	if seat == engine.NoSeat {
		return nil, 0, ErrNotSeated
	}
	if st.Status == StatusFinished {
		return nil, st.Seat(seat).Epoch, nil
	}
	c := newChange(st, pos, now)
	s := c.st.Seat(seat)
	quiet := s.Conn == Connected || s.Conn == Disconnected && s.AnnounceAt != 0
	s.Conn = Connected
	s.ReconnectDeadline = 0
	s.AnnounceAt = 0
	s.Epoch++
	if quiet {
		c.notices = append(c.notices, Event{MatchID: st.ID, At: now, Kind: EventSuperseded, Seat: seat, Epoch: s.Epoch, Plies: len(st.Plies)})
	} else {
		c.emit(Event{Kind: EventReconnected, Seat: seat, Epoch: s.Epoch})
	}
	c.lease = &Lease{MatchID: st.ID, Seat: seat, Epoch: s.Epoch}
	return c, s.Epoch, nil
}

// leave disconnects seat's stream of the given epoch and starts its
// reconnection window; nothing when a newer stream holds the seat. With a
// presence grace (graceMS > 0) the player_disconnected event waits until
// the grace has passed (fireDue announces it), and a join before then
// emits nothing at all; with none it is emitted at once.
func leave(st *State, pos engine.Position, seat engine.Seat, epoch, now, windowMS, graceMS int64) *change {
	if seat == engine.NoSeat || st.Status == StatusFinished {
		return nil
	}
	if s := st.Seat(seat); s.Epoch != epoch || s.Conn != Connected || s.IsBot() {
		return nil
	}
	c := newChange(st, pos, now)
	s := c.st.Seat(seat)
	s.Conn = Disconnected
	s.ReconnectDeadline = now + windowMS
	if graceMS > 0 && graceMS < windowMS {
		s.AnnounceAt = now + graceMS
		return c
	}
	c.emit(Event{Kind: EventDisconnected, Seat: seat, Deadline: s.ReconnectDeadline, Epoch: epoch})
	return c
}

// announce emits the player_disconnected events whose grace has passed
// at now; false when none is due.
func announce(c *change, now int64) bool {
	did := false
	for i := range c.st.Players {
		s := &c.st.Seats[i]
		if s.Conn != Disconnected || s.AnnounceAt == 0 || s.AnnounceAt > now {
			continue
		}
		s.AnnounceAt = 0
		c.emit(Event{Kind: EventDisconnected, Seat: engine.Seat(i + 1), Deadline: s.ReconnectDeadline, Epoch: s.Epoch})
		did = true
	}
	return did
}

// fireDue ends the match if a deadline has passed at now: the first ply's
// abort, a flag fall or an abandonment, whichever fell first; and it
// announces the departures whose presence grace has passed. Nil when
// nothing is due.
func fireDue(st *State, pos engine.Position, now int64) *change {
	if st.Status == StatusFinished {
		return nil
	}
	var (
		when int64
		o    engine.Outcome
	)
	consider := func(t int64, out engine.Outcome) {
		if t > 0 && t <= now && (when == 0 || t < when) {
			when, o = t, out
		}
	}
	if st.Status == StatusWaiting {
		consider(st.FirstPlyDeadline, engine.DrawBy(engine.ReasonAborted))
	}
	if f := st.flagAt(); f != 0 {
		consider(f, lossFor(st, st.ToMove, engine.ReasonTime))
	}
	for i := range st.Players {
		switch s := st.Seats[i]; s.Conn {
		case Disconnected:
			consider(s.ReconnectDeadline, lossFor(st, engine.Seat(i+1), engine.ReasonAbandonment))
		case NeverJoined:
			// A seat that never joined is treated as one that left: when
			// its window closes it loses by abandonment if it has played
			// (through the unary RPCs), and the match is aborted (no
			// winner, never rated) if it never took part at all, as a
			// match nobody starts is aborted at the first-ply deadline.
			o := engine.DrawBy(engine.ReasonAborted)
			if playedBy(st, engine.Seat(i+1)) {
				o = lossFor(st, engine.Seat(i+1), engine.ReasonAbandonment)
			}
			consider(s.ReconnectDeadline, o)
		}
	}
	if when == 0 {
		c := newChange(st, pos, now)
		if announce(c, now) {
			return c
		}
		return nil
	}
	c := newChange(st, pos, now)
	announce(c, now)
	c.end(o)
	return c
}

// playedBy reports whether seat has played a ply in st.
func playedBy(st *State, seat engine.Seat) bool {
	for _, p := range st.Plies {
		if p.Seat == seat {
			return true
		}
	}
	return false
}

// creditOutage gives back an outage of the service, from (the last moment
// an instance was alive) to until (when one came back): nothing of it is
// charged. The running clock's turn starts that much later, and every
// waiting deadline (first ply, reconnection windows) moves on by as much,
// so the player to move has exactly the time they had when the service
// stopped. Nil when the match is over or already credited.
func creditOutage(st *State, pos engine.Position, from, until, now int64) *change {
	if st.Status == StatusFinished || st.Credited >= until || st.CreatedAt >= until {
		return nil
	}
	gap := until - max(from, st.CreatedAt)
	if gap <= 0 {
		return nil
	}
	c := newChange(st, pos, now)
	s := c.st
	s.Credited = until
	if s.Status == StatusInProgress && s.TurnStart < until {
		s.TurnStart += gap
	}
	if s.Status == StatusWaiting {
		s.FirstPlyDeadline += gap
	}
	for i := range s.Players {
		if seat := &s.Seats[i]; seat.ReconnectDeadline != 0 && (seat.Conn == Disconnected || seat.Conn == NeverJoined) {
			seat.ReconnectDeadline += gap
			if seat.AnnounceAt != 0 {
				seat.AnnounceAt += gap
			}
		}
	}
	return c
}
