// Package rpc serves tabuleiro.match.v1.MatchService over the match
// domain: proto in, domain calls, views out, and one error mapping.
package rpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/banqi"
	"tabuleiro.dev/pkg/engine/corners"
	"tabuleiro.dev/pkg/engine/quoridor"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/clientaddr"
	"tabuleiro.dev/pkg/platform/ratelimit"
	"tabuleiro.dev/pkg/platform/reason"
	"tabuleiro.dev/pkg/platform/rpcerr"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/view"
)

// toStatus is the one mapping of domain errors to gRPC status codes.
var toStatus = rpcerr.Must(rpcerr.Mapper{
	{Err: match.ErrNotFound, Code: codes.NotFound, Reason: reason.MatchNotFound, Message: "match not found"},
	{Err: engine.ErrSyntax, Code: codes.InvalidArgument, Reason: reason.PlySyntax},
	{Err: match.ErrInvalid, Code: codes.InvalidArgument, Reason: reason.InvalidRequest},
	{Err: engine.ErrUnknownVariant, Code: codes.InvalidArgument, Reason: reason.UnknownVariant},
	{Err: engine.ErrBadSetup, Code: codes.InvalidArgument, Reason: reason.BadSetup},
	{Err: match.ErrNotSeated, Code: codes.PermissionDenied, Reason: reason.NotSeated},
	{Err: match.ErrOtherSeat, Code: codes.PermissionDenied, Reason: reason.NotYourTurn},
	{Err: match.ErrStalePly, Code: codes.FailedPrecondition, Reason: reason.StalePly},
	{Err: engine.ErrIllegalMove, Code: codes.FailedPrecondition, Reason: reason.IllegalPly},
	{Err: engine.ErrGameOver, Code: codes.FailedPrecondition, Reason: reason.GameOver},
	{Err: match.ErrNoDraws, Code: codes.FailedPrecondition, Reason: reason.NoDraws},
	{Err: match.ErrNoOffer, Code: codes.FailedPrecondition, Reason: reason.NoDrawOffer},
	{Err: match.ErrOfferPending, Code: codes.FailedPrecondition, Reason: reason.DrawOfferPending},
	{Err: match.ErrSuperseded, Code: codes.Aborted, Reason: reason.SeatElsewhere},
	{Err: match.ErrNotPrivate, Code: codes.FailedPrecondition, Reason: reason.NotPrivate},
	{Err: match.ErrTooMany, Code: codes.ResourceExhausted, Reason: reason.LimitReached},
	{Err: match.ErrVersionConflict, Code: codes.Aborted, Reason: reason.MatchChanged, Message: "match changed; retry"},
	{Err: match.ErrNotReplicated, Code: codes.Unavailable, Reason: reason.NotReplicated, Message: "not confirmed by a replica in time; retry with the same ply number"},
}).Status

// Server implements matchv1.MatchServiceServer.
type Server struct {
	matchv1.UnimplementedMatchServiceServer
	svc *match.Service
	now func() time.Time
	// drain is closed when the instance shuts down: streams send a drain
	// notice and end with Unavailable.
	drain <-chan struct{}
	// drainCtx is done once drain is closed (nil without drain).
	drainCtx context.Context
	// Heartbeat is how long a Follow stream stays silent before a
	// heartbeat; 0 means DefaultHeartbeat. Set before serving.
	Heartbeat time.Duration
	// ProbeEvery is how often a seat's Play or Follow stream is probed
	// for its round trip (lag compensation); 0 means DefaultProbeEvery,
	// negative none.
	ProbeEvery time.Duration
	// streams caps each player's open Play, Follow and Watch streams,
	// addrStreams each client address's (an IPv6 /64 as one: see
	// clientaddr); nil: no cap.
	streams     *ratelimit.Streams
	addrStreams *ratelimit.Streams
	// Limiter applies Limits.Calls per player across instances, and
	// Limits.PlayMessages applies within each Play stream, in memory; a
	// nil Limiter applies neither. Set before serving.
	Limiter *ratelimit.Limiter
	Limits  Limits
	// TrustedProxies are the proxies in front whose X-Forwarded-For names
	// the client (see clientaddr); empty: the peer is the client.
	TrustedProxies []netip.Prefix
	// ExemptLoopback exempts callers on a loopback address from
	// Limits.Calls (the one-process mode's own clients).
	ExemptLoopback bool
	// spectators shares the spectators' view of each match's latest event
	// among this instance's Watch streams.
	spectators sharedViews
}

// sharedViews holds the spectators' view of the latest event of each
// match, built by the first of its Watch streams to send it and sent as
// is by the others (a message is only read once built): one view per event,
// not one per spectator. A seat's view is its own and is not kept.
type sharedViews struct {
	mu sync.Mutex
	m  map[string]sharedView
}

type sharedView struct {
	seq int64
	ev  *matchv1.MatchEvent
}

// maxSharedViews bounds the matches kept (those that ended are dropped;
// past the bound, all are).
const maxSharedViews = 10_000

