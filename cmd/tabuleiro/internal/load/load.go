// Package load drives a Tabuleiro deployment with simulated players through
// the public API: each player signs in as a guest on a lobby, queues for a
// quick pairing (FindMatch), plays the Quoridor game it is given on a match
// instance's Play stream, and queues again, until the run's time is up.
// A player whose stream drops rejoins on the next match address with the
// last event seq it saw and resends a ply the server may not have taken
// (plies are idempotent), which is what the fault tests rely on.
//
// Run measures games finished, plies per second, the ply round trip (from
// the mover's Send to the opponent's receipt of the ply_played event),
// the matchmaking wait and errors by gRPC status code, and can hand every
// seat's game log to a callback for checks.
package load

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/cutstream"
)

// Config is one load run.
type Config struct {
	// Lobby is the lobby addresses (HOST:PORT); players spread over them
	// and move to the next one when a call fails.
	Lobby []string
	// Match is the match addresses for Play streams; empty means Lobby
	// (the one-process mode serves both on one port).
	Match []string
	// Players is the number of simulated players (an even number pairs
	// everyone).
	Players int
	// Duration is how long players keep queuing for new games.
	Duration time.Duration
	// Drain is how long games in progress may go on after Duration before
	// the run abandons them; 0 means 10s.
	Drain time.Duration
	// Think is each player's pause before a ply (0: as fast as possible).
	Think time.Duration
	// Wander is the number of random pawn steps each seat makes before it
	// races to its goal rank; it sets the length of a game (about
	// 2*Wander+16 plies).
	Wander int
	// TimeControl is the clock of the games; nil takes the variant's
	// default.
	TimeControl *gamev1.TimeControl
	// Queues spreads the players over this many queues (0 or 1: one):
	// player i queues with TimeControl's base plus i mod Queues minutes,
	// as a site's players spread over its time controls. It needs
	// TimeControl.
	Queues int
	// MaxGames stops queuing once this many games have started (0: no
	// limit); with Duration it bounds the run.
	MaxGames int
	// RejoinWindow is how long a player keeps trying to rejoin its game
	// after its stream drops; 0 means 30s.
	RejoinWindow time.Duration
	// ConnsPerAddr is the gRPC connections opened to each address; 0
	// means enough for every player to hold its stream (connsFor): the
	// servers allow 64 streams per connection, and the streams beyond
	// wait for a free one (4 connections to one match instance let 256
	// seats of 2,000 play at once).
	ConnsPerAddr int
	// Seed makes the players' choices repeatable.
	Seed uint64
	// MatchAffinity sends both seats of a match to the same match address
	// (chosen by the match id), as a router with match affinity would;
	// otherwise players spread over the addresses by their number.
	MatchAffinity bool
	// Progress, when set, gets one line a second.
	Progress io.Writer
	// OnSeat, when set, gets each seat's log when its game ends or the
	// run stops. Called from many goroutines.
	OnSeat func(SeatLog)
	// OnMatched, when set, is called when a player has been paired (for
	// tests that act in the middle of games).
	OnMatched func(matchID string)
}

// SeatLog is what one seat saw of one game.
type SeatLog struct {
	MatchID string
	Player  string
	Seat    gamev1.Seat
	// Plies is every ply_played received, in order, duplicates included
	// (a replay after a rejoin is deduplicated by event seq first).
	Plies []*gamev1.Ply
	// Sent is the notation this seat sent for each ply number.
	Sent map[int32]string
	// Outcome is nil when the game did not end during the run.
	Outcome *gamev1.Outcome
	// Rejoins is the number of times the seat rejoined after a drop.
	Rejoins int
	// Err is why the seat gave up, nil when the game ended.
	Err error
}

// Quantiles summarises a set of durations.
type Quantiles struct {
	N             int
	P50, P99, Max time.Duration
}

func quantiles(ds []time.Duration) Quantiles {
	if len(ds) == 0 {
		return Quantiles{}
	}
	slices.Sort(ds)
	q := func(p float64) time.Duration { return ds[int(p*float64(len(ds)-1))] }
	return Quantiles{N: len(ds), P50: q(0.50), P99: q(0.99), Max: ds[len(ds)-1]}
}

