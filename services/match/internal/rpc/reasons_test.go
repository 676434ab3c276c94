package rpc

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/games"
	"tabuleiro.dev/pkg/platform/reason"
	"tabuleiro.dev/services/match/internal/match"
)

// banqiLayout is one full Banqi set, shuffled by the test (B1).
const banqiLayout = "KAABBRRNNCCPPPPPkaabbrrnnccppppp"

// detailsNoPlyReaches are the ILLEGAL_PLY details that no parsed ply can
// meet in a match: a ply of another game's type, a missing ply, a reveal
// through a bot's view, and notation the game's parser already refused.
// notation the game's parser already refused (a Corners ply of one square
// or off the board), a Banqi move before any reveal (the piece is face
// down, which is said first), and a Corners chain given by its ends whose
// first hop is a jump the engine's search would have found.
var detailsNoPlyReaches = []string{
	"no_ply", "not_a_ply", "not_a_wall", "notation", "foreign_ply", "not_a_banqi_ply", "none_face_down", "reveal_in_view",
	"too_few_squares", "off_board", "colours_not_fixed", "no_jump_chain",
}

// checksPerDetail is how many refusals of each detail are rendered: the
// parameters differ, the words do not.
const checksPerDetail = 20

// TestIllegalPliesRenderInEveryLanguage plays random games of every
// variant and tries, at each position, every ply seen legal anywhere in the
// game and every pair of squares: each refusal's ILLEGAL_PLY status carries
// the ply, rule and detail with the detail's parameters; its English
// catalog message says exactly what the engine says; every language renders
// it with every placeholder filled; and every catalog detail is met (but
// detailsNoPlyReaches).
func TestIllegalPliesRenderInEveryLanguage(t *testing.T) {
	seen := map[string]int{} // refusals met, by detail
	rnd := rand.New(rand.NewPCG(41, 1))
	for _, g := range games.List() {
		variants, err := games.Variants(g)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range variants {
			for game := range 2 {
				setup := ""
				if v.NeedsSetup {
					b := []byte(banqiLayout)
					rnd.Shuffle(len(b), func(i, j int) { b[i], b[j] = b[j], b[i] })
					setup = string(b)
				}
				pos, err := games.New(g, v.ID, setup)
				if err != nil {
					t.Fatalf("%s/%s: %v", g, v.ID, err)
				}
				candidates := map[string]bool{}
				for n := 0; n < 60 && !pos.Outcome().Over(); n++ {
					legal := pos.Legal()
					if len(legal) == 0 {
						break
					}
					var squares []string
					for _, p := range legal {
						candidates[p.String()] = true
						for _, f := range strings.FieldsFunc(p.String(), func(r rune) bool { return r == '-' || r == 'x' }) {
							squares = append(squares, strings.TrimRight(f, "hv"))
						}
					}
					tries := slices.Sorted(func(yield func(string) bool) {
						for c := range candidates {
							if !yield(c) {
								return
							}
						}
					})
					slices.Sort(squares)
					squares = slices.Compact(squares)
					for range 150 {
						a, b := squares[rnd.IntN(len(squares))], squares[rnd.IntN(len(squares))]
						tries = append(tries, a, a+"-"+b, a+"x"+b, a+"-"+b+"-"+a)
					}
					for _, c := range tries {
						ply, err := pos.ParsePly(c)
						if err != nil {
							continue
						}
						_, err = pos.Play(ply)
						var re *engine.RuleError
						if !errors.As(err, &re) {
							continue
						}
						if seen[re.Detail]++; seen[re.Detail] <= checksPerDetail {
							checkRefusal(t, g, game, re)
						}
					}
					pos, err = pos.Play(legal[rnd.IntN(len(legal))])
					if err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
	// Quoridor's pawns face to face (white e5, black e6, black to move),
	// with every wall black may place, then every wall white may: every
	// square tried for black's pawn (Q2.2, Q2.3).
	try := func(pos engine.Position) {
		for f := 'a'; f <= 'i'; f++ {
			for r := '1'; r <= '9'; r++ {
				ply, err := pos.ParsePly(string(f) + string(r))
				if err != nil {
					t.Fatal(err)
				}
				var re *engine.RuleError
				if _, err := pos.Play(ply); errors.As(err, &re) {
					if seen[re.Detail]++; seen[re.Detail] <= checksPerDetail {
						checkRefusal(t, engine.Quoridor, -1, re)
					}
				}
			}
		}
	}
	pos, err := games.New(engine.Quoridor, "standard", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"e2", "e8", "e3", "e7", "e4", "e6", "e5"} {
		pos = play(t, pos, n)
	}
	walls := func(pos engine.Position) []engine.Ply {
		return slices.DeleteFunc(pos.Legal(), func(p engine.Ply) bool { return len(p.String()) != 3 })
	}
	far := func(pos engine.Position) engine.Position { // a wall away from the pawns
		return play(t, pos, walls(pos)[0].String())
	}
	for _, w := range walls(pos) {
		after, err := pos.Play(w)
		if err != nil {
			t.Fatal(err)
		}
		after = far(after)
		try(after)
		// A wall behind white: white walls off a diagonal too (Q2.3).
		jump, _ := after.ParsePly("e4")
		var re *engine.RuleError
		if _, err := after.Play(jump); errors.As(err, &re) && re.Detail == "wall_behind_opponent" {
			for _, w2 := range walls(after) {
				if next, err := after.Play(w2); err == nil {
					try(far(next))
				}
			}
		}
	}
	blackFar := far(pos)
	for _, w := range walls(blackFar) {
		after, err := blackFar.Play(w)
		if err != nil {
			t.Fatal(err)
		}
		try(after)
	}

	for _, key := range reason.Catalog.Keys("en") {
		d, ok := strings.CutPrefix(key, reason.IllegalPly+".")
		if ok && seen[d] == 0 && !slices.Contains(detailsNoPlyReaches, d) {
			t.Errorf("no illegal ply met %s", key)
		}
	}
}

func play(t *testing.T, pos engine.Position, notation string) engine.Position {
	t.Helper()
	ply, err := pos.ParsePly(notation)
	if err == nil {
		pos, err = pos.Play(ply)
	}
	if err != nil {
		t.Fatalf("%s: %v", notation, err)
	}
	return pos
}

// checkRefusal checks one refusal's status and its rendering.
func checkRefusal(t *testing.T, g engine.Game, game int, re *engine.RuleError) {
	t.Helper()
	if re.Detail == "" {
		t.Errorf("%s game %d: %v has no detail", g, game, re)
		return
	}
	st := status.Convert(toStatus(re))
	info, ok := reason.Of(st)
	if st.Code() != codes.FailedPrecondition || !ok || info.GetReason() != reason.IllegalPly {
		t.Errorf("%v: status %v %v, want FailedPrecondition ILLEGAL_PLY", re, st.Code(), info)
		return
	}
	md := info.GetMetadata()
	if md["ply"] != re.Ply || md["rule"] != re.Rule || md["detail"] != re.Detail {
		t.Errorf("%v: metadata %v lacks ply, rule or detail", re, md)
	}
	for _, lang := range reason.Catalog.Languages() {
		if !reason.Catalog.Printer(lang).Has(reason.IllegalPly + "." + re.Detail) {
			t.Errorf("%s.json has no %s.%s (%v)", lang, reason.IllegalPly, re.Detail, re)
			continue
		}
		text, _ := reason.Text(reason.Catalog.Printer(lang), info)
		if strings.ContainsAny(text, "{}") {
			t.Errorf("%s: %q (for %v) leaves a placeholder unfilled", lang, text, re)
		}
		if lang == "en" {
			if want := upperFirst(re.Error()); text != want {
				t.Errorf("English %s.%s renders\n%q, the engine says\n%q", reason.IllegalPly, re.Detail, text, want)
			}
		}
	}
}

func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// TestStatusesCarryTheirParameters: a refused ply number's status carries
// the number given and the number expected.
func TestStatusesCarryTheirParameters(t *testing.T) {
	st := status.Convert(toStatus(&match.PlyError{Given: 7, Current: 5}))
	info, ok := reason.Of(st)
	if !ok || info.GetReason() != reason.StalePly || info.GetMetadata()["ply_number"] != "7" || info.GetMetadata()["current_ply_number"] != "5" {
		t.Errorf("stale ply: %v %v", st.Code(), info)
	}
	pos, _ := games.New(engine.Quoridor, "standard", "")
	_, err := pos.ParsePly("z9")
	st = status.Convert(toStatus(err))
	if info, ok := reason.Of(st); st.Code() != codes.InvalidArgument || !ok || info.GetReason() != reason.PlySyntax || info.GetMetadata()["ply"] != "z9" {
		t.Errorf("syntax: %v %v", st.Code(), info)
	}
}
