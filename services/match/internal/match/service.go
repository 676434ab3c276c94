package match

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"go.opentelemetry.io/otel/trace"
	"golang.org/x/sync/singleflight"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/platform/telemetry"
)

// Config tunes the Service; zero fields take the defaults named.
type Config struct {
	ReconnectWindow time.Duration // default 60s
	FirstPlyTimeout time.Duration // default 30s
	// UntimedBotWait, when set, replaces both for a match without a clock
	// against a bot, played at one device (CreateParams.OneDevice) or by
	// one player alone (a training variant):
	// nobody waits on its player, so a closed tab or a first ply made
	// tomorrow ends nothing before it (`tabuleiro serve`: 30 days). 0: as
	// any match.
	UntimedBotWait time.Duration
	// SweepInterval (default 25ms) is the shortest gap between two sweeps
	// of the instance that sweeps. It sweeps when the earliest deadline
	// or lease it read falls due, when a nearer one is written (here, or
	// by another instance through the store's wake-ups), and at least
	// every SweepMaxWait: an idle instance polls once a SweepMaxWait,
	// not every SweepInterval.
	SweepInterval time.Duration
	// SweepMaxWait (default 1s) is the longest the sweeper waits between
	// two sweeps. A deadline written nearer than that wakes it.
	SweepMaxWait time.Duration
	// SweeperTTL (default 3s) is how long an instance holds its sweeper
	// groups without renewing them (every AliveEvery): the longest a dead
	// sweeper's deadlines wait for other instances to take its groups
	// over. Each group of the store's (Store.SweepGroups) is swept by one
	// instance at a time, the groups shared evenly among the instances:
	// the polling does not grow with the instances, and the firing of
	// deadlines spreads over them.
	SweeperTTL     time.Duration
	ClaimLease     time.Duration // default 5s: a claimed deadline comes back after this if its claimer died
	BotLease       time.Duration // default 5s: an unanswered bot turn is asked again (any instance) after this
	BotCallTimeout time.Duration // default 3s
	BotBudget      time.Duration // default 500ms
	// BotFallbackAfter is how many failed asks for one ply (default 10,
	// about 5 s of backoff) make the service play a legal ply for the bot.
	BotFallbackAfter int
	// ResyncInterval (default 2s) is how long a followed match stays quiet
	// before the instance's hub reads its last event once, in case a
	// publication was lost (the hub's setting: see redisstore.Hub.Resync).
	ResyncInterval time.Duration
	CacheIdle      time.Duration // default 10m: a cached match unused this long is dropped
	MaxAttempts    int           // default 8: optimistic retries of one action
	// LeaseTTL is how long a connected seat (or spectator) counts without
	// its instance renewing it (default 10s); LeaseRenew is how often an
	// instance renews what it holds (default 3s).
	LeaseTTL   time.Duration
	LeaseRenew time.Duration
	// OutageMin is the shortest gap between instances' alive marks (made
	// every AliveEvery, default 1 s) that counts as an outage of the
	// service, credited to every live match at start-up (default 5 s).
	OutageMin  time.Duration
	AliveEvery time.Duration
	// PresenceGrace (default 2s; negative: none) is how long a seat's
	// departure waits before player_disconnected is emitted: a seat back
	// within it (a reload, a network blip, a reconnect storm) emits no
	// presence event at all. Its reconnection window still runs from the
	// departure.
	PresenceGrace time.Duration
}

func (c Config) withDefaults() Config {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&c.ReconnectWindow, 60*time.Second)
	def(&c.FirstPlyTimeout, 30*time.Second)
	def(&c.SweepInterval, 25*time.Millisecond)
	def(&c.SweepMaxWait, time.Second)
	c.SweepMaxWait = max(c.SweepMaxWait, c.SweepInterval)
	def(&c.SweeperTTL, 3*time.Second)
	def(&c.ClaimLease, 5*time.Second)
	def(&c.BotLease, 5*time.Second)
	def(&c.BotCallTimeout, 3*time.Second)
	def(&c.BotBudget, 500*time.Millisecond)
	def(&c.ResyncInterval, 2*time.Second)
	def(&c.CacheIdle, 10*time.Minute)
	def(&c.LeaseTTL, 10*time.Second)
	def(&c.LeaseRenew, 3*time.Second)
	def(&c.OutageMin, 5*time.Second)
	def(&c.AliveEvery, time.Second)
	if c.PresenceGrace == 0 {
		c.PresenceGrace = 2 * time.Second
	}
	c.PresenceGrace = max(c.PresenceGrace, 0)
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 8
	}
	if c.BotFallbackAfter <= 0 {
		c.BotFallbackAfter = 10
	}
	return c
}

// Deps are the Service's collaborators.
type Deps struct {
	Store  Store
	Hub    Hub
	Rules  Rules
	Bot    Bot // nil: matches with bot seats are refused
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// DealBanqi draws a Banqi layout from crypto/rand: the layout (32
	// letters), the seed (hex) and its commitment.
	DealBanqi func() (layout, seed, commitment string, err error)
}

// Service runs matches. It is safe for concurrent use; any number of
// instances may serve the same matches through the same Store.
type Service struct {
	d   Deps
	cfg Config

	mu    sync.Mutex
	cache map[string]*entry
	bots  map[string]bool // "id/ply" of bot turns being asked here
	// held and watching are the presence this instance renews: its seats'
	// leases, and its number of spectators by match.
	held     map[Lease]struct{}
	watching map[string]int
	// instance names this instance in the spectator counts.
	instance string
	runCtx   context.Context //nolint:containedctx // the Run loop's context, for bot tasks it owns
	// fills shares a stream read among the feeds that need the same
	// events at once (Feed.fill).
	fills   singleflight.Group
	running sync.WaitGroup
	// sweeping is the set of sweeper groups this instance holds (bit g:
	// group g, see Store.Sweeper); woken signals its Run loop that a
	// deadline or lease due at nearest (unix ms) was written in one of
	// them (wakeSweeper).
	sweeping atomic.Uint64
	nearest  atomic.Int64
	woken    chan struct{}
}

