package scaletest

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/cmd/tabuleiro/internal/client"
	"tabuleiro.dev/cmd/tabuleiro/internal/load"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
)

var (
	benchPlayers  = flag.Int("load.players", 2000, "BenchmarkCluster: simulated players")
	benchDuration = flag.Duration("load.duration", 15*time.Second, "BenchmarkCluster: queuing time")
	benchMatches  = flag.Int("load.matches", 3, "BenchmarkCluster: match instances")
	benchThink    = flag.Duration("load.think", 0, "BenchmarkCluster: each player's pause before a ply")
	benchAffinity = flag.Bool("load.affinity", false, "BenchmarkCluster: both seats of a match play on the same match instance (load.Config.MatchAffinity)")
	benchMatchEnv = flag.String("load.matchenv", "", "BenchmarkCluster: extra environment of the match instances, VAR=VALUE[,VAR=VALUE...] (e.g. GOGC=200)")
)

// BenchmarkCluster runs `tabuleiro load` against a 2-lobby, N-match, 2-bot
// cluster and reports plies/s, the ply round trip, Redis bytes per live
// game and match RSS per connected player. One iteration is one run:
//
//	go test -run '^$' -bench Cluster -benchtime 1x ./cmd/tabuleiro/internal/scaletest/ -load.players 4000
func BenchmarkCluster(b *testing.B) {
	var env []string
	if *benchMatchEnv != "" {
		env = strings.Split(*benchMatchEnv, ",")
	}
	c := Start(b, Options{Lobbies: 2, Matches: *benchMatches, Bots: 2, MatchEnv: env})
	for b.Loop() {
		mem0 := usedMemory(b, c)
		cpu0 := c.CPU()
		self0 := SelfCPU()
		cmds0 := commandCalls(b, c)
		sw0 := matchSwitches(c)
		var peakMem, peakRSS int64
		var peakLive int64
		done := make(chan struct{})
		stopped := make(chan struct{})
		go func() { // sampled once a second while the run lasts
			defer close(stopped)
			tk := time.NewTicker(time.Second)
			defer tk.Stop()
			keysAt := time.Now().Add(*benchDuration * 4 / 5)
			for {
				select {
				case <-done:
					return
				case <-tk.C:
				}
				peakMem = max(peakMem, usedMemory(b, c)-mem0)
				var rss int64
				for _, m := range c.Match {
					rss += m.RSS()
				}
				peakRSS = max(peakRSS, rss)
				if *benchKeys && !keysAt.IsZero() && time.Now().After(keysAt) {
					keysAt = time.Time{}
					keyMemory(b.Context(), c, liveGames(b.Context(), c))
				}
			}
		}()
		rep, err := load.Run(b.Context(), load.Config{
			Lobby: c.LobbyAddrs, Match: c.MatchAddrs, Players: *benchPlayers, Duration: *benchDuration, Drain: 10 * time.Second,
			Think: *benchThink, MatchAffinity: *benchAffinity, Wander: 200, TimeControl: &gamev1.TimeControl{BaseMs: 3_600_000}, Progress: os.Stderr,
		})
		close(done)
		<-stopped
		if err != nil {
			b.Fatal(err)
		}
		cpu := c.CPU()
		self := SelfCPU() - self0
		peakLive = rep.PeakLive
		rep.Write(os.Stderr, nil)
		b.ReportMetric(rep.PliesPerSecond(), "plies/s")
		b.ReportMetric(float64(rep.PlyRTT.P99.Microseconds())/1000, "p99-ms")
		b.ReportMetric(float64(peakLive), "peak-games")
		// Processor time per ply is what a shared, noisy machine measures
		// steadily: the services' (match, lobby, bot, Redis, PostgreSQL
		// excluded) and the load generator's (this process).
		if rep.Plies > 0 {
			per := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(rep.Plies) }
			fmt.Fprintf(os.Stderr, "CPU per ply: match %.3f ms, lobby %.3f ms, bot %.3f ms, redis %.3f ms, load generator %.3f ms\n",
				per(cpu.Match-cpu0.Match), per(cpu.Lobby-cpu0.Lobby), per(cpu.Bot-cpu0.Bot), per(cpu.Redis-cpu0.Redis), per(self))
			b.ReportMetric(per(cpu.Match-cpu0.Match), "match-cpu-ms/ply")
			// Wakeups cost what the processor time shows but do not grow
			// with the machine's noise as much: a steadier sign of the
			// goroutine and thread hand-offs a ply takes.
			fmt.Fprintf(os.Stderr, "match context switches per ply: %.2f\n", float64(matchSwitches(c)-sw0)/float64(rep.Plies))
			cmds := commandCalls(b, c)
			fmt.Fprintf(os.Stderr, "Redis commands per ply:")
			for _, name := range slices.Sorted(maps.Keys(cmds)) {
				if d := cmds[name] - cmds0[name]; float64(d) >= 0.01*float64(rep.Plies) {
					fmt.Fprintf(os.Stderr, " %s %.2f", name, float64(d)/float64(rep.Plies))
				}
			}
			fmt.Fprintln(os.Stderr)
			b.ReportMetric(per(cpu.total()-cpu0.total()+self), "all-cpu-ms/ply")
		}
		if peakLive > 0 {
			b.ReportMetric(float64(peakMem)/float64(peakLive), "redis-B/game")
			b.ReportMetric(float64(peakRSS)/float64(2*peakLive), "match-RSS-B/player")
		}
	}
}

