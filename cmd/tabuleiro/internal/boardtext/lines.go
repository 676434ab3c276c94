// Package boardtext draws an engine's board for the terminal in the
// player's language: the engines draw in their own English words, and
// these say each line of facts (walls left, the side to move, Banqi's
// colours and pieces, Corners' move) in the catalog's, and the seats'
// letters as the game screen draws them.
package boardtext

import (
	"regexp"
	"strconv"
	"strings"

	"tabuleiro.dev/cmd/tabuleiro/internal/text"
)

// The engines draw their boards in their own (English) words, the same in
// every language: factLine says an engine's line of facts in the player's
// language, and leaves the board's drawing (ranks, files, pieces) as it is.

var (
	wallsLeft      = regexp.MustCompile(`^walls left: white (\d+), black (\d+)$`)
	toMove         = regexp.MustCompile(`^to move: (.+)$`)
	banqiColours   = regexp.MustCompile(`^colours: first is (\w+), second is (\w+)$`)
	banqiPieces    = regexp.MustCompile(`^(captured|face down): (.+)$`)
	banqiPlies     = regexp.MustCompile(`^plies: (\d+), last: (\S+)(?: revealed a (\w+) (\w+))?$`)
	banqiQuiet     = regexp.MustCompile(`^quiet plies: (\d+) of (\d+) \(B5\.2\)$`)
	cornersMove    = regexp.MustCompile(`^(?:(white|black) to move, move (\d+)|game over at move (\d+)|game over after (\d+) moves)(?: \(leave home by move (\d+), last move (\d+)\)| \(last move (\d+)\))$`)
	cornersLastPly = regexp.MustCompile(`^last ply (\S+)$`)
	seatWord       = regexp.MustCompile(`\b(white|black|red|first|second)\b`)
)

// Lines is render with each line of facts in p's language.
func Lines(p *text.Printer, render string) string {
	var b strings.Builder
	for line := range strings.Lines(render) {
		body, nl := strings.CutSuffix(line, "\n")
		b.WriteString(factLine(p, body))
		if nl {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// factLine is one line of an engine's board (no newline) in p's language.
func factLine(p *text.Printer, line string) string {
	num := func(s string) int { n, _ := strconv.Atoi(s); return n }
	switch {
	case line == "to move: nobody, the game is over":
		return text.T(p, "board.to_move_none")
	case line == "true position (face-down pieces in brackets)":
		return text.T(p, "board.banqi.true")
	case line == "view (face-down pieces as ?)":
		return text.T(p, "board.banqi.view")
	case strings.HasPrefix(line, "colours: not fixed;"):
		return text.T(p, "board.banqi.colours_unfixed")
	}
	if m := wallsLeft.FindStringSubmatch(line); m != nil {
		return text.T(p, "board.walls_left", "white", num(m[1]), "black", num(m[2]))
	}
	if m := toMove.FindStringSubmatch(line); m != nil {
		return text.T(p, "board.to_move", "seat", seats(p, m[1]))
	}
	if m := banqiColours.FindStringSubmatch(line); m != nil {
		return text.T(p, "board.banqi.colours", "first", seats(p, m[1]), "second", seats(p, m[2]))
	}
	if m := banqiPieces.FindStringSubmatch(line); m != nil {
		key := "board.banqi.captured"
		if m[1] == "face down" {
			key = "board.banqi.face_down"
		}
		list := m[2]
		if list == "none" {
			list = text.T(p, "board.banqi.none")
		} else {
			list = seats(p, list) // "red K A A, black p p": the letters stay
		}
		return text.T(p, key, "pieces", list)
	}
	if m := banqiPlies.FindStringSubmatch(line); m != nil {
		last := m[2]
		if m[3] != "" {
			piece := text.T(p, "board.banqi.piece", "colour", seats(p, m[3]), "kind", text.T(p, pieceKeys[m[4]]))
			last = text.T(p, "board.banqi.revealed", "square", m[2], "piece", piece)
		}
		return text.T(p, "board.banqi.plies", "count", num(m[1]), "last", last)
	}
	if m := banqiQuiet.FindStringSubmatch(line); m != nil {
		return text.T(p, "board.banqi.quiet", "count", num(m[1]), "limit", num(m[2]))
	}
	if m := cornersMove.FindStringSubmatch(line); m != nil {
		var s string
		switch {
		case m[1] != "":
			s = text.T(p, "board.corners.to_move", "seat", seats(p, m[1]), "n", num(m[2]))
		case m[3] != "":
			s = text.T(p, "board.corners.over_at", "n", num(m[3]))
		default:
			s = text.T(p, "board.corners.over_after", "count", num(m[4]))
		}
		if m[5] != "" {
			return s + text.T(p, "board.corners.deadline", "deadline", num(m[5]), "limit", num(m[6]))
		}
		return s + text.T(p, "board.corners.limit", "limit", num(m[7]))
	}
	if m := cornersLastPly.FindStringSubmatch(line); m != nil {
		return text.T(p, "board.corners.last_ply", "ply", m[1])
	}
	return line
}

// Piece says a Banqi piece as the engine names it ("red horse") in p's
// language ("cavalo vermelho").
func Piece(p *text.Printer, name string) string {
	colour, kind, ok := strings.Cut(name, " ")
	key, known := pieceKeys[kind]
	if !ok || !known {
		return name
	}
	return text.T(p, "board.banqi.piece", "colour", seats(p, colour), "kind", text.T(p, key))
}

// pieceKeys are the messages of the engine's piece kinds.
var pieceKeys = map[string]string{
	"general": "piece.general", "advisor": "piece.advisor", "elephant": "piece.elephant", "chariot": "piece.chariot",
	"horse": "piece.horse", "cannon": "piece.cannon", "soldier": "piece.soldier",
}

// SeatWords says the seat and colour words of an engine's text in p's
// language, as the board's lines do ("red": "vermelho").
func SeatWords(p *text.Printer, s string) string { return seats(p, s) }

// seats says the seat and colour words of an engine's text in p's
// language ("red (first)": "vermelho (primeiro)").
func seats(p *text.Printer, s string) string {
	return seatWord.ReplaceAllStringFunc(s, func(w string) string { return text.T(p, "seat."+w) })
}
