package rpc

import (
	"testing"

	"google.golang.org/grpc"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/games"
	botv1 "tabuleiro.dev/pkg/gen/tabuleiro/bot/v1"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	"tabuleiro.dev/pkg/platform/grpcserve"
	"tabuleiro.dev/pkg/platform/grpcserve/grpcservetest"
)

// BenchmarkSelectPly measures SelectPly's latency per level over loopback
// with the production interceptors (authentication aside) on a Quoridor
// midgame position, with each level's default budget.
func BenchmarkSelectPly(b *testing.B) {
	srv := grpcservetest.Start(b, grpcserve.Options{}, func(s *grpc.Server) {
		botv1.RegisterBotServiceServer(s, NewServer())
	})
	client := botv1.NewBotServiceClient(srv.Conn)
	p := midgame(b)
	for lvl := gamev1.BotLevel_BOT_LEVEL_EASY; lvl <= gamev1.BotLevel_BOT_LEVEL_EXPERT; lvl++ {
		b.Run(lvl.String(), func(b *testing.B) {
			req := &botv1.SelectPlyRequest{View: viewOf(p), Level: lvl, Seed: 1}
			var nodes, depth int64
			for b.Loop() {
				resp, err := client.SelectPly(b.Context(), req)
				if err != nil {
					b.Fatal(err)
				}
				nodes += resp.GetNodes()
				depth += int64(resp.GetDepth())
			}
			b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
			b.ReportMetric(float64(depth)/float64(b.N), "depth")
		})
	}
}

// midgame is the Quoridor position after 16 plies that the player
// package's benchmarks use too.
func midgame(tb testing.TB) engine.Position {
	tb.Helper()
	pos, err := games.New(engine.Quoridor, "standard", "")
	if err != nil {
		tb.Fatal(err)
	}
	for _, s := range []string{"e2", "e8", "e3", "e7", "e4", "e6", "d3h", "e6h", "f5v", "c6v", "e5", "d6", "a5h", "b3v", "f5", "d5"} {
		ply, err := pos.ParsePly(s)
		if err != nil {
			tb.Fatal(err)
		}
		if pos, err = pos.Play(ply); err != nil {
			tb.Fatalf("%s: %v", s, err)
		}
	}
	return pos
}