// Report is a run's figures.
type Report struct {
	Players       int
	GamesStarted  int64
	GamesFinished int64
	// PeakLive is the most games in progress at once (counted per pair of
	// seats both playing).
	PeakLive int64
	Plies    int64
	Elapsed  time.Duration
	PlyRTT   Quantiles
	Wait     Quantiles
	Rejoins  int64
	// Errors counts failed calls and dropped streams by status code.
	Errors map[string]int64
	// ErrorSamples holds the first error message seen for each code in
	// Errors.
	ErrorSamples map[string]string
}

// PliesPerSecond is Plies over Elapsed.
func (r Report) PliesPerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Plies) / r.Elapsed.Seconds()
}

// Unexpected lists the errors (code, count and first message) whose
// status code is not in allowed, in code order.
func (r Report) Unexpected(allowed []string) []string {
	var out []string
	for c, n := range r.Errors {
		if n > 0 && !slices.Contains(allowed, c) {
			out = append(out, fmt.Sprintf("%s x%d (first: %s)", c, n, r.ErrorSamples[c]))
		}
	}
	sort.Strings(out)
	return out
}

// runner is one run's shared state.
type runner struct {
	cfg      Config
	lobbies  [][]lobbyv1.LobbyServiceClient // [address][conn]
	matches  [][]matchv1.MatchServiceClient
	deadline time.Time // no new games after it
	started  time.Time

	gamesStarted, gamesFinished, plies, rejoins, live, peakLive atomic.Int64
	// full is closed once MaxGames games have started: the players still
	// queued stop (an odd one out would wait for a partner until the
	// deadline).
	full     chan struct{}
	fullOnce sync.Once

	mu    sync.Mutex
	rtts  []time.Duration
	waits []time.Duration
	errs  map[string]int64
	// samples keeps the first message seen for each status code.
	samples map[string]string
	sent    [64]sentShard
}

// sentShard holds send times of plies in flight, keyed by match and ply.
type sentShard struct {
	mu sync.Mutex
	m  map[string]time.Time
}

func (r *runner) shard(key string) *sentShard {
	h := uint32(2166136261)
	for i := 0; i < len(key); i++ {
		h = (h ^ uint32(key[i])) * 16777619
	}
	return &r.sent[h%uint32(len(r.sent))]
}

func plyKey(matchID string, n int32) string { return fmt.Sprintf("%s/%d", matchID, n) }

func (r *runner) markSent(matchID string, n int32) {
	k := plyKey(matchID, n)
	s := r.shard(k)
	s.mu.Lock()
	if _, ok := s.m[k]; !ok { // a resend keeps the first send time
		s.m[k] = time.Now()
	}
	s.mu.Unlock()
}

// received records the round trip of ply n when the opponent sees it.
func (r *runner) received(matchID string, n int32) {
	k := plyKey(matchID, n)
	s := r.shard(k)
	s.mu.Lock()
	t, ok := s.m[k]
	delete(s.m, k)
	s.mu.Unlock()
	if !ok {
		return
	}
	d := time.Since(t)
	r.plies.Add(1)
	r.mu.Lock()
	r.rtts = append(r.rtts, d)
	r.mu.Unlock()
}

func (r *runner) countErr(err error) {
	c := status.Code(err).String()
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		c = status.FromContextError(err).Code().String()
	}
	r.mu.Lock()
	r.errs[c]++
	if _, ok := r.samples[c]; !ok {
		r.samples[c] = err.Error()
	}
	r.mu.Unlock()
}