func (c *sharedViews) get(viewer engine.Seat, ev match.Event) *matchv1.MatchEvent {
	if viewer != engine.NoSeat {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.m[ev.MatchID]; ok && v.seq == ev.Seq {
		return v.ev
	}
	return nil
}

func (c *sharedViews) put(viewer engine.Seat, ev match.Event, v *matchv1.MatchEvent) {
	if viewer != engine.NoSeat {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case ev.Kind == match.EventEnded:
		delete(c.m, ev.MatchID)
		return
	case c.m == nil || len(c.m) >= maxSharedViews:
		c.m = map[string]sharedView{}
	}
	if cur, ok := c.m[ev.MatchID]; !ok || cur.seq < ev.Seq {
		c.m[ev.MatchID] = sharedView{seq: ev.Seq, ev: v}
	}
}

// Limits are the match service's rates for a player.
type Limits struct {
	// Calls are a player's unary calls, counted across instances.
	Calls ratelimit.Rule
	// StreamOpens are the Play, Follow and Watch streams a player opens,
	// AddressStreamOpens those a client address opens (whoever signs in
	// there: identities are free), across instances; the number open at
	// once is capped besides (CapStreams).
	StreamOpens        ratelimit.Rule
	AddressStreamOpens ratelimit.Rule
	// PlayMessages are the messages a client sends on one Play stream
	// after its join, a ply accepted as the match's next aside (each needs
	// the opponent's ply before it, so the game bounds them). Over the
	// rate the stream ends with RESOURCE_EXHAUSTED.
	PlayMessages ratelimit.Rule
}

// DefaultLimits are the production rates, far above what a person or a
// client's retries reach: calls come a few a ply (a ply, a probe answer
// every 2 s, legal plies for a square); a Play stream's other messages
// are a probe answer every 2 s, pings, resent plies and actions.
//
// A player opens a stream a game and one more a reconnection or a game
// watched: 30 at once, then one a second. An address may carry a
// household or a school behind one NAT: 200 at once, then ten a second.
func DefaultLimits() Limits {
	return Limits{
		Calls:              ratelimit.Rule{What: "match calls", Rate: 20, Burst: 60, Period: time.Second},
		PlayMessages:       ratelimit.Rule{What: "messages on this Play stream", Rate: 10, Burst: 100, Period: time.Second},
		StreamOpens:        ratelimit.Rule{What: "match streams opened", Rate: 1, Burst: 30, Period: time.Second},
		AddressStreamOpens: ratelimit.Rule{What: "match streams opened", Rate: 10, Burst: 200, Period: time.Second},
	}
}

// limit takes one of the caller's calls (Limits.Calls, per player across
// instances). A service credential is not limited.
func (s *Server) limit(ctx context.Context) error {
	if s.Limiter == nil || s.Limits.Calls.Off() {
		return nil
	}
	p, _ := auth.FromContext(ctx)
	if p.IsService() {
		return nil
	}
	if s.ExemptLoopback && clientaddr.FromContext(ctx, s.TrustedProxies).Loopback {
		return nil
	}
	return s.Limiter.Allow(ctx, s.Limits.Calls, "calls", p.PlayerID())
}

// CapStreams caps each player's open streams (perPlayer) and each client
// address's (perAddress); nil: no cap. Call before serving.
func (s *Server) CapStreams(perPlayer, perAddress *ratelimit.Streams) {
	s.streams, s.addrStreams = perPlayer, perAddress
}

// openStream counts one more open stream of the caller, for its player
// and its client address, after taking one of their stream openings
// (Limits.StreamOpens, AddressStreamOpens); release ends it. Over a rate
// or a cap it is RESOURCE_EXHAUSTED (RATE_LIMITED, with when to retry). A
// service credential is not counted; a loopback client under
// ExemptLoopback takes no opening and counts for its player only.
func (s *Server) openStream(ctx context.Context) (release func(), err error) {
	p, _ := auth.FromContext(ctx)
	if p.IsService() {
		return func() {}, nil
	}
	addr := clientaddr.FromContext(ctx, s.TrustedProxies)
	exempt := s.ExemptLoopback && addr.Loopback
	// A loopback client under ExemptLoopback (tabuleiro serve's own
	// computer) is exempt from the opening rates, as from every rate; the
	// per-player cap on open streams still holds.
	if s.Limiter != nil && !exempt {
		if err := s.Limiter.Allow(ctx, s.Limits.StreamOpens, "opens", p.PlayerID()); err != nil {
			return nil, err
		}
		if err := s.Limiter.Allow(ctx, s.Limits.AddressStreamOpens, "addr-opens", addr.Key); err != nil {
			return nil, err
		}
	}
	player, err := s.streams.Acquire(ctx, p.PlayerID())
	if err != nil {
		return nil, err
	}
	if exempt {
		return player, nil
	}
	address, err := s.addrStreams.Acquire(ctx, addr.Key)
	if err != nil {
		player()
		return nil, err
	}
	return func() { address(); player() }, nil
}

var _ matchv1.MatchServiceServer = (*Server)(nil)

// NewServer returns the gRPC handlers over svc.
func NewServer(svc *match.Service, now func() time.Time, drain <-chan struct{}) *Server {
	if now == nil {
		now = time.Now
	}
	s := &Server{svc: svc, now: now, drain: drain}
	if drain != nil {
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-drain; cancel() }()
		s.drainCtx = ctx
	}
	return s
}

// ServiceOnly lists the RPCs that only a service credential may call.
func ServiceOnly() []string {
	return []string{matchv1.MatchService_CreateMatch_FullMethodName, matchv1.MatchService_ListMatches_FullMethodName}
}

// ListMatches implements matchv1.MatchServiceServer.
func (s *Server) ListMatches(ctx context.Context, req *matchv1.ListMatchesRequest) (*matchv1.ListMatchesResponse, error) {
	if p, ok := auth.FromContext(ctx); ok && !p.IsService() {
		return nil, reason.Error(codes.PermissionDenied, reason.ServiceOnly, "only a service may list matches", nil)
	}
	if err := checkID("player_id", req.GetPlayerId()); err != nil {
		return nil, err
	}
	for _, id := range req.GetMatchIds() {
		if id == "" {
			return nil, reason.Error(codes.InvalidArgument, reason.InvalidRequest, "match_ids holds an empty id", nil)
		}
		if err := checkID("match_ids", id); err != nil {
			return nil, err
		}
	}
	limit := int(req.GetLimit())
	if limit == 0 {
		limit = 100
	}
	sums, err := s.svc.ListMatches(ctx, req.GetPlayerId(), limit, req.GetMatchIds()...)
	if err != nil {
		return nil, toStatus(err)
	}
	out := &matchv1.ListMatchesResponse{Matches: make([]*matchv1.MatchSummary, len(sums))}
	for i := range sums {
		out.Matches[i] = view.Summary(&sums[i])
	}
	return out, nil
}

