package rpc

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	"tabuleiro.dev/pkg/engine"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/grpcserve"
	"tabuleiro.dev/pkg/platform/reason"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/view"
)

// The seat paths: Play (a bidirectional stream) and Follow with the unary
// SubmitPly, Resign, OfferDraw, AcceptDraw and DeclineDraw (for clients
// without client streaming). Both run through openSeat, submit and act.

// DefaultHeartbeat is how long a Follow stream stays silent before the
// server sends a heartbeat.
const DefaultHeartbeat = 15 * time.Second

// DefaultProbeEvery is how often a seat's stream is probed for its round
// trip (lag compensation), at most: see prober.
const DefaultProbeEvery = 2 * time.Second

// probeIdleFactor: a seat that gets no turn is probed every this many
// ProbeEvery.
const probeIdleFactor = 5

// prober sends one seat stream's probes, whose answers measure the seat's
// round trip: one at once, then one with each event that gives the seat
// the move if the last probe is ProbeEvery old or more (the sample its
// next ply's credit uses, taken as the player starts to think), and one
// after probeIdleFactor ProbeEvery without any (the opponent's long turn,
// a game not started). A timer's function sends the idle ones, so a
// stream holds no goroutine (and its stack) between probes. Probing on a
// fixed period instead cost a quarter of the instance's processor time
// per ply at 2,000 players (a probe every 2 s a seat, a turn every 1.4 s).
type prober struct {
	s     *Server
	ctx   context.Context //nolint:containedctx // the stream's, for the timer's sends
	id    string
	seat  engine.Seat
	local *localProbe
	send  func(*matchv1.Probe) error
	every time.Duration
	t     *time.Timer

	// mu is held through a probe's send, so that stop returns only once
	// no probe is on its way.
	mu   sync.Mutex
	last time.Time // when the last probe went out
	dead bool      // a send failed, or the stream's game ended: no more probes
}

// probe starts seat's probes (none when ProbeEvery is negative: nil). A
// Play stream's probes are kept by the stream (local, answered on it); a
// Follow stream's in the store, as AnswerProbe may reach any instance.
func (s *Server) probe(ctx context.Context, id string, seat engine.Seat, local *localProbe, send func(*matchv1.Probe) error) *prober {
	every := s.ProbeEvery
	if every < 0 {
		return nil
	}
	if every == 0 {
		every = DefaultProbeEvery
	}
	p := &prober{s: s, ctx: ctx, id: id, seat: seat, local: local, send: send, every: every}
	p.t = time.AfterFunc(time.Duration(math.MaxInt64), func() { p.fire(true) })
	context.AfterFunc(ctx, func() { p.t.Stop() })
	p.t.Reset(0)
	return p
}

// turn is told, before the stream sends it, of an event that gives the
// seat the move: a probe goes out first (so that the client's handling of
// the event does not delay its answer) unless the last is recent.
func (p *prober) turn() {
	if p != nil {
		p.fire(false)
	}
}

// fire sends a probe: always from the timer (idle), else only when the
// last is ProbeEvery old or more.
func (p *prober) fire(idle bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if p.dead || p.ctx.Err() != nil || (!idle && now.Sub(p.last) < p.every) {
		return
	}
	p.last = now
	p.t.Reset(probeIdleFactor * p.every) // a fire after ctx ended or stop returns above
	// A probe the store could not record is skipped: the seat keeps its
	// estimate until the next one.
	var id uint64
	var err error
	if p.local != nil {
		id = p.local.next(p.s.now().UnixMilli())
	} else {
		id, err = p.s.svc.SendProbe(p.ctx, p.id, p.seat)
	}
	if err == nil {
		if err := p.send(&matchv1.Probe{Id: id}); err != nil {
			p.dead = true
			p.t.Stop()
		}
	}
}

// stop ends the probes once the stream's game is over (there is no turn
// left to measure, and a probe recorded in the store then would outlive
// the finished match's keys): when it returns, no probe is being sent and
// none will be.
func (p *prober) stop() {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.dead = true
	p.mu.Unlock()
	p.t.Stop()
}

// over reports whether a stream's message shows the game over: a finished
// match's snapshot or the game_ended event. Its probes do not start then.
func over(m *matchv1.Match, ev *matchv1.MatchEvent) bool {
	return m.GetStatus() == matchv1.MatchStatus_MATCH_STATUS_FINISHED || ev.GetGameEnded() != nil
}

// givesMove reports whether ev gives seat the move (its ply_played view
// has seat to move).
func givesMove(ev *matchv1.MatchEvent, seat engine.Seat) bool {
	pp := ev.GetPlyPlayed()
	return pp != nil && seat != engine.NoSeat && pp.GetView().GetToMove() == view.Seat(seat)
}

