// Package tui is the terminal client of Tabuleiro: a Bubble Tea model that
// plays one match at a time over the public API (match.v1 Play streams and
// ListLegalPlies), for one seat against a bot or a person, or for both
// seats of a local two-player game.
//
// The Model is a pure state machine: Update changes it only in answer to
// messages (keys, stream messages, legal-ply answers, clock ticks) and
// every call to the network runs in a tea.Cmd through the functions of
// Deps and Table, so tests drive it with keys and fakes and read View.
package tui

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"tabuleiro.dev/cmd/tabuleiro/internal/text"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
)

// Conn is one seat's match.v1 Play stream, already joined. Send must be
// safe to call from several goroutines.
type Conn interface {
	Send(*matchv1.PlayRequest) error
	Recv() (*matchv1.PlayResponse, error)
}

// Table is one match played at this terminal.
type Table struct {
	// MatchID is the match.
	MatchID string
	// Title says whom the game is against, for the header.
	Title string
	// Seats are the seats this terminal plays: one, or both in a local
	// two-player game.
	Seats map[gamev1.Seat]Conn
	// Legal asks match.v1 ListLegalPlies.
	Legal func(*matchv1.ListLegalPliesRequest) (*matchv1.ListLegalPliesResponse, error)
	// Rejoin, when set, opens a new stream for a seat after a dropped one,
	// passing the last event seen (DESIGN.md principle 3).
	Rejoin func(seat gamev1.Seat, lastSeq int64) (Conn, error)
}

// Deps are what the model needs from the command.
type Deps struct {
	// Start creates a new game; round counts the games of this session
	// from 0 (local games alternate who starts). Nil means no game can be
	// started (watching, resuming only).
	Start func(round int) (*Table, error)
	// Resume rejoins an unfinished match.
	Resume func(matchID string) (*Table, error)
	// Active are the caller's unfinished matches, offered on start.
	Active []*lobbyv1.MatchSummary
	// Reminder, when set, is shown as the status line of the first game
	// started or resumed (the unfinished games not offered, say) until
	// the person's first key: the plies of an opponent who moves first
	// do not replace it.
	Reminder string
	// Now reads the clock (time.Now outside tests).
	Now func() time.Time
	// Rematch, when set, offers a rematch with the same opponent after a
	// room game (n offers or accepts, x declines) instead of starting a
	// new game.
	Rematch *Rematcher
	// ResumeHint says how to come back to an unfinished game (the command
	// line), for the confirmation of q during a game.
	ResumeHint string
	// Online reports that the server runs elsewhere: a game's clock and
	// opponent go on while this terminal is away.
	Online bool
	// Printer says everything in the player's language (English when
	// nil).
	Printer *text.Printer
}

type phase int

const (
	phaseOffer    phase = iota // offering an unfinished game
	phaseStarting              // waiting for a table
	phasePlaying
	phaseOver
	phaseFailed
)

// Model is the terminal client's state.
type Model struct {
	deps  Deps
	p     *text.Printer
	phase phase
	round int
	table *Table
	gen   int // bumped per table, so that late messages of an old one are dropped

	offerIdx int

	match    *matchv1.Match
	view     *gamev1.GameView
	plies    []*gamev1.Ply
	clocks   *gamev1.ClockState
	clocksAt time.Time
	drawBy   gamev1.Seat
	lastSeq  int64
	primary  gamev1.Seat // the seat whose stream draws the board
	ticking  bool
	pending  int32 // ply number of a ply sent and not yet answered, 0 if none

	lay      layout
	cursor   square
	selected square
	from     []*matchv1.LegalPly // legal plies of the selected piece
	wallMode bool
	wallH    bool
	check    *matchv1.PlyCheck // the wall preview's answer
	checkKey string            // notation@ply the answer is for
	// wallStart: wall mode was just entered and the wall cursor not moved
	// since; the first preview that finds it illegal moves it to the
	// nearest legal wall.
	wallStart bool

	typing        bool
	input         textinput.Model
	help          bool
	rules         bool // the rules screen of the game shown
	rulesTop      int  // its first line shown
	confirmResign bool
	confirmQuit   bool
	confirmPly    *plyConfirm // a ply that loses at once, waiting for y
	status        string
	reminder      string // Deps.Reminder on the status line, until the person's first key
	notice        string
	err           error
	keypad        bool // alt+O came: an M next is the keypad's Enter (see key)
	width         int  // the terminal's width, 0 until known
	height        int

	away     map[gamev1.Seat]bool // opponents' seats seen disconnected
	lastFrom square               // Quoridor: the square the last pawn move left

	rematch        *lobbyv1.Rematch // the last rematch state of the finished game
	rematchJoining bool
}