// matchSwitches sums the match instances' context switches.
func matchSwitches(c *Cluster) int64 {
	var n int64
	for _, m := range c.Match {
		n += m.Switches()
	}
	return n
}

// commandCalls returns Redis's count of calls by command (INFO
// commandstats).
func commandCalls(b *testing.B, c *Cluster) map[string]int64 {
	v, err := c.RDB().Info(b.Context(), "commandstats").Result()
	if err != nil {
		b.Fatal(err)
	}
	out := map[string]int64{}
	for _, line := range splitLines(v) {
		// cmdstat_get:calls=12,usec=...
		name, rest, ok := strings.Cut(strings.TrimPrefix(line, "cmdstat_"), ":calls=")
		if !ok {
			continue
		}
		n, _, _ := strings.Cut(rest, ",")
		out[name], _ = strconv.ParseInt(n, 10, 64)
	}
	return out
}

func usedMemory(b *testing.B, c *Cluster) int64 {
	v, err := c.RDB().Info(b.Context(), "memory").Result()
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range splitLines(v) {
		if len(line) > 12 && line[:12] == "used_memory:" {
			var n int64
			for _, ch := range line[12:] {
				if ch >= '0' && ch <= '9' {
					n = n*10 + int64(ch-'0')
				}
			}
			return n
		}
	}
	return 0
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

var benchTickets = flag.Int("tickets.n", 1000, "BenchmarkQueuedTickets: tickets queued")

// BenchmarkQueuedTickets measures Redis memory per queued ticket: INFO
// memory used_memory before and after N players queue, each alone in its
// own queue (distinct clocks) so that nothing pairs; this is the worst
// case, a queue's keys (its sorted set and hash, an entry in the set of
// queues) and the player's set of queues all counted per ticket.
//
//	go test -run '^$' -bench QueuedTickets -benchtime 1x ./cmd/tabuleiro/internal/scaletest/ -tickets.n 1000
func BenchmarkQueuedTickets(b *testing.B) {
	c := Start(b, Options{Lobbies: 1, Matches: 1})
	var lcs []*client.Client
	for range 4 {
		lc, err := client.Dial(c.LobbyAddrs[0])
		if err != nil {
			b.Fatal(err)
		}
		defer lc.Close()
		lcs = append(lcs, lc)
	}
	n := *benchTickets
	players := make([]client.Player, n)
	for i := range players {
		p, err := lcs[i%len(lcs)].SignIn(b.Context(), fmt.Sprintf("ticket-%d", i))
		if err != nil {
			b.Fatal(err)
		}
		players[i] = p
	}
	for b.Loop() {
		mem0 := usedMemory(b, c)
		ctx, cancel := context.WithCancel(b.Context())
		fs := make([]*finding, n)
		for i, p := range players {
			fs[i] = findMatch(ctx, lcs[i%len(lcs)], 0, p, 60_000+int64(i)*1000)
		}
		for _, f := range fs {
			select {
			case <-f.queued:
			case <-time.After(30 * time.Second):
				b.Fatal("not queued within 30s")
			}
			if f.ticket == "" {
				b.Fatalf("%s: not queued: %v", f.player.Name, f.err)
			}
		}
		mem1 := usedMemory(b, c)
		keys, _ := c.RDB().DBSize(b.Context()).Result()
		cancel() // each stream's end cancels its ticket
		for _, f := range fs {
			<-f.done
		}
		per := float64(mem1-mem0) / float64(n)
		fmt.Fprintf(os.Stderr, "queued tickets %d: used_memory %d -> %d bytes, %.0f B/ticket, %d keys\n", n, mem0, mem1, per, keys)
		b.ReportMetric(per, "redis-B/ticket")
	}
}

var benchKeys = flag.Bool("load.keys", false, "BenchmarkCluster: print Redis memory by key kind (MEMORY USAGE of every key) when the run's queuing time is four-fifths done")

// keyKind is key with its ids taken out: "tabuleiro:m:{*}:p",
// "tabuleiro:pl:*", so keys of one kind group together.
func keyKind(key string) string {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i:], '}'); j >= 0 {
			key = key[:i+1] + "*" + key[i+j:]
		}
	}
	// The last part of a key holding digits or a long token is an id.
	parts := strings.Split(key, ":")
	for i, p := range parts {
		if i == 0 || strings.Contains(p, "{") {
			continue
		}
		if len(p) >= 12 || strings.ContainsAny(p, "0123456789") {
			parts[i] = "*"
		}
	}
	return strings.Join(parts, ":")
}

