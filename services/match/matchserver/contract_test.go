package matchserver_test

// The seat contract: one suite of cases run against every way a seat can
// play — the Play stream (native clients), and Follow with the unary
// SubmitPly, Resign and draw calls over gRPC, gRPC-Web and Connect (what a
// browser uses). Both paths run the same domain code; this suite checks
// that they also say the same things.

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/games"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	ptestenv "tabuleiro.dev/pkg/platform/testenv"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/matchserver"
)

// feedItem is one snapshot or event of a seat's stream.
type feedItem struct {
	snap *matchv1.Match
	ev   *matchv1.MatchEvent
}

// result is the answer to a submitted ply or an action.
type result struct {
	code codes.Code
	rej  *matchv1.PlyRejected // a refused ply, as described to the client
	ev   *matchv1.MatchEvent  // an accepted ply's event
	dup  bool                 // the ply had been accepted before
	err  error                // the call's error, as the client saw it
}

// seat is one seat's connection to a match, whichever the path.
type seat struct {
	t          *testing.T
	feed       chan feedItem
	done       chan error // the stream's end: nil for OK
	submit     func(n int32, notation string) result
	act        func(a matchv1.PlayAction) result
	drop       func()
	heartbeats *atomic.Int64
	seen       []feedItem
	head       *feedItem // the first item, read by first and not yet by next
}

// next returns the next snapshot or event, failing after 10 s.
func (s *seat) next() feedItem {
	s.t.Helper()
	if it := s.head; it != nil {
		s.head = nil
		s.seen = append(s.seen, *it)
		return *it
	}
	select {
	case it, ok := <-s.feed:
		if !ok {
			s.t.Fatalf("stream ended: %v (after %d items)", <-s.done, len(s.seen))
		}
		s.seen = append(s.seen, it)
		return it
	case <-time.After(time.Until(ptestenv.Deadline(s.t))):
		s.t.Fatalf("no snapshot or event when the test's time ran out; the goroutines:\n%s", goroutines())
		return feedItem{}
	}
}

// until reads the feed until pred holds.
func (s *seat) until(pred func(feedItem) bool) feedItem {
	s.t.Helper()
	for {
		if it := s.next(); pred(it) {
			return it
		}
	}
}

// end waits for the stream's end and returns its status code.
func (s *seat) end() codes.Code {
	s.t.Helper()
	for {
		select {
		case it, ok := <-s.feed:
			if ok {
				s.seen = append(s.seen, it)
				continue
			}
			return code(<-s.done)
		case <-time.After(time.Until(ptestenv.Deadline(s.t))):
			s.t.Fatal("stream did not end when the test's time ran out")
		}
	}
}

// goroutines is every goroutine's stack: what a test that waited in vain
// prints, to show where the server stopped.
func goroutines() string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return string(buf[:n])
		}
		buf = make([]byte, 2*len(buf))
	}
}

func code(err error) codes.Code {
	if err == nil {
		return codes.OK
	}
	var ce *connect.Error
	if errors.As(err, &ce) {
		return codes.Code(ce.Code())
	}
	return status.Code(err)
}

// message is an error's status message, whatever the protocol.
func message(err error) string {
	var ce *connect.Error
	if errors.As(err, &ce) {
		return ce.Message()
	}
	return status.Convert(err).Message()
}

// seatPath opens a seat's connection after lastSeq on instance inst; err
// is the stream's status when it ended before its first message.
type seatPath struct {
	name string
	open func(t *testing.T, c *cluster, inst int, who, id string, lastSeq int64) (*seat, error)
}

var seatPaths = []seatPath{
	{"play", openPlay},
	{"follow+unary/grpc", openUnary(grpcProtocol)},
	{"follow+unary/grpc-web", openUnary(webProtocol(connect.WithGRPCWeb()))},
	{"follow+unary/connect", openUnary(webProtocol())},
}

// first waits for the first feed item (kept for next) or the stream's end.
func first(t *testing.T, s *seat) (*seat, error) {
	t.Helper()
	select {
	case it, ok := <-s.feed:
		if !ok {
			err := <-s.done
			if err == nil {
				err = errors.New("stream ended with OK before its first message")
			}
			return nil, err
		}
		s.head = &it
		return s, nil
	case <-time.After(time.Until(ptestenv.Deadline(t))):
		t.Fatal("no first message when the test's time ran out")
		return nil, nil
	}
}

