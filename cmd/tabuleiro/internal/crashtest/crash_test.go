// Package crashtest kills a real `tabuleiro serve` process with SIGKILL,
// again and again, while a client plays and records every event the
// server acknowledged, and checks after each restart that every one of
// them is still there with the same sequence number and that the game
// goes on (issue 14). The same test runs against a real redis-server
// with an append-only file (appendfsync always and everysec), killed
// along with the server.
//
// These tests build the command and run for a minute or more: they run in
// their own step of scripts/test.sh (go test -run Crash), not under
// -short.
package crashtest

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"tabuleiro.dev/cmd/tabuleiro/internal/client"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/testenv"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	buildDir  string
)

// binary builds the tabuleiro command once per test binary, unless
// TABULEIRO_BIN names one already built (the test command's).
func binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		if bin := os.Getenv("TABULEIRO_BIN"); bin != "" {
			binPath = bin
			return
		}
		buildDir, buildErr = os.MkdirTemp("", "tabuleiro-crashtest-")
		if buildErr != nil {
			return
		}
		binPath = filepath.Join(buildDir, "tabuleiro")
		out, err := exec.Command("go", "build", "-o", binPath, "tabuleiro.dev/cmd/tabuleiro").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

func skipShort(t *testing.T) {
	if testing.Short() {
		t.Skip("crash tests run in their own step of scripts/test.sh (go test -run Crash ./cmd/tabuleiro/internal/crashtest/)")
	}
}

// TestCrashEmbedded: the one-process mode with its embedded stores.
func TestCrashEmbedded(t *testing.T) {
	skipShort(t)
	runCrash(t, crashConfig{rounds: crashRounds(50)})
}

// TestCrashRedisAOFAlways: a real Redis with appendonly yes and
// appendfsync always, killed with the server: nothing acknowledged is
// lost.
func TestCrashRedisAOFAlways(t *testing.T) {
	skipShort(t)
	runCrash(t, crashConfig{rounds: crashRounds(25), fsync: "always"})
}

// TestCrashRedisAOFEverysec: appendfsync everysec. Redis writes the AOF
// before it replies, so a killed redis-server (the OS keeps its page
// cache) normally loses nothing either; Redis postpones that write while
// a background fsync is slower than a second, and an OS crash or power
// loss drops up to a second of writes, which a kill cannot show. Losses
// are reported, not failed on; everything else is checked as above.
func TestCrashRedisAOFEverysec(t *testing.T) {
	skipShort(t)
	runCrash(t, crashConfig{rounds: crashRounds(25), fsync: "everysec", lossTolerated: true})
}

type crashConfig struct {
	rounds        int
	fsync         string // "" the embedded stores; else a redis-server with this appendfsync
	lossTolerated bool
}

// server is a running `tabuleiro serve` (and its redis-server).
type server struct {
	cmd   *exec.Cmd
	redis *exec.Cmd
	addr  string
	log   *os.File
}

type harness struct {
	t         *testing.T
	cfg       crashConfig
	bin       string
	dataDir   string
	redisDir  string
	redisPort int
	stderr    *os.File
}

var bannerRE = regexp.MustCompile(`serving on (\S+)`)

