package walredis

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/cmd/tabuleiro/internal/dirlock"
	"tabuleiro.dev/pkg/platform/testenv"
)

func open(t testing.TB, o Options) (*Store, *redis.Client) {
	t.Helper()
	s, err := Open(o)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	c := redis.NewClient(&redis.Options{Addr: s.Addr()})
	t.Cleanup(func() {
		_ = c.Close()
		_ = s.Close()
	})
	return s, c
}

// copyDir copies the store's files as they are on disk now: what a
// kill -9 at this moment would leave behind.
func copyDir(t testing.TB, dir string) string {
	t.Helper()
	dst := t.TempDir()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		in, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(filepath.Join(dst, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, in); err != nil {
			t.Fatal(err)
		}
		_ = in.Close()
		_ = out.Close()
	}
	return dst
}

// dump lists every key with its type, value and whether it has a TTL, in
// a stable text form.
func dump(t testing.TB, c *redis.Client) string {
	t.Helper()
	ctx := context.Background()
	keys, err := c.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		typ := c.Type(ctx, k).Val()
		var v any
		switch typ {
		case "string":
			v = c.Get(ctx, k).Val()
		case "list":
			v = c.LRange(ctx, k, 0, -1).Val()
		case "set":
			v = c.SMembers(ctx, k).Val()
		case "hash":
			v = c.HGetAll(ctx, k).Val()
		case "zset":
			v = c.ZRangeWithScores(ctx, k, 0, -1).Val()
		case "stream":
			v = c.XRange(ctx, k, "-", "+").Val()
		}
		ttl := c.PTTL(ctx, k).Val() > 0
		fmt.Fprintf(&b, "%s %s ttl=%v %v\n", k, typ, ttl, v)
	}
	return b.String()
}

var commitLike = redis.NewScript(`
local v = redis.call('HGET', KEYS[1], 'v')
if v ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 's', ARGV[3])
redis.call('RPUSH', KEYS[2], ARGV[3])
redis.call('XADD', KEYS[3], 'MAXLEN', 5, ARGV[2] .. '-1', 'e', ARGV[3])
redis.call('XADD', KEYS[4], '*', 'id', ARGV[3])
redis.call('PUBLISH', 'chan', ARGV[3])
for k = 1, 3 do redis.call('PEXPIRE', KEYS[k], 3600000) end
redis.call('ZADD', KEYS[5], ARGV[2], 'm')
return 1
`)

var readOnly = redis.NewScript(`return redis.call('HGET', KEYS[1], 'v')`)