func openPlay(t *testing.T, c *cluster, inst int, who, id string, lastSeq int64) (*seat, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(c.as(t.Context(), who))
	t.Cleanup(cancel)
	st, err := c.client(inst).Play(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Send(&matchv1.PlayRequest{Action: &matchv1.PlayRequest_Join{Join: &matchv1.JoinMatch{MatchId: id, LastSeq: lastSeq}}}); err != nil {
		t.Fatal(err)
	}
	s := &seat{t: t, feed: make(chan feedItem, 10000), done: make(chan error, 1), drop: cancel, heartbeats: &atomic.Int64{}}
	replies := make(chan *matchv1.PlayResponse, 1000)
	accepted := make(chan *matchv1.MatchEvent, 10000)
	ended := make(chan struct{}) // closed when the stream ends, endErr set
	var endErr error
	go func() {
		var maxSeq int64
		for {
			m, err := st.Recv()
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				endErr = err
				close(ended)
				s.done <- err
				close(s.feed)
				return
			}
			switch {
			case m.GetSnapshot() != nil:
				maxSeq = max(maxSeq, m.GetSnapshot().GetLastSeq())
				s.feed <- feedItem{snap: m.GetSnapshot()}
			case m.GetEvent() != nil && m.GetEvent().GetSeq() > maxSeq:
				maxSeq = m.GetEvent().GetSeq()
				s.feed <- feedItem{ev: m.GetEvent()}
				if m.GetEvent().GetPlyPlayed() != nil {
					accepted <- m.GetEvent()
				}
			case m.GetDrain() != nil:
			default: // a rejection, a pong, or an event sent again for a resent ply
				replies <- m
			}
		}
	}()
	var nonce uint64
	// ask sends req and a ping; the replies before the pong are req's.
	ask := func(req *matchv1.PlayRequest) (out []*matchv1.PlayResponse) {
		nonce++
		// io.EOF: the stream ended (its status comes through Recv, and
		// ended is closed).
		if err := st.Send(req); err != nil && !errors.Is(err, io.EOF) {
			t.Fatal(err)
		}
		if err := st.Send(&matchv1.PlayRequest{Action: &matchv1.PlayRequest_Ping{Ping: &matchv1.Ping{Nonce: nonce}}}); err != nil && !errors.Is(err, io.EOF) {
			t.Fatal(err)
		}
		for {
			select {
			case m := <-replies:
				if m.GetPong() != nil && m.GetPong().GetNonce() == nonce {
					return out
				}
				out = append(out, m)
			case <-ended:
				// The game's end ends the stream, maybe before the server
				// read the ping (the feed delivered the end first): the
				// replies that came before the end answer req.
			drain:
				for {
					select {
					case m := <-replies:
						out = append(out, m)
					default:
						break drain
					}
				}
				if endErr != nil {
					t.Fatalf("the stream ended (%v) before the pong of %v", endErr, req)
				}
				return out
			case <-time.After(time.Until(ptestenv.Deadline(t))):
				t.Fatalf("no pong to the ping after %v when the test's time ran out; the goroutines:\n%s", req, goroutines())
			}
		}
	}
	s.submit = func(n int32, notation string) result {
		t.Helper()
		for _, m := range ask(&matchv1.PlayRequest{Action: &matchv1.PlayRequest_SubmitPly{SubmitPly: &matchv1.SubmitPly{PlyNumber: n, Notation: notation}}}) {
			if r := m.GetPlyRejected(); r != nil {
				return result{code: codes.Code(r.GetCode()), rej: r}
			}
			if ev := m.GetEvent(); ev.GetPlyPlayed().GetPly().GetNumber() == n {
				return result{code: codes.OK, ev: ev, dup: true}
			}
		}
		// Accepted: its event comes through the feed (one ply n exists).
		for {
			select {
			case ev := <-accepted:
				if ev.GetPlyPlayed().GetPly().GetNumber() == n {
					return result{code: codes.OK, ev: ev}
				}
			case <-ended: // the events before the end are all in accepted
			drain:
				for {
					select {
					case ev := <-accepted:
						if ev.GetPlyPlayed().GetPly().GetNumber() == n {
							return result{code: codes.OK, ev: ev}
						}
					default:
						break drain
					}
				}
				t.Fatalf("the stream ended (%v) before ply %d's event", endErr, n)
			case <-time.After(time.Until(ptestenv.Deadline(t))):
				t.Fatalf("ply %d neither refused nor played when the test's time ran out; the goroutines:\n%s", n, goroutines())
			}
		}
	}
	s.act = func(a matchv1.PlayAction) result {
		t.Helper()
		req := &matchv1.PlayRequest{}
		switch a {
		case matchv1.PlayAction_PLAY_ACTION_RESIGN:
			req.Action = &matchv1.PlayRequest_Resign{Resign: &matchv1.Resign{}}
		case matchv1.PlayAction_PLAY_ACTION_OFFER_DRAW:
			req.Action = &matchv1.PlayRequest_OfferDraw{OfferDraw: &matchv1.OfferDraw{}}
		case matchv1.PlayAction_PLAY_ACTION_ACCEPT_DRAW:
			req.Action = &matchv1.PlayRequest_AcceptDraw{AcceptDraw: &matchv1.AcceptDraw{}}
		case matchv1.PlayAction_PLAY_ACTION_DECLINE_DRAW:
			req.Action = &matchv1.PlayRequest_DeclineDraw{DeclineDraw: &matchv1.DeclineDraw{}}
		}
		for _, m := range ask(req) {
			if r := m.GetActionRejected(); r != nil {
				if r.GetAction() != a {
					t.Errorf("action_rejected names %v, want %v", r.GetAction(), a)
				}
				return result{code: codes.Code(r.GetCode())}
			}
		}
		return result{code: codes.OK}
	}
	return first(t, s)
}