func caller(ctx context.Context) string {
	p, _ := auth.FromContext(ctx)
	return p.PlayerID()
}

// errHidden is what a caller who may not see a private match gets: the
// same NOT_FOUND as for an unknown match, so that its existence is not
// revealed either.
var errHidden = reason.Error(codes.NotFound, reason.MatchNotFound, "match not found", nil)

// visible reports whether the caller may see st: a service always; a
// player when the match is public, or private and they hold a seat or
// were invited.
func visible(ctx context.Context, st *match.State) bool {
	p, ok := auth.FromContext(ctx)
	if ok && p.IsService() {
		return true
	}
	return st.VisibleTo(p.PlayerID())
}

// InviteSpectator implements matchv1.MatchServiceServer.
func (s *Server) InviteSpectator(ctx context.Context, req *matchv1.InviteSpectatorRequest) (*matchv1.InviteSpectatorResponse, error) {
	if err := s.limit(ctx); err != nil {
		return nil, err
	}
	if req.GetMatchId() == "" {
		return nil, reason.Error(codes.InvalidArgument, reason.InvalidRequest, "match_id is required", nil)
	}
	if err := checkID("match_id", req.GetMatchId()); err != nil {
		return nil, err
	}
	if req.GetPlayerId() == "" {
		return nil, reason.Error(codes.InvalidArgument, reason.InvalidRequest, "player_id is required", nil)
	}
	if err := checkID("player_id", req.GetPlayerId()); err != nil {
		return nil, err
	}
	if err := s.svc.InviteSpectator(ctx, req.GetMatchId(), caller(ctx), req.GetPlayerId()); err != nil {
		return nil, toStatus(err)
	}
	return &matchv1.InviteSpectatorResponse{}, nil
}

// positions follows one receiver's position through a match's events.
type positions struct {
	svc *match.Service
	st  *match.State
	pos engine.Position
	// shared: st is the service's cached state (Service.Peek), which is
	// copied before it is changed.
	shared bool
	// own is this receiver's copy of the state, whose plies array is its
	// own to append to (with spare capacity), so that following a ply
	// costs one append, not a copy of every ply before it.
	own *match.State
}

// at returns the state and the position after n plies: the instance's
// cached ones when they are at n plies (every stream of the match on this
// instance shares the one position the commit or its publication made),
// else its own, advanced by the event's ply or read and replayed.
func (p *positions) at(ctx context.Context, ev match.Event) (*match.State, engine.Position, error) {
	n := ev.Plies
	if p.pos != nil && p.pos.Plies() == n {
		return p.st, p.pos, nil
	}
	if st, pos, ok := p.svc.Peek(ev.MatchID, n); ok {
		p.st, p.pos, p.shared = st, pos, true
		return st, pos, nil
	}
	if ev.Kind == match.EventPly && p.pos != nil && p.pos.Plies() == n-1 && len(p.st.Plies) >= n-1 {
		ply, err := p.pos.ParsePly(ev.Ply.Notation)
		if err == nil {
			next, err := p.pos.Play(ply)
			if err == nil {
				p.advance(n, ev.Ply)
				p.pos = next
				return p.st, p.pos, nil
			}
		}
	}
	if p.st == nil || len(p.st.Plies) < n {
		st, _, err := p.svc.Get(ctx, ev.MatchID)
		if err != nil {
			return nil, nil, err
		}
		p.reset(st)
	}
	pos, err := p.svc.PositionAt(p.st, n)
	if err != nil {
		return nil, nil, err
	}
	p.pos = pos
	return p.st, p.pos, nil
}

// advance makes p.st the state with ply, the n-th, after p.st's first n-1
// plies: in p.own, which takes the plies it lacks from p.st (a shared
// state's plies are never written).
func (p *positions) advance(n int, ply *match.PlyRecord) {
	if len(p.st.Plies) >= n {
		return // p.st has it already
	}
	if p.own == nil || len(p.own.Plies) > n-1 {
		p.own = &match.State{}
	}
	plies := p.own.Plies
	if p.own != p.st {
		*p.own = *p.st // the fields other than plies: a shared state is never changed
	}
	plies = append(plies, p.st.Plies[len(plies):n-1]...)
	p.own.Plies = append(plies, *ply)
	p.st, p.shared = p.own, false
}

// reset follows st (the receiver's own copy) from now on.
func (p *positions) reset(st *match.State) {
	p.st, p.shared, p.own = st, false, nil
}

// follow streams a match to one receiver: a snapshot or the missed
// events, then live events, until the game ends (nil) or an error.
func (s *Server) follow(ctx context.Context, id string, after int64, viewer engine.Seat, epoch func() int64,
	send func(snapshot *matchv1.Match, ev *matchv1.MatchEvent) error,
) error {
	f, st, replay, err := s.svc.Follow(ctx, id, after)
	if err != nil {
		return toStatus(err)
	}
	defer f.Close()
	return s.stream(ctx, f, st, replay, viewer, epoch, nil, send)
}

// withSpectators sets m's spectator count (best effort: 0 if unknown).
func (s *Server) withSpectators(ctx context.Context, m *matchv1.Match) *matchv1.Match {
	if n, err := s.svc.Spectators(ctx, m.GetMatchId()); err == nil {
		m.Spectators = int32(n[0])
	}
	return m
}