// Run plays the load and returns its figures. It returns when Duration
// and the drain are over (or ctx ends); every goroutine it starts has
// stopped by then.
func Run(ctx context.Context, cfg Config) (Report, error) {
	if len(cfg.Lobby) == 0 {
		return Report{}, errors.New("no lobby address")
	}
	if len(cfg.Match) == 0 {
		cfg.Match = cfg.Lobby
	}
	if cfg.Players < 2 {
		return Report{}, errors.New("at least 2 players")
	}
	if cfg.Drain == 0 {
		cfg.Drain = 10 * time.Second
	}
	if cfg.RejoinWindow == 0 {
		cfg.RejoinWindow = 30 * time.Second
	}
	r := &runner{cfg: cfg, errs: map[string]int64{}, samples: map[string]string{}, full: make(chan struct{})}
	for i := range r.sent {
		r.sent[i].m = map[string]time.Time{}
	}
	var conns []*grpc.ClientConn
	defer func() {
		for _, c := range conns {
			_ = c.Close()
		}
	}()
	dial := func(addr string) (*grpc.ClientConn, error) {
		// A stream a proxy cut when its backend died is UNAVAILABLE, as a
		// direct connection's loss is (cutstream).
		c, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithChainUnaryInterceptor(cutstream.UnaryClientInterceptor()),
			grpc.WithChainStreamInterceptor(cutstream.StreamClientInterceptor()))
		if err != nil {
			return nil, fmt.Errorf("dial %s: %w", addr, err)
		}
		conns = append(conns, c)
		return c, nil
	}
	for _, a := range cfg.Lobby {
		var cs []lobbyv1.LobbyServiceClient
		for range connsFor(cfg.ConnsPerAddr, cfg.Players, len(cfg.Lobby)) {
			c, err := dial(a)
			if err != nil {
				return Report{}, err
			}
			cs = append(cs, lobbyv1.NewLobbyServiceClient(c))
		}
		r.lobbies = append(r.lobbies, cs)
	}
	for _, a := range cfg.Match {
		var cs []matchv1.MatchServiceClient
		for range connsFor(cfg.ConnsPerAddr, cfg.Players, len(cfg.Match)) {
			c, err := dial(a)
			if err != nil {
				return Report{}, err
			}
			cs = append(cs, matchv1.NewMatchServiceClient(c))
		}
		r.matches = append(r.matches, cs)
	}

	r.started = time.Now()
	r.deadline = r.started.Add(cfg.Duration)
	runCtx, cancel := context.WithDeadline(ctx, r.deadline.Add(cfg.Drain))
	defer cancel()
	var wg sync.WaitGroup
	done := make(chan struct{})
	if cfg.Progress != nil {
		wg.Go(func() { r.progress(runCtx, done) })
	}
	var players sync.WaitGroup
	for i := range cfg.Players {
		players.Go(func() { r.player(runCtx, i) })
	}
	players.Wait()
	close(done)
	wg.Wait()

	rep := Report{
		Players: cfg.Players, GamesStarted: r.gamesStarted.Load(), GamesFinished: r.gamesFinished.Load(),
		PeakLive: r.peakLive.Load(), Plies: r.plies.Load(), Elapsed: time.Since(r.started), Rejoins: r.rejoins.Load(),
		Errors: map[string]int64{}, ErrorSamples: map[string]string{},
	}
	r.mu.Lock()
	rep.PlyRTT, rep.Wait = quantiles(r.rtts), quantiles(r.waits)
	for k, v := range r.errs {
		rep.Errors[k] = v
	}
	for k, v := range r.samples {
		rep.ErrorSamples[k] = v
	}
	r.mu.Unlock()
	return rep, nil
}

func (r *runner) progress(ctx context.Context, done <-chan struct{}) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	last := int64(0)
	for {
		select {
		case <-ctx.Done():
			return
		case <-done:
			return
		case <-t.C:
		}
		p := r.plies.Load()
		r.mu.Lock()
		var recent []time.Duration
		if n := int(p - last); n > 0 && n <= len(r.rtts) {
			recent = slices.Clone(r.rtts[len(r.rtts)-n:])
		}
		nerr := int64(0)
		for _, v := range r.errs {
			nerr += v
		}
		r.mu.Unlock()
		q := quantiles(recent)
		fmt.Fprintf(r.cfg.Progress, "load: %3.0fs live %d finished %d plies/s %d rtt p99 %v rejoins %d errors %d\n",
			time.Since(r.started).Seconds(), r.live.Load(), r.gamesFinished.Load(), p-last,
			q.P99.Round(10*time.Microsecond), r.rejoins.Load(), nerr)
		last = p
	}
}
