package load

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/games"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/affinity"
	"tabuleiro.dev/pkg/platform/auth"
)

// player signs in and plays games until the deadline.
func (r *runner) player(ctx context.Context, i int) {
	rng := rand.New(rand.NewPCG(r.cfg.Seed, uint64(i)))
	name := fmt.Sprintf("load-%d", i)
	var token string
	for attempt := 0; ctx.Err() == nil; attempt++ {
		c := r.lobby(i + attempt)
		resp, err := c.SignInGuest(ctx, &lobbyv1.SignInGuestRequest{DisplayName: name})
		if err == nil {
			token = resp.GetToken()
			break
		}
		r.countErr(err)
		if !pause(ctx, backoff(attempt)) {
			return
		}
	}
	pctx := auth.WithToken(ctx, token)
	for g := 0; ctx.Err() == nil && time.Now().Before(r.deadline); g++ {
		if r.cfg.MaxGames > 0 && r.gamesStarted.Load() >= int64(r.cfg.MaxGames) {
			return
		}
		matchID, seat, ok := r.findMatch(pctx, i+g, r.clock(i))
		if !ok {
			continue
		}
		if r.cfg.OnMatched != nil {
			r.cfg.OnMatched(matchID)
		}
		if seat == gamev1.Seat_SEAT_FIRST {
			if n := r.gamesStarted.Add(1); r.cfg.MaxGames > 0 && n >= int64(r.cfg.MaxGames) {
				r.fullOnce.Do(func() { close(r.full) })
			}
			if n := r.live.Add(1); n > r.peakLive.Load() {
				r.peakLive.Store(n) // racy max; close enough for a report
			}
		}
		log := r.play(pctx, i+g, name, matchID, seat, rng)
		if seat == gamev1.Seat_SEAT_FIRST {
			r.live.Add(-1)
		}
		if log.Outcome != nil && seat == gamev1.Seat_SEAT_FIRST {
			r.gamesFinished.Add(1)
		}
		if r.cfg.OnSeat != nil {
			r.cfg.OnSeat(log)
		}
	}
}

func (r *runner) lobby(i int) lobbyv1.LobbyServiceClient {
	a := r.lobbies[i%len(r.lobbies)]
	return a[(i/len(r.lobbies))%len(a)]
}

// streamsPerConn is the players' streams the tool puts on one connection:
// below the servers' 64 (grpcserve.DefaultMaxConcurrentStreams), for
// unary calls and a rejoin's new stream beside the old one.
const streamsPerConn = 48

// connsFor is the connections to open to each of addrs addresses for
// players players: set when set, else enough for each player to hold a
// stream at once (at least 4).
func connsFor(set, players, addrs int) int {
	if set > 0 {
		return set
	}
	per := (players + addrs - 1) / max(addrs, 1)
	return max(4, (per+streamsPerConn-1)/streamsPerConn)
}

// matchFor is the match client of a seat of match id (player i, its
// attempt-th stream): the address of the match's affinity, or player i's.
func (r *runner) matchFor(id string, i, attempt int) matchv1.MatchServiceClient {
	if !r.cfg.MatchAffinity {
		return r.match(i + attempt)
	}
	h := fnv.New32a()
	h.Write([]byte(id))
	a := r.matches[(int(h.Sum32()%uint32(len(r.matches)))+attempt)%len(r.matches)]
	return a[i%len(a)]
}

func (r *runner) match(i int) matchv1.MatchServiceClient {
	a := r.matches[i%len(r.matches)]
	return a[(i/len(r.matches))%len(a)]
}

func backoff(attempt int) time.Duration {
	d := 50 * time.Millisecond << min(attempt, 4)
	return min(d, time.Second)
}