// stream sends f's events to viewer. For a player's stream, epoch is
// the stream's epoch and rejoin joins again: a Disconnected event of the
// stream's own epoch while it is still open means its lease lapsed (this
// instance renewed it too late), and the seat comes back at once.
func (s *Server) stream(ctx context.Context, f *match.Feed, st *match.State, replay bool, viewer engine.Seat, epoch func() int64,
	rejoin func(context.Context) error, send func(snapshot *matchv1.Match, ev *matchv1.MatchEvent) error,
) error {
	p := &positions{svc: s.svc, st: st}
	snapshot := func(st *match.State) error {
		pos, err := s.svc.PositionAt(st, len(st.Plies))
		if err != nil {
			return toStatus(err)
		}
		p.reset(st)
		p.pos = pos
		return send(s.withSpectators(ctx, view.Match(st, pos, viewer, s.now().UnixMilli())), nil)
	}
	if !replay {
		if err := snapshot(st); err != nil {
			return err
		}
		if st.Status == match.StatusFinished {
			return nil
		}
	}
	for {
		ev, err := f.Next(ctx)
		if errors.Is(err, match.ErrSnapshotNeeded) {
			st, _, err := s.svc.Get(ctx, st.ID)
			if err != nil {
				return toStatus(err)
			}
			f.Reset(st.LastSeq)
			if err := snapshot(st); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return toStatus(err)
		}
		if ev.Kind == match.EventSuperseded { // a notice for the seat's older stream only
			if viewer != engine.NoSeat && ev.Seat == viewer && epoch != nil && ev.Epoch > epoch() {
				return reason.Error(codes.Aborted, reason.SeatElsewhere, "the seat joined again on another stream", nil)
			}
			continue
		}
		v := s.spectators.get(viewer, ev)
		if v == nil {
			est, pos, err := p.at(ctx, ev)
			if err != nil {
				return toStatus(err)
			}
			v = view.Event(ev, est, pos, viewer)
			s.spectators.put(viewer, ev, v)
		}
		if err := send(nil, v); err != nil {
			return err
		}
		if ev.Kind == match.EventEnded {
			return nil
		}
		if ev.Kind == match.EventReconnected && viewer != engine.NoSeat && ev.Seat == viewer && epoch != nil && ev.Epoch > epoch() {
			return reason.Error(codes.Aborted, reason.SeatElsewhere, "the seat joined again on another stream", nil)
		}
		if ev.Kind == match.EventDisconnected && viewer != engine.NoSeat && ev.Seat == viewer && epoch != nil && ev.Epoch == epoch() && rejoin != nil {
			if err := rejoin(ctx); err != nil {
				return toStatus(err)
			}
		}
	}
}

// Play implements matchv1.MatchServiceServer.
func (s *Server) Play(stream grpc.BidiStreamingServer[matchv1.PlayRequest, matchv1.PlayResponse]) error {
	ctx, cancel := context.WithCancel(stream.Context())
	defer cancel()
	first, err := stream.Recv()
	if errors.Is(err, io.EOF) {
		return nil // closed before joining: nothing to do
	}
	if err != nil {
		return err
	}
	join := first.GetJoin()
	if join == nil || join.GetMatchId() == "" {
		return reason.Error(codes.InvalidArgument, reason.InvalidRequest, "the first message must be a join with a match_id", nil)
	}
	id := join.GetMatchId()
	if err := checkID("match_id", id); err != nil {
		return err
	}
	release, err := s.openStream(ctx)
	if err != nil {
		return err
	}
	defer release()
	c, err := s.openSeat(ctx, id, join.GetLastSeq(), "spectators use Watch")
	if err != nil {
		return err
	}
	defer c.close(ctx)
	seat := c.seat

	// seen is the seq of the last event the stream sent, or of its
	// snapshot's last event (the join's last_seq for a replay). A resent
	// ply's event is sent again when the stream has sent it already (seq
	// at most seen: a copy the client drops or takes as the answer to its
	// resend); a later one is not sent out of turn, ahead of the events
	// before it, but comes through the feed in its place.
	var (
		mu   sync.Mutex
		seen int64
	)
	if c.replay {
		seen = join.GetLastSeq()
	}
	send := func(r *matchv1.PlayResponse) error {
		mu.Lock()
		defer mu.Unlock()
		if m := r.GetSnapshot(); m != nil {
			seen = m.GetLastSeq()
		} else if ev := r.GetEvent(); ev != nil {
			seen = ev.GetSeq()
		}
		return stream.Send(r)
	}
	repeat := func(ev *matchv1.MatchEvent) error {
		mu.Lock()
		defer mu.Unlock()
		if ev.GetSeq() > seen {
			return nil
		}
		return stream.Send(&matchv1.PlayResponse{Message: &matchv1.PlayResponse_Event{Event: ev}})
	}
	// Probes start once the snapshot (or the replay's first event) is out,
	// unless it shows the game over (c.run's callback, one goroutine:
	// prober needs no lock), and end with the feed.
	var pr *prober
	probes := &localProbe{}
	startProbes := func(m *matchv1.Match, ev *matchv1.MatchEvent) {
		if pr == nil && !over(m, ev) {
			pr = s.probe(ctx, id, seat, probes, func(p *matchv1.Probe) error {
				return send(&matchv1.PlayResponse{Message: &matchv1.PlayResponse_Probe{Probe: p}})
			})
		}
	}
	// The seat sees the match before any answer to its actions (a
	// ply_rejected of a match not yet shown is meaningless): the actions'
	// replies, pongs aside, wait for the first snapshot. A seat resuming
	// from a seq it saw (replay) has been shown the match already.
	shown := make(chan struct{})
	var showOnce sync.Once
	if c.replay {
		showOnce.Do(func() { close(shown) })
	}
	reply := func(r *matchv1.PlayResponse) error {
		if r.GetPong() != nil {
			return send(r) // at once: a round trip measures the network
		}
		select {
		case <-shown:
		case <-ctx.Done():
			return ctx.Err()
		}
		return send(r)
	}
	// The handler follows the match itself; the receiver runs beside it.
	// Whichever of the receiver's end and the instance's drain comes first
	// (ended) cancels ctx, which ends the feed. The receiver ends with the
	// stream: when this handler returns, Recv fails and the goroutine
	// exits. (Two goroutines a stream, not four: the feed's and the
	// probes' were a third of a connected player's memory, in stacks.)
	const (
		recvEnded = 1
		drainSeen = 2
	)
	var ended atomic.Int32
	recvErr := make(chan error, 1)
	go func() {
		recvErr <- s.actions(ctx, stream, id, seat, probes, reply, repeat)
		if ended.CompareAndSwap(0, recvEnded) {
			cancel()
		}
	}()
	stopDrain := s.onDrain(func() {
		if ended.CompareAndSwap(0, drainSeen) {
			cancel()
		}
	})
	defer stopDrain()
	err = c.run(ctx, func(m *matchv1.Match, ev *matchv1.MatchEvent) error {
		defer startProbes(m, ev)
		if m != nil {
			defer showOnce.Do(func() { close(shown) })
			return send(&matchv1.PlayResponse{Message: &matchv1.PlayResponse_Snapshot{Snapshot: m}})
		}
		if givesMove(ev, seat) {
			pr.turn()
		}
		return send(&matchv1.PlayResponse{Message: &matchv1.PlayResponse_Event{Event: ev}})
	})
	pr.stop()
	notify := func(d *matchv1.Drain) error {
		return send(&matchv1.PlayResponse{Message: &matchv1.PlayResponse_Drain{Drain: d}})
	}
	const again = "rejoin with the last seq seen"
	switch ended.Load() {
	case recvEnded:
		if err := <-recvErr; !errors.Is(err, io.EOF) {
			return err
		}
		return nil
	case drainSeen:
		return drained(notify, again)
	}
	if err != nil && ctx.Err() == nil && s.draining() { // the feed ended from the shutdown a moment before
		return drained(notify, again)
	}
	return err
}

