package e2e

import (
	"context"
	"log/slog"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"tabuleiro.dev/pkg/platform/testenv"
	"tabuleiro.dev/services/edge/edgeproxy"
)

// TestGameThroughEdge serves lobby, match and bot, puts the edge in front
// of lobby and match, and plays a bot game with both clients on the edge's
// one address: PlayBot goes to lobby, the Play stream to match.
func TestGameThroughEdge(t *testing.T) {
	t.Parallel()
	s := startStack(t, stackOptions{})
	ctx, cancel := context.WithDeadline(context.Background(), testenv.Deadline(t))
	defer cancel()
	e, err := edgeproxy.New(ctx, edgeproxy.Config{Lobby: s.lobbyAddr, Match: s.matchAddr})
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- edgeproxy.Serve(ctx, lis, e, nil, 5*time.Second, slog.New(slog.DiscardHandler)) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("edge: %v", err)
		}
	})
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	id, plies := s.playBotGame(ctx, t, conn, conn, 3)
	if id == "" || plies < 3 {
		t.Fatalf("game %q through the edge: %d plies", id, plies)
	}
}
