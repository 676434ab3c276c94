package serve

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/pkg/platform/testenv"
)

// lockedBuffer is a strings.Builder safe to read while a command writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// embedded-redis serves the embedded Redis until interrupted, with keys
// expiring on the wall clock.
func TestEmbeddedRedisCommand(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var out, errOut lockedBuffer
	done := make(chan int)
	go func() {
		done <- tab.Main(ctx, []string{"embedded-redis", "--addr", "127.0.0.1:0"}, func(string) string { return "" }, strings.NewReader(""), &out, &errOut)
	}()
	deadline := time.After(time.Until(testenv.Deadline(t)))
	poll := time.NewTicker(5 * time.Millisecond)
	defer poll.Stop()
	for !strings.HasSuffix(out.String(), "\n") {
		select {
		case <-deadline:
			t.Fatalf("no URL printed; stderr %q", errOut.String())
		case <-poll.C:
		}
	}
	opts, err := redis.ParseURL(strings.TrimSpace(out.String()))
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opts)
	defer func() { _ = c.Close() }()
	if err := c.Set(ctx, "k", "v", 10*time.Millisecond).Err(); err != nil {
		t.Fatal(err)
	}
	for c.Exists(ctx, "k").Val() == 1 {
		select {
		case <-deadline:
			t.Fatal("a key with a 10ms TTL never expired")
		case <-poll.C:
		}
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d after the interrupt", code)
	}
}