// onDrain calls f (in a goroutine of its own) when the instance starts
// shutting down, unless stop is called first. Without a drain channel it
// never calls f.
func (s *Server) onDrain(f func()) (stop func()) {
	if s.drainCtx == nil {
		return func() {}
	}
	stopped := context.AfterFunc(s.drainCtx, f)
	return func() { stopped() }
}

// draining reports whether the instance is shutting down.
func (s *Server) draining() bool {
	select {
	case <-s.drain:
		return true
	default:
		return false
	}
}

// drained sends a stream's drain notice through notify (which wraps it in
// the stream's response) and returns the Unavailable status that ends the
// stream; again tells the client how to go on.
func drained(notify func(*matchv1.Drain) error, again string) error {
	const why = "instance shutting down"
	_ = notify(&matchv1.Drain{Reason: why})
	return reason.Error(codes.Unavailable, reason.Draining, why+"; "+again, nil)
}

// actions handles a player's messages after the join; repeat sends a
// resent ply's event again where the stream's seq order allows it. Past
// Limits.PlayMessages it ends the stream with RESOURCE_EXHAUSTED.
func (s *Server) actions(ctx context.Context, stream grpc.BidiStreamingServer[matchv1.PlayRequest, matchv1.PlayResponse],
	id string, seat engine.Seat, probes *localProbe, send func(*matchv1.PlayResponse) error, repeat func(*matchv1.MatchEvent) error,
) error {
	var msgs *ratelimit.Bucket // in memory: no Redis call per message
	if s.Limiter != nil {
		msgs = ratelimit.NewBucket(s.Limits.PlayMessages, nil)
	}
	for {
		req, err := stream.Recv()
		if err != nil {
			return err
		}
		if err := msgs.Take(); err != nil {
			return err
		}
		var (
			action matchv1.PlayAction
			aerr   error
		)
		switch a := req.GetAction().(type) {
		case *matchv1.PlayRequest_SubmitPly:
			n, notation := int(a.SubmitPly.GetPlyNumber()), a.SubmitPly.GetNotation()
			ev, dup, err := s.submit(ctx, id, seat, n, notation)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				if err := send(&matchv1.PlayResponse{Message: &matchv1.PlayResponse_PlyRejected{PlyRejected: plyRejected(ctx, s.svc, id, n, notation, err)}}); err != nil {
					return err
				}
				continue
			}
			if !dup {
				msgs.Give() // the match's next ply: the game bounds these
				continue
			}
			// A resent ply: the same event again (a new ply's event comes
			// through the feed).
			v, err := s.eventView(ctx, ev, seat)
			if err != nil {
				return err
			}
			if err := repeat(v); err != nil {
				return err
			}
			continue
		case *matchv1.PlayRequest_Resign:
			action, aerr = matchv1.PlayAction_PLAY_ACTION_RESIGN, s.act(ctx, id, seat, matchv1.PlayAction_PLAY_ACTION_RESIGN)
		case *matchv1.PlayRequest_OfferDraw:
			action, aerr = matchv1.PlayAction_PLAY_ACTION_OFFER_DRAW, s.act(ctx, id, seat, matchv1.PlayAction_PLAY_ACTION_OFFER_DRAW)
		case *matchv1.PlayRequest_AcceptDraw:
			action, aerr = matchv1.PlayAction_PLAY_ACTION_ACCEPT_DRAW, s.act(ctx, id, seat, matchv1.PlayAction_PLAY_ACTION_ACCEPT_DRAW)
		case *matchv1.PlayRequest_DeclineDraw:
			action, aerr = matchv1.PlayAction_PLAY_ACTION_DECLINE_DRAW, s.act(ctx, id, seat, matchv1.PlayAction_PLAY_ACTION_DECLINE_DRAW)
		case *matchv1.PlayRequest_ProbeAnswer:
			if at, ok := probes.take(a.ProbeAnswer.GetId()); ok {
				sample := s.now().UnixMilli() - at
				if bound := maxRoundTripMS(ctx); bound >= 0 {
					sample = min(sample, bound)
				}
				_ = s.svc.RecordRoundTrip(ctx, id, seat, sample) // a lost sample: the estimate stays
			}
			continue
		case *matchv1.PlayRequest_Ping:
			if err := send(&matchv1.PlayResponse{Message: &matchv1.PlayResponse_Pong{Pong: &matchv1.Pong{
				Nonce: a.Ping.GetNonce(), ServerTime: timestamppb.New(s.now()),
			}}}); err != nil {
				return err
			}
			continue
		case *matchv1.PlayRequest_Join:
			return reason.Error(codes.InvalidArgument, reason.InvalidRequest, "a join may only be the first message", nil)
		default:
			return reason.Error(codes.InvalidArgument, reason.InvalidRequest, "the request is empty: a PlayRequest after the join sets one action (submit_ply, resign, offer_draw, accept_draw, decline_draw, ping or probe_answer)", nil)
		}
		if aerr != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			st := status.Convert(toStatus(aerr))
			rej := &matchv1.ActionRejected{Action: action, Code: int32(st.Code()), Reason: st.Message()}
			if info, ok := reason.Of(st); ok {
				rej.ErrorReason, rej.ErrorMetadata = info.GetReason(), info.GetMetadata()
			}
			if err := send(&matchv1.PlayResponse{Message: &matchv1.PlayResponse_ActionRejected{ActionRejected: rej}}); err != nil {
				return err
			}
		}
	}
}

