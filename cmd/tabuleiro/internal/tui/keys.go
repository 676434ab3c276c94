package tui

import (
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
)

// helpKeys are the lines of the help shown on '?', in order; the draw
// keys are left out at one keyboard (nobody to offer a draw to) and in
// Quoridor (its games end by a win).
var helpKeys = []string{"help.title", "help.arrows", "help.enter", "help.esc", "help.wall",
	"help.rotate", "help.type", "help.draw", "help.decline_draw", "help.resign", "help.again",
	"help.decline_rematch", "help.rules", "help.help", "help.quit"}

// helpText is the help for this game.
func (m *Model) helpText() string {
	noDraws := m.local() || m.game() == gamev1.Game_GAME_QUORIDOR
	var out []string
	for _, k := range helpKeys {
		if noDraws && (k == "help.draw" || k == "help.decline_draw") {
			continue
		}
		out = append(out, m.helpLine(m.t(k)))
	}
	return strings.Join(out, "\n")
}

// helpIndent is where a help line's description starts: after the keys.
var helpIndent = strings.Repeat(" ", 21)

// helpLine is one key's help, its description wrapped at spaces to the
// terminal's width with its continuation lines under the description
// (the catalog's own line breaks are joined first: they were made for
// one width and one language).
func (m *Model) helpLine(s string) string {
	lines := strings.Split(s, "\n")
	for i := 1; i < len(lines); i++ {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return m.hangingWrap(strings.Join(lines, " "), helpIndent)
}

func (m Model) key(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	if k.Type == tea.KeyCtrlC {
		return m, tea.Quit
	}
	// The keypad's Enter of a terminal in application keypad mode sends
	// ESC O M, which Bubble Tea v1 has no name for: it reads alt+O, then
	// M (with any keys typed right after it). The M after an alt+O is
	// Enter; an alt+O alone is no key of this client.
	if k.Type == tea.KeyRunes && k.Alt && len(k.Runes) == 1 && k.Runes[0] == 'O' {
		m.keypad = true
		return m, nil
	}
	if m.keypad {
		m.keypad = false
		if k.Type == tea.KeyRunes && !k.Alt && len(k.Runes) > 0 && k.Runes[0] == 'M' {
			next, cmd := m.key(tea.KeyMsg{Type: tea.KeyEnter})
			if rest := k.Runes[1:]; len(rest) > 0 {
				var more tea.Cmd
				next, more = next.(Model).key(tea.KeyMsg{Type: tea.KeyRunes, Runes: rest})
				cmd = tea.Batch(cmd, more)
			}
			return next, cmd
		}
	}
	if k.Type == tea.KeyCtrlJ {
		// A terminal whose Enter sends LF, not CR: it is Enter all the same.
		k = tea.KeyMsg{Type: tea.KeyEnter}
	}
	if m.typing {
		return m.typingKey(k)
	}
	if k.Type == tea.KeyRunes && len(k.Runes) > 1 && !k.Paste && k.Runes[0] != ':' && k.Runes[0] != '/' {
		// Keys typed fast arrive as one ("Ry": resign, confirmed): each
		// counts on its own. A burst that starts with ':' is a ply typed
		// in (see playKey).
		var (
			next tea.Model = m
			cmds []tea.Cmd
		)
		for _, r := range k.Runes {
			var c tea.Cmd
			next, c = next.(Model).key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
			cmds = append(cmds, c)
		}
		return next, tea.Batch(cmds...)
	}
	s := k.String()
	if c := m.confirmPly; c != nil {
		// A ply that loses at once (C5.2) asked first: y plays it, any
		// other key only cancels. Once the question has left the status
		// line or the position moved on, the key is an ordinary one.
		m.confirmPly = nil
		if m.status == c.question && m.myTurn() && m.view.GetPlyCount()+1 == c.number {
			m.status = ""
			if m.yes(s) {
				return m, m.submit(c.notation)
			}
			return m, nil
		}
	}
	if s == "?" {
		m.help = !m.help
		return m, nil
	}
	if m.help {
		// Only ?, esc and q act while the help is shown (its last line
		// says so): any other key would act on a board the player cannot
		// see. q closes the help, as esc does: a person leaving the help
		// by q means the help, not the game (the game's q is the next one).
		if s == "esc" || s == "q" {
			m.help = false
		}
		return m, nil
	}
	if m.rules {
		return m.rulesKey(s)
	}
	if s == "i" && m.view != nil && !m.confirmResign && !m.confirmQuit {
		m.rules, m.rulesTop = true, 0
		return m, nil
	}
	if m.confirmQuit {
		m.confirmQuit = false
		if m.yes(s) || s == "q" {
			return m, tea.Quit
		}
		m.status = ""
		return m, nil
	}
	if m.confirmResign {
		m.confirmResign = false
		if m.yes(s) && m.phase == phasePlaying {
			_, c := m.actor()
			m.status = m.t("status.resigned")
			return m, m.send(c, &matchv1.PlayRequest{Action: &matchv1.PlayRequest_Resign{Resign: &matchv1.Resign{}}})
		}
		m.status = ""
		return m, nil
	}
	switch m.phase {
	case phaseOffer:
		return m.offerKey(s)
	case phaseStarting, phaseFailed:
		if s == "q" || s == "esc" || (m.phase == phaseFailed && s == "enter") {
			return m, tea.Quit
		}
		return m, nil
	case phaseOver:
		switch s {
		case "q", "esc":
			if m.rematchOpen() && len(m.rematch.GetOfferedBy()) > 0 {
				// Leaving answers the rematch: no.
				decline := m.declineRematchCmd()
				return m, func() tea.Msg { decline(); return tea.Quit() }
			}
			return m, tea.Quit
		case "n":
			if m.deps.Rematch != nil && !m.local() && m.rematchOpen() {
				m.status = m.t("rematch.offering")
				if r := m.rematch; slices.Contains(r.GetOfferedBy(), r.GetOpponent().GetPlayerId()) {
					m.status = m.t("rematch.accepting")
				}
				return m, m.offerRematchCmd()
			}
			if m.deps.Start == nil {
				return m, tea.Quit
			}
			m.round++
			return m, m.startCmd()
		case "x":
			if m.rematchOpen() {
				return m, m.declineRematchCmd()
			}
		}
		return m, nil
	}
	return m.playKey(s)
}

// yes reports whether key s answers a question yes: the language's key
// ("key.yes": s in Portuguese and Spanish) or y, in every language.
func (m Model) yes(s string) bool {
	return s == "y" || s == m.t("key.yes")
}

func (m Model) offerKey(s string) (tea.Model, tea.Cmd) {
	switch s {
	case "up", "k":
		m.offerIdx = max(0, m.offerIdx-1)
	case "down", "j":
		m.offerIdx = min(len(m.deps.Active)-1, m.offerIdx+1)
	case "r", "enter", " ", "y":
		id, resume := m.deps.Active[m.offerIdx].GetMatchId(), m.deps.Resume
		m.phase = phaseStarting
		return m, func() tea.Msg {
			t, err := resume(id)
			return tableMsg{t, err}
		}
	case "n":
		return m, m.startCmd()
	case "q", "esc":
		return m, tea.Quit
	}
	return m, nil
}

func (m Model) typingKey(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	switch k.String() {
	case "esc":
		m.typing = false
		m.input.Blur()
		return m, nil
	case "enter":
		ply := strings.TrimSpace(m.input.Value())
		m.typing = false
		m.input.Blur()
		m.input.SetValue("")
		if ply == "" {
			return m, nil
		}
		return m, m.play(ply)
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	return m, cmd
}

func (m Model) playKey(s string) (tea.Model, tea.Cmd) {
	if m.view == nil {
		if s == "q" {
			return m, tea.Quit
		}
		return m, nil
	}
	// A refusal or a notice answers the key before: the next key is a new
	// action, and says its own (the side panel keeps what lasts: a draw
	// offer, the moves). The reminder of other unfinished games has been
	// seen.
	m.status, m.reminder = "", ""
	switch s {
	case "q":
		m.confirmQuit = true
		key := "confirm.quit"
		if m.deps.Online && m.clocks != nil {
			key = "confirm.quit.clock"
		}
		m.status = m.t(key, "command", cmpOr(m.deps.ResumeHint, "tabuleiro play --resume"))
		if m.vsPerson() {
			// The server gives a player who left a reconnection window
			// (a minute by default), then the game is lost.
			m.status += m.t("confirm.quit.person")
		}
		// The answer on a line of its own: never "y" at the end of one
		// line and "quits" at the start of the next.
		m.status += ".\n" + m.t("confirm.quit.keys")
		return m, nil
	case "up", "k":
		return m, m.moveCursor(0, -1)
	case "down", "j":
		return m, m.moveCursor(0, 1)
	case "left", "h":
		return m, m.moveCursor(-1, 0)
	case "right", "l":
		return m, m.moveCursor(1, 0)
	case ":", "/":
		m.typing = true
		m.input.SetValue("")
		return m, m.input.Focus()
	}
	// Keys that arrive together (pasted, or typed fast over a slow link)
	// come as one: ":e2" opens the prompt with the ply typed in.
	if len(s) > 1 && (s[0] == ':' || s[0] == '/') {
		m.typing = true
		m.input.SetValue(s[1:])
		m.input.CursorEnd()
		return m, m.input.Focus()
	}
	switch s {
	case "esc":
		if m.wallMode {
			m.wallMode, m.wallStart = false, false
			return m, m.afterChange()
		}
		m.selected, m.from = noSquare, nil
		return m, nil
	case "w":
		if m.game() != gamev1.Game_GAME_QUORIDOR {
			return m, nil
		}
		m.wallMode = !m.wallMode
		m.check, m.checkKey, m.wallStart = nil, "", m.wallMode
		if m.wallMode {
			m.cursor.file, m.cursor.rank = min(m.cursor.file, 7), min(m.cursor.rank, 7)
			m.selected, m.from = noSquare, nil
			return m, m.checkCmd()
		}
		return m, m.afterChange()
	case "r":
		if !m.wallMode {
			return m, nil
		}
		m.wallH = !m.wallH
		m.check, m.wallStart = nil, false
		return m, m.checkCmd()
	case "enter", " ":
		return m, m.act()
	case "d":
		if m.local() {
			return m, nil // no draw offers at one keyboard
		}
		if m.game() == gamev1.Game_GAME_QUORIDOR {
			m.status = m.t("status.no_draws")
			return m, nil
		}
		seat, c := m.actor()
		if m.drawBy != gamev1.Seat_SEAT_UNSPECIFIED && m.drawBy != seat {
			return m, m.send(c, &matchv1.PlayRequest{Action: &matchv1.PlayRequest_AcceptDraw{AcceptDraw: &matchv1.AcceptDraw{}}})
		}
		m.status = m.t("status.draw_offered")
		return m, m.send(c, &matchv1.PlayRequest{Action: &matchv1.PlayRequest_OfferDraw{OfferDraw: &matchv1.OfferDraw{}}})
	case "x":
		seat, c := m.actor()
		if m.drawBy == gamev1.Seat_SEAT_UNSPECIFIED || m.drawBy == seat {
			return m, nil
		}
		return m, m.send(c, &matchv1.PlayRequest{Action: &matchv1.PlayRequest_DeclineDraw{DeclineDraw: &matchv1.DeclineDraw{}}})
	case "R":
		m.confirmResign = true
		m.status = m.t("confirm.resign")
		return m, nil
	}
	return m, nil
}

func (m *Model) moveCursor(dx, dy int) tea.Cmd {
	next := m.lay.move(m.cursor, dx, dy)
	files, ranks := m.lay.files, m.lay.ranks
	if m.wallMode {
		files, ranks = files-1, ranks-1 // a wall's anchor is a1..h8 (Q1)
	}
	if next.file < 0 || next.rank < 0 || next.file >= files || next.rank >= ranks {
		return nil
	}
	m.cursor = next
	if m.wallMode {
		m.check, m.wallStart = nil, false
		return m.checkCmd()
	}
	return nil
}

// act is enter on the cursor: place the wall, play the selected piece to
// the cursor, or select the piece under the cursor (a lone reveal plays at
// once).
func (m *Model) act() tea.Cmd {
	if !m.myTurn() {
		m.status = m.t("status.not_your_turn")
		return nil
	}
	if m.wallMode {
		w := wall{m.cursor, m.wallH}.String()
		if m.check != nil && m.checkKey == m.wallKey() && !m.check.GetLegal() {
			// The turn line says why: the status says what to do.
			m.status = m.t("status.wall_cannot", "wall", w)
			return nil
		}
		return m.submit(w)
	}
	if m.selected != noSquare {
		for _, p := range m.from {
			if p.GetTo() == m.cursor.String() && p.GetFrom() == m.selected.String() {
				return m.play(p.GetNotation()) // a Corners chain is chosen by its end square (C1)
			}
		}
		if m.cursor == m.selected && m.game() != gamev1.Game_GAME_QUORIDOR {
			m.selected, m.from = noSquare, nil
			return nil
		}
	}
	if m.game() == gamev1.Game_GAME_QUORIDOR {
		if m.from == nil && m.cursor != m.pawn(m.view.GetToMove()) {
			// The pawn's destinations have not arrived yet (a fast
			// key after the position changed): the server judges the
			// step and names what is wrong with it.
			return m.submit(m.cursor.String())
		}
		m.status = m.t("status.move_cursor")
		return nil
	}
	return m.legalCmd(m.cursor, true)
}

// rulesKey scrolls or closes the rules screen.
func (m Model) rulesKey(s string) (tea.Model, tea.Cmd) {
	switch s {
	case "i", "esc", "q":
		m.rules = false
	case "down", "j":
		m.rulesTop++
	case "up", "k":
		m.rulesTop = max(0, m.rulesTop-1)
	case "pgdown", " ", "f":
		m.rulesTop += max(1, m.pageLines())
	case "pgup", "b":
		m.rulesTop = max(0, m.rulesTop-max(1, m.pageLines()))
	case "home", "g":
		m.rulesTop = 0
	}
	return m, nil
}
