package tui

import (
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/quoridor"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/testenv"
)

// fakeMatch is a Quoridor match run by the engine in memory, standing in
// for match.v1 in the model's unit tests: the person holds SEAT_FIRST and
// a scripted opponent SEAT_SECOND.
type fakeMatch struct {
	mu     sync.Mutex
	pos    quoridor.Position
	walls  []*gamev1.QuoridorWall
	plies  []*gamev1.Ply
	seq    int64
	script []string // the opponent's plies, in order
	out    chan *matchv1.PlayResponse
	closed bool
}

func newFakeMatch(t *testing.T, script ...string) *fakeMatch {
	t.Helper()
	pos, err := quoridor.NewPosition(quoridor.Standard, "")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeMatch{pos: pos, script: script, out: make(chan *matchv1.PlayResponse, 64)}
	f.out <- &matchv1.PlayResponse{Message: &matchv1.PlayResponse_Snapshot{Snapshot: f.snapshot()}}
	return f
}

func (f *fakeMatch) table() *Table {
	return &Table{
		MatchID: "m1",
		Title:   "vs Script",
		Seats:   map[gamev1.Seat]Conn{gamev1.Seat_SEAT_FIRST: f},
		Legal:   f.legal,
	}
}

func (f *fakeMatch) snapshot() *matchv1.Match {
	return &matchv1.Match{
		MatchId: "m1", Game: gamev1.Game_GAME_QUORIDOR, Variant: quoridor.Standard,
		Seats: []*matchv1.SeatState{
			{Participant: &gamev1.Participant{Seat: gamev1.Seat_SEAT_FIRST, DisplayName: "Ana"}},
			{Participant: &gamev1.Participant{Seat: gamev1.Seat_SEAT_SECOND, DisplayName: "Script"}},
		},
		YourSeat: gamev1.Seat_SEAT_FIRST,
		Status:   matchv1.MatchStatus_MATCH_STATUS_WAITING,
		View:     f.view(),
		Plies:    f.plies,
		LastSeq:  f.seq,
		Outcome:  &gamev1.Outcome{Result: gamev1.Result_RESULT_ONGOING},
	}
}

func seatOf(s engine.Seat) gamev1.Seat {
	switch s {
	case engine.First:
		return gamev1.Seat_SEAT_FIRST
	case engine.Second:
		return gamev1.Seat_SEAT_SECOND
	}
	return gamev1.Seat_SEAT_UNSPECIFIED
}

func (f *fakeMatch) view() *gamev1.GameView {
	side := func(s engine.Seat, goal int32) *gamev1.QuoridorSide {
		return &gamev1.QuoridorSide{Pawn: f.pos.Pawn(s).String(), WallsLeft: int32(f.pos.WallsLeft(s)), GoalRank: goal}
	}
	o := f.pos.Outcome()
	out := &gamev1.Outcome{Result: gamev1.Result_RESULT_ONGOING}
	if o.Over() {
		out = &gamev1.Outcome{Result: gamev1.Result_RESULT_WIN, Winner: seatOf(o.Winner), Reason: gamev1.Reason_REASON_GOAL}
	}
	v := &gamev1.GameView{
		Game: gamev1.Game_GAME_QUORIDOR, Variant: quoridor.Standard, Viewer: gamev1.Seat_SEAT_FIRST,
		ToMove: seatOf(f.pos.ToMove()), PlyCount: int32(f.pos.Plies()), Outcome: out,
		Board: &gamev1.GameView_Quoridor{Quoridor: &gamev1.QuoridorBoard{
			First: side(engine.First, 9), Second: side(engine.Second, 1), Walls: f.walls,
		}},
	}
	if n := len(f.plies); n > 0 {
		v.LastPly = f.plies[n-1]
	}
	return v
}