func plyRejected(ctx context.Context, svc *match.Service, id string, n int, notation string, err error) *matchv1.PlyRejected {
	st := status.Convert(toStatus(err))
	r := &matchv1.PlyRejected{PlyNumber: int32(n), Notation: clip(notation), Code: int32(st.Code()), Reason: clipMessage(st.Message())}
	if info, ok := reason.Of(st); ok {
		r.ErrorReason, r.ErrorMetadata = info.GetReason(), info.GetMetadata()
	}
	var pe *match.PlyError
	var re *engine.RuleError
	switch {
	case errors.As(err, &pe):
		r.CurrentPlyNumber = int32(pe.Current)
	default:
		if cur, _, gerr := svc.Get(ctx, id); gerr == nil {
			r.CurrentPlyNumber = int32(cur.NextPly())
		}
	}
	if errors.As(err, &re) {
		r.Rule = re.Rule
	}
	if reason, ok := plySyntaxReason(notation, err); ok {
		r.Reason = reason
	}
	return r
}

// plySyntaxReason is the reason for a ply that does not parse, saying what
// is wrong once: 'ply "z9": syntax error at offset 0: file z is off the
// board (files a–i)'. The domain's error names the ply, then the status
// code's words ("invalid argument"), then the engine's syntax error, which
// names the ply again; the code (InvalidArgument) says the rest.
func plySyntaxReason(notation string, err error) (string, bool) {
	var se *engine.SyntaxError
	if !errors.Is(err, match.ErrInvalid) || !errors.As(err, &se) {
		return "", false
	}
	return clipMessage(fmt.Sprintf("ply %q: syntax error at offset %d: %s", clip(notation), se.Offset, se.Msg)), true
}

// Watch implements matchv1.MatchServiceServer.
func (s *Server) Watch(req *matchv1.WatchRequest, stream grpc.ServerStreamingServer[matchv1.WatchResponse]) error {
	if req.GetMatchId() == "" {
		return reason.Error(codes.InvalidArgument, reason.InvalidRequest, "match_id is required", nil)
	}
	if err := checkID("match_id", req.GetMatchId()); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(stream.Context())
	defer cancel()
	st, _, err := s.svc.Get(ctx, req.GetMatchId())
	if err != nil {
		return toStatus(err)
	}
	if !visible(ctx, st) {
		return errHidden
	}
	closeStream, err := s.openStream(ctx)
	if err != nil {
		return err
	}
	defer closeStream()
	release, err := s.svc.Watch(ctx, req.GetMatchId())
	if err != nil {
		return toStatus(err)
	}
	defer release()
	// The handler follows the match itself: one goroutine a spectator.
	// The instance's drain cancels ctx, which ends the feed.
	var drainSeen atomic.Bool
	stopDrain := s.onDrain(func() {
		drainSeen.Store(true)
		cancel()
	})
	defer stopDrain()
	err = s.follow(ctx, req.GetMatchId(), req.GetLastSeq(), engine.NoSeat, nil,
		func(m *matchv1.Match, ev *matchv1.MatchEvent) error {
			if m != nil {
				return stream.Send(&matchv1.WatchResponse{Message: &matchv1.WatchResponse_Snapshot{Snapshot: m}})
			}
			return stream.Send(&matchv1.WatchResponse{Message: &matchv1.WatchResponse_Event{Event: ev}})
		})
	if drainSeen.Load() || (err != nil && stream.Context().Err() == nil && s.draining()) {
		return drained(func(d *matchv1.Drain) error {
			return stream.Send(&matchv1.WatchResponse{Message: &matchv1.WatchResponse_Drain{Drain: d}})
		}, "watch again")
	}
	return err
}

// GetMatch implements matchv1.MatchServiceServer.
func (s *Server) GetMatch(ctx context.Context, req *matchv1.GetMatchRequest) (*matchv1.GetMatchResponse, error) {
	if err := s.limit(ctx); err != nil {
		return nil, err
	}
	if req.GetMatchId() == "" {
		return nil, reason.Error(codes.InvalidArgument, reason.InvalidRequest, "match_id is required", nil)
	}
	if err := checkID("match_id", req.GetMatchId()); err != nil {
		return nil, err
	}
	st, pos, err := s.svc.Get(ctx, req.GetMatchId())
	if err != nil {
		return nil, toStatus(err)
	}
	if !visible(ctx, st) {
		return nil, errHidden
	}
	return &matchv1.GetMatchResponse{Match: s.withSpectators(ctx, view.Match(st, pos, st.SeatOf(caller(ctx)), s.now().UnixMilli()))}, nil
}

