package recorder_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/pkg/engine"
	ptestenv "tabuleiro.dev/pkg/platform/testenv"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/recorder"
	"tabuleiro.dev/services/match/internal/redisstore"
	"tabuleiro.dev/services/match/internal/sqlstore"
	"tabuleiro.dev/services/match/internal/testenv"
)

// countingOutbox counts the confirmations a frozen replica refused.
type countingOutbox struct {
	*redisstore.Store
	refused atomic.Int64
}

func (c *countingOutbox) ConfirmOutbox(ctx context.Context, ids []string, replicas int, timeout time.Duration) (map[string]bool, error) {
	got, err := c.Store.ConfirmOutbox(ctx, ids, replicas, timeout)
	if errors.Is(err, match.ErrNotReplicated) {
		c.refused.Add(1)
	}
	return got, err
}

// A game that ended on a primary whose replica does not have its end yet
// (commits not waiting for replicas: MATCH_REDIS_WAIT_REPLICAS=0) is not
// written to PostgreSQL: a failover now would promote a replica where the
// game is in progress, and PostgreSQL would hold a result for a game that
// goes on. Once the replica has it, it is recorded.
func TestRecordWaitsForAReplica(t *testing.T) {
	set := ptestenv.StartSentinelSet(t, 1)
	rdb := redis.NewClient(&redis.Options{Addr: set.Primary()})
	t.Cleanup(func() { _ = rdb.Close() })
	db := testenv.Postgres(t)
	store := redisstore.New(rdb, redisstore.Options{Prefix: "recwait:", FinishedTTL: time.Minute})
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	svc := match.NewService(match.Deps{Store: store, Rules: match.Registry{}}, match.Config{})

	st, err := svc.Create(ctx, match.CreateParams{RequestID: "wait-1", Game: engine.Quoridor,
		Seats: []match.Participant{{PlayerID: "p1", DisplayName: "One"}, {PlayerID: "p2", DisplayName: "Two"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.SubmitPly(ctx, st.ID, engine.First, 1, "e2"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.SubmitPly(ctx, st.ID, engine.Second, 2, "e8"); err != nil {
		t.Fatal(err)
	}
	set.Signal(set.Replicas[0], syscall.SIGSTOP)
	frozen := true
	defer func() {
		if frozen {
			set.Signal(set.Replicas[0], syscall.SIGCONT)
		}
	}()
	if err := svc.Resign(ctx, st.ID, engine.Second); err != nil {
		t.Fatal(err)
	}

	out := &countingOutbox{Store: store}
	rec := recorder.New(out, sqlstore.New(db), recorder.Config{
		Consumer: "only", Block: 20 * time.Millisecond, MinIdle: 50 * time.Millisecond, Retry: 10 * time.Millisecond,
		WaitReplicas: 1, WaitTimeout: 100 * time.Millisecond,
	}, testLogger(t))
	wg.Go(func() { _ = rec.Run(ctx) })
	count := func() int {
		var n int
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM games WHERE game_id = $1", st.ID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	testenv.Eventually(t, 10*time.Second, "three refused confirmations", func() bool { return out.refused.Load() >= 3 })
	if n := count(); n != 0 {
		t.Fatalf("the game was recorded while no replica had its end (%d rows)", n)
	}
	set.Signal(set.Replicas[0], syscall.SIGCONT)
	frozen = false
	testenv.Eventually(t, 10*time.Second, "the game recorded once the replica has it", func() bool { return count() == 1 })
}
