package local

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/cmd/tabuleiro/internal/autoplay"
	"tabuleiro.dev/cmd/tabuleiro/internal/client"
	"tabuleiro.dev/cmd/tabuleiro/internal/walredis"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/testenv"
)

// start runs a one-process server until the test ends (or stop is called)
// and returns a client of it.
func start(t *testing.T, o Options) (*client.Client, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.WithoutCancel(t.Context()))
	srv, err := Start(ctx, o)
	if err != nil {
		cancel()
		t.Fatalf("start: %v", err)
	}
	c, err := client.Dial(srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		_ = c.Close()
		cancel()
		if err := srv.Wait(); err != nil {
			t.Errorf("server stopped with %v", err)
		}
	}
	t.Cleanup(stop)
	return c, stop
}

func playBot(t *testing.T, c *client.Client, p client.Player, g gamev1.Game, variant string) string {
	t.Helper()
	resp, err := c.Lobby.PlayBot(p.Context(t.Context()), &lobbyv1.PlayBotRequest{Game: g, Variant: variant, Level: gamev1.BotLevel_BOT_LEVEL_EASY})
	if err != nil {
		t.Fatalf("PlayBot %v: %v", g, err)
	}
	return resp.GetMatchId()
}

// The three services run in one process with the embedded stores (Redis
// and SQLite, nothing installed) and play a whole game of each game
// against bot:easy over the public API; the finished games reach history,
// the bot record and the SQLite file in the data directory, and stay there
// after a restart on the same data directory.
func TestEmbeddedStoresPlayEveryGameAndKeepHistory(t *testing.T) {
	t.Parallel()
	o := Options{DataDir: t.TempDir()}
	c, stop := start(t, o)
	p, err := c.SignIn(t.Context(), "Ana")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		game    gamev1.Game
		variant string
	}{
		{gamev1.Game_GAME_QUORIDOR, "standard"},
		{gamev1.Game_GAME_CORNERS, "classic-3x3"},
		{gamev1.Game_GAME_BANQI, "standard"},
	}
	for i, tt := range tests {
		id := playBot(t, c, p, tt.game, tt.variant)
		res, err := autoplay.Seat(t.Context(), c, p, id, autoplay.Random(uint64(i)))
		if err != nil {
			t.Fatalf("%v: %v", tt.game, err)
		}
		if res.Outcome.GetResult() == gamev1.Result_RESULT_ONGOING {
			t.Errorf("%v: game returned while ongoing", tt.game)
		}
	}
	stop()

	if _, err := os.Stat(filepath.Join(o.DataDir, "results.db")); err != nil {
		t.Errorf("no SQLite file in the data directory: %v", err)
	}
	c, _ = start(t, o)
	waitGames(t, c, p, len(tests))
	stats, err := c.Lobby.GetStats(p.Context(t.Context()), &lobbyv1.GetStatsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var played int32
	for _, r := range stats.GetBotRecords() {
		played += r.GetWins() + r.GetLosses() + r.GetDraws()
	}
	if played != int32(len(tests)) {
		t.Errorf("bot records count %d games, want %d: %v", played, len(tests), stats.GetBotRecords())
	}
}

// waitGames polls history until it holds n games: a finished game reaches
// it through the outbox, a moment after it ends.
func waitGames(t *testing.T, c *client.Client, p client.Player, n int) {
	t.Helper()
	deadline := testenv.Deadline(t)
	poll := time.NewTicker(20 * time.Millisecond)
	defer poll.Stop()
	for {
		h, err := c.Lobby.ListGames(p.Context(t.Context()), &lobbyv1.ListGamesRequest{})
		if err == nil && len(h.GetGames()) == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("history holds %d games (err %v), want %d", len(h.GetGames()), err, n)
		}
		<-poll.C
	}
}