// start runs redis-server (if any) and serve, and waits for serve's
// banner: it is printed once every service listens.
func (h *harness) start(ctx context.Context) *server {
	t := h.t
	s := &server{}
	args := []string{"serve", "--addr", "127.0.0.1:0", "--data-dir", h.dataDir}
	if h.cfg.fsync == "" {
		// Compact every 64 KiB of log: kills land in compactions too,
		// and restarts load snapshots.
		args = append(args, "--embedded-redis-compact-bytes", "65536")
	}
	if h.cfg.fsync != "" {
		s.redis = exec.Command("redis-server", "--port", strconv.Itoa(h.redisPort), "--bind", "127.0.0.1",
			"--dir", h.redisDir, "--appendonly", "yes", "--appendfsync", h.cfg.fsync, "--save", "",
			"--daemonize", "no", "--logfile", filepath.Join(h.redisDir, "redis.log"))
		if err := s.redis.Start(); err != nil {
			t.Fatalf("redis-server: %v", err)
		}
		h.waitRedis(ctx)
		args = append(args, "--redis-url", fmt.Sprintf("redis://127.0.0.1:%d/0", h.redisPort))
	}
	s.cmd = exec.Command(h.bin, args...)
	// In English, whatever this machine's locale: bannerRE reads its banner.
	s.cmd.Env = append(os.Environ(), "TABULEIRO_DATA_DIR="+h.dataDir, "TABULEIRO_LANG=en")
	s.cmd.Stderr = h.stderr
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("serve: %v", err)
	}
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		sent := false
		for sc.Scan() {
			if m := bannerRE.FindStringSubmatch(sc.Text()); m != nil && !sent {
				ready <- m[1]
				sent = true
			}
		}
		if !sent {
			close(ready)
		}
	}()
	select {
	case addr, ok := <-ready:
		if !ok {
			t.Fatalf("serve exited without its banner; see %s", h.stderr.Name())
		}
		s.addr = addr
	case <-ctx.Done():
		t.Fatalf("serve printed no banner: %v", ctx.Err())
	}
	return s
}