// Everything acknowledged is on disk when the reply arrives: a copy of
// the directory taken right after each reply (what kill -9 would leave)
// opens with every write in it, scripts replayed by their effects
// (stream ids chosen by '*' included) and MULTI blocks whole.
func TestAcknowledgedWritesSurviveACrash(t *testing.T) {
	dir := t.TempDir()
	s, c := open(t, Options{Dir: dir})
	ctx := context.Background()
	keys := []string{"m", "m:p", "m:e", "outbox", "deadlines"}
	if err := c.HSet(ctx, "m", "v", "0").Err(); err != nil {
		t.Fatal(err)
	}
	syncs := s.Syncs()
	for i := range 20 {
		n, err := commitLike.Run(ctx, c, keys, i, i+1, fmt.Sprintf("ply-%d", i)).Int()
		if err != nil || n != 1 {
			t.Fatalf("commit %d: %d %v", i, n, err)
		}
		if _, err := readOnly.Run(ctx, c, keys[:1]).Result(); err != nil {
			t.Fatal(err)
		}
		if i%5 == 0 {
			if _, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Set(ctx, fmt.Sprintf("tx:%d", i), "a", time.Hour)
				p.Incr(ctx, "counter")
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		want := dump(t, c)
		crashed := copyDir(t, dir)
		s2, c2 := open(t, Options{Dir: crashed})
		if got := dump(t, c2); got != want {
			t.Fatalf("after commit %d, the copy holds\n%s\nwant\n%s", i, got, want)
		}
		_ = c2.Close()
		_ = s2.Close()
	}
	if s.Syncs() == syncs {
		t.Error("no fsync")
	}
}

// Keys expire on their deadline, by the timer, with no command to wake
// the store; PTTL counts down; a restart keeps the deadline (not the TTL
// left at the time of the write).
func TestExpiryByDeadline(t *testing.T) {
	dir := t.TempDir()
	s, c := open(t, Options{Dir: dir})
	ctx := context.Background()
	if err := c.Set(ctx, "short", "x", 50*time.Millisecond).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.Set(ctx, "long", "x", time.Hour).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.Set(ctx, "none", "x", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if d := c.PTTL(ctx, "long").Val(); d < 59*time.Minute || d > time.Hour {
		t.Errorf("PTTL long = %v", d)
	}
	if d := c.TTL(ctx, "none").Val(); d != -1 {
		t.Errorf("TTL of a key without one = %v", d)
	}
	if d := c.TTL(ctx, "missing").Val(); d != -2 {
		t.Errorf("TTL of a missing key = %v", d)
	}
	deadline := testenv.Deadline(t)
	for s.exp.len() != 1 || s.m.Exists("short") {
		if time.Now().After(deadline) {
			t.Fatal("the 50 ms key never expired")
		}
		time.Sleep(5 * time.Millisecond)
	}
	// SET without a TTL drops it; PERSIST too.
	c.Set(ctx, "long2", "x", time.Hour)
	c.Set(ctx, "long2", "y", 0)
	if d := c.TTL(ctx, "long2").Val(); d != -1 {
		t.Errorf("TTL after a plain SET = %v", d)
	}
	want := dump(t, c)
	_ = c.Close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	_, c2 := open(t, Options{Dir: dir})
	if got := dump(t, c2); got != want {
		t.Fatalf("after a restart\n%s\nwant\n%s", got, want)
	}
	if d := c2.PTTL(ctx, "long").Val(); d < 59*time.Minute || d > time.Hour {
		t.Errorf("PTTL long after a restart = %v", d)
	}
}

// A record cut in the middle (a crash during the write) is dropped at the
// next start, and the log goes on after it.
func TestTornTail(t *testing.T) {
	dir := t.TempDir()
	s, c := open(t, Options{Dir: dir})
	ctx := context.Background()
	c.Set(ctx, "a", "1", 0)
	c.Set(ctx, "b", "2", 0)
	_ = c.Close()
	_ = s.Close()
	segs, _, _ := listFiles(dir)
	path := filepath.Join(dir, segName(segs[len(segs)-1]))
	st, _ := os.Stat(path)
	if err := os.Truncate(path, st.Size()-3); err != nil {
		t.Fatal(err)
	}
	s2, c2 := open(t, Options{Dir: dir})
	if got := dump(t, c2); got != "a string ttl=false 1\n" {
		t.Fatalf("after the torn record: %q", got)
	}
	c2.Set(ctx, "c", "3", 0)
	_ = c2.Close()
	_ = s2.Close()
	_, c3 := open(t, Options{Dir: dir})
	if got := dump(t, c3); got != "a string ttl=false 1\nc string ttl=false 3\n" {
		t.Fatalf("after another restart: %q", got)
	}
}

// Compaction replaces the log by a snapshot, in the background, and a
// restart from snapshot plus tail gives the same data.
func TestCompaction(t *testing.T) {
	dir := t.TempDir()
	s, c := open(t, Options{Dir: dir, CompactMinBytes: 4 << 10})
	ctx := context.Background()
	for i := range 400 {
		if err := c.Set(ctx, fmt.Sprintf("k%d", i%50), strings.Repeat("v", i), time.Hour).Err(); err != nil {
			t.Fatal(err)
		}
		c.RPush(ctx, "list", i)
		c.ZAdd(ctx, "z", redis.Z{Score: float64(i), Member: i % 7})
		c.XAdd(ctx, &redis.XAddArgs{Stream: "st", Values: []any{"i", i}})
	}
	deadline := testenv.Deadline(t)
	for s.compacting.Load() || s.snapBytes.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no compaction")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := s.CompactionError(); err != nil {
		t.Fatal(err)
	}
	segs, snaps, _ := listFiles(dir)
	if len(snaps) != 1 || len(segs) > 3 {
		t.Errorf("after compaction: segments %v, snapshots %v", segs, snaps)
	}
	want := dump(t, c)
	crashed := copyDir(t, dir)
	_, c2 := open(t, Options{Dir: crashed})
	if got := dump(t, c2); got != want {
		t.Fatalf("after a restart from snapshot and tail\n%.500s\nwant\n%.500s", got, want)
	}
}

// Commands the log cannot replay faithfully are refused with a reason.
func TestRefused(t *testing.T) {
	_, c := open(t, Options{Dir: t.TempDir()})
	ctx := context.Background()
	for _, args := range [][]any{{"WATCH", "k"}, {"SELECT", "1"}, {"BLPOP", "l", "1"}, {"PFADD", "h", "a"}, {"HEXPIRE", "h", "10", "FIELDS", "1", "f"}} {
		err := c.Do(ctx, args...).Err()
		if err == nil || !strings.Contains(err.Error(), "embedded store") {
			t.Errorf("%v: %v", args, err)
		}
	}
	if err := c.Eval(ctx, `return redis.call('PTTL', KEYS[1])`, []string{"k"}).Err(); err == nil || !strings.Contains(err.Error(), "embedded store") {
		t.Errorf("PTTL in a script: %v", err)
	}
}

// Concurrent writers share fsyncs (group commit); with compactions running
// meanwhile, a copy of the directory taken after the last reply reopens
// with every counter at the value its writer was last told, and the
// script-built lists in the order the writers saw.
func TestConcurrentWritersAndCompaction(t *testing.T) {
	dir := t.TempDir()
	s, c := open(t, Options{Dir: dir, CompactMinBytes: 8 << 10})
	ctx := context.Background()
	push := redis.NewScript(`
local n = redis.call('INCR', KEYS[1])
redis.call('RPUSH', KEYS[2], n)
redis.call('PEXPIRE', KEYS[2], 3600000)
return n`)
	const writers, each = 8, 150
	errs := make(chan error, writers)
	last := make([]int64, writers)
	for w := range writers {
		go func() {
			for i := range each {
				k := fmt.Sprintf("w%d", w)
				n, err := push.Run(ctx, c, []string{k, k + ":list"}).Int64()
				if err != nil || n != int64(i+1) {
					errs <- fmt.Errorf("writer %d: %d %v", w, n, err)
					return
				}
				last[w] = n
				if err := c.Set(ctx, k+":plain", i, time.Hour).Err(); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range writers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	// A copy is not atomic: let a compaction that is deleting files end.
	for s.compacting.Load() {
		time.Sleep(5 * time.Millisecond)
	}
	if err := s.CompactionError(); err != nil {
		t.Fatal(err)
	}
	writes := int64(writers * each * 2)
	t.Logf("%d writes, %d fsyncs", writes, s.Syncs())
	if s.Syncs() >= writes {
		t.Errorf("%d fsyncs for %d concurrent writes: no group commit", s.Syncs(), writes)
	}
	_, snaps, _ := listFiles(dir)
	want := dump(t, c)
	crashed := copyDir(t, dir)
	_, c2 := open(t, Options{Dir: crashed})
	if got := dump(t, c2); got != want {
		t.Fatalf("after a restart\n%.1000s\nwant\n%.1000s", got, want)
	}
	for w := range writers {
		if n, _ := c2.Get(ctx, fmt.Sprintf("w%d", w)).Int64(); n != last[w] {
			t.Errorf("writer %d: counter %d after the restart, was told %d", w, n, last[w])
		}
	}
	if len(snaps) == 0 {
		t.Error("no compaction ran")
	}
}

// XINFO CONSUMERS counts a consumer's idle time from its last read, as
// Redis does (miniredis alone reports -1 for consumers XREADGROUP made).
func TestConsumerIdle(t *testing.T) {
	_, c := open(t, Options{Dir: t.TempDir()})
	ctx := context.Background()
	if err := c.XGroupCreateMkStream(ctx, "s", "g", "0").Err(); err != nil {
		t.Fatal(err)
	}
	c.XAdd(ctx, &redis.XAddArgs{Stream: "s", Values: []any{"a", 1}})
	before := time.Now()
	if err := c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g", Consumer: "c1", Streams: []string{"s", ">"}, Count: 1, Block: -1}).Err(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(60 * time.Millisecond)
	cs, err := c.XInfoConsumers(ctx, "s", "g").Result()
	if err != nil || len(cs) != 1 {
		t.Fatalf("XINFO CONSUMERS = %v, %v", cs, err)
	}
	if cs[0].Name != "c1" || cs[0].Pending != 1 || cs[0].Idle < 60*time.Millisecond || cs[0].Idle > time.Since(before) {
		t.Errorf("consumer %+v, want c1 with 1 pending, idle from 60ms to the time since the read", cs[0])
	}
	if err := c.XGroupDelConsumer(ctx, "s", "g", "c1").Err(); err != nil {
		t.Fatal(err)
	}
	if cs, _ := c.XInfoConsumers(ctx, "s", "g").Result(); len(cs) != 0 {
		t.Errorf("after DELCONSUMER: %+v", cs)
	}
}

// TestOneProcessPerDirectory: a second store on a directory whose log is
// open is refused, naming the process that holds it, and nothing of the
// first one's log changes; once the first is closed the directory opens.
// (Two writers numbered their entries each their own way, and the next
// start refused the log.)
func TestOneProcessPerDirectory(t *testing.T) {
	dir := t.TempDir()
	s, c := open(t, Options{Dir: dir})
	ctx := context.Background()
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	second, err := Open(Options{Dir: dir})
	var inUse *dirlock.BusyError
	if !errors.As(err, &inUse) {
		if second != nil {
			_ = second.Close()
		}
		t.Fatalf("second Open of %s: %v, want a *dirlock.BusyError", dir, err)
	}
	if want := fmt.Sprintf("process %d", os.Getpid()); inUse.PID != os.Getpid() || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), want) {
		t.Errorf("refusal %q (pid %d), want one naming %s and %s", err, inUse.PID, dir, want)
	}
	if err := c.Set(ctx, "k2", "v2", 0).Err(); err != nil {
		t.Fatalf("the first store after the refusal: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	again, c2 := open(t, Options{Dir: dir})
	_ = again
	for k, want := range map[string]string{"k": "v", "k2": "v2"} {
		if got, err := c2.Get(ctx, k).Result(); err != nil || got != want {
			t.Errorf("after reopening, %s = %q, %v; want %q", k, got, err, want)
		}
	}
}
