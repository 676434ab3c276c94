package records

import (
	"strings"
	"unicode/utf8"
)

// History's columns, in order.
const (
	colEnded = iota
	colGame
	colVariant
	colOpponent
	colResult
	colPlies
	colID
	numCols
)

// colGap is the space between two columns.
const colGap = 2

// fitRows makes history's rows (the header first) fit width columns, each
// step only when the rows are still too wide: the result without its
// reason ("vitória", the reason being in `replay`), the date without the
// time, then without the year when thisYear (each game's date without it)
// is given, no ply count, then the variant's and the opponent's names elided
// ("Empate a…", their headings too), the longer first, to no less than
// minName. The id is
// never cut: `replay` and `review` take it.
func fitRows(rows [][]string, thisYear []string, width int) [][]string {
	const minName = 6
	steps := []func(){
		func() { cutAt(rows, colResult, " (") },
		func() { cutAt(rows, colEnded, " ") },
		func() {
			if thisYear == nil {
				return
			}
			for i := 1; i < len(rows); i++ {
				rows[i][colEnded], _, _ = strings.Cut(thisYear[i-1], " ")
			}
		},
		func() {
			for i := range rows {
				rows[i] = append(rows[i][:colPlies], rows[i][colPlies+1:]...)
			}
		},
	}
	for _, step := range steps {
		if rowsWidth(rows) <= width {
			return rows
		}
		step()
	}
	for rowsWidth(rows) > width {
		c := colOpponent
		if colWidth(rows, colVariant)-minName > colWidth(rows, colOpponent)-minName {
			c = colVariant
		}
		w := colWidth(rows, c)
		if w <= minName {
			break // as narrow as names go
		}
		for _, r := range rows { // a long heading too ("ADVERSÁRIO")
			r[c] = elide(r[c], w-1)
		}
	}
	return rows
}

// cutAt keeps the text of column c of each row (not the header) before
// sep.
func cutAt(rows [][]string, c int, sep string) {
	for i := 1; i < len(rows); i++ {
		rows[i][c], _, _ = strings.Cut(rows[i][c], sep)
	}
}

func colWidth(rows [][]string, c int) int {
	w := 0
	for _, r := range rows {
		w = max(w, utf8.RuneCountInString(r[c]))
	}
	return w
}

// rowsWidth is the width of the widest row once aligned.
func rowsWidth(rows [][]string) int {
	if len(rows) == 0 {
		return 0
	}
	w := 0
	for c := range rows[0] {
		w += colWidth(rows, c) + colGap
	}
	return w - colGap
}

// elide shortens s to at most n runes, its end replaced by "…".
func elide(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:max(n-1, 0)]), " ") + "…"
}