// A game in progress survives a restart of the one-process mode: the
// embedded Redis is saved on exit and loaded on start, so the game is
// offered for resumption and rejoins with its plies.
func TestUnfinishedGameSurvivesRestart(t *testing.T) {
	t.Parallel()
	o := Options{DataDir: t.TempDir()}
	c, stop := start(t, o)
	p, id, st := joinBotGame(t, c)
	if err := st.Send(&matchv1.PlayRequest{Action: &matchv1.PlayRequest_SubmitPly{SubmitPly: &matchv1.SubmitPly{PlyNumber: 1, Notation: "e2"}}}); err != nil {
		t.Fatal(err)
	}
	for seen := 0; seen < 2; { // our ply, then the bot's
		r, err := st.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if r.GetEvent().GetPlyPlayed() != nil {
			seen++
		}
		if r.GetPlyRejected() != nil {
			t.Fatalf("e2 refused: %v", r.GetPlyRejected())
		}
	}
	st.Close()
	stop()

	c, _ = start(t, o)
	active, err := c.Lobby.ListActiveMatches(p.Context(t.Context()), &lobbyv1.ListActiveMatchesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(active.GetMatches()) != 1 || active.GetMatches()[0].GetMatchId() != id {
		t.Fatalf("active matches after restart: %v, want %s", active.GetMatches(), id)
	}
	st, err = c.Join(t.Context(), p, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r, err := st.Recv()
	if err != nil {
		t.Fatal(err)
	}
	if got := r.GetSnapshot().GetView().GetPlyCount(); got != 2 {
		t.Errorf("rejoined at ply count %d, want 2; first message %v", got, r)
	}
}

// A port another server holds is refused with what to do about it.
func TestAddressInUse(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	srv, err := Start(ctx, Options{DataDir: t.TempDir(), Addr: l.Addr().String()})
	if err == nil {
		cancel()
		_ = srv.Wait()
		t.Fatal("started on a port in use")
	}
	for _, want := range []string{"address already in use", "another server is running there", "--server " + l.Addr().String(), "--addr HOST:PORT"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not say %q", err, want)
		}
	}
}

// The same services run on a real Redis (with a key prefix of their own,
// since tests share it).
func TestRealRedis(t *testing.T) {
	t.Parallel()
	_, prefix := testenv.Redis(t, "local")
	o := Options{DataDir: t.TempDir(), DatabaseURL: testenv.PostgresDSN(t), RedisURL: testenv.RedisURL(t), KeyPrefix: prefix}
	c, _ := start(t, o)
	p, err := c.SignIn(t.Context(), "Ana")
	if err != nil {
		t.Fatal(err)
	}
	id := playBot(t, c, p, gamev1.Game_GAME_CORNERS, "classic-3x3")
	if _, err := autoplay.Seat(t.Context(), c, p, id, autoplay.Random(7)); err != nil {
		t.Fatal(err)
	}
	waitGames(t, c, p, 1)
}

// Stores names the stores in use: the embedded ones by default, the
// servers given otherwise, with their passwords hidden.
func TestStores(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, prefix := testenv.Redis(t, "local")
	redisURL, dsn := testenv.RedisURL(t), testenv.PostgresDSN(t)
	tests := []struct {
		name string
		give Options
		want Stores
	}{
		{"embedded", Options{DataDir: dir}, Stores{
			EmbeddedRedisDir: filepath.Join(dir, "redis"), SQLiteFile: filepath.Join(dir, "results.db"), DataDir: dir}},
		{"servers", Options{DataDir: dir + "-servers", RedisURL: redisURL, DatabaseURL: dsn, KeyPrefix: prefix},
			Stores{RedisURL: redactURL(redisURL), DatabaseURL: redactURL(dsn), DataDir: dir + "-servers"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			srv, err := Start(ctx, tt.give)
			if err != nil {
				cancel()
				t.Fatal(err)
			}
			got := srv.Stores()
			cancel()
			if err := srv.Wait(); err != nil {
				t.Errorf("stop: %v", err)
			}
			if got != tt.want {
				t.Errorf("stores %+v, want %+v", got, tt.want)
			}
			for _, given := range []string{tt.give.RedisURL, tt.give.DatabaseURL} {
				if u, err := url.Parse(given); err == nil && u.User != nil {
					if pw, _ := u.User.Password(); pw != "" && strings.Contains(got.RedisURL+got.DatabaseURL, ":"+pw+"@") {
						t.Errorf("stores %+v show a password", got)
					}
				}
			}
		})
	}
}

// Issues 6 and 14: a ply is durable before its player hears of it. The
// files of the embedded Redis copied right after the ply_played event (what
// a kill -9 at that moment would leave) hold the ply.
func TestEveryPlyIsDurableBeforeItsEvent(t *testing.T) {
	t.Parallel()
	o := Options{DataDir: t.TempDir()}
	c, _ := start(t, o)
	_, id, st := joinBotGame(t, c)
	defer st.Close()
	if err := st.Send(&matchv1.PlayRequest{Action: &matchv1.PlayRequest_SubmitPly{SubmitPly: &matchv1.SubmitPly{PlyNumber: 1, Notation: "e2"}}}); err != nil {
		t.Fatal(err)
	}
	for {
		r, err := st.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if r.GetPlyRejected() != nil {
			t.Fatalf("e2 refused: %v", r.GetPlyRejected())
		}
		if r.GetEvent().GetPlyPlayed() != nil {
			break
		}
	}
	crashed := t.TempDir()
	src := filepath.Join(o.DataDir, "redis")
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(crashed, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	r, err := walredis.Open(walredis.Options{Dir: crashed})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Close() }()
	rc := redis.NewClient(&redis.Options{Addr: r.Addr()})
	defer func() { _ = rc.Close() }()
	plies, err := rc.LRange(t.Context(), "tabuleiro:match:m:{"+id+"}:p", 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(plies) == 0 || !strings.Contains(plies[0], "e2") {
		t.Fatalf("the copy taken after ply_played holds plies %q", plies)
	}
}

// A data directory of the earlier embedded store (redis.jsonl) is
// imported at the first start: an unfinished game survives the upgrade.
func TestLegacySnapshotImported(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	line := `{"key":"tabuleiro:lobby:legacy","type":"hash","ttl_ms":3600000,"hash":{"a":"1"}}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "redis.jsonl"), []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := walredis.Open(walredis.Options{Dir: filepath.Join(dir, "redis"), Legacy: filepath.Join(dir, "redis.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Close() }()
	rc := redis.NewClient(&redis.Options{Addr: r.Addr()})
	defer func() { _ = rc.Close() }()
	if v := rc.HGet(t.Context(), "tabuleiro:lobby:legacy", "a").Val(); v != "1" {
		t.Errorf("imported hash field = %q", v)
	}
	if d := rc.PTTL(t.Context(), "tabuleiro:lobby:legacy").Val(); d < 59*time.Minute {
		t.Errorf("imported TTL = %v", d)
	}
	if _, err := os.Stat(filepath.Join(dir, "redis.jsonl.imported")); err != nil {
		t.Errorf("redis.jsonl not renamed: %v", err)
	}
}

// joinBotGame signs in a player, starts a Quoridor game against bot:easy
// with the player first, and joins it.
func joinBotGame(t *testing.T, c *client.Client) (client.Player, string, *client.Stream) {
	t.Helper()
	p, err := c.SignIn(t.Context(), "Ana")
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Lobby.PlayBot(p.Context(t.Context()), &lobbyv1.PlayBotRequest{
		Game: gamev1.Game_GAME_QUORIDOR, Variant: "standard", Level: gamev1.BotLevel_BOT_LEVEL_EASY, Seat: gamev1.Seat_SEAT_FIRST,
	})
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.Join(t.Context(), p, resp.GetMatchId(), 0)
	if err != nil {
		t.Fatal(err)
	}
	return p, resp.GetMatchId(), st
}

// A served web client's passkeys are bound to its own origin: localhost
// for a loopback or unspecified address (WebAuthn takes no IP address as
// a relying party), the host name otherwise.
func TestDefaultPasskeys(t *testing.T) {
	t.Parallel()
	tests := []struct {
		addr, rpID string
		origins    []string
	}{
		{"127.0.0.1:7070", "localhost", []string{"http://localhost:7070"}},
		{"[::1]:7071", "localhost", []string{"http://localhost:7071"}},
		{"0.0.0.0:80", "localhost", []string{"http://localhost:80"}},
		{":7070", "localhost", []string{"http://localhost:7070"}},
		{"localhost:9000", "localhost", []string{"http://localhost:9000"}},
		{"play.example.com:8443", "play.example.com", []string{"http://play.example.com:8443", "https://play.example.com:8443"}},
		{"192.0.2.7:7070", "", nil},
	}
	for _, tt := range tests {
		rpID, origins := DefaultPasskeys(tt.addr)
		if rpID != tt.rpID || fmt.Sprint(origins) != fmt.Sprint(tt.origins) {
			t.Errorf("DefaultPasskeys(%q) = %q, %q; want %q, %q", tt.addr, rpID, origins, tt.rpID, tt.origins)
		}
	}
}
