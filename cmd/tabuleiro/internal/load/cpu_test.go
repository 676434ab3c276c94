package load

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	ptestenv "tabuleiro.dev/pkg/platform/testenv"
)

// TestMeterFindsLocalListeners: a process listening on a given address
// (this test's) is found and its processor time reported per ply.
func TestMeterFindsLocalListeners(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	m, err := NewMeter(t.Context(), [][2]string{{"lobby", l.Addr().String()}, {"match", l.Addr().String()}, {"bot", "127.0.0.1:1"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if pids := m.kinds["lobby+match"]; len(pids) != 1 || pids[0] != os.Getpid() {
		t.Fatalf("kinds %v, want this process (%d) as lobby+match", m.kinds, os.Getpid())
	}
	var out bytes.Buffer
	m.Write(t.Context(), &out, nil, 10)
	if !strings.Contains(out.String(), "CPU per ply: lobby+match ") {
		t.Errorf("report %q", out.String())
	}
}

// TestMeterRedisShards: with --redis the report gives Redis's commands per
// ply and the cross-slot errors since the start; on a cluster (the cluster
// step's URL) also a line per primary and their spread, and a cross-slot
// MSET is counted.
func TestMeterRedisShards(t *testing.T) {
	url := ptestenv.RedisURL(t)
	rdb, prefix := ptestenv.Redis(t, "meter")
	m, err := NewMeter(t.Context(), nil, url)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for i := range 30 {
		if err := rdb.Set(t.Context(), fmt.Sprintf("%s%d", prefix, i), "v", time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
	}
	cc, cluster := rdb.(*redis.ClusterClient)
	primaries := 0
	if cluster {
		// Two keys of different slots in one command, sent to a primary.
		var masters []*redis.Client
		var mu sync.Mutex
		_ = cc.ForEachMaster(t.Context(), func(ctx context.Context, n *redis.Client) error {
			mu.Lock()
			masters = append(masters, n)
			mu.Unlock()
			return nil
		})
		primaries = len(masters)
		if err := masters[0].MSet(t.Context(), prefix+"{a}", "1", prefix+"{b}", "2").Err(); err == nil || !strings.HasPrefix(err.Error(), "CROSSSLOT") {
			t.Fatalf("a cross-slot MSET: %v, want CROSSSLOT", err)
		}
	}
	var out bytes.Buffer
	m.Write(t.Context(), &out, nil, 10)
	report := out.String()
	t.Log(report)
	if !strings.Contains(report, "Redis commands per ply: ") {
		t.Errorf("no commands per ply in %q", report)
	}
	if got := strings.Count(report, "Redis primary "); got != primaries && (primaries != 1 || got != 0) {
		t.Errorf("%d primary lines, want %d, in %q", got, primaries, report)
	}
	if cluster {
		if strings.Contains(report, "Redis cross-slot errors: 0\n") || !strings.Contains(report, "Redis cross-slot errors: ") {
			t.Errorf("the cross-slot MSET was not counted in %q", report)
		}
	} else if !strings.Contains(report, "Redis cross-slot errors: 0\n") {
		t.Errorf("cross-slot errors on one server in %q", report)
	}
}
