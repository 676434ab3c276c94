// Package match is the match service's domain: a match's state as stored in
// Redis, the transitions that plies, draw actions, resignations,
// connections and deadlines make, the clocks, and the Service that runs
// them with optimistic concurrency against a Store. It knows nothing of
// gRPC or of the key layout in Redis.
package match

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"tabuleiro.dev/pkg/engine"
)

// Errors of the domain; internal/rpc maps them to gRPC codes.
var (
	// ErrNotFound: no match with that id (or it has expired).
	ErrNotFound = errors.New("match not found")
	// ErrVersionConflict: another writer changed the match first. The
	// Service retries internally; callers see it only if retries run out.
	ErrVersionConflict = errors.New("match changed concurrently")
	// ErrNotSeated: the caller holds no seat in the match.
	ErrNotSeated = errors.New("caller holds no seat in this match")
	// ErrOtherSeat: the ply number is the next ply's, but that ply is the
	// other seat's to make (not your turn). PermissionDenied: the seat may
	// never make that ply, whereas a stale or ahead number (ErrStalePly) is
	// FailedPrecondition.
	ErrOtherSeat = errors.New("that ply belongs to the other seat")
	// ErrInvalid: malformed input (notation that does not parse, a bad
	// request).
	ErrInvalid = errors.New("invalid argument")
	// ErrNoDraws: the variant does not allow draw offers.
	ErrNoDraws = errors.New("this variant has no draws")
	// ErrNoOffer: no draw offer by the opponent is pending.
	ErrNoOffer = errors.New("no draw offer by the opponent is pending")
	// ErrOfferPending: a draw offer is already pending.
	ErrOfferPending = errors.New("a draw offer is already pending")
	// ErrSnapshotNeeded: the events after the requested sequence are no
	// longer kept; the caller must take a fresh snapshot.
	ErrSnapshotNeeded = errors.New("events since that sequence are gone; take a snapshot")
	// ErrNotPrivate: the action is only for a private match.
	ErrNotPrivate = errors.New("the match is not private")
	// ErrTooMany: a per-match or per-player cap is reached.
	ErrTooMany = errors.New("limit reached")
	// ErrSuperseded: the same seat joined again on another stream.
	ErrSuperseded = errors.New("the seat joined again on another stream")
	// ErrNotReplicated: the store wrote the change but too few replicas
	// confirmed it in time (MATCH_REDIS_WAIT_REPLICAS): it is not
	// acknowledged, and may be lost in a failover. Retrying the same ply
	// is safe (it is either applied once or answered as a duplicate).
	ErrNotReplicated = errors.New("the change was not confirmed by enough Redis replicas in time; retry")
)

// PlyError refuses a ply for its number: stale, ahead (out of turn) or
// after the game ended. Current is the number the next ply must carry.
// It unwraps to engine.ErrGameOver when the game is over and to
// ErrStalePly otherwise.
type PlyError struct {
	Given   int
	Current int
	Over    bool
}

// ErrStalePly: a ply's number is not the next ply's number.
var ErrStalePly = errors.New("ply number is not the next ply's")

// Params returns the number given and the number expected, for a client to
// render the refusal (package rpcerr's Parameterized).
func (e *PlyError) Params() map[string]string {
	return map[string]string{"ply_number": strconv.Itoa(e.Given), "current_ply_number": strconv.Itoa(e.Current)}
}

// Error says which number was given and which is expected.
func (e *PlyError) Error() string {
	if e.Over {
		return fmt.Sprintf("ply %d refused: the game is over", e.Given)
	}
	return fmt.Sprintf("ply %d refused: the next ply is number %d", e.Given, e.Current)
}

// Unwrap returns engine.ErrGameOver or ErrStalePly.
func (e *PlyError) Unwrap() error {
	if e.Over {
		return engine.ErrGameOver
	}
	return ErrStalePly
}

// Status is where a match stands in its life.
type Status int8

