package redisconn_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"

	"tabuleiro.dev/pkg/platform/redisconn"
)

// go-redis's own lines (here: a Sentinel that does not answer) come out
// as JSON objects through the service's logger, not plain text.
func TestRedisLogsAreJSON(t *testing.T) {
	var buf syncBuffer
	redisconn.LogTo(slog.New(slog.NewJSONHandler(&buf, nil)))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	rdb, err := redisconn.Open("redis://" + addr + "/0?master_name=tabuleiro&dial_timeout=200ms")
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	_ = rdb.Ping(t.Context()).Err()
	out := buf.String()
	if out == "" {
		t.Fatal("go-redis logged nothing about an unreachable Sentinel")
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil || m["component"] != "go-redis" {
			t.Fatalf("line %q: not a JSON object of go-redis's (%v)", line, err)
		}
	}
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