// plyConfirm is a ply chosen that would lose the game at once (Corners,
// C5.2): it is sent only if the next key is y while its question is still
// on the status line and the position has not moved on.
type plyConfirm struct {
	notation string
	number   int32  // the ply number it was chosen for
	question string // the status line that asks
}

// New returns a model; Init starts a game or offers an unfinished one.
func New(deps Deps) Model {
	if deps.Now == nil {
		deps.Now = time.Now
	}
	in := textinput.New()
	p := text.Or(deps.Printer)
	in.Prompt = text.T(p, "prompt.ply") + " "
	in.CharLimit = 64
	m := Model{deps: deps, p: p, input: in, selected: noSquare, cursor: square{4, 0}, phase: phaseStarting, wallH: true, lastFrom: noSquare}
	if len(deps.Active) > 0 && deps.Resume != nil {
		m.phase = phaseOffer
	}
	return m
}

// Messages.
type (
	tableMsg struct {
		t   *Table
		err error
	}
	streamMsg struct {
		gen  int
		seat gamev1.Seat
		conn Conn
		resp *matchv1.PlayResponse
		err  error
	}
	rejoinMsg struct {
		gen  int
		seat gamev1.Seat
		conn Conn
		err  error
	}
	legalMsg struct {
		gen   int
		ply   int32
		from  square
		resp  *matchv1.ListLegalPliesResponse
		err   error
		react bool // act on the answer (a reveal plays at once)
	}
	checkMsg struct {
		gen  int
		key  string
		resp *matchv1.ListLegalPliesResponse
		err  error
	}
	sentMsg struct {
		gen int
		err error
	}
	tickMsg time.Time
)

// Notice is progress shown while a game is being started, such as the
// invite code of a room waiting for a friend; send it with
// tea.Program.Send.
type Notice string

// Init implements tea.Model: it starts a game unless one is offered for
// resumption.
func (m Model) Init() tea.Cmd {
	if m.phase == phaseOffer {
		return nil
	}
	return m.startCmd()
}

func (m *Model) startCmd() tea.Cmd {
	if m.deps.Start == nil {
		m.phase = phaseFailed
		m.err = errors.New(m.t("error.no_game"))
		return nil
	}
	m.phase = phaseStarting
	// The finished board goes: the waiting screen shows what the new
	// game needs (a room's invite code, say).
	m.view, m.match, m.notice, m.status = nil, nil, "", ""
	start, round := m.deps.Start, m.round
	return func() tea.Msg {
		t, err := start(round)
		return tableMsg{t, err}
	}
}

