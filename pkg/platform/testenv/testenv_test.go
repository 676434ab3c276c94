package testenv

import (
	"context"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// A test's keys live under its own prefix and are gone once it ends.
func TestRedisDeletesThePrefixAtCleanup(t *testing.T) {
	t.Parallel()
	var prefix string
	t.Run("inner", func(t *testing.T) {
		rdb, p := Redis(t, "platform")
		prefix = p
		if !strings.HasPrefix(p, "test-platform-") || !strings.HasSuffix(p, ":") {
			t.Fatalf("prefix %q; want test-platform-<random>:", p)
		}
		pipe := rdb.Pipeline()
		for i := range 1200 { // more than one scan page and one delete batch
			pipe.Set(t.Context(), fmt.Sprintf("%sk%d", p, i), i, 0)
		}
		if _, err := pipe.Exec(t.Context()); err != nil {
			t.Fatal(err)
		}
	})
	rdb, _ := Redis(t, "platform")
	keys, err := rdb.Keys(t.Context(), prefix+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 0 {
		t.Fatalf("%d keys left under %q after the test ended", len(keys), prefix)
	}
}

// The DSN's search path is an empty schema of its own, dropped at the end.
func TestPostgresDSNIsAFreshSchemaDroppedAtCleanup(t *testing.T) {
	t.Parallel()
	var schema string
	t.Run("inner", func(t *testing.T) {
		conn, err := pgx.Connect(t.Context(), PostgresDSN(t))
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = conn.Close(t.Context()) }()
		if err := conn.QueryRow(t.Context(), "SELECT current_schema()").Scan(&schema); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(schema, "test_") {
			t.Fatalf("current schema %q; want a fresh test_ one", schema)
		}
		if _, err := conn.Exec(t.Context(), "CREATE TABLE t (x int)"); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := conn.QueryRow(t.Context(), "SELECT count(*) FROM information_schema.tables WHERE table_schema = $1", schema).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Fatalf("%d tables in %s; want only the one just created", n, schema)
		}
	})
	conn, err := pgx.Connect(t.Context(), PostgresDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close(t.Context()) }()
	var n int
	if err := conn.QueryRow(t.Context(), "SELECT count(*) FROM information_schema.schemata WHERE schema_name = $1", schema).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("schema %s still exists after the test ended", schema)
	}
}

func TestEventuallyWaitsForTheCondition(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	Eventually(t, 5*time.Second, "the third call", func() bool { return calls.Add(1) >= 3 })
	if got := calls.Load(); got != 3 {
		t.Fatalf("cond called %d times; want 3", got)
	}
}

func TestDeadline(t *testing.T) {
	d := Deadline(t)
	if !d.After(time.Now()) {
		t.Fatalf("Deadline %v is already past", d)
	}
	if end, ok := t.Deadline(); ok && !d.Before(end) {
		t.Errorf("Deadline %v is not before the binary's %v", d, end)
	}
	ctx := Context(t, context.Background())
	if cd, ok := ctx.Deadline(); !ok || cd.Sub(d).Abs() > time.Second {
		t.Errorf("Context deadline %v, %v; want about %v", cd, ok, d)
	}
}

// fatalTB records the message of Fatalf and ends the goroutine, as
// testing.T does, without failing the test that runs it.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// A condition that never holds fails after the limit (not at the test's
// deadline, which fatalTB does not have: Deadline gives 15 minutes), and
// the message says how long it waited and for what.
func TestEventuallyGivesUpAtItsLimit(t *testing.T) {
	t.Parallel()
	tb := &fatalTB{TB: t}
	done := make(chan time.Duration)
	go func() {
		start := time.Now()
		defer func() { done <- time.Since(start) }()
		eventually(tb, 10*time.Millisecond, 200*time.Millisecond, "a condition that never holds", func() bool { return false })
	}()
	select {
	case took := <-done:
		if took < 200*time.Millisecond {
			t.Errorf("gave up after %v; want at least the limit, 200ms", took)
		}
		if !strings.Contains(tb.msg, "a condition that never holds") || !regexp.MustCompile(`after \d+(\.\d+)?(ms|s|m)`).MatchString(tb.msg) {
			t.Errorf("message %q; want how long it waited and what for", tb.msg)
		}
	case <-time.After(time.Minute):
		t.Fatal("still waiting after a minute; want it to give up after its 200ms limit")
	}
}

// The limit is minutes, and more for a condition slow even on an idle
// machine: a loaded machine under -race is slow, not hung.
func TestEventuallyLimit(t *testing.T) {
	for _, c := range []struct{ within, want time.Duration }{
		{10 * time.Millisecond, 3 * time.Minute},
		{15 * time.Second, 3 * time.Minute},
		{time.Minute, 10 * time.Minute},
	} {
		if got := waitLimit(c.within); got != c.want {
			t.Errorf("waitLimit(%v) = %v; want %v", c.within, got, c.want)
		}
	}
}