// The statuses (the same numbers as match.v1.MatchStatus).
const (
	StatusWaiting    Status = 1 // created, no ply yet
	StatusInProgress Status = 2
	StatusFinished   Status = 3
)

// Connection is whether a seat's player has a stream open (the numbers of
// match.v1.ConnectionState).
type Connection int8

// The connection states.
const (
	Connected    Connection = 1
	Disconnected Connection = 2
	NeverJoined  Connection = 3
)

// Participant is who holds a seat: a player (PlayerID) or a bot
// (BotLevel 1–4).
type Participant struct {
	PlayerID    string `json:"p,omitempty"`
	DisplayName string `json:"n"`
	BotLevel    int    `json:"b,omitempty"`
	Rating      *int32 `json:"r,omitempty"`
	// Username is the person's account username ("" for a guest or a
	// bot): lobby.v1 GetProfile names the profile by it.
	Username string `json:"u,omitempty"`
}

// IsBot reports whether a bot holds the seat.
func (p Participant) IsBot() bool { return p.BotLevel > 0 }

// SeatState is one seat: its participant and connection.
type SeatState struct {
	Participant
	Conn Connection `json:"c"`
	// ReconnectDeadline (unix ms) is set while Conn is Disconnected, and
	// while a player's seat is NeverJoined (its window runs from the
	// match's creation, restarted at the first ply).
	ReconnectDeadline int64 `json:"rd,omitempty"`
	// Epoch counts the seat's joins; a stream leaves only for its own
	// epoch, so an old stream cannot disconnect a newer one.
	Epoch int64 `json:"e,omitempty"`
	// AnnounceAt (unix ms) is set while a Disconnected seat's departure is
	// not yet announced: the player_disconnected event waits for it (the
	// presence grace), and a join before it brings the seat back without
	// any event, so that reconnect storms do not reach the opponent.
	AnnounceAt int64 `json:"an,omitempty"`
}

// TimeControl is a Fischer clock in milliseconds.
type TimeControl struct {
	BaseMS      int64 `json:"base"`
	IncrementMS int64 `json:"inc"`
}

// PlyRecord is one accepted ply.
type PlyRecord struct {
	Number   int         `json:"n"`
	Seat     engine.Seat `json:"s"`
	Notation string      `json:"p"`
	// ClockMS is the mover's remaining time after the ply (increment
	// included); -1 without a clock.
	ClockMS int64 `json:"c"`
	ThinkMS int64 `json:"t"`
	// LagMS is the lag compensation credited to the mover's clock for
	// this ply (lag.go): ClockMS is after it, ThinkMS before.
	LagMS int64 `json:"l,omitempty"`
	At    int64 `json:"a"` // unix ms
	Seq   int64 `json:"q"` // the seq of its PlyPlayed event
}

