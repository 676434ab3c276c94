package tournament

import (
	"bytes"
	"errors"
	"math"
	"strings"
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
	var progress, table bytes.Buffer
	res, err := Run(t.Context(), Config{
		Game: engine.Corners, Variant: "classic-3x3", A: "medium", B: "easy",
		Games: 2, Budget: 10 * time.Millisecond, Seed: 3, Opening: 2, Progress: &progress,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Games() != 2 || res.Think[0].N == 0 || res.Think[1].N == 0 || res.Plies != res.Think[0].N+res.Think[1].N {
		t.Errorf("result %+v: want 2 games with think times for both sides", res)
	}
	if n := strings.Count(progress.String(), "\n"); n != 2 {
		t.Errorf("progress has %d lines, want one per game:\n%s", n, progress.String())
	}
	res.WriteTable(&table)
	for _, want := range []string{"corners classic-3x3: medium (A) vs easy (B), 2 games", "Elo A-B:", "A medium", "B easy", "endings:"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
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