// waitRedis waits until the redis-server answers PING (it loads its AOF
// first).
func (h *harness) waitRedis(ctx context.Context) {
	for {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", h.redisPort))
		if err == nil {
			_, _ = c.Write([]byte("PING\r\n"))
			_ = c.SetReadDeadline(time.Now().Add(time.Second))
			line, _ := bufio.NewReader(c).ReadString('\n')
			_ = c.Close()
			if strings.HasPrefix(line, "+PONG") {
				return
			}
		}
		select {
		case <-ctx.Done():
			h.t.Fatalf("redis-server never answered: %v", ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// kill sends SIGKILL to serve (and redis-server) and reaps them.
func (s *server) kill() {
	if s.redis != nil {
		_ = s.redis.Process.Signal(syscall.SIGKILL)
	}
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	_ = s.cmd.Wait()
	if s.redis != nil {
		_ = s.redis.Wait()
	}
}

// stop ends serve with SIGTERM (a clean shutdown) and then redis-server.
func (s *server) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	_ = s.cmd.Wait()
	if s.redis != nil {
		_ = s.redis.Process.Signal(syscall.SIGTERM)
		_ = s.redis.Wait()
	}
}

// seen is what the client was told about one event.
type seen struct {
	kind string
	ply  string // "number notation" of a ply_played
}

func describe(ev *matchv1.MatchEvent) seen {
	switch {
	case ev.GetPlyPlayed() != nil:
		p := ev.GetPlyPlayed().GetPly()
		return seen{kind: "ply", ply: fmt.Sprintf("%d %s", p.GetNumber(), p.GetNotation())}
	case ev.GetGameEnded() != nil:
		return seen{kind: "ended", ply: ev.GetGameEnded().GetOutcome().GetReason().String()}
	case ev.GetPlayerDisconnected() != nil:
		return seen{kind: "disconnected"}
	case ev.GetPlayerReconnected() != nil:
		return seen{kind: "reconnected"}
	case ev.GetDrawOffered() != nil:
		return seen{kind: "draw offered"}
	case ev.GetDrawDeclined() != nil:
		return seen{kind: "draw declined"}
	}
	return seen{kind: "unknown"}
}

// game is the client's record of one match: every event and ply it was
// told of.
type game struct {
	id       string
	events   map[int64]seen
	maxSeq   int64
	plies    []string // "number notation", in order
	finished bool
	// base is the last_seq a rejoin asks from: every later event is
	// replayed and compared.
	base int64
	// view is the position as GetMatch gave it after the restart: a
	// rejoin with the last seq gets no snapshot when nothing is new.
	view *gamev1.GameView
	seat gamev1.Seat
}

type stats struct {
	acks, lost, rounds, afterAck, games int
}

func runCrash(t *testing.T, cfg crashConfig) {
	if cfg.fsync != "" {
		if _, err := exec.LookPath("redis-server"); err != nil {
			t.Fatal("redis-server is not installed: scripts/services.sh installs it")
		}
	}
	h := &harness{t: t, cfg: cfg, bin: binary(t), dataDir: t.TempDir(), redisDir: t.TempDir()}
	if cfg.fsync != "" {
		h.redisPort = testenv.FreePort(t)
	}
	var err error
	if h.stderr, err = os.Create(filepath.Join(t.TempDir(), "serve.log")); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 14))
	t.Logf("seed-free run: rounds %d, store %q", cfg.rounds, cfg.fsync)

	var (
		st     stats
		g      *game
		player client.Player
		signed bool
	)
	for round := range cfg.rounds {
		ctx, cancel := context.WithDeadline(t.Context(), testenv.Deadline(t))
		srv := h.start(ctx)
		c, err := client.Dial(srv.addr)
		if err != nil {
			t.Fatal(err)
		}
		if !signed {
			if player, err = c.SignIn(ctx, "Crash"); err != nil {
				t.Fatalf("sign in: %v", err)
			}
			signed = true
		}
		if g != nil {
			lost := h.verify(ctx, c, player, g, round)
			st.lost += lost
			if lost > 0 && !cfg.lossTolerated {
				t.Fatalf("round %d: %d acknowledged events lost (kill -9 %s)", round, lost, map[bool]string{true: "right after an acknowledgement", false: "at a random moment"}[round%2 == 1])
			}
		}
		if g == nil || g.finished {
			g = h.newGame(ctx, c, player)
			st.games++
		}
		// Kill right after the k-th acknowledgement of this round, or
		// at a random moment.
		afterAck := round%2 == 0
		killAfter := 1 + rng.IntN(6)
		var timer *time.Timer
		killed := make(chan struct{})
		var once sync.Once
		kill := func() { once.Do(func() { srv.kill(); close(killed) }) }
		if !afterAck {
			timer = time.AfterFunc(time.Duration(rng.IntN(400))*time.Millisecond, kill)
		}
		acks := h.play(ctx, c, player, g, rng, func(n int) bool {
			if afterAck && n >= killAfter {
				kill()
				return true
			}
			select {
			case <-killed:
				return true
			default:
				return false
			}
		})
		if timer != nil {
			timer.Stop()
		}
		kill()
		st.acks += acks
		if afterAck {
			st.afterAck++
		}
		st.rounds++
		_ = c.Close()
		cancel()
	}
	// After the last kill: a last restart, where everything must still be
	// there and the game must go on, then a clean stop.
	ctx, cancel := context.WithDeadline(t.Context(), testenv.Deadline(t))
	defer cancel()
	srv := h.start(ctx)
	c, err := client.Dial(srv.addr)
	if err != nil {
		t.Fatal(err)
	}
	st.lost += h.verify(ctx, c, player, g, cfg.rounds)
	if g.finished {
		g = h.newGame(ctx, c, player)
	}
	before := len(g.plies)
	h.play(ctx, c, player, g, rng, func(int) bool { return len(g.plies) >= before+2 })
	if len(g.plies) <= before && !g.finished {
		t.Errorf("the game did not go on after the last restart")
	}
	_ = c.Close()
	srv.stop()
	t.Logf("%d rounds (%d killed right after an acknowledgement), %d games, %d events acknowledged, %d lost",
		st.rounds, st.afterAck, st.games, st.acks, st.lost)
	if cfg.fsync == "" {
		// The embedded store compacted its log at least once (recovery
		// then starts from a snapshot and replays the tail).
		snaps, _ := filepath.Glob(filepath.Join(h.dataDir, "redis", "snapshot-*.snap"))
		segs, _ := filepath.Glob(filepath.Join(h.dataDir, "redis", "wal-*.log"))
		t.Logf("embedded Redis files: %d snapshots %v, %d log segments", len(snaps), snaps, len(segs))
		if len(snaps) == 0 {
			t.Error("no snapshot: the embedded Redis never compacted its log")
		}
	}
	if st.acks < cfg.rounds {
		t.Errorf("only %d acknowledgements in %d rounds: the games hardly moved", st.acks, cfg.rounds)
	}
	if st.lost > 0 && !cfg.lossTolerated {
		t.Errorf("%d acknowledged events lost", st.lost)
	}
}