type entry struct {
	mu   sync.Mutex
	st   *State
	pos  engine.Position
	used int64 // unix ms of the last use, under Service.mu
	// lags are the seats' lag estimates as read or set at lagsAt (unix
	// ms; 0: none), under Service.mu (lag.go).
	lags   [2]Lag
	lagsAt int64
	// stored are the estimates the store holds as this instance last
	// wrote or read them: an estimate within LagStoreStepMS of its stored
	// one stays here only (RecordRoundTrip).
	stored [2]Lag
}

// NewService returns a Service; call Run to sweep deadlines and drive bots.
func NewService(d Deps, cfg Config) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	if d.Store != nil { // tests of other parts may leave it out
		if n := d.Store.SweepGroups(); n < 1 || n > 64 {
			panic(fmt.Sprintf("match: a store of %d sweeper groups (1 to 64)", n))
		}
	}
	s := &Service{d: d, cfg: cfg.withDefaults(), cache: map[string]*entry{}, bots: map[string]bool{},
		held: map[Lease]struct{}{}, watching: map[string]int{}, instance: rand.Text(), woken: make(chan struct{}, 1)}
	s.nearest.Store(math.MaxInt64)
	observeActive(s)
	return s
}

// Config returns the effective configuration.
func (s *Service) Config() Config { return s.cfg }

func (s *Service) nowMS() int64 { return s.d.Now().UnixMilli() }

// CreateParams is a new match.
type CreateParams struct {
	RequestID string
	Game      engine.Game
	Variant   string
	Seats     []Participant
	Clock     *TimeControl
	Rated     bool
	Layout    string // Banqi replay layout; empty draws one
	// Private: only the seats and the spectators they invite may see it.
	Private bool
	// OneDevice: both seats are played at one device (two people at one
	// screen): nobody waits on another player, so without a clock the
	// match waits as an untimed match against a bot does
	// (Config.UntimedBotWait). Never rated.
	OneDevice bool
}

// Create starts a match, or returns the one already created for
// p.RequestID.
func (s *Service) Create(ctx context.Context, p CreateParams) (*State, error) {
	if p.RequestID == "" {
		return nil, fmt.Errorf("request id is required: %w", ErrInvalid)
	}
	v, err := s.d.Rules.Lookup(p.Game, p.Variant)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if len(p.Seats) != v.Players {
		return nil, fmt.Errorf("%s %s needs %d seats, got %d: %w", p.Game, v.ID, v.Players, len(p.Seats), ErrInvalid)
	}
	if len(p.RequestID) > MaxID {
		return nil, fmt.Errorf("request id longer than %d bytes: %w", MaxID, ErrInvalid)
	}
	if len(p.Seats) == 2 && p.Seats[0].PlayerID != "" && p.Seats[0].PlayerID == p.Seats[1].PlayerID {
		return nil, fmt.Errorf("the same player holds both seats: %w", ErrInvalid)
	}
	for i, seat := range p.Seats {
		if err := checkName(seat.DisplayName); err != nil {
			return nil, fmt.Errorf("seat %d: display name %w: %w", i+1, err, ErrInvalid)
		}
		if seat.Username != "" {
			if err := checkName(seat.Username); err != nil || seat.IsBot() {
				return nil, fmt.Errorf("seat %d: a username is a person's, of at most %d bytes, without control characters: %w", i+1, MaxDisplayName, ErrInvalid)
			}
		}
		switch {
		case len(seat.PlayerID) > MaxID:
			return nil, fmt.Errorf("seat %d: player id longer than %d bytes: %w", i+1, MaxID, ErrInvalid)
		case seat.IsBot() && (seat.PlayerID != "" || seat.BotLevel > 4):
			return nil, fmt.Errorf("seat %d: a bot seat has a level 1-4 and no player: %w", i+1, ErrInvalid)
		case !seat.IsBot() && seat.PlayerID == "":
			return nil, fmt.Errorf("seat %d has neither player nor bot: %w", i+1, ErrInvalid)
		case seat.IsBot() && s.d.Bot == nil:
			return nil, fmt.Errorf("seat %d: no bot service configured: %w", i+1, ErrInvalid)
		case p.Rated && seat.IsBot():
			return nil, fmt.Errorf("a match with a bot cannot be rated: %w", ErrInvalid)
		}
	}
	if p.Rated && p.OneDevice {
		return nil, fmt.Errorf("a match played at one device cannot be rated: %w", ErrInvalid)
	}
	if p.Rated && (!v.Rated || v.Players != 2) {
		return nil, fmt.Errorf("%s %s is never rated: %w", p.Game, v.ID, ErrInvalid)
	}
	if tc := p.Clock; tc != nil {
		if v.Players < 2 {
			return nil, fmt.Errorf("%s %s is a solo game without a clock (C2): %w", p.Game, v.ID, ErrInvalid)
		}
		if tc.BaseMS < 1000 || tc.BaseMS > 3*3600*1000 || tc.IncrementMS < 0 || tc.IncrementMS > 600*1000 {
			return nil, fmt.Errorf("time control %d+%d ms out of range (base 1s-3h, increment 0-10min): %w", tc.BaseMS, tc.IncrementMS, ErrInvalid)
		}
	}
	if p.Layout != "" && (p.Game != engine.Banqi || p.Rated) {
		return nil, fmt.Errorf("a layout is only for unrated Banqi matches: %w", ErrInvalid)
	}
	now := s.nowMS()
	firstPly, window := s.cfg.FirstPlyTimeout, s.cfg.ReconnectWindow
	// Training alone (one player, never a clock) waits as a bot match does.
	if p.Clock == nil && s.cfg.UntimedBotWait > 0 && (p.OneDevice || v.Players < 2 || slices.ContainsFunc(p.Seats, Participant.IsBot)) {
		firstPly, window = s.cfg.UntimedBotWait, s.cfg.UntimedBotWait
	}
	st := &State{
		ID: rand.Text(), Game: p.Game, Variant: v.ID, Rated: p.Rated, Draws: v.Draws, Players: v.Players,
		Clock: p.Clock, ToMove: engine.First, Status: StatusWaiting,
		CreatedAt: now, FirstPlyDeadline: now + firstPly.Milliseconds(),
		Layout: p.Layout, Private: p.Private,
	}
	if v.NeedsSetup && st.Layout == "" {
		if s.d.DealBanqi == nil {
			return nil, fmt.Errorf("no dealer for %s: %w", p.Game, ErrInvalid)
		}
		if st.Layout, st.Seed, st.Commitment, err = s.d.DealBanqi(); err != nil {
			return nil, fmt.Errorf("deal layout: %w", err)
		}
	}
	pos, err := s.d.Rules.New(st.Game, st.Variant, st.Layout)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	st.ToMove = pos.ToMove()
	st.WindowMS = window.Milliseconds()
	for i, seat := range p.Seats {
		// A player's window to join runs from creation (restarted at the
		// first ply), like a disconnected seat's.
		st.Seats[i] = SeatState{Participant: seat, Conn: NeverJoined, ReconnectDeadline: now + st.WindowMS}
		if seat.IsBot() {
			st.Seats[i] = SeatState{Participant: seat, Conn: Connected}
		}
	}
	if p.Clock != nil {
		st.Remaining = [2]int64{p.Clock.BaseMS, p.Clock.BaseMS}
		q := LagQuotaStart * LagGainMS(p.Clock)
		st.LagQuota = [2]int64{q, q}
	}
	st.Version = 1
	due := st.NextDeadline(now + s.cfg.BotLease.Milliseconds())
	id, err := s.d.Store.Create(ctx, p.RequestID, st, due)
	if err != nil {
		return nil, fmt.Errorf("create match: %w", err)
	}
	s.wakeSweeper(ctx, id, due)
	if id != st.ID {
		got, _, err := s.Get(ctx, id)
		return got, err
	}
	s.mu.Lock()
	s.cache[id] = &entry{st: st, pos: pos}
	s.mu.Unlock()
	s.maybeStartBot(ctx, st, pos)
	return st.clone(), nil
}