// unaryProtocol is the Follow and unary calls over one wire protocol.
type unaryProtocol struct {
	follow func(ctx context.Context, req *matchv1.FollowRequest, recv func(*matchv1.FollowResponse)) error
	submit func(ctx context.Context, req *matchv1.SubmitPlyRequest) (*matchv1.SubmitPlyResponse, error)
	act    func(ctx context.Context, id string, a matchv1.PlayAction) error
}

// rejection is the PlyRejected detail of a refusal, if any.
func rejection(err error) *matchv1.PlyRejected {
	var ce *connect.Error
	if errors.As(err, &ce) {
		for _, d := range ce.Details() {
			if v, err := d.Value(); err == nil {
				if r, ok := v.(*matchv1.PlyRejected); ok {
					return r
				}
			}
		}
		return nil
	}
	for _, d := range status.Convert(err).Details() {
		if r, ok := d.(*matchv1.PlyRejected); ok {
			return r
		}
	}
	return nil
}

func grpcProtocol(t *testing.T, c *cluster, inst int, who string) unaryProtocol {
	cl := c.client(inst)
	return unaryProtocol{
		follow: func(ctx context.Context, req *matchv1.FollowRequest, recv func(*matchv1.FollowResponse)) error {
			st, err := cl.Follow(c.as(ctx, who), req)
			if err != nil {
				return err
			}
			for {
				m, err := st.Recv()
				if errors.Is(err, io.EOF) {
					return nil
				}
				if err != nil {
					return err
				}
				recv(m)
			}
		},
		submit: func(ctx context.Context, req *matchv1.SubmitPlyRequest) (*matchv1.SubmitPlyResponse, error) {
			return cl.SubmitPly(c.as(ctx, who), req)
		},
		act: func(ctx context.Context, id string, a matchv1.PlayAction) error {
			ctx = c.as(ctx, who)
			var err error
			switch a {
			case matchv1.PlayAction_PLAY_ACTION_RESIGN:
				_, err = cl.Resign(ctx, &matchv1.ResignRequest{MatchId: id})
			case matchv1.PlayAction_PLAY_ACTION_OFFER_DRAW:
				_, err = cl.OfferDraw(ctx, &matchv1.OfferDrawRequest{MatchId: id})
			case matchv1.PlayAction_PLAY_ACTION_ACCEPT_DRAW:
				_, err = cl.AcceptDraw(ctx, &matchv1.AcceptDrawRequest{MatchId: id})
			case matchv1.PlayAction_PLAY_ACTION_DECLINE_DRAW:
				_, err = cl.DeclineDraw(ctx, &matchv1.DeclineDrawRequest{MatchId: id})
			}
			return err
		},
	}
}

// httpClient is an HTTP/1.1 client to instance inst, as a browser's.
func (c *cluster) httpClient(t *testing.T, inst int) *http.Client {
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) { return c.lis[inst].DialContext(ctx) }}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

const baseURL = "http://test-server"

