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

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"tabuleiro.dev/cmd/tabuleiro/internal/client"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
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

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port
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
	s.cmd.Env = append(os.Environ(), "TABULEIRO_DATA_DIR="+h.dataDir)
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
		h.redisPort = freePort(t)
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

func (h *harness) newGame(ctx context.Context, c *client.Client, p client.Player) *game {
	resp, err := c.Lobby.PlayBot(p.Context(ctx), &lobbyv1.PlayBotRequest{
		Game: gamev1.Game_GAME_QUORIDOR, Variant: "standard", Level: gamev1.BotLevel_BOT_LEVEL_EASY, Seat: gamev1.Seat_SEAT_FIRST,
	})
	if err != nil {
		h.t.Fatalf("PlayBot: %v", err)
	}
	return &game{id: resp.GetMatchId(), events: map[int64]seen{}}
}

// verify rejoins g after a restart and checks that the server still has
// every event and ply the client was told of, with the same seq; it
// returns how many are missing (0 is required unless losses are
// tolerated, in which case the record is reset to the server's).
func (h *harness) verify(ctx context.Context, c *client.Client, p client.Player, g *game, round int) int {
	t := h.t
	r, err := c.Match.GetMatch(p.Context(ctx), &matchv1.GetMatchRequest{MatchId: g.id})
	if status.Code(err) == codes.NotFound && h.cfg.lossTolerated {
		// The store lost the match itself: every event of it is lost.
		h.report(round, "match %s, created and played (%d events acknowledged), is gone", g.id, g.maxSeq)
		g.finished = true
		return max(int(g.maxSeq), 1)
	}
	if err != nil {
		t.Fatalf("round %d: GetMatch %s after the restart: %v", round, g.id, err)
	}
	m := r.GetMatch()
	lost := 0
	if m.GetLastSeq() < g.maxSeq {
		lost += int(g.maxSeq - m.GetLastSeq())
		h.report(round, "the server's last_seq is %d, the client saw %d", m.GetLastSeq(), g.maxSeq)
	}
	var have []string
	for _, pl := range m.GetPlies() {
		have = append(have, fmt.Sprintf("%d %s", pl.GetNumber(), pl.GetNotation()))
	}
	for i, want := range g.plies {
		if i >= len(have) {
			lost++
			h.report(round, "ply %q acknowledged, the server has %d plies", want, len(have))
			continue
		}
		if have[i] != want {
			lost++
			h.report(round, "ply %d is %q on the server, %q was acknowledged", i+1, have[i], want)
		}
	}
	// The events the store keeps after base, replayed by a spectator
	// stream with the same seq and content. A match keeps its last
	// eventsKept events (counted from the server's last seq, which may be
	// past the client's: a game's end); a client further behind gets a
	// snapshot, and the earlier events are checked through the plies above.
	from := max(g.base, m.GetLastSeq()-eventsKept)
	if g.maxSeq > from && m.GetLastSeq() >= g.maxSeq {
		wctx, cancel := context.WithCancel(ctx)
		ws, err := c.Match.Watch(p.Context(wctx), &matchv1.WatchRequest{MatchId: g.id, LastSeq: from})
		if err != nil {
			t.Fatalf("round %d: Watch: %v", round, err)
		}
		next := from + 1
		for next <= g.maxSeq {
			resp, err := ws.Recv()
			if err != nil {
				t.Fatalf("round %d: Watch from seq %d: %v", round, from, err)
			}
			if resp.GetSnapshot() != nil {
				t.Fatalf("round %d: Watch from seq %d sent a snapshot: events %d..%d are gone", round, from, next, g.maxSeq)
			}
			ev := resp.GetEvent()
			if ev == nil {
				continue
			}
			if ev.GetSeq() != next {
				t.Fatalf("round %d: event seq %d replayed where %d was due", round, ev.GetSeq(), next)
			}
			if want, ok := g.events[next]; ok && describe(ev) != want {
				lost++
				h.report(round, "event %d is %+v on the server, %+v was acknowledged", next, describe(ev), want)
			}
			next++
		}
		cancel()
	}
	if lost > 0 && h.cfg.lossTolerated {
		// Take the server's word from here on, and go on.
		g.plies = have
		g.events = map[int64]seen{}
		g.maxSeq, g.base = m.GetLastSeq(), m.GetLastSeq()
	}
	g.finished = m.GetStatus() == matchv1.MatchStatus_MATCH_STATUS_FINISHED
	g.view, g.seat = m.GetView(), m.GetYourSeat()
	return lost
}

