package corners

import (
	"flag"
	"slices"
	"strconv"
	"strings"
	"testing"

	"tabuleiro.dev/pkg/engine"
)

var update = flag.Bool("update", false, "rewrite testdata golden files and perft.txt")

// sortedSquares returns the squares in canonical encoding order.
func sortedSquares(t testing.TB, list string) string {
	t.Helper()
	if list == "" {
		return "-"
	}
	var qs []Square
	for _, s := range strings.Fields(list) {
		q, err := ParseSquare(s)
		if err != nil {
			t.Fatalf("square %q: %v", s, err)
		}
		qs = append(qs, q)
	}
	slices.Sort(qs)
	parts := make([]string, len(qs))
	for i, q := range qs {
		parts[i] = q.String()
	}
	return strings.Join(parts, ",")
}

// setup builds a position of variant after plies plies with the given
// pieces (space-separated squares), through Decode.
func setup(t testing.TB, variant string, plies int, white, black string) Position {
	t.Helper()
	side := "w"
	if plies%2 == 1 && variant != "training" {
		side = "b"
	}
	enc := strings.Join([]string{variant, side, strconv.Itoa(plies),
		sortedSquares(t, white), sortedSquares(t, black), "-", "ongoing"}, " ")
	p, err := DecodePosition(enc)
	if err != nil {
		t.Fatalf("setup: %v", err)
	}
	return p
}

// play plays plies in order, failing the test on an error.
func play(t testing.TB, p Position, plies ...string) Position {
	t.Helper()
	for _, s := range plies {
		ply, err := p.ParsePly(s)
		if err != nil {
			t.Fatalf("parse %s: %v", s, err)
		}
		next, err := p.Play(ply)
		if err != nil {
			t.Fatalf("play %s: %v", s, err)
		}
		p = next.(Position)
	}
	return p
}

func start(t testing.TB, variant string) Position {
	t.Helper()
	p, err := New(variant, "")
	if err != nil {
		t.Fatal(err)
	}
	return p.(Position)
}

func outcomeOf(p engine.Position) string { return outcomeText(p.Outcome()) }