// keyMemory prints Redis's memory by key kind (MEMORY USAGE, SAMPLES 0
// for exact sizes of aggregates) and INFO memory's break-down, per live
// game.
func keyMemory(ctx context.Context, c *Cluster, live int64) {
	rdb := c.RDB()
	type kind struct{ n, bytes int64 }
	kinds := map[string]*kind{}
	var cursor uint64
	for {
		keys, next, err := rdb.Scan(ctx, cursor, "*", 1000).Result()
		if err != nil {
			fmt.Fprintf(os.Stderr, "key memory: %v\n", err)
			return
		}
		cmds := make([]*redis.IntCmd, len(keys))
		_, _ = rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i, k := range keys {
				cmds[i] = p.MemoryUsage(ctx, k, 0)
			}
			return nil
		})
		for i, k := range keys {
			kk := kinds[keyKind(k)]
			if kk == nil {
				kk = &kind{}
				kinds[keyKind(k)] = kk
			}
			kk.n++
			kk.bytes += cmds[i].Val()
		}
		cursor = next
		if cursor == 0 {
			break
		}
	}
	names := slices.SortedFunc(maps.Keys(kinds), func(a, b string) int { return int(kinds[b].bytes - kinds[a].bytes) })
	fmt.Fprintf(os.Stderr, "Redis memory by key kind (%d live games):\n", live)
	for _, n := range names {
		k := kinds[n]
		fmt.Fprintf(os.Stderr, "  %-40s %7d keys %10d B  %6.0f B/key  %6.0f B/game\n", n, k.n, k.bytes,
			float64(k.bytes)/float64(k.n), float64(k.bytes)/float64(max(live, 1)))
	}
	info, err := rdb.Info(ctx, "memory").Result()
	if err == nil {
		for _, line := range splitLines(info) {
			for _, f := range []string{"used_memory:", "used_memory_dataset:", "used_memory_overhead:", "mem_clients_normal:", "used_memory_scripts:", "mem_allocator", "used_memory_startup:"} {
				if strings.HasPrefix(line, f) {
					fmt.Fprintf(os.Stderr, "  %s\n", strings.TrimSpace(line))
				}
			}
		}
	}
}

// liveGames is the size of the match service's live-match index.
func liveGames(ctx context.Context, c *Cluster) int64 {
	return c.RDB().ZCard(ctx, "tabuleiro:live").Val()
}
