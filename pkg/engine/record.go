package engine

import (
	"bufio"
	"fmt"
	"strings"
)

// Record is a game record as Tabuleiro's tools read it: `# key: value`
// header lines, then the plies in RULES.md notation separated by white
// space, with or without move numbers ("1. e2 e8 2. e3h e7").
type Record struct {
	// Headers holds the header lines in file order.
	Headers []Header
	// Plies holds the plies in notation, move numbers removed.
	Plies []string
}

// Header is one `# key: value` line of a record.
type Header struct {
	Key, Value string
}

// Header returns the value of the first header named key, and whether there
// is one.
func (r Record) Header(key string) (string, bool) {
	for _, h := range r.Headers {
		if h.Key == key {
			return h.Value, true
		}
	}
	return "", false
}

// ParseRecord reads a record. Header lines start with '#'; a '#' line
// without "key: value" is a comment. Move numbers ("12." or "12...") are
// dropped, also when glued to a ply ("12.e4"). It checks the record's
// shape only; the game's ParsePly checks each ply. Errors are *SyntaxError
// with the byte offset of the bad token.
func ParseRecord(text string) (Record, error) {
	var rec Record
	offset := 0
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for sc.Scan() {
		line := sc.Text()
		lineStart := offset
		offset += len(line) + 1
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "#") {
			body := strings.TrimSpace(strings.TrimPrefix(trimmed, "#"))
			if k, v, ok := strings.Cut(body, ":"); ok && k != "" && !strings.ContainsAny(k, " \t") {
				rec.Headers = append(rec.Headers, Header{Key: k, Value: strings.TrimSpace(v)})
			}
			continue
		}
		pos := 0
		for _, field := range strings.Fields(line) {
			at := strings.Index(line[pos:], field) + pos
			pos = at + len(field)
			tok, err := stripMoveNumber(field)
			if err != nil {
				return Record{}, &SyntaxError{Input: field, Offset: lineStart + at, Msg: err.Error()}
			}
			if tok != "" {
				rec.Plies = append(rec.Plies, tok)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return Record{}, fmt.Errorf("read record: %w", err)
	}
	return rec, nil
}

// stripMoveNumber removes a leading move number ("12.", "12...") from a
// token and returns what is left, possibly empty.
func stripMoveNumber(tok string) (string, error) {
	i := 0
	for i < len(tok) && tok[i] >= '0' && tok[i] <= '9' {
		i++
	}
	if i == 0 || i == len(tok) || tok[i] != '.' {
		return tok, nil
	}
	j := i
	for j < len(tok) && tok[j] == '.' {
		j++
	}
	if j-i != 1 && j-i != 3 {
		return "", fmt.Errorf("move number %q must end in '.' or '...'", tok[:j])
	}
	return tok[j:], nil
}