// Limits on a match's text fields.
const (
	MaxID          = 128 // request and player ids, bytes
	MaxDisplayName = 64  // bytes
)

// checkName refuses a display name that is empty, too long, not UTF-8, or
// holds control characters (ANSI escapes, newlines) or bidirectional
// overrides, which would garble or spoof what clients print.
func checkName(n string) error {
	switch {
	case n == "":
		return errors.New("is empty")
	case len(n) > MaxDisplayName:
		return fmt.Errorf("is longer than %d bytes", MaxDisplayName)
	case !utf8.ValidString(n):
		return errors.New("is not UTF-8")
	}
	for _, r := range n {
		if unicode.IsControl(r) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
			return fmt.Errorf("holds the control character %U", r)
		}
	}
	return nil
}

// Get reads a match fresh from the Store, with its current position. The
// state is the caller's own copy.
func (s *Service) Get(ctx context.Context, id string) (*State, engine.Position, error) {
	e := s.entry(id)
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := s.reload(ctx, id, e); err != nil {
		return nil, nil, err
	}
	if e.st.Status == StatusFinished {
		s.forget(id) // nothing more happens to it; readers get it from the store
	}
	return e.st.clone(), e.pos, nil
}

func (s *Service) entry(id string) *entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.cache[id]
	if e == nil {
		e = &entry{}
		s.cache[id] = e
	}
	e.used = s.nowMS()
	return e
}

// evictIdle drops the cached matches unused since before (unix ms): a
// match this instance stopped serving, or one that ended elsewhere.
func (s *Service) evictIdle(before int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, e := range s.cache {
		if e.used < before {
			delete(s.cache, id)
		}
	}
}

func (s *Service) forget(id string) {
	s.mu.Lock()
	delete(s.cache, id)
	s.mu.Unlock()
}

// invalidate drops id's cached state: its next use reads it whole.
func (s *Service) invalidate(id string) {
	e := s.entry(id)
	e.mu.Lock()
	e.st = nil
	e.mu.Unlock()
}

// reload brings e up to date with the store. A cached entry catches up:
// only the plies it lacks are read and played on its position, so an
// instance whose players' plies are committed elsewhere pays per ply, not
// per game. An empty entry, or one the store no longer extends, is read
// whole and replayed.
func (s *Service) reload(ctx context.Context, id string, e *entry) error {
	have := 0
	if e.st != nil && e.pos != nil {
		have = len(e.st.Plies)
	}
	st, total, err := s.d.Store.Load(ctx, id, have)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			s.forget(id)
		}
		return err
	}
	return s.catchUp(ctx, id, e, have, st, total)
}

