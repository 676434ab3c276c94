package tui

import (
	"strings"

	"github.com/charmbracelet/lipgloss"

	"tabuleiro.dev/cmd/tabuleiro/internal/text"
	"tabuleiro.dev/pkg/engine/corners"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
)

// boardView draws the board of the game being played.
func (m *Model) boardView() string {
	l := m.lay
	w, h := l.size()
	c := newCanvas(w, h)
	l.labels(c)
	dests := map[square]target{}
	var (
		pos   corners.Position
		judge bool // the engine judges the targets' plies (C5.2)
	)
	if len(m.from) > 0 {
		pos, judge = cornersPosition(m.view)
	}
	for _, p := range m.from {
		if sq, ok := parseSquare(p.GetTo()); ok {
			dests[sq] = plainTarget
			if judge && returnsHome(pos, p.GetNotation()) {
				dests[sq] = losingTarget
			}
		}
	}
	switch {
	case m.view.GetQuoridor() != nil:
		m.quoridor(c, dests)
	case m.game() == gamev1.Game_GAME_CORNERS:
		m.corners(c, dests)
	case m.view.GetBanqi() != nil:
		m.banqi(c, dests)
	}
	return c.String()
}

// target is how a square the selected piece can go to is drawn.
type target int

const (
	noTarget     target = iota
	plainTarget         // "+"
	losingTarget        // "!": the ply loses the game at once (Corners, C5.2)
)

func (m *Model) decorate(c *canvas, sq square, base mark, dests map[square]target) {
	l := m.lay
	st := base.style
	text := []rune(base.text)
	if t := dests[sq]; t != noTarget {
		glyph, colour := "+", colDest
		if t == losingTarget {
			glyph, colour = "!", colLoses
		}
		if strings.TrimSpace(base.text) == "·" || strings.TrimSpace(base.text) == "" {
			text = []rune(pad(glyph, l.cellW))
		}
		st = st.Foreground(colour).Bold(true)
	}
	if sq == m.selected {
		text[0], text[len(text)-1] = '(', ')'
	}
	l.put(c, sq, mark{string(text), st})
	// In wall mode the wall drawn at the cursor is the cursor (quoridor).
	if sq == m.cursor && m.phase == phasePlaying && !m.wallMode {
		x, y := l.origin(sq)
		cs := st.Background(colCursorBG)
		c.set(x, y, '[', cs)
		c.set(x+l.cellW-1, y, ']', cs)
	}
}

func (m *Model) quoridor(c *canvas, dests map[square]target) {
	q := m.view.GetQuoridor()
	l := m.lay
	for f := range l.files {
		for r := range l.ranks {
			sq := square{f, r}
			st := lipgloss.NewStyle()
			switch r + 1 {
			case int(q.GetFirst().GetGoalRank()):
				st = st.Background(tintFirst) // white's goal (Q1)
			case int(q.GetSecond().GetGoalRank()):
				st = st.Background(tintSecond)
			}
			base := mark{pad("·", l.cellW), st.Foreground(colDim)}
			if sq == m.lastFrom {
				base = mark{pad("∘", l.cellW), st.Foreground(lipgloss.Color("#D7AF00"))} // the last pawn move's start
			}
			for _, s := range []gamev1.Seat{gamev1.Seat_SEAT_FIRST, gamev1.Seat_SEAT_SECOND} {
				if m.pawn(s) == sq {
					letter := m.seatLetter(s)
					base = mark{pad(letter, l.cellW), st.Foreground(seatColor(s)).Bold(true)}
				}
			}
			m.decorate(c, sq, base, dests)
		}
	}
	for _, w := range q.GetWalls() { // in no promised order: the last is the one of the last ply
		wl, ok := wallOf(w)
		if !ok {
			continue
		}
		st := lipgloss.NewStyle().Foreground(colWall)
		if w.GetPlyNumber() == m.view.GetPlyCount() && w.GetPlyNumber() > 0 {
			st = lipgloss.NewStyle().Foreground(seatColor(w.GetPlacedBy())).Bold(true) // the last wall, in its placer's colour
		}
		l.drawWall(c, wl, st)
	}
	if m.wallMode && m.phase == phasePlaying {
		st := lipgloss.NewStyle().Foreground(colDim)
		if m.check != nil && m.checkKey == m.wallKey() {
			st = lipgloss.NewStyle().Foreground(colValid).Bold(true)
			if !m.check.GetLegal() {
				st = lipgloss.NewStyle().Foreground(colInvalid).Bold(true)
			}
		}
		l.drawWall(c, wall{m.cursor, m.wallH}, st)
	}
}