func pause(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// findMatch queues until paired, moving to the next lobby when a stream
// fails.
func (r *runner) findMatch(ctx context.Context, i int, tc *gamev1.TimeControl) (string, gamev1.Seat, bool) {
	for attempt := 0; ctx.Err() == nil && time.Now().Before(r.deadline); attempt++ {
		t0 := time.Now()
		qctx, cancel := context.WithDeadline(ctx, r.deadline)
		go func() {
			// Once MaxGames have started, a player still queued stops,
			// after a grace for a pairing made just before (its other
			// seat is told a moment after the first, which counts it).
			select {
			case <-r.full:
			case <-qctx.Done():
				return
			}
			select {
			case <-time.After(fullGrace):
				cancel()
			case <-qctx.Done():
			}
		}()
		s, err := r.lobby(i+attempt).FindMatch(qctx, &lobbyv1.FindMatchRequest{
			Game: gamev1.Game_GAME_QUORIDOR, Variant: "standard", TimeControl: tc})
		for err == nil {
			var m *lobbyv1.FindMatchResponse
			m, err = s.Recv()
			if mt := m.GetMatched(); mt != nil {
				cancel()
				r.mu.Lock()
				r.waits = append(r.waits, time.Since(t0))
				r.mu.Unlock()
				return mt.GetMatchId(), mt.GetYourSeat(), true
			}
		}
		cancel()
		if errors.Is(err, io.EOF) {
			err = status.Error(codes.Unknown, "queue stream ended without a pairing")
		}
		if ctx.Err() != nil || !time.Now().Before(r.deadline) || r.isFull() {
			return "", 0, false
		}
		r.countErr(err)
		if !pause(ctx, backoff(attempt)) {
			return "", 0, false
		}
	}
	return "", 0, false
}

// seatGame is one seat's game state, kept across rejoins.
type seatGame struct {
	log     SeatLog
	lastSeq int64
	view    engine.View
	toMove  gamev1.Seat
	plies   int32 // plies played, per the latest view
	pending struct {
		n        int32
		notation string
	}
	mine int // plies this seat has chosen
}

// play plays one game to its end, rejoining after drops.
func (r *runner) play(ctx context.Context, i int, player, matchID string, seat gamev1.Seat, rng *rand.Rand) SeatLog {
	g := &seatGame{log: SeatLog{MatchID: matchID, Player: player, Seat: seat, Sent: map[int32]string{}}}
	var dropped time.Time
	for attempt := 0; ; attempt++ {
		if ctx.Err() != nil {
			g.log.Err = ctx.Err()
			return g.log
		}
		ended, err := r.stream(ctx, r.matchFor(matchID, i, attempt), g, rng)
		if ended {
			return g.log
		}
		if ctx.Err() != nil {
			g.log.Err = ctx.Err()
			return g.log
		}
		r.countErr(err)
		if dropped.IsZero() {
			dropped = time.Now()
		}
		if time.Since(dropped) > r.cfg.RejoinWindow {
			g.log.Err = fmt.Errorf("gave up rejoining %s: %w", matchID, err)
			return g.log
		}
		g.log.Rejoins++
		r.rejoins.Add(1)
		if !pause(ctx, backoff(attempt)/2) {
			g.log.Err = ctx.Err()
			return g.log
		}
	}
}

// stream runs one Play stream; ended reports that the game is over.
func (r *runner) stream(ctx context.Context, c matchv1.MatchServiceClient, g *seatGame, rng *rand.Rand) (ended bool, err error) {
	sctx, cancel := context.WithCancel(affinity.Context(ctx, g.log.MatchID))
	defer cancel()
	s, err := c.Play(sctx)
	if err != nil {
		return false, err
	}
	if err := s.Send(&matchv1.PlayRequest{Action: &matchv1.PlayRequest_Join{Join: &matchv1.JoinMatch{
		MatchId: g.log.MatchID, LastSeq: g.lastSeq}}}); err != nil {
		_, err = s.Recv() // the real error
		return false, err
	}
	if g.pending.n > 0 { // the last ply sent may have died with the old stream
		g.pending.notation = g.log.Sent[g.pending.n]
	}
	// A rejoin that finds nothing new gets no message at all (a join of a
	// seat still counted as connected is no event: presence is coalesced),
	// so the seat plays at once if it is its turn: its pending ply again
	// (plies are idempotent), or a new one; the server answers a join and
	// a ply sent together in order.
	// Messages are received on their own goroutine, so that a seat that
	// thinks (Config.Think) still answers probes at once, as a real
	// client does: a probe answered after the think pause made every
	// round-trip estimate the pause's length.
	type recvd struct {
		m   *matchv1.PlayResponse
		err error
	}
	msgs := make(chan recvd, 1)
	go func() {
		for {
			m, err := s.Recv()
			select {
			case msgs <- recvd{m, err}:
			case <-sctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	var think <-chan time.Time // the pause before the ply this seat owes
	move := func(thought bool) error {
		wait, err := r.move(s, g, rng, thought)
		if wait && think == nil {
			think = time.After(r.cfg.Think)
		}
		return err
	}
	if err := move(false); err != nil {
		return false, err
	}
	for {
		var m *matchv1.PlayResponse
		select {
		case <-think:
			think = nil
			if err := move(true); err != nil {
				return false, err
			}
			continue
		case in := <-msgs:
			m, err = in.m, in.err
		case <-sctx.Done():
			err = sctx.Err()
		}
		if err != nil {
			if errors.Is(err, io.EOF) && g.log.Outcome != nil {
				return true, nil
			}
			if errors.Is(err, io.EOF) {
				err = status.Error(codes.Unknown, "play stream ended before the game")
			}
			return false, err
		}
		switch {
		case m.GetSnapshot() != nil:
			sn := m.GetSnapshot()
			g.lastSeq = sn.GetLastSeq()
			for _, p := range sn.GetPlies() {
				if p.GetNumber() > int32(len(g.log.Plies)) {
					g.log.Plies = append(g.log.Plies, p)
				}
			}
			if err := g.setView(sn.GetView()); err != nil {
				return false, err
			}
			if sn.GetStatus() == matchv1.MatchStatus_MATCH_STATUS_FINISHED {
				g.log.Outcome = sn.GetOutcome()
				return true, nil
			}
		case m.GetEvent() != nil:
			ev := m.GetEvent()
			if ev.GetSeq() <= g.lastSeq {
				continue // replayed twice; the seq says so
			}
			g.lastSeq = ev.GetSeq()
			if pp := ev.GetPlyPlayed(); pp != nil {
				p := pp.GetPly()
				g.log.Plies = append(g.log.Plies, p)
				if p.GetSeat() != g.log.Seat {
					r.received(g.log.MatchID, p.GetNumber())
				}
				if err := g.setView(pp.GetView()); err != nil {
					return false, err
				}
			}
			if ge := ev.GetGameEnded(); ge != nil {
				g.log.Outcome = ge.GetOutcome()
				return true, nil
			}
		case m.GetPlyRejected() != nil:
			pr := m.GetPlyRejected()
			r.countErr(status.Error(codes.Code(pr.GetCode()), pr.GetReason()))
			// A stale ply (the server moved on) is resolved by the events
			// that follow; anything else is a bug in the chooser.
			if codes.Code(pr.GetCode()) != codes.FailedPrecondition || pr.GetCurrentPlyNumber() == pr.GetPlyNumber() {
				return false, status.Errorf(codes.Code(pr.GetCode()), "ply %d %s refused: %s", pr.GetPlyNumber(), pr.GetNotation(), pr.GetReason())
			}
		case m.GetDrain() != nil:
			// The server ends the stream with UNAVAILABLE next.
		case m.GetProbe() != nil:
			// Answered at once, as a real client does (lag compensation).
			if err := s.Send(&matchv1.PlayRequest{Action: &matchv1.PlayRequest_ProbeAnswer{ProbeAnswer: &matchv1.ProbeAnswer{Id: m.GetProbe().GetId()}}}); err != nil {
				return false, err
			}
			continue
		}
		if err := move(false); err != nil {
			return false, err
		}
	}
}

func (g *seatGame) setView(v *gamev1.GameView) error {
	if v == nil {
		return nil
	}
	ev, err := games.DecodeView(engine.Quoridor, v.GetEncoding())
	if err != nil {
		return fmt.Errorf("decode view: %w", err)
	}
	g.view, g.toMove, g.plies = ev, v.GetToMove(), v.GetPlyCount()
	return nil
}

// move sends this seat's ply when it is its turn: the pending one again
// after a rejoin (plies are idempotent), or a new one; wait reports that
// a new one is due after the think pause (Config.Think), when thought is
// false.
func (r *runner) move(s matchv1.MatchService_PlayClient, g *seatGame, rng *rand.Rand, thought bool) (wait bool, err error) {
	if g.view == nil || g.toMove != g.log.Seat || g.log.Outcome != nil {
		return false, nil
	}
	n := g.plies + 1
	notation := ""
	switch {
	case g.pending.n == n && g.pending.notation != "":
		notation = g.pending.notation
		g.pending.notation = "" // once per stream: a rejoin arms it again
	case g.log.Sent[n] != "":
		return false, nil // sent on this stream; waiting for the event
	default:
		if r.cfg.Think > 0 && !thought {
			return true, nil
		}
		notation = choose(g.view, g.log.Seat, g.mine < r.cfg.Wander, rng)
		if notation == "" {
			return false, errors.New("no pawn step")
		}
		g.mine++
		g.log.Sent[n] = notation
		r.markSent(g.log.MatchID, n)
	}
	g.pending.n = n
	if err := s.Send(&matchv1.PlayRequest{Action: &matchv1.PlayRequest_SubmitPly{SubmitPly: &matchv1.SubmitPly{PlyNumber: n, Notation: notation}}}); err != nil {
		g.pending.notation = notation
		return false, nil // the Recv that follows reports the stream's error
	}
	g.pending.notation = ""
	return false, nil
}

// ChoosePawnStep is the players' choice: a random pawn step while
// wandering, else the step nearest the seat's goal; "" when there is none.
func ChoosePawnStep(v engine.View, seat gamev1.Seat, wander bool, rng *rand.Rand) string {
	return choose(v, seat, wander, rng)
}

// choose picks a pawn step: a random one while wandering, else the one
// nearest the seat's goal rank (white, the first seat, goes to rank 9;
// black to rank 1; RULES.md Q1). Walls are never placed, so every game
// ends by a pawn reaching its goal.
func choose(v engine.View, seat gamev1.Seat, wander bool, rng *rand.Rand) string {
	var steps []string
	for _, p := range v.Legal() {
		if s := p.String(); len(s) == 2 { // a wall is "e3h" (Q1)
			steps = append(steps, s)
		}
	}
	if len(steps) == 0 {
		return ""
	}
	if wander {
		return steps[rng.IntN(len(steps))]
	}
	best := steps[0]
	for _, s := range steps[1:] {
		if better(s, best, seat) {
			best = s
		}
	}
	return best
}

func better(a, b string, seat gamev1.Seat) bool {
	ra, rb := rank(a), rank(b)
	if seat == gamev1.Seat_SEAT_FIRST {
		return ra > rb
	}
	return ra < rb
}

func rank(s string) int {
	n := 0
	for _, c := range s[1:] {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// clock is player i's time control (Queues).
func (r *runner) clock(i int) *gamev1.TimeControl {
	tc := r.cfg.TimeControl
	if tc == nil || r.cfg.Queues <= 1 {
		return tc
	}
	return &gamev1.TimeControl{BaseMs: tc.GetBaseMs() + int64(i%r.cfg.Queues)*60_000, IncrementMs: tc.GetIncrementMs()}
}

// fullGrace is how long a player still queued waits once MaxGames games
// have started.
const fullGrace = 2 * time.Second

// isFull reports whether MaxGames games have started.
func (r *runner) isFull() bool {
	select {
	case <-r.full:
		return true
	default:
		return false
	}
}