// catchUp sets e to st, read from the store with its plies from number
// have on (all when have is 0) of total. When e holds have plies and its
// last is the stored one, only the plies after it are played on e's
// position; otherwise (e is empty or behind an older copy, or the store
// lost writes and took other plies since) the match is read whole and
// replayed.
func (s *Service) catchUp(ctx context.Context, id string, e *entry, have int, st *State, total int) error {
	if have > 0 && e.st != nil && e.pos != nil && len(e.st.Plies) == have &&
		len(st.Plies) > 0 && st.Plies[0] == e.st.Plies[have-1] && total == have+len(st.Plies)-1 {
		news := st.Plies[1:]
		pos, err := playOn(e.pos, news)
		if err == nil {
			if len(news) == 0 {
				st.Plies = e.st.Plies
			} else {
				st.Plies = append(e.st.Plies, news...) // in place: see newChange
			}
			e.st, e.pos = st, pos
			return nil
		}
	}
	if have > 0 || total != len(st.Plies) {
		var err error
		if st, _, err = s.d.Store.Load(ctx, id, 0); err != nil {
			if errors.Is(err, ErrNotFound) {
				s.forget(id)
			}
			return err
		}
	}
	pos, err := s.PositionAt(st, len(st.Plies))
	if err != nil {
		return err
	}
	e.st, e.pos = st, pos
	return nil
}

// Observe brings the cached state of a match up to date from a commit that
// any instance published (the hub calls it before the commit's events reach
// this instance's streams), so that the next ply here needs no read. It
// never blocks: an entry busy in a commit, or not at the version before p,
// is left to catch up by itself.
func (s *Service) Observe(p Published) {
	s.mu.Lock()
	e := s.cache[p.ID]
	s.mu.Unlock()
	if e == nil || !e.mu.TryLock() {
		return
	}
	defer e.mu.Unlock()
	if e.st == nil || e.pos == nil || e.st.Version != p.Version-1 {
		return
	}
	st, plies, err := p.Decode()
	if err != nil || !follows(e.st, st, plies, p.Seq, p.Events) {
		return
	}
	pos, err := playOn(e.pos, plies)
	if err != nil || (st.Status != StatusFinished && st.ToMove != pos.ToMove()) {
		return
	}
	st.Plies = append(e.st.Plies, plies...) // in place: see newChange
	e.st, e.pos = st, pos
	if st.Status == StatusFinished {
		s.forget(p.ID)
	}
}

// follows reports whether next, with its new plies, can be the commit
// after prev of events events, the last with seq: the same match and
// seats, plies numbered on from prev's, event seqs following prev's. A
// message that fails this (damaged, or not written by a commit) is
// ignored, and the cache catches up from the store instead.
func follows(prev, next *State, plies []PlyRecord, seq int64, events int) bool {
	if next.Check(prev.ID) != nil || next.Game != prev.Game || next.Variant != prev.Variant ||
		next.Layout != prev.Layout || next.Players != prev.Players || next.LastSeq != seq || seq-int64(events) != prev.LastSeq {
		return false
	}
	for i := range prev.Players {
		if next.Seats[i].Participant.PlayerID != prev.Seats[i].Participant.PlayerID ||
			next.Seats[i].Participant.BotLevel != prev.Seats[i].Participant.BotLevel {
			return false
		}
	}
	for i, p := range plies {
		if p.Number != len(prev.Plies)+1+i {
			return false
		}
	}
	return true
}

// playOn plays the recorded plies on pos.
func playOn(pos engine.Position, plies []PlyRecord) (engine.Position, error) {
	for _, p := range plies {
		ply, err := pos.ParsePly(p.Notation)
		if err != nil {
			return nil, fmt.Errorf("replay ply %d: %w", p.Number, err)
		}
		if pos, err = pos.Play(ply); err != nil {
			return nil, fmt.Errorf("replay ply %d: %w", p.Number, err)
		}
	}
	return pos, nil
}

// PositionAt rebuilds the position of st after its first n plies.
func (s *Service) PositionAt(st *State, n int) (engine.Position, error) {
	pos, err := s.d.Rules.New(st.Game, st.Variant, st.Layout)
	if err != nil {
		return nil, fmt.Errorf("match %s: new position: %w", st.ID, err)
	}
	pos, err = playOn(pos, st.Plies[:min(n, len(st.Plies))])
	if err != nil {
		return nil, fmt.Errorf("match %s: %w", st.ID, err)
	}
	return pos, nil
}

type transition func(st *State, pos engine.Position, now int64) (*change, error)

// mutate applies fn to the match and commits its change, re-reading and
// retrying when the cached state was stale or another writer won. fn may
// return a change with an error: the change is committed and the error
// returned.
func (s *Service) mutate(ctx context.Context, id string, fn transition) (*change, error) {
	e := s.entry(id)
	e.mu.Lock()
	defer e.mu.Unlock()
	// stale: the cache may be behind the store (another instance committed
	// since); fresh: it was just read, so a refusal stands.
	fresh, stale := false, e.st == nil
	for range s.cfg.MaxAttempts {
		if stale {
			if err := s.reload(ctx, id, e); err != nil {
				return nil, err
			}
			fresh, stale = true, false
		}
		c, ferr := fn(e.st, e.pos, s.nowMS())
		if c == nil {
			if !fresh { // the cache may be behind: decide on fresh data
				stale = true
				continue
			}
			return nil, ferr
		}
		c.st.Version = e.st.Version + 1
		var rec *Record
		if c.st.Status == StatusFinished {
			rec = RecordOf(c.st)
		}
		due := c.st.NextDeadline(c.now + s.cfg.BotLease.Milliseconds())
		err := s.d.Store.Commit(ctx, Commit{
			PrevVersion: e.st.Version, State: c.st, Plies: c.plies, Events: c.events, Notices: c.notices,
			Deadline: due, Record: rec,
			Lease: c.lease, LeaseUntil: c.now + s.cfg.LeaseTTL.Milliseconds(), At: c.now, Have: len(e.st.Plies),
		})
		if cf := (*Conflict)(nil); errors.As(err, &cf) && cf.State != nil {
			// Another instance committed first: catch up from what the
			// store sent back and decide again on that.
			if err := s.catchUp(ctx, id, e, len(e.st.Plies), cf.State, cf.Total); err != nil {
				e.st = nil
				return nil, err
			}
			fresh, stale = true, false
			continue
		}
		if errors.Is(err, ErrVersionConflict) {
			stale, fresh = true, false
			continue
		}
		if err != nil {
			e.st = nil
			return nil, err // the store's error names the match
		}
		e.st, e.pos = c.st, c.pos
		s.wakeSweeper(ctx, id, due)
		observeCommit(ctx, c)
		if c.st.Status == StatusFinished {
			s.forget(id)
		} else {
			s.maybeStartBot(ctx, c.st, c.pos)
		}
		return c, ferr
	}
	return nil, fmt.Errorf("match %s: %w", id, ErrVersionConflict)
}