// play applies one ply for the side to move and queues its events.
func (f *fakeMatch) play(notation string) *matchv1.PlyRejected {
	mover := f.pos.ToMove()
	m, err := quoridor.ParseMove(notation)
	var next quoridor.Position
	if err == nil {
		next, err = f.pos.PlayMove(m)
	}
	if err != nil {
		rej := &matchv1.PlyRejected{Notation: notation, Code: 9, Reason: err.Error(), CurrentPlyNumber: int32(f.pos.Plies() + 1)}
		var re *engine.RuleError
		if errors.As(err, &re) {
			rej.Rule = re.Rule // the reason is the whole error, as match.v1 sends it
		}
		return rej
	}
	f.pos = next
	ply := &gamev1.Ply{Number: int32(next.Plies()), Seat: seatOf(mover), Notation: m.String()}
	f.plies = append(f.plies, ply)
	if m.IsWall() {
		o := gamev1.WallOrientation_WALL_ORIENTATION_VERTICAL
		if m.Orientation() == quoridor.Horizontal {
			o = gamev1.WallOrientation_WALL_ORIENTATION_HORIZONTAL
		}
		f.walls = append(f.walls, &gamev1.QuoridorWall{Anchor: m.At().String(), Orientation: o, PlacedBy: seatOf(mover), PlyNumber: ply.Number})
	}
	f.seq++
	f.out <- &matchv1.PlayResponse{Message: &matchv1.PlayResponse_Event{Event: &matchv1.MatchEvent{
		Seq: f.seq, Kind: &matchv1.MatchEvent_PlyPlayed{PlyPlayed: &matchv1.PlyPlayed{Ply: ply, View: f.view()}},
	}}}
	if o := f.pos.Outcome(); o.Over() {
		f.seq++
		f.out <- &matchv1.PlayResponse{Message: &matchv1.PlayResponse_Event{Event: &matchv1.MatchEvent{
			Seq: f.seq, Kind: &matchv1.MatchEvent_GameEnded{GameEnded: &matchv1.GameEnded{Outcome: f.view().GetOutcome(), View: f.view()}},
		}}}
		close(f.out)
		f.closed = true
	}
	return nil
}

func (f *fakeMatch) Send(req *matchv1.PlayRequest) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return io.EOF
	}
	sp := req.GetSubmitPly()
	if sp == nil {
		return nil
	}
	if sp.GetPlyNumber() != int32(f.pos.Plies()+1) || f.pos.ToMove() != engine.First {
		f.out <- &matchv1.PlayResponse{Message: &matchv1.PlayResponse_PlyRejected{PlyRejected: &matchv1.PlyRejected{
			Notation: sp.GetNotation(), Code: 9, Reason: "stale", CurrentPlyNumber: int32(f.pos.Plies() + 1)}}}
		return nil
	}
	if rej := f.play(sp.GetNotation()); rej != nil {
		f.out <- &matchv1.PlayResponse{Message: &matchv1.PlayResponse_PlyRejected{PlyRejected: rej}}
		return nil
	}
	if !f.closed && len(f.script) > 0 {
		next := f.script[0]
		f.script = f.script[1:]
		if rej := f.play(next); rej != nil {
			panic("fake opponent's script: " + rej.GetReason())
		}
	}
	return nil
}

func (f *fakeMatch) Recv() (*matchv1.PlayResponse, error) {
	r, ok := <-f.out
	if !ok {
		return nil, io.EOF
	}
	return r, nil
}