// localProbe is a Play stream's pending probe: only its latest counts.
type localProbe struct {
	mu sync.Mutex
	id uint64
	at int64 // unix ms sent
}

// next starts a new probe sent at (unix ms) and returns its id.
func (l *localProbe) next(at int64) uint64 {
	id := rand.Uint64() | 1 // never 0, the proto's unset
	l.mu.Lock()
	l.id, l.at = id, at
	l.mu.Unlock()
	return id
}

// take ends the pending probe if it is id and returns when it was sent.
func (l *localProbe) take(id uint64) (int64, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if id == 0 || id != l.id {
		return 0, false
	}
	l.id = 0
	return l.at, true
}

// AnswerProbe implements matchv1.MatchServiceServer.
func (s *Server) AnswerProbe(ctx context.Context, req *matchv1.AnswerProbeRequest) (*matchv1.AnswerProbeResponse, error) {
	if err := s.limit(ctx); err != nil {
		return nil, err
	}
	id := req.GetMatchId()
	seat, err := s.seatOf(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := s.svc.AnswerProbeWithin(ctx, id, seat, req.GetId(), maxRoundTripMS(ctx)); err != nil {
		if ctx.Err() != nil {
			return nil, status.FromContextError(ctx.Err()).Err()
		}
		return nil, toStatus(err)
	}
	return &matchv1.AnswerProbeResponse{}, nil
}

// A probe's round trip counts as at most the transport round trip the
// server measured on the client's connection (grpcserve.TransportRTT) plus
// a quarter of it plus lagMargin: room for the client's own handling of
// the probe (its event loop, a busy browser tab) and a round trip that
// moved since the last measurement, and no more.
const lagMargin = 20 * time.Millisecond

// maxRoundTripMS is the longest round-trip sample (ms) a probe answered on
// ctx's connection may count as; -1: no bound (no measurement, as on a
// connection that is not TCP).
func maxRoundTripMS(ctx context.Context) int64 {
	rtt, ok := grpcserve.TransportRTT(ctx)
	if !ok {
		return -1
	}
	return (rtt + rtt/4 + lagMargin).Milliseconds()
}

// seatConn is one open connection of a seat: its feed of the match and its
// presence (the epoch of its join).
type seatConn struct {
	s      *Server
	id     string
	seat   engine.Seat
	f      *match.Feed
	st     *match.State
	replay bool
	ep     atomic.Int64
}

// openSeat follows match id after lastSeq for the caller's seat and joins
// it: from now on the seat counts as connected. PERMISSION_DENIED (with
// hint) when the caller holds no seat.
func (s *Server) openSeat(ctx context.Context, id string, lastSeq int64, hint string) (*seatConn, error) {
	f, st, replay, err := s.svc.Follow(ctx, id, lastSeq)
	if err != nil {
		return nil, toStatus(err)
	}
	if !visible(ctx, st) {
		f.Close()
		return nil, errHidden
	}
	seat := st.SeatOf(caller(ctx))
	if seat == engine.NoSeat {
		f.Close()
		return nil, reason.Error(codes.PermissionDenied, reason.NotSeated, "you hold no seat in this match; "+hint, nil)
	}
	joined, err := s.svc.Join(ctx, id, seat)
	if err != nil {
		f.Close()
		return nil, toStatus(err)
	}
	c := &seatConn{s: s, id: id, seat: seat, f: f, st: st, replay: replay}
	c.ep.Store(joined)
	return c, nil
}

// close leaves the seat (its reconnection window starts) and the feed.
func (c *seatConn) close(ctx context.Context) {
	_ = c.s.svc.Leave(context.WithoutCancel(ctx), c.id, c.seat, c.ep.Load())
	c.f.Close()
}

// run streams the match to the seat until the game ends (nil) or an error.
func (c *seatConn) run(ctx context.Context, send func(snapshot *matchv1.Match, ev *matchv1.MatchEvent) error) error {
	rejoin := func(ctx context.Context) error {
		n, err := c.s.svc.Join(ctx, c.id, c.seat)
		if err == nil {
			c.ep.Store(n)
		}
		return err
	}
	return c.s.stream(ctx, c.f, c.st, c.replay, c.seat, c.ep.Load, rejoin, send)
}

// submit plays a ply for seat; the error refuses it (plyRejected and
// plyStatus describe it).
func (s *Server) submit(ctx context.Context, id string, seat engine.Seat, n int, notation string) (match.Event, bool, error) {
	if len(notation) > maxNotation {
		return match.Event{}, false, fmt.Errorf("notation too long (%d bytes; at most %d): %w", len(notation), maxNotation, match.ErrInvalid)
	}
	return s.svc.SubmitPly(ctx, id, seat, n, notation)
}

// eventView is ev as seat sees it.
func (s *Server) eventView(ctx context.Context, ev match.Event, seat engine.Seat) (*matchv1.MatchEvent, error) {
	st, pos, err := s.svc.After(ctx, ev.MatchID, ev.Plies)
	if err != nil {
		return nil, toStatus(err)
	}
	return view.Event(ev, st, pos, seat), nil
}

// act does a resignation or draw action for seat.
func (s *Server) act(ctx context.Context, id string, seat engine.Seat, a matchv1.PlayAction) error {
	switch a {
	case matchv1.PlayAction_PLAY_ACTION_RESIGN:
		return s.svc.Resign(ctx, id, seat)
	case matchv1.PlayAction_PLAY_ACTION_OFFER_DRAW:
		return s.svc.OfferDraw(ctx, id, seat)
	case matchv1.PlayAction_PLAY_ACTION_ACCEPT_DRAW:
		return s.svc.AnswerDraw(ctx, id, seat, true)
	case matchv1.PlayAction_PLAY_ACTION_DECLINE_DRAW:
		return s.svc.AnswerDraw(ctx, id, seat, false)
	}
	return fmt.Errorf("action %v: %w", a, match.ErrInvalid)
}

// Follow implements matchv1.MatchServiceServer.
func (s *Server) Follow(req *matchv1.FollowRequest, stream grpc.ServerStreamingServer[matchv1.FollowResponse]) error {
	id := req.GetMatchId()
	if id == "" {
		return reason.Error(codes.InvalidArgument, reason.InvalidRequest, "match_id is required", nil)
	}
	if err := checkID("match_id", id); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(stream.Context())
	defer cancel()
	release, err := s.openStream(ctx)
	if err != nil {
		return err
	}
	defer release()
	c, err := s.openSeat(ctx, id, req.GetLastSeq(), "spectators use Watch")
	if err != nil {
		return err
	}
	defer c.close(ctx)

	var (
		mu   sync.Mutex
		sent = true // something was sent since the last heartbeat tick
	)
	send := func(r *matchv1.FollowResponse) error {
		mu.Lock()
		defer mu.Unlock()
		sent = true
		return stream.Send(r)
	}
	done := make(chan error, 1)
	go func() {
		// Probes start once the snapshot (or the first event) is out,
		// unless it shows the game over, and end with the stream's feed.
		var probes *prober
		started := false
		err := c.run(ctx, func(m *matchv1.Match, ev *matchv1.MatchEvent) error {
			if !started && !over(m, ev) {
				started = true
				defer func() {
					probes = s.probe(ctx, id, c.seat, nil, func(p *matchv1.Probe) error {
						return send(&matchv1.FollowResponse{Message: &matchv1.FollowResponse_Probe{Probe: p}})
					})
				}()
			}
			if m != nil {
				return send(&matchv1.FollowResponse{Message: &matchv1.FollowResponse_Snapshot{Snapshot: m}})
			}
			if givesMove(ev, c.seat) {
				probes.turn()
			}
			return send(&matchv1.FollowResponse{Message: &matchv1.FollowResponse_Event{Event: ev}})
		})
		probes.stop()
		done <- err
	}()
	notify := func(d *matchv1.Drain) error {
		return send(&matchv1.FollowResponse{Message: &matchv1.FollowResponse_Drain{Drain: d}})
	}
	const again = "follow again with the last seq seen"
	every := s.Heartbeat
	if every <= 0 {
		every = DefaultHeartbeat
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			// The feed may end from the instance's shutdown a moment
			// before the drain is seen here: a draining instance still
			// sends its notice.
			if err != nil && stream.Context().Err() == nil && s.draining() {
				return drained(notify, again)
			}
			return err
		case <-tick.C:
			mu.Lock()
			quiet := !sent
			sent = false
			mu.Unlock()
			if quiet {
				hb := &matchv1.FollowResponse{Message: &matchv1.FollowResponse_Heartbeat{Heartbeat: &matchv1.Heartbeat{ServerTime: timestamppb.New(s.now())}}}
				if err := send(hb); err != nil {
					cancel()
					<-done
					return err
				}
			}
		case <-s.drain:
			cancel()
			<-done
			return drained(notify, again)
		}
	}
}