// SubmitPly plays a ply for seat with the number the client expects. It
// returns the PlyPlayed event — the same one again, with dup set, for a
// ply already accepted.
func (s *Service) SubmitPly(ctx context.Context, id string, seat engine.Seat, number int, notation string) (ev Event, dup bool, err error) {
	start := time.Now()
	lags := s.lags(ctx, id)
	for range 2 {
		var again *PlyRecord
		c, err := s.mutate(ctx, id, func(st *State, pos engine.Position, now int64) (*change, error) {
			c, rec, err := playPly(st, pos, seat, number, notation, now, lags, func(n int, notation string) string {
				before, err := s.PositionAt(st, n-1)
				if err != nil {
					return ""
				}
				p, err := before.ParsePly(notation)
				if err != nil {
					return ""
				}
				return p.String()
			})
			if c == nil && err == nil {
				again = rec
			}
			return c, err
		})
		if err != nil {
			return Event{}, false, err
		}
		if c != nil {
			observePly(ctx, c.st.Game, start)
			return c.events[0], false, nil
		}
		// The ply was committed, but maybe not replicated (a retry after
		// ErrNotReplicated): it is acknowledged again only once the store
		// shows it where the replicas are waited for. A store that lost it
		// (a failover to a replica that never had it, after this instance
		// read it from the old primary) gets it played again on what the
		// store holds now.
		stored, err := s.d.Store.PlyStored(ctx, id, *again)
		if err != nil {
			return Event{}, false, err
		}
		if !stored {
			s.invalidate(id)
			continue
		}
		evs, err := s.d.Store.Events(ctx, id, again.Seq-1, 1)
		if err == nil && len(evs) == 1 && evs[0].Seq == again.Seq {
			return evs[0], true, nil
		}
		return Event{MatchID: id, Seq: again.Seq, At: again.At, Kind: EventPly, Plies: again.Number, Ply: again}, true, nil
	}
	return Event{}, false, fmt.Errorf("ply %d of match %s: the store lost it twice: %w", number, id, ErrNotReplicated)
}

func (s *Service) simple(ctx context.Context, id string, fn transition) error {
	_, err := s.mutate(ctx, id, fn)
	return err
}

// Resign ends the match as a loss for seat.
func (s *Service) Resign(ctx context.Context, id string, seat engine.Seat) error {
	return s.simple(ctx, id, func(st *State, pos engine.Position, now int64) (*change, error) {
		return resign(st, pos, seat, now)
	})
}

// OfferDraw offers a draw for seat.
func (s *Service) OfferDraw(ctx context.Context, id string, seat engine.Seat) error {
	return s.simple(ctx, id, func(st *State, pos engine.Position, now int64) (*change, error) {
		return offerDraw(st, pos, seat, now)
	})
}

// AnswerDraw accepts or declines the opponent's pending offer.
func (s *Service) AnswerDraw(ctx context.Context, id string, seat engine.Seat, accept bool) error {
	return s.simple(ctx, id, func(st *State, pos engine.Position, now int64) (*change, error) {
		return answerDraw(st, pos, seat, accept, now)
	})
}

// InviteSpectator lets playerID watch private match id; by must hold a
// seat, and may invite InviteCap spectators. Nothing changes when
// playerID is already seated or invited.
func (s *Service) InviteSpectator(ctx context.Context, id, by, playerID string) error {
	if playerID == "" || len(playerID) > MaxID {
		return fmt.Errorf("player_id must be 1-%d bytes: %w", MaxID, ErrInvalid)
	}
	return s.simple(ctx, id, func(st *State, pos engine.Position, now int64) (*change, error) {
		switch {
		case !st.VisibleTo(by):
			return nil, ErrNotFound
		case st.SeatOf(by) == engine.NoSeat:
			return nil, ErrNotSeated
		case !st.Private:
			return nil, fmt.Errorf("the match is public; anyone may watch it: %w", ErrNotPrivate)
		case st.Status == StatusFinished:
			return nil, fmt.Errorf("match %s: %w", st.ID, engine.ErrGameOver)
		case st.VisibleTo(playerID):
			return nil, nil
		case len(st.Invited) >= MaxInvited:
			return nil, fmt.Errorf("a private match admits at most %d invited spectators: %w", MaxInvited, ErrTooMany)
		case st.InvitedByCount(st.SeatOf(by)) >= st.InviteCap(st.SeatOf(by)):
			return nil, fmt.Errorf("each seat of this match may invite at most %d spectators: %w", st.InviteCap(st.SeatOf(by)), ErrTooMany)
		}
		c := newChange(st, pos, now)
		for len(c.st.InvitedBy) < len(c.st.Invited) {
			c.st.InvitedBy = append(c.st.InvitedBy, engine.NoSeat) // stored before InvitedBy
		}
		c.st.Invited = append(c.st.Invited, playerID)
		c.st.InvitedBy = append(c.st.InvitedBy, st.SeatOf(by))
		return c, nil
	})
}