// webProtocol calls with connect-go over HTTP/1.1: the Connect protocol,
// or gRPC-Web with connect.WithGRPCWeb().
func webProtocol(opts ...connect.ClientOption) func(t *testing.T, c *cluster, inst int, who string) unaryProtocol {
	return func(t *testing.T, c *cluster, inst int, who string) unaryProtocol {
		hc := c.httpClient(t, inst)
		tok, _, err := c.iss.IssuePlayer(who, who, true, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		authed := func(h http.Header) { h.Set("Authorization", "Bearer "+tok) }
		follow := connect.NewClient[matchv1.FollowRequest, matchv1.FollowResponse](hc, baseURL+matchv1.MatchService_Follow_FullMethodName, opts...)
		submit := connect.NewClient[matchv1.SubmitPlyRequest, matchv1.SubmitPlyResponse](hc, baseURL+matchv1.MatchService_SubmitPly_FullMethodName, opts...)
		resign := connect.NewClient[matchv1.ResignRequest, matchv1.ResignResponse](hc, baseURL+matchv1.MatchService_Resign_FullMethodName, opts...)
		offer := connect.NewClient[matchv1.OfferDrawRequest, matchv1.OfferDrawResponse](hc, baseURL+matchv1.MatchService_OfferDraw_FullMethodName, opts...)
		accept := connect.NewClient[matchv1.AcceptDrawRequest, matchv1.AcceptDrawResponse](hc, baseURL+matchv1.MatchService_AcceptDraw_FullMethodName, opts...)
		decline := connect.NewClient[matchv1.DeclineDrawRequest, matchv1.DeclineDrawResponse](hc, baseURL+matchv1.MatchService_DeclineDraw_FullMethodName, opts...)
		return unaryProtocol{
			follow: func(ctx context.Context, req *matchv1.FollowRequest, recv func(*matchv1.FollowResponse)) error {
				r := connect.NewRequest(req)
				authed(r.Header())
				st, err := follow.CallServerStream(ctx, r)
				if err != nil {
					return err
				}
				defer st.Close()
				for st.Receive() {
					recv(st.Msg())
				}
				return st.Err()
			},
			submit: func(ctx context.Context, req *matchv1.SubmitPlyRequest) (*matchv1.SubmitPlyResponse, error) {
				r := connect.NewRequest(req)
				authed(r.Header())
				resp, err := submit.CallUnary(ctx, r)
				if err != nil {
					return nil, err
				}
				return resp.Msg, nil
			},
			act: func(ctx context.Context, id string, a matchv1.PlayAction) error {
				var err error
				switch a {
				case matchv1.PlayAction_PLAY_ACTION_RESIGN:
					r := connect.NewRequest(&matchv1.ResignRequest{MatchId: id})
					authed(r.Header())
					_, err = resign.CallUnary(ctx, r)
				case matchv1.PlayAction_PLAY_ACTION_OFFER_DRAW:
					r := connect.NewRequest(&matchv1.OfferDrawRequest{MatchId: id})
					authed(r.Header())
					_, err = offer.CallUnary(ctx, r)
				case matchv1.PlayAction_PLAY_ACTION_ACCEPT_DRAW:
					r := connect.NewRequest(&matchv1.AcceptDrawRequest{MatchId: id})
					authed(r.Header())
					_, err = accept.CallUnary(ctx, r)
				case matchv1.PlayAction_PLAY_ACTION_DECLINE_DRAW:
					r := connect.NewRequest(&matchv1.DeclineDrawRequest{MatchId: id})
					authed(r.Header())
					_, err = decline.CallUnary(ctx, r)
				}
				return err
			},
		}
	}
}

func openUnary(proto func(t *testing.T, c *cluster, inst int, who string) unaryProtocol) func(t *testing.T, c *cluster, inst int, who, id string, lastSeq int64) (*seat, error) {
	return func(t *testing.T, c *cluster, inst int, who, id string, lastSeq int64) (*seat, error) {
		t.Helper()
		p := proto(t, c, inst, who)
		ctx, cancel := context.WithCancel(t.Context())
		t.Cleanup(cancel)
		s := &seat{t: t, feed: make(chan feedItem, 10000), done: make(chan error, 1), drop: cancel, heartbeats: &atomic.Int64{}}
		go func() {
			err := p.follow(ctx, &matchv1.FollowRequest{MatchId: id, LastSeq: lastSeq}, func(m *matchv1.FollowResponse) {
				switch {
				case m.GetSnapshot() != nil:
					s.feed <- feedItem{snap: m.GetSnapshot()}
				case m.GetEvent() != nil:
					s.feed <- feedItem{ev: m.GetEvent()}
				case m.GetHeartbeat() != nil:
					s.heartbeats.Add(1)
				}
			})
			s.done <- err
			close(s.feed)
		}()
		s.submit = func(n int32, notation string) result {
			resp, err := p.submit(t.Context(), &matchv1.SubmitPlyRequest{MatchId: id, PlyNumber: n, Notation: notation})
			if err != nil {
				return result{code: code(err), rej: rejection(err), err: err}
			}
			return result{code: codes.OK, ev: resp.GetEvent(), dup: resp.GetDuplicate()}
		}
		s.act = func(a matchv1.PlayAction) result {
			return result{code: code(p.act(t.Context(), id, a))}
		}
		return first(t, s)
	}
}

// mustOpen opens a seat that must connect.
func mustOpen(t *testing.T, p seatPath, c *cluster, inst int, who, id string, lastSeq int64) *seat {
	t.Helper()
	s, err := p.open(t, c, inst, who, id, lastSeq)
	if err != nil {
		t.Fatalf("%s opens %s: %v", who, id, err)
	}
	return s
}

func isPly(n int32) func(feedItem) bool {
	return func(it feedItem) bool {
		return it.ev.GetPlyPlayed().GetPly().GetNumber() == n || int32(len(it.snap.GetPlies())) >= n
	}
}

func isEnd(it feedItem) bool {
	return it.ev.GetGameEnded() != nil || it.snap.GetStatus() == matchv1.MatchStatus_MATCH_STATUS_FINISHED
}

// contractCase is one case of the seat contract, run on every path.
type contractCase struct {
	name string
	run  func(t *testing.T, c *cluster, p seatPath)
}

var contractCases = []contractCase{
	{"whole quoridor game", func(t *testing.T, c *cluster, p seatPath) {
		id := c.create(quoridor(nil))
		alice, bob := mustOpen(t, p, c, 0, "alice", id, 0), mustOpen(t, p, c, 0, "bob", id, 0)
		playToEnd(t, engine.Quoridor, [2]*seat{alice, bob}, quoridorGreedy)
		for _, s := range []*seat{alice, bob} {
			if got := s.end(); got != codes.OK {
				t.Errorf("stream after the end: %v, want OK", got)
			}
		}
	}},
	{"whole corners game", func(t *testing.T, c *cluster, p seatPath) {
		id := c.create(&matchv1.CreateMatchRequest{Game: gamev1.Game_GAME_CORNERS, Variant: "classic-3x3"})
		alice, bob := mustOpen(t, p, c, 0, "alice", id, 0), mustOpen(t, p, c, 0, "bob", id, 0)
		playToEnd(t, engine.Corners, [2]*seat{alice, bob}, randomPly)
	}},
	{"refused plies change nothing", func(t *testing.T, c *cluster, p seatPath) {
		id := c.create(quoridor(nil))
		alice, bob := mustOpen(t, p, c, 0, "alice", id, 0), mustOpen(t, p, c, 0, "bob", id, 0)
		r := alice.submit(1, "e2")
		if r.code != codes.OK || r.dup || r.ev.GetPlyPlayed().GetPly().GetNotation() != "e2" || r.ev.GetSeq() == 0 {
			t.Fatalf("ply 1: %+v", r)
		}
		seq := r.ev.GetSeq()
		long := strings.Repeat("e", 300)
		for _, tt := range []struct {
			name     string
			s        *seat
			n        int32
			notation string
			code     codes.Code
			rule     string
		}{
			{"stale", bob, 1, "e8", codes.FailedPrecondition, ""},
			{"stale, a different ply with an accepted number", alice, 1, "d1", codes.FailedPrecondition, ""},
			{"ahead of the game", alice, 3, "e3", codes.FailedPrecondition, ""},
			{"number zero", bob, 0, "e8", codes.FailedPrecondition, ""},
			{"the other seat's ply (not your turn)", alice, 2, "e3", codes.PermissionDenied, ""},
			{"does not parse", bob, 2, "z0", codes.InvalidArgument, ""},
			{"too long", bob, 2, long, codes.InvalidArgument, ""},
			{"illegal", bob, 2, "e6", codes.FailedPrecondition, "Q2.1"},
		} {
			r := tt.s.submit(tt.n, tt.notation)
			if r.code != tt.code || r.rej == nil || r.rej.GetCurrentPlyNumber() != 2 || codes.Code(r.rej.GetCode()) != tt.code ||
				r.rej.GetPlyNumber() != tt.n || (tt.rule != "" && r.rej.GetRule() != tt.rule) || r.rej.GetReason() == "" {
				t.Errorf("%s: %v %v (%v), want %v, current 2, rule %q", tt.name, r.code, r.rej, r.err, tt.code, tt.rule)
			}
			if len(r.rej.GetNotation()) > 70 {
				t.Errorf("%s: the refusal echoes %d bytes of notation", tt.name, len(r.rej.GetNotation()))
			}
		}
		// Resent: acknowledged with the same event, not played twice.
		again := alice.submit(1, "e2")
		if again.code != codes.OK || !again.dup || again.ev.GetSeq() != seq || again.ev.GetPlyPlayed().GetPly().GetNumber() != 1 {
			t.Errorf("resent ply 1: %+v, want the same event (seq %d) again", again, seq)
		}
		r = bob.submit(2, "e8")
		if r.code != codes.OK || r.ev.GetSeq() != seq+1 {
			t.Fatalf("ply 2: %+v, want seq %d (nothing was committed in between)", r, seq+1)
		}
		// Each stream saw ply 1 once, then ply 2.
		for who, s := range map[string]*seat{"alice": alice, "bob": bob} {
			s.until(isPly(2))
			plies := 0
			for _, it := range s.seen {
				if it.ev.GetPlyPlayed() != nil {
					plies++
				}
			}
			if last := s.seen[len(s.seen)-1]; last.ev.GetSeq() != seq+1 && len(last.snap.GetPlies()) != 2 {
				t.Errorf("%s's stream: last item %+v, want ply 2", who, last)
			}
			if plies > 2 {
				t.Errorf("%s's stream saw %d ply events, want at most 2", who, plies)
			}
		}
	}},
	{"resign", func(t *testing.T, c *cluster, p seatPath) {
		id := c.create(quoridor(nil))
		alice, bob := mustOpen(t, p, c, 0, "alice", id, 0), mustOpen(t, p, c, 0, "bob", id, 0)
		if r := alice.submit(1, "e2"); r.code != codes.OK {
			t.Fatalf("ply 1: %+v", r)
		}
		// A ply each: a resignation before that aborts the game.
		if r := bob.submit(2, "e8"); r.code != codes.OK {
			t.Fatalf("ply 2: %+v", r)
		}
		if r := bob.act(matchv1.PlayAction_PLAY_ACTION_RESIGN); r.code != codes.OK {
			t.Fatalf("resign: %v", r.code)
		}
		for _, s := range []*seat{alice, bob} {
			o := s.until(isEnd).ev.GetGameEnded().GetOutcome()
			if o.GetWinner() != gamev1.Seat_SEAT_FIRST || o.GetReason() != gamev1.Reason_REASON_RESIGNATION {
				t.Errorf("outcome %v, want first wins by resignation", o)
			}
			if got := s.end(); got != codes.OK {
				t.Errorf("stream after the end: %v, want OK", got)
			}
		}
	}},
	{"draws", func(t *testing.T, c *cluster, p seatPath) {
		id := c.create(&matchv1.CreateMatchRequest{Game: gamev1.Game_GAME_CORNERS, Variant: "classic-3x3"})
		alice, bob := mustOpen(t, p, c, 0, "alice", id, 0), mustOpen(t, p, c, 0, "bob", id, 0)
		const (
			offer   = matchv1.PlayAction_PLAY_ACTION_OFFER_DRAW
			accept  = matchv1.PlayAction_PLAY_ACTION_ACCEPT_DRAW
			decline = matchv1.PlayAction_PLAY_ACTION_DECLINE_DRAW
		)
		steps := []struct {
			who  *seat
			a    matchv1.PlayAction
			want codes.Code
		}{
			{bob, accept, codes.FailedPrecondition},  // no offer
			{bob, decline, codes.FailedPrecondition}, // no offer
			{alice, offer, codes.OK},
			{alice, offer, codes.FailedPrecondition},  // pending
			{alice, accept, codes.FailedPrecondition}, // one's own offer
			{bob, decline, codes.OK},
			{bob, offer, codes.OK},
			{alice, accept, codes.OK},
		}
		for i, st := range steps {
			if r := st.who.act(st.a); r.code != st.want {
				t.Fatalf("step %d (%v): %v, want %v", i, st.a, r.code, st.want)
			}
		}
		for _, s := range []*seat{alice, bob} {
			var kinds []string
			for {
				it := s.next()
				switch {
				case it.ev.GetDrawOffered() != nil:
					kinds = append(kinds, "offered by "+it.ev.GetDrawOffered().GetBy().String())
				case it.ev.GetDrawDeclined() != nil:
					kinds = append(kinds, "declined")
				case it.ev.GetGameEnded() != nil:
					kinds = append(kinds, "ended "+it.ev.GetGameEnded().GetOutcome().GetReason().String())
				}
				if isEnd(it) {
					break
				}
			}
			// Agreed before each side's first ply: aborted.
			want := "offered by SEAT_FIRST, declined, offered by SEAT_SECOND, ended REASON_ABORTED"
			if got := strings.Join(kinds, ", "); got != want {
				t.Errorf("events %q, want %q", got, want)
			}
		}
		// A variant without draws refuses an offer.
		q := c.create(quoridor(nil))
		if r := mustOpen(t, p, c, 0, "alice", q, 0).act(offer); r.code != codes.FailedPrecondition {
			t.Errorf("offer in Quoridor: %v, want FailedPrecondition", r.code)
		}
	}},
	{"reconnect with last_seq on another instance", func(t *testing.T, c *cluster, p seatPath) {
		id := c.create(quoridor(nil))
		alice, bob := mustOpen(t, p, c, 0, "alice", id, 0), mustOpen(t, p, c, 0, "bob", id, 0)
		r := alice.submit(1, "e2")
		if r.code != codes.OK {
			t.Fatalf("ply 1: %+v", r)
		}
		bob.until(isPly(1))
		seen := r.ev.GetSeq()
		bob.drop()
		bob.end()
		gone := alice.until(func(it feedItem) bool { return it.ev.GetPlayerDisconnected() != nil }).ev
		if gone.GetPlayerDisconnected().GetSeat() != gamev1.Seat_SEAT_SECOND || gone.GetPlayerDisconnected().GetReconnectDeadline() == nil {
			t.Errorf("disconnect event %v, want the second seat with a deadline", gone)
		}
		// Back with the last seq seen: the missed events, replayed in
		// order, then the reconnection; no snapshot.
		back := mustOpen(t, p, c, 1, "bob", id, seen)
		want := seen + 1
		for {
			it := back.next()
			if it.snap != nil {
				t.Fatalf("snapshot after a rejoin with last_seq %d", seen)
			}
			if it.ev.GetSeq() != want {
				t.Fatalf("event seq %d, want %d", it.ev.GetSeq(), want)
			}
			want++
			if rc := it.ev.GetPlayerReconnected(); rc != nil {
				if rc.GetSeat() != gamev1.Seat_SEAT_SECOND {
					t.Errorf("reconnected %v, want the second seat", rc.GetSeat())
				}
				break
			}
		}
		alice.until(func(it feedItem) bool { return it.ev.GetPlayerReconnected() != nil })
		if r := back.submit(2, "e8"); r.code != codes.OK {
			t.Fatalf("ply 2 after the rejoin: %+v", r)
		}
		alice.until(isPly(2))
		// Without last_seq: a snapshot with every ply.
		snap := mustOpen(t, p, c, 1, "alice", id, 0).next()
		if len(snap.snap.GetPlies()) != 2 || snap.snap.GetYourSeat() != gamev1.Seat_SEAT_FIRST {
			t.Errorf("rejoin without last_seq: %+v, want a snapshot with 2 plies for the first seat", snap)
		}
	}},
	{"the newer connection of a seat wins", func(t *testing.T, c *cluster, p seatPath) {
		id := c.create(quoridor(nil))
		old := mustOpen(t, p, c, 0, "alice", id, 0)
		mustOpen(t, p, c, 1, "alice", id, 0)
		if got := old.end(); got != codes.Aborted {
			t.Errorf("older stream ended %v, want Aborted", got)
		}
	}},
	{"a non-seat is refused", func(t *testing.T, c *cluster, p seatPath) {
		id := c.create(quoridor(nil))
		if _, err := p.open(t, c, 0, "carol", id, 0); code(err) != codes.PermissionDenied {
			t.Errorf("carol opens: %v, want PermissionDenied", err)
		}
	}},
	{"a private match is hidden from a non-seat", func(t *testing.T, c *cluster, p seatPath) {
		id := c.create(&matchv1.CreateMatchRequest{Game: gamev1.Game_GAME_QUORIDOR, Private: true})
		if _, err := p.open(t, c, 0, "carol", id, 0); code(err) != codes.NotFound {
			t.Errorf("carol opens a private match: %v, want NotFound", err)
		}
		alice := mustOpen(t, p, c, 0, "alice", id, 0)
		if r := alice.submit(1, "e2"); r.code != codes.OK {
			t.Errorf("a seat's ply in a private match: %+v", r)
		}
	}},
	{"an unknown match is not found", func(t *testing.T, c *cluster, p seatPath) {
		if _, err := p.open(t, c, 0, "alice", "no-such-match", 0); code(err) != codes.NotFound {
			t.Errorf("open: %v, want NotFound", err)
		}
	}},
}

// playToEnd plays the seats' match to its end with choose, checking each
// ply's answer and that both streams see every ply in order.
func playToEnd(t *testing.T, g engine.Game, seats [2]*seat, choose chooser) {
	t.Helper()
	r := rand.New(rand.NewPCG(3, 4))
	var views [2]*gamev1.GameView
	for i, s := range seats {
		views[i] = s.until(func(it feedItem) bool { return it.snap != nil }).snap.GetView()
	}
	var lastSeq int64
	n := int32(0)
	for views[0].GetOutcome().GetResult() == gamev1.Result_RESULT_ONGOING {
		mover := int(views[0].GetToMove()) - 1
		v, err := games.DecodeView(g, views[mover].GetEncoding())
		if err != nil {
			t.Fatalf("decode view: %v", err)
		}
		n++
		notation := choose(v, r)
		res := seats[mover].submit(n, notation)
		if res.code != codes.OK || res.dup || res.ev.GetPlyPlayed().GetPly().GetNumber() != n || res.ev.GetSeq() <= lastSeq {
			t.Fatalf("ply %d %s: %+v", n, notation, res)
		}
		lastSeq = res.ev.GetSeq()
		for i, s := range seats {
			it := s.until(func(it feedItem) bool { return it.ev.GetPlyPlayed() != nil })
			if it.ev.GetSeq() != lastSeq || it.ev.GetPlyPlayed().GetPly().GetNumber() != n {
				t.Fatalf("seat %d: next ply event %v, want ply %d seq %d", i, it.ev, n, lastSeq)
			}
			views[i] = it.ev.GetPlyPlayed().GetView()
		}
		if n > 2000 {
			t.Fatal("game did not end in 2000 plies")
		}
	}
	t.Logf("game over after %d plies", n)
	for i, s := range seats {
		if o := s.until(isEnd).ev.GetGameEnded().GetOutcome(); o.GetResult() != views[0].GetOutcome().GetResult() {
			t.Errorf("seat %d: game_ended %v, the last view says %v", i, o, views[0].GetOutcome())
		}
	}
}

// TestSeatContract runs every contract case on every seat path.
func TestSeatContract(t *testing.T) {
	t.Parallel()
	// The same players make every case's calls, on every path at once and
	// at machine speed: far past a person's call rate
	// (TestPerPlayerCallRate tests the rate).
	c := newClusterWith(t, 2, match.Config{}, nil, -1, func(sc *matchserver.Config) { sc.Unlimited = true })
	for _, p := range seatPaths {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			for _, tc := range contractCases {
				t.Run(tc.name, func(t *testing.T) { tc.run(t, c, p) })
			}
		})
	}
}