// seatOf checks a unary call's match id and returns the caller's seat:
// PERMISSION_DENIED when they hold none.
func (s *Server) seatOf(ctx context.Context, id string) (engine.Seat, error) {
	if id == "" {
		return engine.NoSeat, reason.Error(codes.InvalidArgument, reason.InvalidRequest, "match_id is required", nil)
	}
	if err := checkID("match_id", id); err != nil {
		return engine.NoSeat, err
	}
	seat, err := s.svc.SeatOf(ctx, id, caller(ctx))
	if err != nil {
		return engine.NoSeat, toStatus(err)
	}
	if seat == engine.NoSeat {
		// A private match is hidden from whoever may not see it (the
		// invited list changes: read it fresh).
		st, _, err := s.svc.Get(ctx, id)
		if err != nil {
			return engine.NoSeat, toStatus(err)
		}
		if !visible(ctx, st) {
			return engine.NoSeat, errHidden
		}
		return engine.NoSeat, reason.Error(codes.PermissionDenied, reason.NotSeated, "you hold no seat in this match", nil)
	}
	return seat, nil
}

// SubmitPly implements matchv1.MatchServiceServer.
func (s *Server) SubmitPly(ctx context.Context, req *matchv1.SubmitPlyRequest) (*matchv1.SubmitPlyResponse, error) {
	if err := s.limit(ctx); err != nil {
		return nil, err
	}
	id := req.GetMatchId()
	seat, err := s.seatOf(ctx, id)
	if err != nil {
		return nil, err
	}
	n, notation := int(req.GetPlyNumber()), req.GetNotation()
	ev, dup, err := s.submit(ctx, id, seat, n, notation)
	if err != nil {
		if ctx.Err() != nil {
			return nil, status.FromContextError(ctx.Err()).Err()
		}
		return nil, plyStatus(ctx, s.svc, id, n, notation, err)
	}
	v, err := s.eventView(ctx, ev, seat)
	if err != nil {
		return nil, err
	}
	return &matchv1.SubmitPlyResponse{Event: v, Duplicate: dup}, nil
}