// Update implements tea.Model.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		return m.key(msg)
	case Notice:
		m.notice = string(msg)
		return m, nil
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		return m, nil
	case rematchMsg:
		if msg.gen != m.gen {
			return m, nil
		}
		return m, m.rematchUpdate(msg)
	case tableMsg:
		if msg.err != nil {
			m.phase, m.err = phaseFailed, msg.err
			return m, nil
		}
		return m, m.setTable(msg.t)
	case streamMsg:
		if msg.gen != m.gen {
			return m, nil
		}
		return m, m.stream(msg)
	case rejoinMsg:
		if msg.gen != m.gen {
			return m, nil
		}
		if msg.err != nil {
			m.phase, m.err = phaseFailed, fmt.Errorf("%s: %w", m.t("error.rejoin"), msg.err)
			return m, nil
		}
		m.table.Seats[msg.seat] = msg.conn
		m.status = m.t("status.reconnected")
		return m, m.recvCmd(msg.seat, msg.conn)
	case legalMsg:
		if msg.gen != m.gen || m.view == nil || msg.ply != m.view.GetPlyCount()+1 {
			return m, nil
		}
		return m, m.legal(msg)
	case checkMsg:
		if msg.gen != m.gen || msg.key != m.wallKey() {
			return m, nil
		}
		if msg.err != nil {
			m.status = m.t("status.wall_check_failed", "error", m.errText(msg.err))
			return m, nil
		}
		m.check, m.checkKey = msg.resp.GetCheck(), msg.key
		if m.wallStart {
			m.wallStart = false
			if !m.check.GetLegal() {
				m.nearestLegalWall(msg.resp.GetPlies())
			}
		}
		return m, nil
	case sentMsg:
		if msg.gen == m.gen && msg.err != nil {
			m.status = m.t("status.send_failed", "error", m.errText(msg.err))
			m.pending = 0
		}
		return m, nil
	case tickMsg:
		if m.phase == phasePlaying && m.clocks.GetRunning() != gamev1.Seat_SEAT_UNSPECIFIED {
			return m, tick()
		}
		m.ticking = false
		return m, nil
	}
	if m.typing {
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		return m, cmd
	}
	return m, nil
}

func tick() tea.Cmd {
	return tea.Tick(100*time.Millisecond, func(t time.Time) tea.Msg { return tickMsg(t) })
}

func (m *Model) setTable(t *Table) tea.Cmd {
	m.gen++
	m.table = t
	m.phase = phasePlaying
	m.match, m.view, m.plies, m.clocks, m.lastSeq = nil, nil, nil, nil, 0
	m.drawBy, m.pending = gamev1.Seat_SEAT_UNSPECIFIED, 0
	m.selected, m.from, m.wallMode, m.check, m.checkKey, m.wallStart = noSquare, nil, false, nil, "", false
	m.status, m.err, m.confirmResign, m.confirmQuit, m.notice, m.reminder = "", nil, false, false, "", ""
	m.confirmPly = nil
	m.away, m.lastFrom = map[gamev1.Seat]bool{}, noSquare
	m.rematch, m.rematchJoining = nil, false
	m.primary = gamev1.Seat_SEAT_FIRST
	if _, ok := t.Seats[m.primary]; !ok {
		m.primary = gamev1.Seat_SEAT_SECOND
	}
	if m.round == 0 {
		m.reminder = m.deps.Reminder
	}
	var cmds []tea.Cmd
	for seat, c := range t.Seats {
		cmds = append(cmds, m.recvCmd(seat, c))
	}
	return tea.Batch(cmds...)
}

func (m *Model) recvCmd(seat gamev1.Seat, c Conn) tea.Cmd {
	gen := m.gen
	return func() tea.Msg {
		resp, err := c.Recv()
		return streamMsg{gen: gen, seat: seat, conn: c, resp: resp, err: err}
	}
}

// local reports whether both seats are played here.
func (m *Model) local() bool { return m.table != nil && len(m.table.Seats) == 2 }

func (m *Model) mine(s gamev1.Seat) bool {
	if m.table == nil {
		return false
	}
	_, ok := m.table.Seats[s]
	return ok
}

func (m *Model) myTurn() bool {
	return m.phase == phasePlaying && m.view != nil && m.mine(m.view.GetToMove()) && m.pending == 0
}

