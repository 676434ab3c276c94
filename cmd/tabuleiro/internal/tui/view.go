package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"tabuleiro.dev/cmd/tabuleiro/internal/text"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
)

var (
	styleTitle  = lipgloss.NewStyle().Bold(true)
	styleDim    = lipgloss.NewStyle().Foreground(colDim)
	styleResult = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("#FFD700"))
	styleErr    = lipgloss.NewStyle().Foreground(colInvalid)
)

// View implements tea.Model.
func (m Model) View() string {
	if m.help {
		// No blank line and no final newline: wrapped at 80 columns the
		// Portuguese help takes 23 lines, and Bubble Tea keeps the last 24.
		return m.helpText() + "\n" + styleDim.Render(m.t("help.close"))
	}
	if m.rules && m.view != nil {
		return m.rulesView()
	}
	switch m.phase {
	case phaseOffer:
		return m.offerView()
	case phaseFailed:
		return styleErr.Render(m.wrap("tabuleiro: "+m.stopText(m.err))) + "\n" + styleDim.Render(m.t("keys.q_quits")) + "\n"
	}
	if m.view == nil {
		if m.notice != "" {
			return m.wrap(m.notice) + "\n\n" + styleDim.Render(m.t("keys.q_quits")) + "\n"
		}
		return m.t("starting") + "\n" + styleDim.Render(m.t("keys.q_quits")) + "\n"
	}
	board := m.boardView()
	m.sideW = max(m.termWidth()-lipgloss.Width(board)-3, 20)
	// No line of the side panel wider than what is left of the terminal:
	// broken at spaces (ANSI-aware), not cut at the terminal's edge.
	side := ansi.Wrap(m.sideView(), m.sideW, "")
	var b strings.Builder // what goes under the board
	switch {
	case m.phase == phaseOver:
		b.WriteString(styleResult.Render(m.outcomeText()) + "\n")
		switch {
		case m.deps.Rematch != nil && !m.local() && m.rematchOpen():
			b.WriteString(m.t("over.rematch") + "\n")
		case m.deps.Start != nil && m.deps.Rematch != nil && !m.local():
			b.WriteString(m.t("over.new_room") + "\n")
		case m.deps.Start != nil:
			b.WriteString(m.t("over.again") + "\n")
		default:
			b.WriteString(m.t("over.quit") + "\n")
		}
	case m.typing:
		b.WriteString(m.input.View() + "\n")
	default:
		// The wall preview's reason can be long: wrapped at spaces,
		// never cut at the terminal's edge.
		b.WriteString(m.wrap(m.turnLine()) + "\n")
	}
	if s := cmpOr(m.status, m.reminder); s != "" {
		b.WriteString(m.wrap(s) + "\n")
	}
	foot := m.t("foot")
	if m.table != nil && m.table.MatchID != "" {
		foot = m.t("foot.match", "id", m.table.MatchID) // for `tabuleiro watch`
	}
	return m.fit(styleTitle.Render(m.title()), lipgloss.JoinHorizontal(lipgloss.Top, board, "   ", side), b.String(), styleDim.Render(foot))
}

func (m *Model) stopText(err error) string {
	if err == nil {
		return m.t("error.stopped")
	}
	return m.errText(err)
}

// ErrText is an error's text in English (see text.Err): a refusal's
// reason, without gRPC's "rpc error: code = … desc = " before the status
// message, wherever the status sits in the chain.
func ErrText(err error) string { return text.Err(nil, err) }