// ListLegalPlies implements matchv1.MatchServiceServer.
func (s *Server) ListLegalPlies(ctx context.Context, req *matchv1.ListLegalPliesRequest) (*matchv1.ListLegalPliesResponse, error) {
	if err := s.limit(ctx); err != nil {
		return nil, err
	}
	if req.GetMatchId() == "" {
		return nil, reason.Error(codes.InvalidArgument, reason.InvalidRequest, "match_id is required", nil)
	}
	if err := checkID("match_id", req.GetMatchId()); err != nil {
		return nil, err
	}
	if len(req.GetPly()) > maxNotation {
		return nil, reason.Error(codes.InvalidArgument, reason.InvalidRequest, fmt.Sprintf("ply too long (%d bytes; at most %d)", len(req.GetPly()), maxNotation), nil)
	}
	st, pos, err := s.svc.Get(ctx, req.GetMatchId())
	if err != nil {
		return nil, toStatus(err)
	}
	if !visible(ctx, st) {
		return nil, errHidden
	}
	if st.Status == match.StatusFinished {
		return nil, reason.Error(codes.FailedPrecondition, reason.GameOver, "the game is over", nil)
	}
	if n := req.GetExpectedPlyNumber(); n != 0 && int(n) != st.NextPly() {
		return nil, reason.Error(codes.FailedPrecondition, reason.StalePly, fmt.Sprintf("the next ply is number %d, not %d", st.NextPly(), n),
			map[string]string{"ply_number": strconv.Itoa(int(n)), "current_ply_number": strconv.Itoa(st.NextPly())})
	}
	v := pos.View(engine.NoSeat) // legal plies are public; the view hides the rest
	out := &matchv1.ListLegalPliesResponse{PlyNumber: int32(st.NextPly()), ToMove: view.Seat(v.ToMove())}
	from := req.GetFrom()
	if from != "" {
		if err := checkSquare(st.Game, pos, from); err != nil {
			return nil, reason.Error(codes.InvalidArgument, reason.InvalidRequest, fmt.Sprintf("from %q: %v", clip(from), err), nil)
		}
	}
	seen := map[string]bool{}
	for _, p := range v.Legal() {
		lp := legalPly(st.Game, pos, p.String())
		if from != "" && lp.GetFrom() != from && !(lp.GetKind() == matchv1.PlyKind_PLY_KIND_REVEAL && lp.GetTo() == from) {
			continue
		}
		out.Plies = append(out.Plies, lp)
		if from != "" && !seen[lp.GetTo()] {
			seen[lp.GetTo()] = true
			out.Destinations = append(out.Destinations, lp.GetTo())
		}
	}
	if q := req.GetPly(); q != "" {
		check := &matchv1.PlyCheck{Notation: q}
		var refusal error
		if p, err := v.ParsePly(q); err != nil {
			refusal = err
		} else {
			check.Canonical = p.String()
			if _, err := pos.Play(p); err != nil {
				refusal = err
				var re *engine.RuleError
				if errors.As(err, &re) {
					check.Rule = re.Rule
				}
			} else {
				check.Legal = true
			}
		}
		if refusal != nil {
			check.Reason = refusal.Error()
			// The reason a submission would carry, for the client's words.
			if info, ok := reason.Of(status.Convert(toStatus(refusal))); ok {
				check.ErrorReason, check.ErrorMetadata = info.GetReason(), info.GetMetadata()
			}
		}
		out.Check = check
	}
	return out, nil
}

// checkSquare checks that from names a square of pos's board (RULES.md
// Q1, C1, B1). Its error does not repeat the input.
func checkSquare(g engine.Game, pos engine.Position, from string) error {
	if len(from) > 3 {
		return errors.New("not a square")
	}
	var err error
	switch g {
	case engine.Quoridor:
		_, err = quoridor.ParseSquare(from)
	case engine.Banqi:
		_, err = banqi.ParseSquare(from)
	default:
		var q corners.Square
		if q, err = corners.ParseSquare(from); err == nil {
			if cp, ok := pos.(corners.Position); ok && !cp.Board().OnBoard(q) {
				err = fmt.Errorf("off the %dx%d board", cp.Board().Size(), cp.Board().Size())
			}
		}
	}
	if err != nil {
		return errors.New("not a square of this board")
	}
	return nil
}