// Join connects seat's new stream and returns its epoch. The stream's
// lease is stored with the join and renewed by this instance until Leave.
func (s *Service) Join(ctx context.Context, id string, seat engine.Seat) (int64, error) {
	var epoch int64
	c, err := s.mutate(ctx, id, func(st *State, pos engine.Position, now int64) (*change, error) {
		c, ep, err := join(st, pos, seat, now)
		epoch = ep
		if c == nil && err == nil {
			return nil, nil
		}
		return c, err
	})
	if c != nil && c.lease != nil {
		s.hold(*c.lease)
	}
	return epoch, err
}

// Leave disconnects seat's stream of epoch: its reconnection window
// starts, and this instance stops renewing the stream's lease.
func (s *Service) Leave(ctx context.Context, id string, seat engine.Seat, epoch int64) error {
	err := s.leave(ctx, id, seat, epoch)
	s.release(context.WithoutCancel(ctx), Lease{MatchID: id, Seat: seat, Epoch: epoch})
	return err
}

func (s *Service) leave(ctx context.Context, id string, seat engine.Seat, epoch int64) error {
	_, err := s.mutate(ctx, id, func(st *State, pos engine.Position, now int64) (*change, error) {
		// The window the match was created with (one against a bot
		// without a clock may have its own); older matches have none.
		window := st.WindowMS
		if window <= 0 {
			window = s.cfg.ReconnectWindow.Milliseconds()
		}
		return leave(st, pos, seat, epoch, now, window, s.cfg.PresenceGrace.Milliseconds()), nil
	})
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}

// Run sweeps the deadlines and lapsed leases of the sweeper groups this
// instance holds (each group held by one instance at a time, the groups
// shared evenly among the instances, see Config.SweeperTTL), keeps this
// instance's leases and alive mark, and owns the bot tasks, until ctx
// ends.
func (s *Service) Run(ctx context.Context) error {
	s.mu.Lock()
	s.runCtx = ctx
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.runCtx = nil
		s.mu.Unlock()
		s.running.Wait()
	}()
	// Before any deadline fires: give back the time no instance was alive.
	if err := s.CreditOutage(ctx); err != nil && ctx.Err() == nil {
		s.d.Logger.WarnContext(ctx, "credit outage", "err", err)
	}
	renew := time.NewTicker(s.cfg.LeaseRenew)
	defer renew.Stop()
	alive := time.NewTicker(s.cfg.AliveEvery)
	defer alive.Stop()
	// The instance that sweeps a group hears the deadlines other
	// instances write in it nearer than SweepMaxWait (from before its
	// first sweep on).
	if err := s.d.Store.SweeperWakes(ctx, func(g int, due int64) {
		if g < 0 || s.sweeping.Load()&(1<<g) != 0 {
			s.wakeAt(due)
		}
	}); err != nil && ctx.Err() == nil {
		s.d.Logger.WarnContext(ctx, "sweeper wake-ups", "err", err)
	}
	// Each group is swept by one instance at a time; every instance asks
	// for its share of the groups every AliveEvery, and the groups of an
	// instance that stopped go to the others within SweeperTTL of its
	// end (at once after a clean stop, which gives them up). An instance
	// sweeps the groups it holds when the earliest deadline or lease of
	// them falls due, when a nearer one is written, and at least every
	// SweepMaxWait: an idle instance polls once a SweepMaxWait.
	token := rand.Text()
	s.sweeping.Store(s.sweeper(ctx, token))
	defer func() {
		if s.sweeping.Swap(0) != 0 {
			_ = s.d.Store.ReleaseSweeper(context.WithoutCancel(ctx), token)
		}
	}()
	var (
		t    = time.NewTimer(0)
		at   = s.nowMS() // when t fires (unix ms); math.MaxInt64: stopped
		last int64       // the last sweep's time
	)
	defer t.Stop()
	// plan sets t to fire at due, or sooner: SweepInterval after the last
	// sweep at the earliest, SweepMaxWait after now at the latest.
	plan := func(due int64) {
		now := s.nowMS()
		due = min(max(due, last+s.cfg.SweepInterval.Milliseconds()), now+s.cfg.SweepMaxWait.Milliseconds())
		if at <= due {
			return // t fires as soon (or has fired: its sweep is pending)
		}
		at = due
		t.Reset(time.Duration(max(due-now, 0)) * time.Millisecond)
	}
	if s.sweeping.Load() == 0 {
		t.Stop()
		at = math.MaxInt64
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-alive.C:
			if _, err := s.d.Store.MarkAlive(telemetry.Untraced(ctx), s.nowMS()); err != nil && ctx.Err() == nil { // a heartbeat: untraced
				s.d.Logger.WarnContext(ctx, "mark alive", "err", err)
			}
			was, now := s.sweeping.Load(), s.sweeper(ctx, token)
			s.sweeping.Store(now)
			switch {
			case now&^was != 0: // groups taken: sweep them soon
				plan(0)
			case now == 0 && was != 0:
				t.Stop()
				at = math.MaxInt64
			}
		case <-s.woken:
			if due := s.nearest.Swap(math.MaxInt64); s.sweeping.Load() != 0 {
				plan(due)
			}
		case <-t.C:
			at = math.MaxInt64
			held := s.sweeping.Load()
			if held == 0 {
				continue
			}
			last = s.nowMS()
			next := s.sweep(ctx, groupList(held))
			if next == 0 { // nothing to wait for: the longest wait
				next = math.MaxInt64
			}
			plan(next)
		case <-renew.C:
			s.Renew(telemetry.Untraced(ctx)) // a heartbeat: untraced
			s.evictIdle(s.nowMS() - s.cfg.CacheIdle.Milliseconds())
		}
	}
}