func (m *Model) stream(msg streamMsg) tea.Cmd {
	if msg.err != nil {
		if errors.Is(msg.err, io.EOF) || m.phase != phasePlaying {
			return nil // the stream ends after game_ended
		}
		if m.table.Rejoin == nil {
			m.phase, m.err = phaseFailed, fmt.Errorf("%s: %w", m.t("error.connection_lost"), msg.err)
			return nil
		}
		m.status = m.t("status.rejoining")
		gen, seat, last, rejoin := m.gen, msg.seat, m.lastSeq, m.table.Rejoin
		return func() tea.Msg {
			c, err := rejoin(seat, last)
			return rejoinMsg{gen: gen, seat: seat, conn: c, err: err}
		}
	}
	next := m.recvCmd(msg.seat, msg.conn)
	r := msg.resp
	switch {
	case r.GetPlyRejected() != nil:
		pr := r.GetPlyRejected()
		m.pending = 0
		if t, ok := text.ReasonText(m.p, pr.GetErrorReason(), pr.GetErrorMetadata()); ok {
			m.status = t // names the ply and the rule
		} else {
			m.status = m.yourPawn(m.refusal(pr.GetNotation(), pr.GetReason(), pr.GetRule()))
		}
		return tea.Batch(next, m.afterChange())
	case r.GetActionRejected() != nil:
		ar := r.GetActionRejected()
		if t, ok := text.ReasonText(m.p, ar.GetErrorReason(), ar.GetErrorMetadata()); ok {
			m.status = t
		} else {
			m.status = m.t("status.action_refused", "reason", ar.GetReason())
		}
		return next
	case r.GetDrain() != nil:
		m.status = m.t("status.draining")
		return next
	}
	if msg.seat != m.primary {
		return next // the other seat of a local game sees the same events
	}
	over := m.phase == phaseOver
	switch {
	case r.GetSnapshot() != nil:
		m.snapshot(r.GetSnapshot())
	case r.GetEvent() != nil:
		m.event(r.GetEvent())
	default:
		return next
	}
	var rematch tea.Cmd
	if !over && m.phase == phaseOver {
		rematch = m.watchRematchCmd()
	}
	return tea.Batch(next, m.afterChange(), m.startTick(), rematch)
}

func (m *Model) startTick() tea.Cmd {
	if m.ticking || m.phase != phasePlaying || m.clocks.GetRunning() == gamev1.Seat_SEAT_UNSPECIFIED {
		return nil
	}
	m.ticking = true
	return tick()
}

func (m *Model) snapshot(s *matchv1.Match) {
	first := m.match == nil
	m.match = s
	m.view = s.GetView()
	m.plies = append([]*gamev1.Ply(nil), s.GetPlies()...)
	m.setClocks(s.GetClocks())
	m.drawBy = s.GetDrawOfferedBy()
	m.lastSeq = s.GetLastSeq()
	if s.GetStatus() == matchv1.MatchStatus_MATCH_STATUS_FINISHED {
		// A game resumed after it ended (a flag fell, or it was abandoned
		// while this terminal was away): its view may lack the outcome
		// the match carries.
		if m.view == nil {
			m.view = &gamev1.GameView{}
		}
		if m.view.GetOutcome().GetResult() == gamev1.Result_RESULT_ONGOING {
			m.view.Outcome = s.GetOutcome()
		}
		if first {
			m.status = m.t("status.ended_away")
		}
		m.phase = phaseOver
		if m.clocks != nil {
			m.clocks.Running = gamev1.Seat_SEAT_UNSPECIFIED
		}
	}
	if first {
		m.lay = m.layoutFor()
		m.cursor = m.homeSquare()
	}
}

func (m *Model) setClocks(c *gamev1.ClockState) {
	m.clocks, m.clocksAt = c, m.deps.Now()
}