func (m *Model) corners(c *canvas, dests map[square]target) {
	cb := cornersBoard(m.view)
	l := m.lay
	tint := map[square]lipgloss.Style{}
	for _, s := range []struct {
		side *gamev1.CornersSide
		seat gamev1.Seat
	}{{cb.GetFirst(), gamev1.Seat_SEAT_FIRST}, {cb.GetSecond(), gamev1.Seat_SEAT_SECOND}} {
		for _, h := range s.side.GetHome() {
			if sq, ok := parseSquare(h); ok {
				tint[sq] = lipgloss.NewStyle().Background(seatTint(s.seat))
			}
		}
	}
	pieces := map[square]gamev1.Seat{}
	for _, p := range cb.GetFirst().GetPieces() {
		if sq, ok := parseSquare(p); ok {
			pieces[sq] = gamev1.Seat_SEAT_FIRST
		}
	}
	for _, p := range cb.GetSecond().GetPieces() {
		if sq, ok := parseSquare(p); ok {
			pieces[sq] = gamev1.Seat_SEAT_SECOND
		}
	}
	path := map[square]bool{}
	for _, p := range cb.GetLastPath() {
		if sq, ok := parseSquare(p); ok {
			path[sq] = true
		}
	}
	for f := range l.files {
		for r := range l.ranks {
			sq := square{f, r}
			st := tint[sq]
			base := mark{pad("·", l.cellW), st.Foreground(colDim)}
			if path[sq] {
				base = mark{pad("∘", l.cellW), st.Foreground(lipgloss.Color("#D7AF00"))}
			}
			if s, ok := pieces[sq]; ok {
				letter := m.seatLetter(s)
				base = mark{pad(letter, l.cellW), st.Foreground(seatColor(s)).Bold(true)}
			}
			m.decorate(c, sq, base, dests)
		}
	}
}

func (m *Model) banqi(c *canvas, dests map[square]target) {
	bq := m.view.GetBanqi()
	l := m.lay
	for i, cl := range bq.GetCells() {
		sq := square{i % 8, i / 8}
		base := mark{pad("·", l.cellW), styleDim}
		switch {
		case cl.GetFaceDown() != nil:
			base = mark{pad("?", l.cellW), lipgloss.NewStyle().Background(lipgloss.Color("#444444"))}
		case cl.GetRevealed() != gamev1.BanqiPiece_BANQI_PIECE_UNSPECIFIED:
			p := cl.GetRevealed()
			base = mark{pad(m.pieceLetter(p), l.cellW), lipgloss.NewStyle().Foreground(pieceColour(p)).Bold(true)}
		}
		m.decorate(c, sq, base, dests)
	}
}

// seatLetter marks a seat's pawn or piece (Quoridor, Corners) by the
// initial of its colour in the player's language: W and B in English, B
// and P (branco, preto) in Portuguese.
func (m *Model) seatLetter(s gamev1.Seat) string {
	if s == gamev1.Seat_SEAT_SECOND {
		return m.t("board.letter.black")
	}
	return m.t("board.letter.white")
}

// banqiLetters are B1's letters of the kinds, general to soldier, the
// same in every language (the rules, replay and the web use them); the
// side panel's legend names them in the player's language.
const banqiLetters = "KABRNCP"

// banqiKinds are the kinds in banqiLetters' order, as the catalog's
// "piece.*" messages name them.
var banqiKinds = []string{"general", "advisor", "elephant", "chariot", "horse", "cannon", "soldier"}

// pieceLetter is a Banqi piece's letter (B1), uppercase red, lowercase
// black.
func (m *Model) pieceLetter(p gamev1.BanqiPiece) string {
	switch {
	case p >= gamev1.BanqiPiece_BANQI_PIECE_RED_GENERAL && p < gamev1.BanqiPiece_BANQI_PIECE_RED_GENERAL+7:
		return string(banqiLetters[p-gamev1.BanqiPiece_BANQI_PIECE_RED_GENERAL])
	case p >= gamev1.BanqiPiece_BANQI_PIECE_BLACK_GENERAL && p < gamev1.BanqiPiece_BANQI_PIECE_BLACK_GENERAL+7:
		return strings.ToLower(string(banqiLetters[p-gamev1.BanqiPiece_BANQI_PIECE_BLACK_GENERAL]))
	}
	return "?"
}

func pieceColour(p gamev1.BanqiPiece) lipgloss.Color {
	if p >= gamev1.BanqiPiece_BANQI_PIECE_BLACK_GENERAL {
		return colBanqiBlack
	}
	return colBanqiRed
}

// padRight pads s with spaces to n cells.
func padRight(s string, n int) string {
	if w := lipgloss.Width(s); w < n {
		return s + strings.Repeat(" ", n-w)
	}
	return s
}

// Board draws match's board as the game screen does for a spectator
// (from the first seat's side, no cursor): what `tabuleiro watch` prints
// after each ply.
func Board(p *text.Printer, match *matchv1.Match) string {
	m := New(Deps{Printer: p})
	m.table = &Table{Seats: map[gamev1.Seat]Conn{}}
	m.phase = phasePlaying
	m.snapshot(match)
	m.cursor = noSquare
	return strings.TrimRight(m.boardView(), "\n") + "\n"
}