// State is a match's whole live state. Times are unix milliseconds of the
// servers' clock. Plies are stored apart from the rest (appended, never
// rewritten).
type State struct {
	ID      string       `json:"id"`
	Game    engine.Game  `json:"g"`
	Variant string       `json:"v"`
	Rated   bool         `json:"rt,omitempty"`
	Draws   bool         `json:"dr,omitempty"`
	Players int          `json:"np"`
	Seats   [2]SeatState `json:"seats"`
	Clock   *TimeControl `json:"tc,omitempty"`
	// Remaining is each seat's time at TurnStart; the clock of ToMove runs
	// from TurnStart while the match is in progress.
	Remaining        [2]int64       `json:"rem"`
	TurnStart        int64          `json:"ts"`
	ToMove           engine.Seat    `json:"tm"`
	Status           Status         `json:"st"`
	DrawOffer        engine.Seat    `json:"do,omitempty"`
	Outcome          engine.Outcome `json:"o"`
	LastSeq          int64          `json:"seq"`
	Version          int64          `json:"-"`
	CreatedAt        int64          `json:"ca"`
	FirstPlyDeadline int64          `json:"fd"`
	EndedAt          int64          `json:"ea,omitempty"`
	// Banqi: the secret layout, its seed (hex) and the seed's SHA-256.
	Layout     string `json:"lay,omitempty"`
	Seed       string `json:"seed,omitempty"`
	Commitment string `json:"com,omitempty"`
	// Private: a private room's match, visible only to its seats and the
	// players in Invited (spectators a seat invited, at most MaxInvited).
	Private bool `json:"pv,omitempty"`
	// WindowMS is the reconnection window the match was created with; a
	// seat that never joins gets the same window (0 in matches created
	// before it was stored: no window for them).
	WindowMS int64 `json:"rw,omitempty"`
	// Credited is the end (unix ms) of the last service outage credited to
	// this match (see Service.CreditOutage): each outage is credited once.
	Credited int64    `json:"cr,omitempty"`
	Invited  []string `json:"inv,omitempty"`
	// InvitedBy is the seat that invited each of Invited (shorter in
	// matches stored before it: those invitations count for no seat).
	InvitedBy []engine.Seat `json:"invb,omitempty"`
	// LagQuota is each seat's lag-compensation quota (ms, lag.go), and
	// LagMS each seat's one-way lag estimate as of the last ply: the flag
	// of the side to move falls that much later (at most its quota), the
	// credit its ply would get.
	LagQuota [2]int64 `json:"lq,omitempty"`
	LagMS    [2]int64 `json:"lg,omitempty"`
	// Spectators is not stored; the Service fills it when known.
	Plies []PlyRecord `json:"-"`
}

// clone returns a copy that shares nothing mutable with st except the
// plies' backing array, capped at its length: an append to the copy's
// plies copies them (newChange's state alone appends in place).
func (st *State) clone() *State {
	c := *st
	c.Plies = st.Plies[:len(st.Plies):len(st.Plies)]
	if st.Clock != nil {
		tc := *st.Clock
		c.Clock = &tc
	}
	c.Invited = append([]string(nil), st.Invited...)
	c.InvitedBy = append([]engine.Seat(nil), st.InvitedBy...)
	return &c
}

// MaxInvited is how many spectators the seats of a private match may
// invite. Where both seats are players, each may invite half of them, so
// that one seat cannot take every place (the match service cannot tell
// whether a player id exists: the lobby keeps the players).
const MaxInvited = 16

// InviteCap returns how many spectators seat may invite: MaxInvited/2
// where the other seat is a player too, else MaxInvited.
func (st *State) InviteCap(seat engine.Seat) int {
	if st.Players == 2 && !st.Seats[0].IsBot() && !st.Seats[1].IsBot() {
		return MaxInvited / 2
	}
	return MaxInvited
}

// InvitedByCount returns how many spectators seat has invited.
func (st *State) InvitedByCount(seat engine.Seat) int {
	n := 0
	for _, s := range st.InvitedBy {
		if s == seat {
			n++
		}
	}
	return n
}

// VisibleTo reports whether playerID may see the match: anyone may see a
// public one; a private one only its seats and the invited.
func (st *State) VisibleTo(playerID string) bool {
	if !st.Private {
		return true
	}
	if playerID == "" {
		return false
	}
	return st.SeatOf(playerID) != engine.NoSeat || slices.Contains(st.Invited, playerID)
}

// SeatOf returns the seat held by playerID, or NoSeat.
func (st *State) SeatOf(playerID string) engine.Seat {
	if playerID == "" {
		return engine.NoSeat
	}
	for i, s := range st.Seats {
		if i < st.Players && s.PlayerID == playerID {
			return engine.Seat(i + 1)
		}
	}
	return engine.NoSeat
}

// Seat returns the state of seat s.
func (st *State) Seat(s engine.Seat) *SeatState { return &st.Seats[s.Index()] }

// NextPly is the number the next ply must carry.
func (st *State) NextPly() int { return len(st.Plies) + 1 }

// Clocks is both clocks at a moment.
type Clocks struct {
	Remaining [2]int64    `json:"r"`
	Running   engine.Seat `json:"run,omitempty"`
	AsOf      int64       `json:"at"`
}