func (m *Model) event(ev *matchv1.MatchEvent) {
	if ev.GetSeq() > m.lastSeq {
		m.lastSeq = ev.GetSeq()
	}
	switch {
	case ev.GetPlyPlayed() != nil:
		pp := ev.GetPlyPlayed()
		m.lastFrom = noSquare
		if m.view.GetQuoridor() != nil && pp.GetView().GetQuoridor() != nil {
			if before := m.pawn(pp.GetPly().GetSeat()); before != m.pawnIn(pp.GetView(), pp.GetPly().GetSeat()) {
				m.lastFrom = before
			}
		}
		if n := int(pp.GetPly().GetNumber()); n == len(m.plies)+1 {
			m.plies = append(m.plies, pp.GetPly())
		}
		if pp.GetPly().GetSeat() != m.drawBy {
			m.drawBy = gamev1.Seat_SEAT_UNSPECIFIED // an offer lapses when the other seat plays
		}
		m.view = pp.GetView()
		m.setClocks(pp.GetClocks())
		m.pending = 0
		if m.mine(pp.GetPly().GetSeat()) {
			// A wall placed, the next ply starts in move mode: walls are
			// the exception, and the next turn may be the other player's
			// at this keyboard.
			m.status, m.wallMode, m.wallStart = "", false, false
			if n := pp.GetPly().GetNotation(); m.view.GetQuoridor() != nil && (strings.HasSuffix(n, "h") || strings.HasSuffix(n, "v")) {
				// A wall placed: the square cursor goes back to the pawn
				// that is selected next (the player's own; at one
				// keyboard, the pawn of the seat to move), not the
				// wall's anchor, where Enter would act on another square.
				s := pp.GetPly().GetSeat()
				if m.local() {
					s = m.view.GetToMove()
				}
				m.cursor = m.pawn(s)
			} else if m.view.GetQuoridor() != nil {
				// A pawn move, typed or not: the cursor on the pawn's new
				// square, where the arrows and Enter leave it.
				m.cursor = m.pawn(pp.GetPly().GetSeat())
			}
		} else if m.reminder == "" {
			// While the reminder is up (an opponent who moves first,
			// before the person's first key), the board and the move
			// list show the ply.
			m.status = m.t("status.played", "seat", m.seatName(pp.GetPly().GetSeat()), "ply", pp.GetPly().GetNotation())
		}
	case ev.GetDrawOffered() != nil:
		m.drawBy = ev.GetDrawOffered().GetBy()
		if m.mine(other(m.drawBy)) {
			m.status = m.t("status.draw_offered_to_you", "seat", m.seatName(m.drawBy))
		} else {
			m.status = m.t("status.draw_offered")
		}
	case ev.GetDrawDeclined() != nil:
		m.drawBy = gamev1.Seat_SEAT_UNSPECIFIED
		m.status = m.t("status.draw_declined", "seat", m.seatName(ev.GetDrawDeclined().GetBy()))
	case ev.GetPlayerDisconnected() != nil:
		if s := ev.GetPlayerDisconnected().GetSeat(); !m.mine(s) {
			m.away[s] = true
			m.status = m.t("status.disconnected", "seat", m.seatName(s))
			if dl := ev.GetPlayerDisconnected().GetReconnectDeadline(); dl != nil {
				// When the game is ruled, as a time of day: the status
				// line is not redrawn every second, so a count of
				// seconds would stand still.
				m.status = m.t("status.disconnected_until", "seat", m.seatName(s), "time", dl.AsTime().Local().Format(m.t("time.of_day")))
			}
		}
	case ev.GetPlayerReconnected() != nil:
		// A seat's first connection is announced as a reconnection too:
		// "is back" only after it was seen leaving.
		if s := ev.GetPlayerReconnected().GetSeat(); !m.mine(s) && m.away[s] {
			delete(m.away, s)
			m.status = m.t("status.back", "seat", m.seatName(s))
		}
	case ev.GetGameEnded() != nil:
		ge := ev.GetGameEnded()
		if ge.GetView() != nil {
			m.view = ge.GetView()
		}
		if m.view != nil {
			m.view.Outcome = ge.GetOutcome()
		}
		m.setClocks(ge.GetClocks())
		if m.clocks != nil {
			m.clocks.Running = gamev1.Seat_SEAT_UNSPECIFIED
		}
		m.phase = phaseOver
		m.pending = 0
		m.status = ""
	}
}

// afterChange resets the selection after the position changed and asks
// for what the new position needs: the pawn's destinations in Quoridor, a
// fresh wall preview.
func (m *Model) afterChange() tea.Cmd {
	m.selected, m.from = noSquare, nil
	if !m.myTurn() {
		return nil
	}
	if m.game() == gamev1.Game_GAME_QUORIDOR {
		if m.wallMode {
			return m.checkCmd()
		}
		return m.legalCmd(m.pawn(m.view.GetToMove()), false)
	}
	return nil
}

