package player

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/games"
	"tabuleiro.dev/services/bot/internal/search"
)

// TestEveryLevelPlaysLegally plays short games of every game, each ply
// chosen by a level in turn with a small budget (every other expert ply on
// two threads, which the race detector watches), and checks that every
// choice is one of the view's legal plies and plays on the true position.
func TestEveryLevelPlaysLegally(t *testing.T) {
	t.Parallel()
	tests := []struct {
		game    engine.Game
		variant string
		setup   string
	}{
		{engine.Quoridor, "standard", ""},
		{engine.Quoridor, "limit200", ""},
		{engine.Corners, "classic-3x3", ""},
		{engine.Corners, "diagonal-3x4", ""},
		{engine.Corners, "training", ""},
		{engine.Banqi, "", "pnnAABcppKbcrkPbNpCBaNPRpaPRrPCP"},
	}
	plies := 40
	if testing.Short() {
		plies = 16
	}
	for _, tt := range tests {
		t.Run(string(tt.game)+"/"+tt.variant, func(t *testing.T) {
			t.Parallel()
			pos, err := games.New(tt.game, tt.variant, tt.setup)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(7, 9))
			for i := 0; i < plies && !pos.Outcome().Over(); i++ {
				lvl := Levels()[i%4]
				budget, threads := 20*time.Millisecond, 1
				if i%8 == 7 { // every other expert ply on two threads
					budget, threads = MinThreadedBudget, 2
				}
				view := pos.View(pos.ToMove())
				c, err := SelectThreads(t.Context(), view, lvl, budget, threads, rng)
				if err != nil {
					t.Fatalf("ply %d, %s: %v", i+1, lvl, err)
				}
				if !slices.ContainsFunc(view.Legal(), func(p engine.Ply) bool { return p.String() == c.Ply.String() }) {
					t.Fatalf("ply %d, %s chose %s, not a legal ply of %s", i+1, lvl, c.Ply, view.Encode())
				}
				if pos, err = pos.Play(c.Ply); err != nil {
					t.Fatalf("ply %d, %s chose %s: %v", i+1, lvl, c.Ply, err)
				}
			}
		})
	}
}

// TestQuoridorTakesTheWin: white on e8 wins at once by stepping to e9
// (Q4); every level above easy must play it and know it wins.
func TestQuoridorTakesTheWin(t *testing.T) {
	t.Parallel()
	pos, err := games.New(engine.Quoridor, "standard", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"e2", "d9", "e3", "c9", "e4", "b9", "e5", "a9", "e6", "a8", "e7", "a7", "e8", "a6"} {
		p, err := pos.ParsePly(s)
		if err != nil {
			t.Fatal(err)
		}
		if pos, err = pos.Play(p); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	// A budget no machine runs out of: each level stops on its own once it
	// has seen the win (medium and hard at their depth, the expert on a
	// forced win), so this costs no more than a short one, and a busy
	// machine cannot stop the search before it evaluated e9 (it did, with
	// 200 ms: the expert played e9 first of its ordering, with eval 0).
	for _, lvl := range []Level{Medium, Hard, Expert} {
		c, err := Select(t.Context(), pos, lvl, time.Minute, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		if c.Ply.String() != "e9" || c.Eval < search.WinBound {
			t.Errorf("%s chose %s (eval %d), want the win e9", lvl, c.Ply, c.Eval)
		}
	}
}

func TestSelectBadInput(t *testing.T) {
	t.Parallel()
	start, err := games.New(engine.Quoridor, "", "")
	if err != nil {
		t.Fatal(err)
	}
	over := start
	for _, s := range []string{"e2", "e8", "e3", "e7", "e4", "e6", "e5", "d6", "e6", "d5", "e7", "d4", "e8", "d3", "e9"} {
		p, _ := over.ParsePly(s)
		if over, err = over.Play(p); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	tests := []struct {
		name   string
		view   engine.View
		level  Level
		budget time.Duration
		want   error
	}{
		{"unknown level", start, Level(9), time.Second, ErrUnknownLevel},
		{"unset level", start, 0, time.Second, ErrUnknownLevel},
		{"zero budget", start, Easy, 0, ErrBadBudget},
		{"negative budget", start, Hard, -time.Second, ErrBadBudget},
		{"finished game", over, Medium, time.Second, ErrGameOver},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Select(t.Context(), tt.view, tt.level, tt.budget, rand.New(rand.NewPCG(1, 1)))
			if !errors.Is(err, tt.want) {
				t.Errorf("Select = %v, want %v", err, tt.want)
			}
		})
	}
}

// TestDeadlineHonoured: a caller's deadline shorter than the budget stops
// the expert in time with a legal ply.
func TestDeadlineHonoured(t *testing.T) {
	t.Parallel()
	pos := midgame(t)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	const budget = time.Hour
	c, err := Select(ctx, pos, Expert, budget, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	// A search that ignored the deadline would run for the whole hour of
	// its budget (measured on the wall clock: the test binary's timeout
	// would end it); how soon after 50 ms it stops depends on the machine
	// (the search package checks that with a fake clock).
	if d := time.Since(start); d >= budget {
		t.Errorf("expert took %s with a 50ms deadline and a %v budget", d, budget)
	}
	if _, err := pos.Play(c.Ply); err != nil {
		t.Errorf("expert chose %s: %v", c.Ply, err)
	}
}

// TestDeadlinePassed: with the caller's deadline already passed, every
// level of every game still chooses a legal ply (a bot must answer
// whatever the deadline; the search then takes the best of its cheap
// move ordering).
func TestDeadlinePassed(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for _, tt := range []struct {
		game           engine.Game
		variant, setup string
	}{
		{engine.Quoridor, "standard", ""},
		{engine.Corners, "classic-3x3", ""},
		{engine.Banqi, "", "pnnAABcppKbcrkPbNpCBaNPRpaPRrPCP"},
	} {
		pos, err := games.New(tt.game, tt.variant, tt.setup)
		if err != nil {
			t.Fatal(err)
		}
		view := pos.View(pos.ToMove())
		for _, lvl := range Levels() {
			c, err := Select(ctx, view, lvl, time.Second, rand.New(rand.NewPCG(3, 4)))
			if err != nil {
				t.Errorf("%s %s: %v", tt.game, lvl, err)
				continue
			}
			if !slices.ContainsFunc(view.Legal(), func(p engine.Ply) bool { return p.String() == c.Ply.String() }) {
				t.Errorf("%s %s chose %s, not a legal ply", tt.game, lvl, c.Ply)
			}
		}
	}
}

func TestParseLevel(t *testing.T) {
	t.Parallel()
	for _, l := range Levels() {
		got, err := ParseLevel(l.String())
		if err != nil || got != l {
			t.Errorf("ParseLevel(%q) = %v, %v", l, got, err)
		}
	}
	if _, err := ParseLevel("grandmaster"); !errors.Is(err, ErrUnknownLevel) {
		t.Errorf("ParseLevel(grandmaster) = %v, want ErrUnknownLevel", err)
	}
}
