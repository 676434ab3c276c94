package rpcerr_test

import (
	"database/sql"
	"errors"
	"fmt"
	"net"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"tabuleiro.dev/pkg/platform/rpcerr"
)

// closedAddr is a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// replyErr is an error reply of a Redis server, as go-redis returns it.
type replyErr string

func (e replyErr) Error() string { return string(e) }
func (replyErr) RedisError()     {}

// A store that cannot be reached is UNAVAILABLE (clients retry and
// reconnect), never INTERNAL: the errors are the real clients' own, from
// a Redis and a PostgreSQL address nothing listens on, and a closed client.
func TestUnreachableStoresAreUnavailable(t *testing.T) {
	addr := closedAddr(t)
	rdb := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	redisErr := rdb.Set(t.Context(), "k", "v", 0).Err()

	db, err := sql.Open("pgx", "postgres://u:p@"+addr+"/db?connect_timeout=2")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	pgErr := db.PingContext(t.Context())

	closed := redis.NewClient(&redis.Options{Addr: addr})
	_ = closed.Close()
	closedErr := closed.Get(t.Context(), "k").Err()

	m := rpcerr.Mapper{}
	for name, err := range map[string]error{
		"redis refused": fmt.Errorf("load match m1: %w", redisErr),
		"postgres down": fmt.Errorf("history: %w", pgErr),
		"redis closed":  closedErr,
		// A redirection past the cluster client's own (a failover moved
		// the slot while the client's map was stale: seen in
		// TestClusterPrimaryKilled as INTERNAL).
		"cluster moved": fmt.Errorf("enqueue: %w", replyErr("MOVED 125 127.0.0.1:33066")),
		"cluster ask":   replyErr("ASK 125 127.0.0.1:33066"),
	} {
		if err == nil {
			t.Fatalf("%s: no error from a closed address", name)
		}
		if got := status.Code(m.Status(err)); got != codes.Unavailable {
			t.Errorf("%s (%v): %v, want Unavailable", name, err, got)
		}
	}
	if got := status.Code(m.Status(errors.New("a bug"))); got != codes.Internal {
		t.Errorf("a plain error: %v, want Internal", got)
	}
	if got := status.Code(m.Status(replyErr("ERR wrong number of arguments"))); got != codes.Internal {
		t.Errorf("a plain error: %v, want Internal", got)
	}
}