// TestMixedPaths: one seat on Play, the other in a browser (gRPC-Web),
// play a whole game together.
func TestMixedPaths(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 1, match.Config{}, nil)
	id := c.create(quoridor(nil))
	alice := mustOpen(t, seatPaths[0], c, 0, "alice", id, 0)
	bob := mustOpen(t, seatPaths[2], c, 0, "bob", id, 0)
	playToEnd(t, engine.Quoridor, [2]*seat{alice, bob}, quoridorGreedy)
}

// TestFollowHeartbeat: a quiet Follow stream gets heartbeats.
func TestFollowHeartbeat(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 1, match.Config{}, nil)
	id := c.create(quoridor(nil))
	for _, p := range seatPaths[1:] {
		s := mustOpen(t, p, c, 0, "alice", id, 0)
		ptestenv.Eventually(t, 10*time.Second, p.name+"'s heartbeat (every 500 ms configured)", func() bool { return s.heartbeats.Load() > 0 })
		s.drop()
	}
}

// TestUnaryRefusals: the unary calls' own refusals.
func TestUnaryRefusals(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 1, match.Config{}, nil)
	id := c.create(quoridor(nil))
	private := c.create(&matchv1.CreateMatchRequest{Game: gamev1.Game_GAME_QUORIDOR, Private: true})
	for _, mk := range []func(t *testing.T, c *cluster, inst int, who string) unaryProtocol{
		grpcProtocol, webProtocol(connect.WithGRPCWeb()), webProtocol(),
	} {
		carol, alice := mk(t, c, 0, "carol"), mk(t, c, 0, "alice")
		ctx := t.Context()
		if _, err := carol.submit(ctx, &matchv1.SubmitPlyRequest{MatchId: id, PlyNumber: 1, Notation: "e2"}); code(err) != codes.PermissionDenied {
			t.Errorf("a non-seat's ply: %v, want PermissionDenied", err)
		}
		if err := carol.act(ctx, id, matchv1.PlayAction_PLAY_ACTION_RESIGN); code(err) != codes.PermissionDenied {
			t.Errorf("a non-seat's resignation: %v, want PermissionDenied", err)
		}
		if _, err := carol.submit(ctx, &matchv1.SubmitPlyRequest{MatchId: private, PlyNumber: 1, Notation: "e2"}); code(err) != codes.NotFound {
			t.Errorf("a non-seat's ply in a private match: %v, want NotFound", err)
		}
		if err := carol.act(ctx, private, matchv1.PlayAction_PLAY_ACTION_OFFER_DRAW); code(err) != codes.NotFound {
			t.Errorf("a non-seat's offer in a private match: %v, want NotFound", err)
		}
		if _, err := alice.submit(ctx, &matchv1.SubmitPlyRequest{MatchId: "no-such-match", PlyNumber: 1, Notation: "e2"}); code(err) != codes.NotFound {
			t.Errorf("a ply in an unknown match: %v, want NotFound", err)
		}
		if err := alice.act(ctx, "", matchv1.PlayAction_PLAY_ACTION_OFFER_DRAW); code(err) != codes.InvalidArgument {
			t.Errorf("an offer without a match: %v, want InvalidArgument", err)
		}
		if _, err := alice.submit(ctx, &matchv1.SubmitPlyRequest{MatchId: strings.Repeat("m", 200), PlyNumber: 1, Notation: "e2"}); code(err) != codes.InvalidArgument {
			t.Errorf("a ply with a 200-byte match id: %v, want InvalidArgument", err)
		}
		if err := alice.follow(ctx, &matchv1.FollowRequest{}, func(*matchv1.FollowResponse) {}); code(err) != codes.InvalidArgument {
			t.Errorf("Follow without a match: %v, want InvalidArgument", err)
		}
		// A malformed ply says what is wrong once: the ply named once, no
		// status code's words ("invalid argument") in the message.
		const want = `ply "z9": syntax error at offset 0: file z is off the board (files a–i)`
		_, err := alice.submit(ctx, &matchv1.SubmitPlyRequest{MatchId: id, PlyNumber: 1, Notation: "z9"})
		if code(err) != codes.InvalidArgument || message(err) != want {
			t.Errorf("a malformed ply: %v (message %q), want InvalidArgument %q", code(err), message(err), want)
		}
		if r := rejection(err); r.GetReason() != want || codes.Code(r.GetCode()) != codes.InvalidArgument {
			t.Errorf("a malformed ply's PlyRejected: %v, want code InvalidArgument and the reason %q", r, want)
		}
	}
	// Without a token, over every protocol: Unauthenticated.
	hc := c.httpClient(t, 0)
	for _, opts := range [][]connect.ClientOption{{connect.WithGRPCWeb()}, nil} {
		cl := connect.NewClient[matchv1.SubmitPlyRequest, matchv1.SubmitPlyResponse](hc, baseURL+matchv1.MatchService_SubmitPly_FullMethodName, opts...)
		if _, err := cl.CallUnary(t.Context(), connect.NewRequest(&matchv1.SubmitPlyRequest{MatchId: id, PlyNumber: 1, Notation: "e2"})); code(err) != codes.Unauthenticated {
			t.Errorf("a ply without a token: %v, want Unauthenticated", err)
		}
	}
	if _, err := c.client(0).SubmitPly(t.Context(), &matchv1.SubmitPlyRequest{MatchId: id, PlyNumber: 1, Notation: "e2"}); code(err) != codes.Unauthenticated {
		t.Errorf("a ply without a token over gRPC: %v, want Unauthenticated", err)
	}
}