// plyStatus is a refused ply's status: a refusal of the ply itself carries
// the PlyRejected a Play stream would send, as a detail.
func plyStatus(ctx context.Context, svc *match.Service, id string, n int, notation string, err error) error {
	st := status.Convert(toStatus(err))
	switch st.Code() {
	case codes.InvalidArgument, codes.FailedPrecondition, codes.PermissionDenied:
	default:
		return st.Err()
	}
	rej := plyRejected(ctx, svc, id, n, notation, err)
	withDetail, derr := reason.New(st.Code(), rej.GetErrorReason(), rej.GetReason(), rej.GetErrorMetadata()).WithDetails(rej)
	if derr != nil {
		return st.Err()
	}
	return withDetail.Err()
}

func (s *Server) unaryAction(ctx context.Context, id string, a matchv1.PlayAction) error {
	if err := s.limit(ctx); err != nil {
		return err
	}
	seat, err := s.seatOf(ctx, id)
	if err != nil {
		return err
	}
	if err := s.act(ctx, id, seat, a); err != nil {
		if ctx.Err() != nil {
			return status.FromContextError(ctx.Err()).Err()
		}
		return toStatus(err)
	}
	return nil
}

// Resign implements matchv1.MatchServiceServer.
func (s *Server) Resign(ctx context.Context, req *matchv1.ResignRequest) (*matchv1.ResignResponse, error) {
	if err := s.unaryAction(ctx, req.GetMatchId(), matchv1.PlayAction_PLAY_ACTION_RESIGN); err != nil {
		return nil, err
	}
	return &matchv1.ResignResponse{}, nil
}

// OfferDraw implements matchv1.MatchServiceServer.
func (s *Server) OfferDraw(ctx context.Context, req *matchv1.OfferDrawRequest) (*matchv1.OfferDrawResponse, error) {
	if err := s.unaryAction(ctx, req.GetMatchId(), matchv1.PlayAction_PLAY_ACTION_OFFER_DRAW); err != nil {
		return nil, err
	}
	return &matchv1.OfferDrawResponse{}, nil
}

// AcceptDraw implements matchv1.MatchServiceServer.
func (s *Server) AcceptDraw(ctx context.Context, req *matchv1.AcceptDrawRequest) (*matchv1.AcceptDrawResponse, error) {
	if err := s.unaryAction(ctx, req.GetMatchId(), matchv1.PlayAction_PLAY_ACTION_ACCEPT_DRAW); err != nil {
		return nil, err
	}
	return &matchv1.AcceptDrawResponse{}, nil
}

// DeclineDraw implements matchv1.MatchServiceServer.
func (s *Server) DeclineDraw(ctx context.Context, req *matchv1.DeclineDrawRequest) (*matchv1.DeclineDrawResponse, error) {
	if err := s.unaryAction(ctx, req.GetMatchId(), matchv1.PlayAction_PLAY_ACTION_DECLINE_DRAW); err != nil {
		return nil, err
	}
	return &matchv1.DeclineDrawResponse{}, nil
}
