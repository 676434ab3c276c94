package tournament

import (
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc"

	"tabuleiro.dev/pkg/engine"
	botv1 "tabuleiro.dev/pkg/gen/tabuleiro/bot/v1"
	"tabuleiro.dev/pkg/platform/grpcserve"
	"tabuleiro.dev/pkg/platform/grpcserve/grpcservetest"
	"tabuleiro.dev/services/bot/internal/rpc"
)

func TestRunSmallMatch(t *testing.T) {
	t.Parallel()
	var progress []int
	res, err := Run(t.Context(), Config{
		Game: engine.Corners, Variant: "classic-3x3", A: "medium", B: "easy",
		Games: 2, Budget: 10 * time.Millisecond, Seed: 3, Opening: 2, Progress: func(done int, sofar Result) { progress = append(progress, done*10+sofar.Games()) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Games() != 2 || res.Think[0].N == 0 || res.Think[1].N == 0 || res.Plies != res.Think[0].N+res.Think[1].N {
		t.Errorf("result %+v: want 2 games with think times for both sides", res)
	}
	if !slices.Equal(progress, []int{11, 22}) { // games done, and the result's games, after each game
		t.Errorf("progress %v: want a call after each game with the result so far", progress)
	}
	n := 0
	for _, k := range res.Endings {
		n += k
	}
	if n != 2 {
		t.Errorf("endings %v: want the 2 games' endings", res.Endings)
	}
}

func TestRunBadConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  Config
		want error
	}{
		{"unknown level", Config{Game: engine.Quoridor, A: "grandmaster", B: "easy", Games: 1}, ErrBadConfig},
		{"no games", Config{Game: engine.Quoridor, A: "easy", B: "easy"}, ErrBadConfig},
		{"negative budget", Config{Game: engine.Quoridor, A: "easy", B: "easy", Games: 1, Budget: -1}, ErrBadConfig},
		{"unknown variant", Config{Game: engine.Corners, Variant: "5x5", A: "easy", B: "easy", Games: 1}, engine.ErrUnknownVariant},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Run(t.Context(), tt.cfg); !errors.Is(err, tt.want) {
				t.Errorf("Run = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestElo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                string
		wins, draws, losses int
		want                float64
	}{
		{"even", 10, 0, 10, 0},
		{"all draws", 0, 8, 0, 0},
		{"three quarters", 15, 0, 5, 190.85},
		{"one quarter", 5, 0, 15, -190.85},
		{"draws count half", 10, 10, 0, 190.85},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Result{Wins: tt.wins, Draws: tt.draws, Losses: tt.losses}
			d, lo, hi := r.Elo()
			if math.Abs(d-tt.want) > 0.01 || lo >= d && tt.wins+tt.losses > 0 || hi <= d && tt.wins+tt.losses > 0 {
				t.Errorf("Elo = %.2f [%.2f, %.2f], want %.2f inside its interval", d, lo, hi, tt.want)
			}
		})
	}
	d, lo, _ := Result{Wins: 20}.Elo()
	if !math.IsInf(d, 1) || math.IsInf(lo, 0) || lo <= 0 {
		t.Errorf("20-0: Elo %v with low %v, want +inf with a finite positive low end", d, lo)
	}
	// A clean sweep has a finite end to its interval: the bound a table
	// prints.
	for _, r := range []Result{{Losses: 2}, {Wins: 2}, {Losses: 10}} {
		d, lo, hi := r.Elo()
		if !math.IsInf(d, 0) || math.IsInf(lo, 0) && math.IsInf(hi, 0) {
			t.Errorf("%d-%d: Elo %v [%v, %v], want an infinite estimate with one finite end", r.Wins, r.Losses, d, lo, hi)
		}
	}
}

// TestRunRemote plays through a BotService over bufconn, as `tabuleiro
// bots --server` does.
func TestRunRemote(t *testing.T) {
	t.Parallel()
	srv := grpcservetest.Start(t, grpcserve.Options{}, func(s *grpc.Server) {
		botv1.RegisterBotServiceServer(s, rpc.NewServer())
	})
	res, err := Run(t.Context(), Config{
		Game: engine.Banqi, A: "medium", B: "easy", Games: 2, Budget: 10 * time.Millisecond,
		Seed: 4, MaxPlies: 60, Remote: botv1.NewBotServiceClient(srv.Conn),
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Games() != 2 || res.Plies == 0 || res.Think[0].N == 0 {
		t.Errorf("remote match %+v: want 2 games played", res)
	}
}

// TestRate checks the Bradley–Terry fit on made-up matches: equal records
// rate equal, a level that beats another three games in four is about 191
// Elo above it, and the anchor is 0 with a zero-width interval.
func TestRate(t *testing.T) {
	t.Parallel()
	m := func(a, b string, w, d, l int) Result {
		return Result{Config: Config{A: a, B: b}, Wins: w, Draws: d, Losses: l}
	}
	rs := rate([]string{"easy", "medium", "hard"}, []Result{
		m("easy", "medium", 999, 0, 2997), // virtual draws hardly matter at this size
		m("easy", "hard", 0, 10, 0),
		m("medium", "hard", 0, 0, 0),
	})
	got := map[string]Rating{}
	for _, r := range rs {
		got[r.Level] = r
	}
	if e := got["easy"]; e.Elo != 0 || e.Low != 0 || e.High != 0 {
		t.Errorf("anchor easy = %+v, want 0 [0, 0]", e)
	}
	if d := got["medium"].Elo; math.Abs(d-190.8) > 1 {
		t.Errorf("medium = %.1f Elo, want about 190.8 (3 games in 4 against easy)", d)
	}
	if h := got["hard"]; math.Abs(h.Elo) > 1e-6 || !(h.Low < 0 && h.High > 0) {
		t.Errorf("hard = %+v, want 0 with an interval around it (10 draws with easy)", h)
	}
	if rs[0].Level != "medium" {
		t.Errorf("ratings not strongest first: %+v", rs)
	}
	// A level that won every game still gets a finite rating.
	rs = rate([]string{"easy", "expert"}, []Result{m("expert", "easy", 20, 0, 0)})
	for _, r := range rs {
		if math.IsInf(r.Elo, 0) || math.IsInf(r.High, 0) || (r.Level == "expert" && r.Elo < 300) {
			t.Errorf("all-wins rating %+v: want finite and high", r)
		}
	}
}

func TestLadderSmall(t *testing.T) {
	t.Parallel()
	res, err := Ladder(t.Context(), LadderConfig{
		Game: engine.Corners, Variant: "classic-3x3", Levels: []string{"easy", "medium", "expert-1"},
		Games: 2, Budget: 10 * time.Millisecond, Seed: 5, Opening: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Matches) != 3 || len(res.Ratings) != 3 {
		t.Fatalf("%d matches, %d ratings: want 3 and 3", len(res.Matches), len(res.Ratings))
	}
	if res.Ratings[0].Level == "" || len(res.Config.Levels) != 3 {
		t.Errorf("ratings %+v", res.Ratings)
	}
	if _, err := Ladder(t.Context(), LadderConfig{Game: engine.Corners, Levels: []string{"easy", "easy"}, Games: 2}); !errors.Is(err, ErrBadConfig) {
		t.Errorf("a ladder of one level twice: %v, want ErrBadConfig", err)
	}
}