func (m *Model) offerView() string {
	var b strings.Builder
	head := m.t("offer.head", "count", len(m.deps.Active))
	b.WriteString(styleTitle.Render(head) + "\n\n")
	for i, s := range m.deps.Active {
		cur := "  "
		if i == m.offerIdx {
			cur = "> "
		}
		var names []string
		for _, p := range s.GetParticipants() {
			names = append(names, text.PlayerName(m.p, p))
		}
		line := cur + m.t("offer.line", "game", text.Game(m.p, s.GetGame()), "variant", text.Variant(m.p, s.GetGame(), s.GetVariant()),
			"players", strings.Join(names, m.t("vs.sep")), "plies", m.t("plies", "count", int(s.GetPlyCount())))
		switch to := s.GetToMove(); {
		case to == gamev1.Seat_SEAT_UNSPECIFIED:
		case s.GetYourSeat() != gamev1.Seat_SEAT_UNSPECIFIED && to == s.GetYourSeat():
			line += m.t("offer.your_move")
		case s.GetYourSeat() != gamev1.Seat_SEAT_UNSPECIFIED:
			line += m.t("offer.their_move")
		}
		if st := s.GetStartedAt(); st != nil {
			line += m.t("offer.started", "ago", m.ago(m.deps.Now().Sub(st.AsTime())))
		}
		// A long line (long names, a narrow terminal) wraps under its
		// text rather than being cut at the terminal's edge, between its
		// phrases ("your move", "started 3 h ago") where they fit.
		b.WriteString(m.hangingWrapAt(line, "    ", ", ") + "\n")
	}
	keys := m.t("offer.keys")
	if len(m.deps.Active) == 1 {
		keys = m.t("offer.keys.one")
	}
	b.WriteString("\n" + m.hangingWrapAt(keys, "", " · ") + "\n")
	return b.String()
}

// ago says how long ago, coarsely: "just now", "5 min ago", "3 h ago",
// "2 days ago".
func (m *Model) ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return m.t("ago.now")
	case d < time.Hour:
		return m.t("ago.minutes", "count", int(d/time.Minute))
	case d < 48*time.Hour:
		return m.t("ago.hours", "count", int(d/time.Hour))
	}
	return m.t("ago.days", "count", int(d/(24*time.Hour)))
}

func (m *Model) title() string {
	t := text.Game(m.p, m.game()) + " · " + text.Variant(m.p, m.game(), m.view.GetVariant())
	if m.table != nil && m.table.Title != "" {
		t += " · " + m.table.Title
	}
	return t
}

func (m *Model) turnLine() string {
	if m.pending != 0 {
		return "…"
	}
	to := m.view.GetToMove()
	var who string
	switch {
	case m.local():
		who = m.t("turn.local", "seat", text.Capitalize(m.seatName(to)), "name", m.participantName(to))
	case m.mine(to):
		who = m.t("turn.yours", "seat", m.seatName(to))
	default:
		who = m.t("turn.waiting", "name", m.participantName(to))
	}
	if m.wallMode {
		w := wall{m.cursor, m.wallH}
		switch {
		case m.check == nil || m.checkKey != m.wallKey():
			who += " · " + m.t("wall.at", "wall", w.String())
		case m.check.GetLegal():
			who += " · " + m.t("wall.legal", "wall", w.String())
		default:
			// In another language than English the server's reason, in
			// the player's words, names the wall and its rule itself.
			if said, ok := text.ReasonText(m.p, m.check.GetErrorReason(), m.check.GetErrorMetadata()); ok {
				who += " · " + said
			} else {
				who += " · " + m.t("wall.illegal", "wall", w.String(), "reason", m.yourPawn(m.reasonText(m.check.GetReason(), m.check.GetRule())))
			}
		}
	}
	return who
}

// vsPerson reports whether the other seat is played by a person at
// another terminal or browser (not a bot, not this keyboard): leaving
// then starts that seat's reconnection window.
func (m *Model) vsPerson() bool {
	if m.local() {
		return false
	}
	for _, st := range m.match.GetSeats() {
		p := st.GetParticipant()
		if p != nil && !m.mine(p.GetSeat()) && p.GetBotLevel() == gamev1.BotLevel_BOT_LEVEL_UNSPECIFIED {
			return true
		}
	}
	return false
}

func (m *Model) participantName(s gamev1.Seat) string {
	for _, st := range m.match.GetSeats() {
		if st.GetParticipant().GetSeat() == s {
			return text.PlayerName(m.p, st.GetParticipant())
		}
	}
	return m.seatName(s)
}

// remaining is a seat's clock now, counting down locally from the last
// ClockState (the server alone decides when a flag falls).
func (m *Model) remaining(s gamev1.Seat) time.Duration {
	ms := m.clocks.GetFirstRemainingMs()
	if s == gamev1.Seat_SEAT_SECOND {
		ms = m.clocks.GetSecondRemainingMs()
	}
	d := time.Duration(ms) * time.Millisecond
	if m.clocks.GetRunning() == s && m.phase == phasePlaying {
		d -= m.deps.Now().Sub(m.clocksAt)
	}
	return max(d, 0)
}

