package rpc

import (
	"context"
	"net"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"tabuleiro.dev/services/lobby/internal/accounts"
	"tabuleiro.dev/services/lobby/internal/glicko"
	"tabuleiro.dev/services/lobby/internal/lobby"
	"tabuleiro.dev/services/lobby/internal/sqlstore"
	"tabuleiro.dev/services/lobby/internal/testenv"
)

// specs records the matches asked for.
type specs struct{ got []lobby.MatchSpec }

func (r *specs) CreateMatch(_ context.Context, spec lobby.MatchSpec) (string, error) {
	r.got = append(r.got, spec)
	return "m-1", nil
}

// NamedMatches names an account's seat by its username (whatever name
// it was queued under) and leaves a guest's and a bot's alone; with
// PostgreSQL down the match is still created, under the names given.
func TestNamedMatches(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store := sqlstore.NewPostgres(testenv.Postgres(t), glicko.Default(), nil)
	for _, id := range []string{"p_ana", "p_bia"} {
		if err := store.SavePlayer(ctx, lobby.Player{ID: id, DisplayName: "Guest " + id}); err != nil {
			t.Fatal(err)
		}
	}
	u, err := accounts.ParseUsername("Ana_B")
	if err != nil {
		t.Fatal(err)
	}
	if err := store.CreateAccount(ctx, sqlstore.Account{PlayerID: "p_ana", Username: u.Name, Key: u.Key, Skeleton: u.Skeleton,
		ShownSkeleton: u.Shown, PasswordHash: "x"}); err != nil {
		t.Fatal(err)
	}
	rec := &specs{}
	spec := lobby.MatchSpec{RequestID: "pair-1", First: lobby.Participant{PlayerID: "p_ana", DisplayName: "Ana"},
		Second: lobby.Participant{PlayerID: "p_bia", DisplayName: "Bia"}}
	if _, err := NamedMatches(rec, store).CreateMatch(ctx, spec); err != nil {
		t.Fatal(err)
	}
	got := rec.got[0]
	if got.First.Username != "Ana_B" || got.First.DisplayName != "Ana_B" || got.Second.Username != "" || got.Second.DisplayName != "Bia" {
		t.Errorf("seats %+v %+v; want the account named by its username, the guest as it was", got.First, got.Second)
	}
	bot := lobby.MatchSpec{RequestID: "bot-1", First: lobby.Participant{PlayerID: "p_ana", DisplayName: "Ana"}, Second: lobby.Participant{Bot: 2}}
	if _, err := NamedMatches(rec, store).CreateMatch(ctx, bot); err != nil {
		t.Fatal(err)
	}
	if got := rec.got[1]; got.First.Username != "Ana_B" || got.Second != (lobby.Participant{Bot: 2}) {
		t.Errorf("bot game seats %+v %+v", got.First, got.Second)
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	pool, err := pgxpool.New(ctx, "postgres://u:p@"+addr+"/db?connect_timeout=2")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	down := sqlstore.NewPostgres(pool, glicko.Default(), nil)
	if _, err := NamedMatches(rec, down).CreateMatch(ctx, spec); err != nil {
		t.Fatalf("PostgreSQL down: %v", err)
	}
	if got := rec.got[2]; got.First.DisplayName != "Ana" || got.First.Username != "" {
		t.Errorf("PostgreSQL down: first seat %+v, want it as given", got.First)
	}
}