// clip shortens client input echoed in a message to at most maxEcho
// bytes (on a rune boundary), marking the cut.
func clip(s string) string {
	if len(s) <= maxEcho {
		return s
	}
	n := maxEcho
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// Limits on client input, checked at the edge.
const (
	maxEcho     = 64  // how much of a client's input a message repeats
	maxNotation = 256 // a ply's notation (a long Corners chain fits easily)
	maxID       = 128 // a match, request or player id
	maxMessage  = 512 // a refusal's reason
)

// checkID refuses an id longer than maxID or with a character that is
// not printable ASCII (ids are; a control or format character would only
// hide what an id is), without repeating it.
func checkID(what, id string) error {
	if len(id) > maxID {
		return reason.Error(codes.InvalidArgument, reason.InvalidRequest, fmt.Sprintf("%s too long (%d bytes; at most %d)", what, len(id), maxID), nil)
	}
	for i := range len(id) {
		if c := id[i]; c <= ' ' || c > '~' {
			return reason.Error(codes.InvalidArgument, reason.InvalidRequest, fmt.Sprintf("%s has a byte 0x%02x at %d: ids are printable ASCII with no spaces", what, c, i), nil)
		}
	}
	return nil
}

// clipMessage caps a refusal's reason, which may quote the client's input.
func clipMessage(m string) string {
	if len(m) <= maxMessage {
		return m
	}
	n := maxMessage
	for n > 0 && !utf8.RuneStart(m[n]) {
		n--
	}
	return m[:n] + "…"
}

// legalPly describes a ply from its notation (RULES.md Q1, C1, B1).
func legalPly(g engine.Game, pos engine.Position, n string) *matchv1.LegalPly {
	lp := &matchv1.LegalPly{Notation: n}
	switch g {
	case engine.Quoridor:
		if strings.HasSuffix(n, "h") || strings.HasSuffix(n, "v") {
			lp.Kind, lp.To = matchv1.PlyKind_PLY_KIND_WALL, n[:len(n)-1]
			return lp
		}
		lp.Kind, lp.To = matchv1.PlyKind_PLY_KIND_STEP, n
		if from := quoridorPawn(pos); from != "" {
			lp.From = from
			if dist(from, n) > 1 {
				lp.Kind = matchv1.PlyKind_PLY_KIND_JUMP
			}
		}
	case engine.Banqi:
		switch {
		case strings.Contains(n, "x"):
			parts := strings.SplitN(n, "x", 2)
			lp.Kind, lp.From, lp.To = matchv1.PlyKind_PLY_KIND_CAPTURE, parts[0], parts[1]
		case strings.Contains(n, "-"):
			parts := strings.SplitN(n, "-", 2)
			lp.Kind, lp.From, lp.To = matchv1.PlyKind_PLY_KIND_STEP, parts[0], parts[1]
		default:
			lp.Kind, lp.To = matchv1.PlyKind_PLY_KIND_REVEAL, n
		}
	default: // Corners: a step a1-b2 or a chain a1-c3-e5 (C1)
		path := strings.Split(n, "-")
		lp.From, lp.To = path[0], path[len(path)-1]
		lp.Kind = matchv1.PlyKind_PLY_KIND_STEP
		if len(path) > 2 || dist(lp.From, lp.To) > 1 {
			lp.Kind = matchv1.PlyKind_PLY_KIND_JUMP
		}
		lp.Path = path
	}
	return lp
}

func quoridorPawn(pos engine.Position) string {
	if q, ok := pos.(quoridor.Position); ok && q.ToMove() != engine.NoSeat {
		return q.Pawn(q.ToMove()).String()
	}
	return ""
}

func dist(a, b string) int {
	if len(a) < 2 || len(b) < 2 {
		return 0
	}
	df := int(a[0]) - int(b[0])
	var ra, rb int
	_, _ = fmt.Sscanf(a[1:], "%d", &ra)
	_, _ = fmt.Sscanf(b[1:], "%d", &rb)
	return max(abs(df), abs(ra-rb))
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// CreateMatch implements matchv1.MatchServiceServer.
func (s *Server) CreateMatch(ctx context.Context, req *matchv1.CreateMatchRequest) (*matchv1.CreateMatchResponse, error) {
	if p, ok := auth.FromContext(ctx); ok && !p.IsService() {
		return nil, reason.Error(codes.PermissionDenied, reason.ServiceOnly, "only a service may create matches", nil)
	}
	g := view.EngineGame(req.GetGame())
	if g == "" {
		return nil, reason.Error(codes.InvalidArgument, reason.InvalidRequest, "game is required", nil)
	}
	params := match.CreateParams{
		RequestID: req.GetRequestId(), Game: g, Variant: req.GetVariant(), Rated: req.GetRated(), Layout: req.GetLayout(),
		Private: req.GetPrivate(), OneDevice: req.GetOneDevice(),
	}
	for i, spec := range []*matchv1.SeatSpec{req.GetFirst(), req.GetSecond()} {
		if spec == nil {
			if i == 0 {
				return nil, reason.Error(codes.InvalidArgument, reason.InvalidRequest, "first seat is required", nil)
			}
			continue
		}
		switch o := spec.GetOccupant().(type) {
		case *matchv1.SeatSpec_Player:
			if o.Player.GetPlayerId() == "" || o.Player.GetDisplayName() == "" {
				return nil, reason.Error(codes.InvalidArgument, reason.InvalidRequest, fmt.Sprintf("seat %d: player_id and display_name are required", i+1), nil)
			}
			params.Seats = append(params.Seats, match.Participant{
				PlayerID: o.Player.GetPlayerId(), DisplayName: o.Player.GetDisplayName(), Rating: o.Player.Rating,
				Username: o.Player.GetUsername(),
			})
		case *matchv1.SeatSpec_BotLevel:
			if o.BotLevel == gamev1.BotLevel_BOT_LEVEL_UNSPECIFIED {
				return nil, reason.Error(codes.InvalidArgument, reason.InvalidRequest, fmt.Sprintf("seat %d: bot_level is unspecified", i+1), nil)
			}
			params.Seats = append(params.Seats, match.Participant{
				BotLevel: int(o.BotLevel), DisplayName: "Bot (" + strings.ToLower(strings.TrimPrefix(o.BotLevel.String(), "BOT_LEVEL_")) + ")",
			})
		default:
			return nil, reason.Error(codes.InvalidArgument, reason.InvalidRequest, fmt.Sprintf("seat %d has neither player nor bot", i+1), nil)
		}
	}
	if tc := req.GetTimeControl(); tc != nil {
		params.Clock = &match.TimeControl{BaseMS: tc.GetBaseMs(), IncrementMS: tc.GetIncrementMs()}
	}
	st, err := s.svc.Create(ctx, params)
	if err != nil {
		return nil, toStatus(err)
	}
	return &matchv1.CreateMatchResponse{MatchId: st.ID, FirstPlyDeadline: timestamppb.New(time.UnixMilli(st.FirstPlyDeadline))}, nil
}