// ClocksAt returns the clocks at now (unix ms), the running clock's time
// deducted (never below zero); nil without a clock.
func (st *State) ClocksAt(now int64) *Clocks {
	if st.Clock == nil {
		return nil
	}
	c := &Clocks{Remaining: st.Remaining, AsOf: now}
	if st.Status == StatusInProgress && st.ToMove != engine.NoSeat {
		c.Running = st.ToMove
		i := st.ToMove.Index()
		c.Remaining[i] = max(0, st.Remaining[i]-(now-st.TurnStart))
	}
	return c
}

// flagAt returns when the running clock's flag falls, or 0: when it
// reaches zero, plus the lag credit a ply would get then (lag.go), so that
// no ply still in transit could save the mover.
func (st *State) flagAt() int64 {
	if st.Clock == nil || st.Status != StatusInProgress || st.ToMove == engine.NoSeat {
		return 0
	}
	i := st.ToMove.Index()
	return st.TurnStart + st.Remaining[i] + max(0, min(st.LagMS[i], st.LagQuota[i]))
}

// NextDeadline returns the earliest moment (unix ms) when something must
// happen to the match without anybody acting — abort, flag fall,
// abandonment, or a bot's turn to be asked again at botDue (unix ms; the
// caller's now plus the bot lease) — or 0 when nothing is pending.
func (st *State) NextDeadline(botDue int64) int64 {
	if st.Status == StatusFinished {
		return 0
	}
	var d int64
	earliest := func(t int64) {
		if t > 0 && (d == 0 || t < d) {
			d = t
		}
	}
	if st.Status == StatusWaiting {
		earliest(st.FirstPlyDeadline)
	}
	earliest(st.flagAt())
	for i := range st.Players {
		if c := st.Seats[i].Conn; c == Disconnected || c == NeverJoined {
			earliest(st.Seats[i].ReconnectDeadline)
			earliest(st.Seats[i].AnnounceAt)
		}
	}
	if st.ToMove != engine.NoSeat && st.Seat(st.ToMove).IsBot() {
		earliest(botDue)
	}
	return d
}

// EventKind says what an Event is.
type EventKind int8

// The kinds of event.
const (
	EventPly EventKind = iota + 1
	EventDrawOffered
	EventDrawDeclined
	EventDisconnected
	EventReconnected
	EventEnded
	// EventSuperseded is a notice, never stored and without a seq: the
	// seat joined again (Epoch) while connected, so its older stream
	// ends. Only that stream reads it; nobody else is told.
	EventSuperseded
)

// Event is one change to a match, numbered by Seq from 1 without gaps.
// It carries no view: each receiver computes the view it may see from the
// position after Plies plies.
type Event struct {
	MatchID string     `json:"m"`
	Seq     int64      `json:"q"`
	At      int64      `json:"a"`
	Kind    EventKind  `json:"k"`
	Plies   int        `json:"n"`
	Ply     *PlyRecord `json:"p,omitempty"`
	Clocks  *Clocks    `json:"c,omitempty"`
	// Seat is who offered, declined, dropped or came back.
	Seat     engine.Seat    `json:"s,omitempty"`
	Deadline int64          `json:"d,omitempty"` // reconnect deadline
	Epoch    int64          `json:"e,omitempty"`
	Outcome  engine.Outcome `json:"o"`
	Seed     string         `json:"seed,omitempty"`
	Layout   string         `json:"lay,omitempty"`
}

// Check reports a state that no commit writes, such as a damaged or forged
// one: another match's id, a seat count other than 1 or 2, a side to move
// that is not a seat.
func (st *State) Check(id string) error {
	switch {
	case st.ID != id:
		return fmt.Errorf("state of match %q under %q", st.ID, id)
	case st.Players < 1 || st.Players > len(st.Seats):
		return fmt.Errorf("state with %d players", st.Players)
	case st.ToMove != engine.NoSeat && (st.ToMove < engine.First || int(st.ToMove-engine.First) >= st.Players):
		return fmt.Errorf("state with seat %d to move", st.ToMove)
	}
	return nil
}