// eventsKept is how many of a match's latest events the match store keeps
// for catching up (redisstore.Options.StreamMaxLen's default, which serve
// uses).
const eventsKept = 16

func (h *harness) report(round int, format string, args ...any) {
	msg := fmt.Sprintf("round %d: "+format, append([]any{round}, args...)...)
	if h.cfg.lossTolerated {
		h.t.Log(msg)
	} else {
		h.t.Error(msg)
	}
}

// play joins g with the last seq the client saw, records every event
// the server sends, and plays random legal plies on its turn, until stop
// (called with the number of events recorded) says to, the game ends or
// the stream breaks (the server was killed). It returns the number of
// events recorded.
func (h *harness) play(ctx context.Context, c *client.Client, p client.Player, g *game, rng *rand.Rand, stop func(int) bool) int {
	t := h.t
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st, err := c.Join(sctx, p, g.id, g.maxSeq)
	if err != nil {
		return 0
	}
	defer st.Close()
	view, seat := g.view, g.seat
	if seat == gamev1.Seat_SEAT_UNSPECIFIED {
		seat = gamev1.Seat_SEAT_FIRST // newGame asks for the first seat
	}
	var (
		submitted int32
		n         int
	)
	for !stop(n) {
		if view != nil && view.GetToMove() == seat && view.GetPlyCount()+1 > submitted {
			next := view.GetPlyCount() + 1
			lr, err := c.Match.ListLegalPlies(p.Context(sctx), &matchv1.ListLegalPliesRequest{MatchId: g.id, ExpectedPlyNumber: next})
			if err != nil {
				return n // killed meanwhile
			}
			if legal := lr.GetPlies(); len(legal) > 0 {
				submitted = next
				ply := legal[rng.IntN(len(legal))].GetNotation()
				if err := st.Send(&matchv1.PlayRequest{Action: &matchv1.PlayRequest_SubmitPly{SubmitPly: &matchv1.SubmitPly{PlyNumber: next, Notation: ply}}}); err != nil {
					return n
				}
			}
		}
		r, err := st.Recv()
		if err != nil {
			return n // killed, or the match ended
		}
		switch {
		case r.GetSnapshot() != nil:
			s := r.GetSnapshot()
			if s.GetLastSeq() < g.maxSeq {
				h.report(0, "a snapshot at seq %d after the client saw %d", s.GetLastSeq(), g.maxSeq)
			}
			seat, view = s.GetYourSeat(), s.GetView()
			if g.maxSeq == 0 && s.GetLastSeq() > 0 {
				g.base = s.GetLastSeq()
				g.maxSeq = s.GetLastSeq()
			}
			if s.GetStatus() == matchv1.MatchStatus_MATCH_STATUS_FINISHED {
				g.finished = true
				return n
			}
		case r.GetEvent() != nil:
			ev := r.GetEvent()
			if ev.GetSeq() <= g.maxSeq {
				if want, ok := g.events[ev.GetSeq()]; ok && describe(ev) != want {
					h.report(0, "event %d sent again as %+v, was %+v", ev.GetSeq(), describe(ev), want)
				}
				continue
			}
			if ev.GetSeq() != g.maxSeq+1 {
				t.Errorf("event seq %d after %d: a gap", ev.GetSeq(), g.maxSeq)
			}
			g.events[ev.GetSeq()] = describe(ev)
			g.maxSeq = ev.GetSeq()
			if g.base == 0 {
				// Watch replays from last_seq >= 1 (0 asks for a
				// snapshot): event 1 is checked through the plies.
				g.base = max(ev.GetSeq()-1, 1)
			}
			n++
			if pp := ev.GetPlyPlayed(); pp != nil {
				g.plies = append(g.plies, describe(ev).ply)
				view = pp.GetView()
			}
			if ev.GetGameEnded() != nil {
				t.Logf("match %s ended after %d plies: %s", g.id, len(g.plies), ev.GetGameEnded().GetOutcome().GetReason())
				g.finished = true
				return n
			}
		case r.GetPlyRejected() != nil:
			t.Fatalf("ply refused: %v", r.GetPlyRejected())
		}
	}
	return n
}

// crashRounds is n, or TABULEIRO_CRASH_ROUNDS when set (a longer run by
// hand; never fewer than n in the test command).
func crashRounds(n int) int {
	if v, err := strconv.Atoi(os.Getenv("TABULEIRO_CRASH_ROUNDS")); err == nil && v > 0 {
		return v
	}
	return n
}
