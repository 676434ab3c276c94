package tui

import (
	"errors"
	"io"
	"sync"
	"testing"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/corners"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
)

// fakeCorners is a Corners match run by the engine in memory, as
// fakeMatch is for Quoridor: the person holds SEAT_FIRST, and the
// opponent never moves (the tests play one ply each). Its views carry the
// engine's encoding only, as the model reads a Corners board from either.
type fakeCorners struct {
	mu     sync.Mutex
	pos    corners.Position
	plies  []*gamev1.Ply
	seq    int64
	out    chan *matchv1.PlayResponse
	closed bool
}

// newFakeCorners starts at encoding, a position of corners.Position.Encode
// with white to move.
func newFakeCorners(t *testing.T, encoding string) *fakeCorners {
	t.Helper()
	pos, err := corners.DecodePosition(encoding)
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeCorners{pos: pos, out: make(chan *matchv1.PlayResponse, 16)}
	f.out <- &matchv1.PlayResponse{Message: &matchv1.PlayResponse_Snapshot{Snapshot: &matchv1.Match{
		MatchId: "c1", Game: gamev1.Game_GAME_CORNERS, Variant: pos.Variant().ID,
		Seats: []*matchv1.SeatState{
			{Participant: &gamev1.Participant{Seat: gamev1.Seat_SEAT_FIRST, DisplayName: "Ana"}},
			{Participant: &gamev1.Participant{Seat: gamev1.Seat_SEAT_SECOND, DisplayName: "Script"}},
		},
		YourSeat: gamev1.Seat_SEAT_FIRST,
		Status:   matchv1.MatchStatus_MATCH_STATUS_IN_PROGRESS,
		View:     f.view(),
		Outcome:  &gamev1.Outcome{Result: gamev1.Result_RESULT_ONGOING},
	}}}
	return f
}

func (f *fakeCorners) table() *Table {
	return &Table{
		MatchID: "c1",
		Title:   "vs Script",
		Seats:   map[gamev1.Seat]Conn{gamev1.Seat_SEAT_FIRST: f},
		Legal:   f.legal,
	}
}

// played returns the plies played so far.
func (f *fakeCorners) played() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.plies)
}

func (f *fakeCorners) view() *gamev1.GameView {
	o := f.pos.Outcome()
	out := &gamev1.Outcome{Result: gamev1.Result_RESULT_ONGOING}
	switch {
	case o.Result == engine.Win && o.Reason == engine.ReasonReturnHome:
		out = &gamev1.Outcome{Result: gamev1.Result_RESULT_WIN, Winner: seatOf(o.Winner), Reason: gamev1.Reason_REASON_RETURN_HOME}
	case o.Over():
		panic("fakeCorners: an ending it does not name: " + o.Reason.String())
	}
	return &gamev1.GameView{
		Game: gamev1.Game_GAME_CORNERS, Variant: f.pos.Variant().ID, Viewer: gamev1.Seat_SEAT_FIRST,
		ToMove: seatOf(f.pos.ToMove()), PlyCount: int32(f.pos.Plies()), Outcome: out,
		Encoding: f.pos.Encode(),
	}
}

func (f *fakeCorners) Send(req *matchv1.PlayRequest) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return io.EOF
	}
	sp := req.GetSubmitPly()
	if sp == nil {
		return nil
	}
	reject := func(reason, rule string) error {
		f.out <- &matchv1.PlayResponse{Message: &matchv1.PlayResponse_PlyRejected{PlyRejected: &matchv1.PlyRejected{
			Notation: sp.GetNotation(), Code: 9, Reason: reason, Rule: rule, CurrentPlyNumber: int32(f.pos.Plies() + 1)}}}
		return nil
	}
	if sp.GetPlyNumber() != int32(f.pos.Plies()+1) || f.pos.ToMove() != engine.First {
		return reject("stale", "")
	}
	m, err := corners.ParseMove(sp.GetNotation())
	var next corners.Position
	if err == nil {
		next, err = f.pos.PlayMove(m)
	}
	if err != nil {
		var re *engine.RuleError
		if errors.As(err, &re) {
			return reject(err.Error(), re.Rule)
		}
		return reject(err.Error(), "")
	}
	f.pos = next
	last, _ := next.LastPly()
	ply := &gamev1.Ply{Number: int32(next.Plies()), Seat: gamev1.Seat_SEAT_FIRST, Notation: last.String()}
	f.plies = append(f.plies, ply)
	f.seq++
	f.out <- &matchv1.PlayResponse{Message: &matchv1.PlayResponse_Event{Event: &matchv1.MatchEvent{
		Seq: f.seq, Kind: &matchv1.MatchEvent_PlyPlayed{PlyPlayed: &matchv1.PlyPlayed{Ply: ply, View: f.view()}},
	}}}
	if next.Outcome().Over() {
		f.seq++
		f.out <- &matchv1.PlayResponse{Message: &matchv1.PlayResponse_Event{Event: &matchv1.MatchEvent{
			Seq: f.seq, Kind: &matchv1.MatchEvent_GameEnded{GameEnded: &matchv1.GameEnded{Outcome: f.view().GetOutcome(), View: f.view()}},
		}}}
		close(f.out)
		f.closed = true
	}
	return nil
}

func (f *fakeCorners) Recv() (*matchv1.PlayResponse, error) {
	r, ok := <-f.out
	if !ok {
		return nil, io.EOF
	}
	return r, nil
}

func (f *fakeCorners) legal(req *matchv1.ListLegalPliesRequest) (*matchv1.ListLegalPliesResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	resp := &matchv1.ListLegalPliesResponse{PlyNumber: int32(f.pos.Plies() + 1), ToMove: seatOf(f.pos.ToMove())}
	if req.GetExpectedPlyNumber() != 0 && req.GetExpectedPlyNumber() != resp.PlyNumber {
		return nil, errors.New("position moved on")
	}
	for _, p := range f.pos.Legal() {
		m := p.(corners.Move)
		if req.GetFrom() != "" && m.From().String() != req.GetFrom() {
			continue
		}
		kind := matchv1.PlyKind_PLY_KIND_STEP
		if m.IsJump() {
			kind = matchv1.PlyKind_PLY_KIND_JUMP
		}
		resp.Plies = append(resp.Plies, &matchv1.LegalPly{Notation: m.String(), Kind: kind, From: m.From().String(), To: m.To().String()})
	}
	return resp, nil
}