func (m *Model) game() gamev1.Game { return m.view.GetGame() }

// viewer is the seat whose side is drawn at the bottom.
func (m *Model) viewer() gamev1.Seat {
	if m.local() || m.table == nil {
		return gamev1.Seat_SEAT_FIRST
	}
	for s := range m.table.Seats {
		return s
	}
	return gamev1.Seat_SEAT_FIRST
}

func (m *Model) layoutFor() layout {
	flip := m.viewer() == gamev1.Seat_SEAT_SECOND
	switch m.game() {
	case gamev1.Game_GAME_QUORIDOR:
		return layout{files: 9, ranks: 9, flip: flip, cellW: 3, gaps: true, left: 3}
	case gamev1.Game_GAME_CORNERS:
		n := int(cornersBoard(m.view).GetSize())
		return layout{files: n, ranks: n, flip: flip, cellW: 3, left: 3}
	default:
		return layout{files: 8, ranks: 4, cellW: 3, left: 3}
	}
}

func (m *Model) homeSquare() square {
	if m.game() == gamev1.Game_GAME_QUORIDOR {
		return m.pawn(m.viewer())
	}
	return square{m.lay.files / 2, m.lay.ranks / 2}
}

func (m *Model) pawn(s gamev1.Seat) square { return m.pawnIn(m.view, s) }

func (m *Model) pawnIn(v *gamev1.GameView, s gamev1.Seat) square {
	side := v.GetQuoridor().GetFirst()
	if s == gamev1.Seat_SEAT_SECOND {
		side = v.GetQuoridor().GetSecond()
	}
	sq, _ := parseSquare(side.GetPawn())
	return sq
}

func (m *Model) legalCmd(from square, react bool) tea.Cmd {
	legal, gen, n, id := m.table.Legal, m.gen, m.view.GetPlyCount()+1, m.table.MatchID
	return func() tea.Msg {
		resp, err := legal(&matchv1.ListLegalPliesRequest{MatchId: id, From: from.String(), ExpectedPlyNumber: n})
		return legalMsg{gen: gen, ply: n, from: from, resp: resp, err: err, react: react}
	}
}

func (m *Model) wallKey() string {
	if m.view == nil {
		return ""
	}
	return fmt.Sprintf("%s@%d", wall{m.cursor, m.wallH}, m.view.GetPlyCount()+1)
}

func (m *Model) checkCmd() tea.Cmd {
	if !m.myTurn() {
		return nil
	}
	legal, gen, n, key, id := m.table.Legal, m.gen, m.view.GetPlyCount()+1, m.wallKey(), m.table.MatchID
	w := wall{m.cursor, m.wallH}.String()
	return func() tea.Msg {
		resp, err := legal(&matchv1.ListLegalPliesRequest{MatchId: id, Ply: w, ExpectedPlyNumber: n})
		return checkMsg{gen: gen, key: key, resp: resp, err: err}
	}
}