func (f *fakeMatch) legal(req *matchv1.ListLegalPliesRequest) (*matchv1.ListLegalPliesResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	resp := &matchv1.ListLegalPliesResponse{PlyNumber: int32(f.pos.Plies() + 1), ToMove: seatOf(f.pos.ToMove())}
	if req.GetExpectedPlyNumber() != 0 && req.GetExpectedPlyNumber() != resp.PlyNumber {
		return nil, errors.New("position moved on")
	}
	pawn := f.pos.Pawn(f.pos.ToMove())
	for _, m := range f.pos.LegalMoves(nil) {
		lp := &matchv1.LegalPly{Notation: m.String(), Kind: matchv1.PlyKind_PLY_KIND_WALL, To: m.At().String()}
		if m.IsPawn() {
			lp = &matchv1.LegalPly{Notation: m.String(), Kind: matchv1.PlyKind_PLY_KIND_STEP, From: pawn.String(), To: m.To().String()}
		}
		if req.GetFrom() != "" && lp.GetFrom() != req.GetFrom() {
			continue
		}
		resp.Plies = append(resp.Plies, lp)
	}
	if p := req.GetPly(); p != "" {
		resp.Check = &matchv1.PlyCheck{Notation: p, Legal: true, Canonical: p}
		m, err := quoridor.ParseMove(p)
		if err == nil {
			_, err = f.pos.PlayMove(m)
		}
		if err != nil {
			resp.Check.Legal, resp.Check.Reason = false, err.Error()
			var re *engine.RuleError
			if errors.As(err, &re) {
				resp.Check.Rule = re.Rule // the reason is the whole error, as match.v1 sends it
				resp.Check.ErrorReason, resp.Check.ErrorMetadata = "ILLEGAL_PLY", re.Params()
			}
		}
	}
	return resp, nil
}

// driver runs a model as Bubble Tea would, without a terminal: commands
// run in goroutines and their messages come back to Update in order. Clock
// ticks are dropped, so that a test's screen changes only on its keys and
// the server's answers.
type driver struct {
	t    testing.TB
	m    tea.Model
	msgs chan tea.Msg
	quit bool
	// wait bounds each waitFor (waitBound): a screen that never comes
	// fails the test with the last screen instead of holding it to its
	// deadline.
	wait time.Duration
}

// waitBound is how long a waitFor waits for its screen: far longer than
// any screen of these fakes takes, even on a loaded machine under -race;
// not a measure, only when to give up and show the last screen.
const waitBound = time.Minute

func newDriver(t testing.TB, m Model) *driver {
	d := &driver{t: t, m: m, msgs: make(chan tea.Msg, 256), wait: waitBound}
	d.run(m.Init())
	return d
}

func (d *driver) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		select {
		case d.msgs <- msg:
		case <-d.t.Context().Done():
		}
	}()
}

func (d *driver) handle(msg tea.Msg) {
	switch msg := msg.(type) {
	case nil, tickMsg:
		return
	case tea.BatchMsg:
		for _, c := range msg {
			d.run(c)
		}
		return
	case tea.QuitMsg:
		d.quit = true
		return
	}
	var cmd tea.Cmd
	d.m, cmd = d.m.Update(msg)
	d.run(cmd)
}

// key sends keys by name ("enter", "up", "w") or, for "type:TEXT", each
// rune of TEXT.
func (d *driver) key(keys ...string) {
	for _, k := range keys {
		if text, ok := strings.CutPrefix(k, "type:"); ok {
			for _, r := range text {
				d.handle(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
			}
			continue
		}
		d.handle(keyMsg(k))
	}
}

func keyMsg(k string) tea.KeyMsg {
	switch k {
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "left":
		return tea.KeyMsg{Type: tea.KeyLeft}
	case "right":
		return tea.KeyMsg{Type: tea.KeyRight}
	case "space":
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// screen returns what the terminal shows now.
func (d *driver) screen() string { return d.m.View() }

// waitFor handles messages until the screen satisfies ok, failing the test
// with the last screen when that does not come within d.wait (or the
// test's deadline, if sooner).
func (d *driver) waitFor(what string, ok func(screen string) bool) {
	d.t.Helper()
	wait := min(d.wait, time.Until(testenv.Deadline(d.t)))
	deadline := time.After(wait)
	for !ok(d.screen()) {
		select {
		case msg := <-d.msgs:
			d.handle(msg)
		case <-deadline:
			d.t.Fatalf("no %s within %v; the last screen:\n%s", what, wait, d.screen())
		}
	}
}

func (d *driver) waitText(s string) {
	d.t.Helper()
	d.waitFor(strings.TrimSpace(s), func(screen string) bool { return strings.Contains(screen, s) })
}