// clockText shows a clock: minutes and seconds, tenths under a minute
// (with the language's decimal mark).
func clockText(p *text.Printer, d time.Duration) string {
	if d >= time.Minute {
		s := int(d / time.Second)
		return fmt.Sprintf("%d:%02d", s/60, s%60)
	}
	return text.Decimal(p, d.Seconds(), 1)
}

func (m *Model) sideView() string {
	var b strings.Builder
	// The seats' names padded to the longer ("vermelho", "preto"): the
	// players' names line up.
	nameW := max(lipgloss.Width(m.seatName(gamev1.Seat_SEAT_FIRST)), lipgloss.Width(m.seatName(gamev1.Seat_SEAT_SECOND)), 6)
	for _, s := range []gamev1.Seat{gamev1.Seat_SEAT_FIRST, gamev1.Seat_SEAT_SECOND} {
		if m.game() == gamev1.Game_GAME_CORNERS && len(m.match.GetSeats()) == 1 && s == gamev1.Seat_SEAT_SECOND {
			continue // training: one player (C2)
		}
		dot := lipgloss.NewStyle().Foreground(m.seatColour(s)).Bold(true).Render("●")
		line := dot + " " + padRight(m.seatName(s), nameW) + " " + padRight(trunc(m.participantName(s), 14), 14)
		if m.clocks != nil {
			line += " " + fmt.Sprintf("%6s", clockText(m.p, m.remaining(s)))
		}
		if q := m.view.GetQuoridor(); q != nil {
			side := q.GetFirst()
			if s == gamev1.Seat_SEAT_SECOND {
				side = q.GetSecond()
			}
			line += "  " + m.t("side.walls", "n", fmt.Sprintf("%2d", side.GetWallsLeft()))
		}
		if m.view.GetToMove() == s && m.phase != phaseOver {
			line += " ◀"
		}
		if m.drawBy == s {
			line += " " + m.t("side.offers_draw")
		}
		b.WriteString(line + "\n")
	}
	if m.clocks != nil && m.phase == phasePlaying && m.clocks.GetRunning() == gamev1.Seat_SEAT_UNSPECIFIED && len(m.plies) == 0 {
		b.WriteString(styleDim.Render(m.t("side.clocks_start")) + "\n")
	}
	moves := 12
	if bq := m.view.GetBanqi(); bq != nil {
		b.WriteString(m.banqiSide(bq))
		moves = 3 // the side panel is taller than Banqi's board: fit 24 lines
	}
	if c := cornersBoard(m.view); c != nil && m.game() == gamev1.Game_GAME_CORNERS {
		if c.GetMoveLimit() > 0 {
			b.WriteString(m.t("corners.move_of", "move", int(c.GetMoveNumber()), "limit", int(c.GetMoveLimit())))
		} else {
			b.WriteString(m.t("corners.move", "move", int(c.GetMoveNumber())))
		}
		if c.GetDeadlineMove() > 0 {
			b.WriteString(" · " + m.t("corners.deadline", "move", int(c.GetDeadlineMove())))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n" + m.t("side.moves") + "\n")
	b.WriteString(m.moveList(moves))
	return b.String()
}

func (m *Model) banqiSide(bq *gamev1.BanqiBoard) string {
	var b strings.Builder
	if bq.GetFirstColor() != gamev1.BanqiColor_BANQI_COLOR_UNSPECIFIED && !m.local() {
		// The pieces one plays ("com as pretas"), not the seat's word.
		colour := "banqi.pieces.black"
		if red, _ := m.seatRed(m.viewer()); red {
			colour = "banqi.pieces.red"
		}
		b.WriteString(m.t("banqi.you_play", "colour", m.t(colour)) + "\n")
	} else if bq.GetFirstColor() == gamev1.BanqiColor_BANQI_COLOR_UNSPECIFIED {
		b.WriteString(m.t("banqi.colours_unfixed") + "\n")
	}
	// The pieces each side captured (the other colour's), under its
	// player's name as the web has them: "Captured by Ana: P".
	for _, seat := range []gamev1.Seat{gamev1.Seat_SEAT_FIRST, gamev1.Seat_SEAT_SECOND} {
		red, fixed := m.seatRed(seat)
		var taken []gamev1.BanqiPiece
		for _, p := range bq.GetCaptured() {
			if fixed && redPiece(p) != red {
				taken = append(taken, p)
			}
		}
		if len(taken) == 0 {
			continue
		}
		b.WriteString(m.t("banqi.captured_by", "name", m.participantName(seat)) + " ")
		for _, p := range taken {
			b.WriteString(lipgloss.NewStyle().Foreground(pieceColour(p)).Render(m.pieceLetter(p)))
		}
		b.WriteString("\n")
	}
	var down int32
	counts := map[gamev1.BanqiPiece]int32{}
	for _, c := range bq.GetFaceDownCounts() {
		down += c.GetCount()
		counts[c.GetPiece()] += c.GetCount()
	}
	b.WriteString(m.t("banqi.face_down", "count", int(down), "quiet", int(bq.GetNoProgressPlies())) + "\n")
	b.WriteString(styleDim.Render(m.t("banqi.by_kind")) + "\n")
	// The face-down pieces by kind (public knowledge, B6), red then black.
	colourW := max(lipgloss.Width(m.t("seat.red")), lipgloss.Width(m.t("seat.black")))
	for _, first := range []gamev1.BanqiPiece{gamev1.BanqiPiece_BANQI_PIECE_RED_GENERAL, gamev1.BanqiPiece_BANQI_PIECE_BLACK_GENERAL} {
		label := "  " + padRight(m.t("seat.red"), colourW)
		if first == gamev1.BanqiPiece_BANQI_PIECE_BLACK_GENERAL {
			label = "  " + padRight(m.t("seat.black"), colourW)
		}
		b.WriteString(styleDim.Render(label))
		for p := first; p < first+7; p++ {
			st := lipgloss.NewStyle().Foreground(pieceColour(p))
			if counts[p] == 0 {
				st = styleDim
			}
			b.WriteString(" " + st.Render(fmt.Sprintf("%s%d", m.pieceLetter(p), counts[p])))
		}
		b.WriteString("\n")
	}
	for _, line := range m.banqiLegend() {
		b.WriteString(styleDim.Render(line) + "\n")
	}
	return b.String()
}

// banqiLegend names B1's letters in the player's language ("K general",
// "A conselheiro"...), then says the case of each colour's letters, in
// lines no wider than the side panel, a letter never apart from its name.
func (m *Model) banqiLegend() []string {
	var entries []string
	for i, kind := range banqiKinds {
		entries = append(entries, string(banqiLetters[i])+" "+m.t("piece."+kind))
	}
	entries = append(entries, m.t("banqi.letter_case"))
	w := m.sideW
	if w <= 0 {
		w = 47 // beside Banqi's board at 80 columns
	}
	var lines []string
	line := ""
	for _, e := range entries {
		switch {
		case line == "":
			line = e
		case lipgloss.Width(line)+2+lipgloss.Width(e) <= w:
			line += "  " + e
		default:
			lines = append(lines, line)
			line = e
		}
	}
	return append(lines, line)
}

// termWidth is the terminal's width, 80 until the terminal says.
func (m *Model) termWidth() int {
	if m.width <= 0 {
		return 80
	}
	return m.width
}

// moveList shows the last n moves, white's and black's ply on one line.
func (m *Model) moveList(n int) string {
	var lines []string
	for i := 0; i < len(m.plies); i += 2 {
		line := fmt.Sprintf("%3d. %-10s", i/2+1, m.plies[i].GetNotation())
		if i+1 < len(m.plies) {
			line += " " + m.plies[i+1].GetNotation()
		}
		lines = append(lines, line)
	}
	if len(lines) > n {
		lines = append([]string{"  …"}, lines[len(lines)-n:]...)
	}
	if len(lines) == 0 {
		return styleDim.Render("  "+m.t("side.no_moves")) + "\n"
	}
	return strings.Join(lines, "\n") + "\n"
}

func (m *Model) seatColour(s gamev1.Seat) lipgloss.Color {
	if m.game() == gamev1.Game_GAME_BANQI {
		if red, fixed := m.seatRed(s); fixed && red {
			return colBanqiRed
		} else if fixed {
			return colBanqiBlack
		}
	}
	return seatColor(s)
}

// redPiece reports whether p is one of red's pieces.
func redPiece(p gamev1.BanqiPiece) bool {
	return p >= gamev1.BanqiPiece_BANQI_PIECE_RED_GENERAL && p < gamev1.BanqiPiece_BANQI_PIECE_RED_GENERAL+7
}