// nearestLegalWall moves the wall cursor, which stands on a wall that
// cannot be placed, to the legal wall among plies fewest keys away (a step
// of the cursor or a turn each); the first in the server's order among
// the nearest. It stays when there is none (no walls left, Q3.1).
func (m *Model) nearestLegalWall(plies []*matchv1.LegalPly) {
	best, bestCost := wall{}, -1
	for _, p := range plies {
		n := p.GetNotation()
		if p.GetKind() != matchv1.PlyKind_PLY_KIND_WALL || len(n) < 3 {
			continue
		}
		at, ok := parseSquare(n[:len(n)-1])
		if !ok {
			continue
		}
		w := wall{at, n[len(n)-1] == 'h'}
		cost := abs(at.file-m.cursor.file) + abs(at.rank-m.cursor.rank)
		if w.horizontal != m.wallH {
			cost++
		}
		if bestCost < 0 || cost < bestCost {
			best, bestCost = w, cost
		}
	}
	if bestCost < 0 {
		return
	}
	m.cursor, m.wallH = best.at, best.horizontal
	// Listed as legal for this ply: the preview needs no second question.
	m.check = &matchv1.PlyCheck{Notation: best.String(), Canonical: best.String(), Legal: true}
	m.checkKey = m.wallKey()
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func (m *Model) legal(msg legalMsg) tea.Cmd {
	if msg.err != nil {
		m.status = m.t("status.legal_failed", "error", m.errText(msg.err))
		return nil
	}
	if m.wallMode {
		return nil
	}
	plies := msg.resp.GetPlies()
	if len(plies) == 0 {
		if msg.react {
			m.status = m.t("status.no_legal_from", "square", msg.from.String())
		}
		return nil
	}
	if msg.react && len(plies) == 1 && plies[0].GetKind() == matchv1.PlyKind_PLY_KIND_REVEAL {
		return m.submit(plies[0].GetNotation())
	}
	m.selected, m.from = msg.from, plies
	return nil
}

// play sends a ply the person chose, with the cursor or typed, unless it
// would lose the game at once under C5.2 (a Corners piece back home after
// the deadline, as the engine judges it): that one waits for y (see key).
func (m *Model) play(notation string) tea.Cmd {
	if p, ok := cornersPosition(m.view); ok && m.myTurn() && returnsHome(p, notation) {
		q := m.t("confirm.returns_home", "ply", notation, "move", p.Deadline())
		m.confirmPly = &plyConfirm{notation: notation, number: m.view.GetPlyCount() + 1, question: q}
		m.status = q
		return nil
	}
	return m.submit(notation)
}

// submit sends a ply for the seat to move.
func (m *Model) submit(notation string) tea.Cmd {
	if m.phase != phasePlaying || m.view == nil {
		return nil
	}
	c, ok := m.table.Seats[m.view.GetToMove()]
	if !ok || m.pending != 0 {
		m.status = m.t("status.not_your_turn")
		return nil
	}
	n := m.view.GetPlyCount() + 1
	m.pending = n
	m.status = m.t("status.sent", "ply", notation)
	return m.send(c, &matchv1.PlayRequest{Action: &matchv1.PlayRequest_SubmitPly{
		SubmitPly: &matchv1.SubmitPly{PlyNumber: n, Notation: notation},
	}})
}

func (m *Model) send(c Conn, req *matchv1.PlayRequest) tea.Cmd {
	gen := m.gen
	return func() tea.Msg { return sentMsg{gen: gen, err: c.Send(req)} }
}

// actor is the seat that makes a non-ply action: the seat to move in a
// local game, else this terminal's seat.
func (m *Model) actor() (gamev1.Seat, Conn) {
	if m.local() {
		if s := m.view.GetToMove(); s != gamev1.Seat_SEAT_UNSPECIFIED {
			return s, m.table.Seats[s]
		}
	}
	for s, c := range m.table.Seats {
		return s, c
	}
	return gamev1.Seat_SEAT_UNSPECIFIED, nil
}

// Result returns the outcome shown, for callers that print it after the
// program ends.
func (m Model) Result() string {
	if m.view.GetOutcome().GetResult() == gamev1.Result_RESULT_ONGOING || m.view == nil {
		return ""
	}
	return m.outcomeText()
}

// Unfinished returns the match of the game that was left in progress (q
// then y, or Ctrl-C), "" when none was: the command says how to come back
// to it after the screen is gone.
func (m Model) Unfinished() string {
	if m.phase != phasePlaying || m.table == nil {
		return ""
	}
	return m.table.MatchID
}

// Err returns the error that stopped the model, if any.
func (m Model) Err() error { return m.err }

func (m *Model) seatName(s gamev1.Seat) string {
	fc := m.view.GetBanqi().GetFirstColor()
	colours := fc != gamev1.BanqiColor_BANQI_COLOR_UNSPECIFIED
	red := (s == gamev1.Seat_SEAT_FIRST) == (fc == gamev1.BanqiColor_BANQI_COLOR_RED)
	return text.Seat(m.p, m.game(), s, colours, red)
}

// seatRed reports whether s plays red in a Banqi game whose colours are
// fixed.
func (m *Model) seatRed(s gamev1.Seat) (red, fixed bool) {
	fc := m.view.GetBanqi().GetFirstColor()
	if m.game() != gamev1.Game_GAME_BANQI || fc == gamev1.BanqiColor_BANQI_COLOR_UNSPECIFIED {
		return false, false
	}
	return (s == gamev1.Seat_SEAT_FIRST) == (fc == gamev1.BanqiColor_BANQI_COLOR_RED), true
}

func (m *Model) outcomeText() string {
	o := m.view.GetOutcome()
	you := 0
	switch {
	case o.GetResult() != gamev1.Result_RESULT_WIN || m.local() || m.table == nil:
	case m.mine(o.GetWinner()):
		you = 1
	default:
		you = -1
	}
	return text.Outcome(m.p, o, m.seatName(o.GetWinner()), you)
}

// t is the message key in the player's language.
func (m *Model) t(key string, kv ...any) string { return text.T(m.p, key, kv...) }

// errText is an error's text in the player's language (see text.Err).
func (m *Model) errText(err error) string { return text.Err(m.p, err) }

func other(s gamev1.Seat) gamev1.Seat {
	switch s {
	case gamev1.Seat_SEAT_FIRST:
		return gamev1.Seat_SEAT_SECOND
	case gamev1.Seat_SEAT_SECOND:
		return gamev1.Seat_SEAT_FIRST
	}
	return gamev1.Seat_SEAT_UNSPECIFIED
}

var (
	illegalPrefix = regexp.MustCompile(`^(illegal ply [^ :]*: |ply "[^"]*": )+`)
	syntaxPrefix  = regexp.MustCompile(`^(invalid argument: )?syntax error (in "[^"]*" )?at offset \d+: `)
)

// refusal says why a ply was refused, once: the server's reason may
// already start with "illegal ply e6: ", or name the ply before a syntax
// error ('ply "zz": syntax error at offset 0: file z is off the board';
// an older server put the status code's words and the ply again between:
// 'ply "zz": invalid argument: syntax error in "zz" at offset 0: …'),
// which becomes "zz refused: not a ply: file z is off the board".
func (m *Model) refusal(notation, reason, rule string) string {
	return m.t("status.ply_refused", "ply", notation, "reason", m.reasonText(reason, rule))
}

// reasonText is the server's reason for a refused or previewed ply without
// the ply it names first ("illegal ply e8h: "), with the rule once: the
// screen names the ply beside it.
func (m *Model) reasonText(reason, rule string) string {
	reason = illegalPrefix.ReplaceAllString(reason, "")
	if syntaxPrefix.MatchString(reason) {
		reason = m.t("refusal.not_a_ply", "why", syntaxPrefix.ReplaceAllString(reason, ""))
	}
	return withRule(reason, rule)
}

// yourPawn says "your pawn" for the pawn of the seat to move at this
// keyboard in a reason the engine words for everyone ("the wall would
// leave white's pawn on e1 no path to rank 9"): the engine's text is
// shared (spectators, the server's logs, the web client), so only this
// display changes it.
func (m *Model) yourPawn(reason string) string {
	s := m.view.GetToMove()
	if m.game() != gamev1.Game_GAME_QUORIDOR || !m.mine(s) {
		return reason
	}
	// The engine's words are English: its "white's pawn" becomes the
	// player's own words.
	colour := "white"
	if s == gamev1.Seat_SEAT_SECOND {
		colour = "black"
	}
	return strings.ReplaceAll(reason, colour+"'s pawn", m.t("refusal.your_pawn"))
}

// withRule appends the rule to a reason that does not name it already.
func withRule(reason, rule string) string {
	if rule == "" || strings.Contains(reason, rule) {
		return reason
	}
	return reason + " (" + rule + ")"
}
