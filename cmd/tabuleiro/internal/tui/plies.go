package tui

import (
	"fmt"
	"regexp"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"tabuleiro.dev/cmd/tabuleiro/internal/text"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
)

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