// SweepGroups returns the sweeper groups this instance holds now, for
// tests and operators.
func (s *Service) SweepGroups() []int { return groupList(s.sweeping.Load()) }

// groupList is the groups of a set of them (bit g: group g).
func groupList(set uint64) []int {
	var gs []int
	for g := range 64 {
		if set&(1<<g) != 0 {
			gs = append(gs, g)
		}
	}
	return gs
}

// wakeSweeper tells the instance that sweeps match id's group of a
// deadline written at due (unix ms; 0: none) if it falls due sooner than
// the sweeper's longest wait: this instance's own Run loop at once when it
// holds the group, the others through the store (in the background: the
// caller does not wait for it).
func (s *Service) wakeSweeper(ctx context.Context, id string, due int64) {
	if due <= 0 || due-s.nowMS() >= s.cfg.SweepMaxWait.Milliseconds() {
		return
	}
	g := s.d.Store.SweepGroup(id)
	if s.sweeping.Load()&(1<<g) != 0 {
		s.wakeAt(due)
		return
	}
	// Not s.running: this may be called while Run ends (or without Run);
	// the publication ends within its timeout.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(telemetry.Untraced(ctx)), 2*time.Second)
	go func() {
		defer cancel()
		if err := s.d.Store.WakeSweeper(ctx, g, due); err != nil {
			s.d.Logger.WarnContext(ctx, "wake the sweeper", "err", err)
		}
	}()
}

// wakeAt has the Run loop sweep at due (unix ms) if it would wait longer.
func (s *Service) wakeAt(due int64) {
	for {
		n := s.nearest.Load()
		if due >= n || s.nearest.CompareAndSwap(n, due) {
			break
		}
	}
	select {
	case s.woken <- struct{}{}:
	default: // a wake-up is pending, and takes the nearest
	}
}

// sweeper takes or renews token's share of the sweeper groups and returns
// the set it holds; when the store cannot say, it sweeps every group (two
// sweepers are harmless: each deadline is claimed once).
func (s *Service) sweeper(ctx context.Context, token string) uint64 {
	gs, err := s.d.Store.Sweeper(telemetry.Untraced(ctx), token, s.cfg.SweeperTTL)
	if err != nil {
		if ctx.Err() == nil {
			s.d.Logger.WarnContext(ctx, "sweeper groups", "err", err)
		}
		return 1<<s.d.Store.SweepGroups() - 1
	}
	var set uint64
	for _, g := range gs {
		set |= 1 << g
	}
	return set
}

// CreditOutage gives every live match back the time while no instance of
// the service was alive: if the last alive mark of any instance is more
// than OutageMin old, the gap from it to now is credited (creditOutage)
// to every live match, once per match, before this instance's sweeper
// fires any deadline. Run calls it at start; exported for tests.
//
// Clock fairness: a player is never charged for the server. Time while
// every instance was down (a crash, a deploy that stopped them all, a
// one-process server closed and started again days later) is given back
// in full to the side to move, and every reconnection and first-ply
// window moves on by as much. Time while some instance was alive is
// charged as usual: a draining instance hands its streams to the others.
func (s *Service) CreditOutage(ctx context.Context) error {
	now := s.nowMS()
	prev, err := s.d.Store.MarkAlive(ctx, now)
	if err != nil {
		return err
	}
	if prev == 0 || now-prev < s.cfg.OutageMin.Milliseconds() {
		return nil
	}
	sums, err := s.d.Store.Live(ctx, "", 1<<20, now)
	if err != nil {
		return fmt.Errorf("list live matches: %w", err)
	}
	var errs []error
	for _, sum := range sums {
		_, err := s.mutate(ctx, sum.ID, func(st *State, pos engine.Position, at int64) (*change, error) {
			return creditOutage(st, pos, prev, now, at), nil
		})
		if err != nil && !errors.Is(err, ErrNotFound) {
			errs = append(errs, fmt.Errorf("match %s: %w", sum.ID, err))
		}
	}
	s.d.Logger.InfoContext(ctx, "service outage credited to live matches", "outage_ms", now-prev, "matches", len(sums))
	return errors.Join(errs...)
}

// Sweep fires every deadline due now once, of every group; exported for
// tests and benchmarks that drive time themselves.
func (s *Service) Sweep(ctx context.Context) { s.sweep(ctx, nil) }

// sweep is Sweep of groups (nil: every group); it returns when the next
// sweep is due (unix ms): the earliest deadline or lease it read after now
// (0: none), or now when there may be more due than it fired.
func (s *Service) sweep(ctx context.Context, groups []int) (next int64) {
	now := s.nowMS()
	const limit = 256
	// Looking for due deadlines and lapsed leases is idle polling (once
	// a SweepMaxWait on the sweeping replica), one round trip: untraced.
	// Firing one is traced.
	ids, leases, next, err := s.d.Store.Due(telemetry.Untraced(ctx), groups, now, limit)
	ctx = telemetry.Traced(ctx)
	if err != nil {
		if ctx.Err() == nil {
			s.d.Logger.WarnContext(ctx, "sweep deadlines and leases", "err", err)
		}
		return now // try again soon
	}
	if len(ids) == limit || len(leases) == limit {
		next = now
	}
	for _, id := range ids {
		won, err := s.d.Store.Claim(ctx, id, now, now+s.cfg.ClaimLease.Milliseconds())
		if err != nil || !won {
			continue
		}
		if err := s.fireSafely(ctx, id); err != nil && ctx.Err() == nil {
			s.d.Logger.WarnContext(ctx, "fire deadline", "match_id", id, "err", err)
		}
	}
	s.sweepLeases(ctx, now, leases)
	return next
}

