package rpc

import (
	"net"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/grpc/codes"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	"tabuleiro.dev/services/lobby/internal/glicko"
	"tabuleiro.dev/services/lobby/internal/sqlstore"
)

// With PostgreSQL down (its address refuses connections), a rated
// FindMatch still queues, at the initial rating, and so does a rated
// room; what needs PostgreSQL (a player's history) answers UNAVAILABLE,
// never INTERNAL.
func TestPostgresDownMatchmakingGoesOn(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	pool, err := pgxpool.New(t.Context(), "postgres://u:p@"+addr+"/db?connect_timeout=2")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	s, _ := newServer(t)
	s.d.Store = sqlstore.NewPostgres(pool, glicko.Default(), nil)
	ctx := as(t.Context(), "p_a")

	st := &findStream{ctx: ctx}
	err = s.FindMatch(&lobbyv1.FindMatchRequest{Game: gamev1.Game_GAME_QUORIDOR, Rated: true}, st)
	if len(st.sent) != 1 || st.sent[0].GetQueued() == nil {
		t.Fatalf("rated FindMatch with PostgreSQL down: sent %v, %v; want queued", st.sent, err)
	}
	if _, err := s.CreateRoom(ctx, &lobbyv1.CreateRoomRequest{Game: gamev1.Game_GAME_CORNERS, Rated: true,
		Visibility: lobbyv1.RoomVisibility_ROOM_VISIBILITY_PUBLIC}); err != nil {
		t.Fatalf("rated room with PostgreSQL down: %v", err)
	}
	_, err = s.ListGames(ctx, &lobbyv1.ListGamesRequest{PlayerId: "p_a"})
	wantCode(t, "history with PostgreSQL down", err, codes.Unavailable)
}
