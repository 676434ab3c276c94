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
	sideW         int  // the side panel's width, set as View draws
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