// fireSafely fires id's deadline; a panic (a damaged match) becomes its
// error, so one match cannot stop the sweeper of every other.
func (s *Service) fireSafely(ctx context.Context, id string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			s.forget(id)
			err = fmt.Errorf("panic firing the deadline of match %s: %v", id, r)
		}
	}()
	return s.fire(ctx, id)
}

func (s *Service) fire(ctx context.Context, id string) error {
	c, err := s.mutate(ctx, id, func(st *State, pos engine.Position, now int64) (*change, error) {
		return fireDue(st, pos, now), nil
	})
	if errors.Is(err, ErrNotFound) {
		return s.d.Store.Reschedule(ctx, id, 0, 0)
	}
	if err != nil || c != nil {
		return err // a commit set the next deadline
	}
	// Nothing ended: a bot's turn fell due, or the deadline was stale.
	st, pos, err := s.Get(ctx, id)
	if err != nil {
		return err
	}
	s.maybeStartBot(ctx, st, pos)
	due := st.NextDeadline(s.nowMS() + s.cfg.BotLease.Milliseconds())
	if err := s.d.Store.Reschedule(ctx, id, st.Version, due); err != nil {
		return err
	}
	s.wakeSweeper(ctx, id, due)
	return nil
}

// maybeStartBot asks the bot for its ply when a bot seat is to move, once
// per instance and ply. The call runs under Run's context but continues
// the trace of ctx (the RPC or sweep that made it the bot's turn).
func (s *Service) maybeStartBot(ctx context.Context, st *State, pos engine.Position) {
	if st.Status == StatusFinished || st.ToMove == engine.NoSeat || !st.Seat(st.ToMove).IsBot() || s.d.Bot == nil {
		return
	}
	key := st.ID + "/" + strconv.Itoa(st.NextPly())
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.runCtx == nil || s.bots[key] {
		return // the sweeper asks once Run runs
	}
	s.bots[key] = true
	ctx = trace.ContextWithSpanContext(s.runCtx, trace.SpanContextFromContext(ctx))
	seat, number, level := st.ToMove, st.NextPly(), st.Seat(st.ToMove).BotLevel
	view := pos.View(seat)
	id, game, variant := st.ID, st.Game, st.Variant
	player := id
	for _, o := range st.Seats {
		if !o.IsBot() && o.PlayerID != "" {
			player = o.PlayerID
		}
	}
	s.running.Go(func() {
		defer func() {
			s.mu.Lock()
			delete(s.bots, key)
			s.mu.Unlock()
		}()
		s.askBot(ctx, BotRequest{MatchID: id, PlayerID: player, Game: game, Variant: variant, View: view, Seat: seat, Level: level}, number)
	})
}

// askBot asks until the bot's ply is played or the match moves on.
// Failures back off and retry; the bot's clock runs meanwhile. After
// Config.BotFallbackAfter failures the first legal ply of the view is
// played, and the failure logged as an error, so that a bot service that
// keeps failing (down everywhere, or refusing the view) cannot stall a game
// without a clock.
func (s *Service) askBot(ctx context.Context, req BotRequest, number int) {
	id, seat := req.MatchID, req.Seat
	req.BudgetMS = s.cfg.BotBudget.Milliseconds()
	backoff := 20 * time.Millisecond
	for attempt := uint64(0); ; attempt++ {
		var (
			ans BotAnswer
			err error
		)
		if attempt >= uint64(s.cfg.BotFallbackAfter) {
			if legal := req.View.Legal(); len(legal) > 0 {
				ans = BotAnswer{Notation: legal[0].String(), PlyNumber: number}
				s.d.Logger.ErrorContext(ctx, "bot failed; a fallback ply is played for it", "match_id", id, "ply", number, "attempts", attempt, "notation", ans.Notation)
			}
		} else {
			callCtx, cancel := context.WithTimeout(ctx, s.cfg.BotCallTimeout)
			req.Seed = botSeed(id, number, attempt)
			ans, err = s.d.Bot.SelectPly(callCtx, req)
			cancel()
		}
		if err == nil && ans.PlyNumber == number {
			_, _, err = s.SubmitPly(ctx, id, seat, number, ans.Notation)
			var pe *PlyError
			if err == nil || errors.As(err, &pe) || errors.Is(err, ErrNotFound) {
				return // played, or the match moved on
			}
		} else if err == nil {
			err = fmt.Errorf("bot answered for ply %d, want %d: discarded", ans.PlyNumber, number)
		}
		if ctx.Err() != nil {
			return
		}
		s.d.Logger.WarnContext(ctx, "bot ply", "match_id", id, "ply", number, "err", err)
		st, _, gerr := s.Get(ctx, id)
		if gerr != nil || st.Status == StatusFinished || st.NextPly() != number {
			return
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		backoff = min(2*backoff, time.Second)
	}
}

// botSeed seeds a bot's random choices (easy's pick among its best plies,
// tie breaks) for try attempt at ply number of match id: the same on every
// instance, but different from match to match, so that the same position
// does not get the same reply in every game (the easy bot would replay one
// game over and over).
func botSeed(id string, number int, attempt uint64) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64() ^ uint64(number)<<16 ^ attempt
}
