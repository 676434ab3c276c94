package scaletest

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"tabuleiro.dev/cmd/tabuleiro/internal/load"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
)

// TestClusterPrimaryKilled: the services on a Redis Cluster of 3
// primaries and 3 replicas (real redis-server processes, cluster-node-
// timeout 2 s), every match commit and every result recorded waiting for a
// replica (MATCH_REDIS_WAIT_REPLICAS=1, MATCH_RECORDER_WAIT_REPLICAS=1).
// Players pair through a lobby and play on two match instances; in the
// middle of clusterGames games the primary serving the players' matchmaking
// queue (its slot's, and a third of the matches' buckets) is killed with kill -9,
// and a second group of players starts queuing at once. The cluster
// promotes that primary's replica; the killed server comes back as a
// replica of it. Every game of both groups must be played to its end with
// no call or stream ending INTERNAL, and PostgreSQL's record of each game
// must hold every ply its players were shown (a ply is shown once its
// commit is acknowledged): the acknowledged plies are counted against the
// stored ones, and none may be lost. Runs in the cluster step of
// scripts/test.sh (not in the fault step).
func TestClusterPrimaryKilled(t *testing.T) {
	if testing.Short() {
		return
	}
	const clusterGames, laterGames = 30, 10
	c := Start(t, Options{Lobbies: 1, Matches: 2, RedisCluster: 3,
		MatchEnv: []string{"MATCH_PRESENCE_TTL=3s", "MATCH_REDIS_WAIT_REPLICAS=1", "MATCH_RECORDER_WAIT_REPLICAS=1"}})
	ctx := t.Context()
	rdb := node(c.RedisNodes[0].Addr)
	defer rdb.Close()
	// The queue the load's players join (casual, 2 minutes).
	mmSlot, err := rdb.ClusterKeySlot(ctx, queueKey("quoridor/standard/120000+0/casual", "q")).Result()
	if err != nil {
		t.Fatal(err)
	}
	victim := c.RedisNode(c.PrimaryOfSlot(int(mmSlot)))

	logs := newSeatLogs()
	var (
		killedAt, promotedAt time.Time
		promoted             string
		later                load.Report
		laterErr             error
		laterPaired          atomic.Int64
		laterRun             sync.WaitGroup
	)
	left := time.Until(Deadline(t))
	base := load.Config{Lobby: c.LobbyAddrs, Match: c.MatchAddrs, Duration: left / 2, Drain: left / 3,
		Think: 20 * time.Millisecond, Wander: 50, TimeControl: &gamev1.TimeControl{BaseMs: 120_000},
		ConnsPerAddr: 2, OnSeat: logs.add}
	var paired atomic.Int64
	fired := make(chan struct{})
	cfg := base
	cfg.Players, cfg.MaxGames, cfg.Seed = 2*clusterGames, clusterGames, 7
	cfg.OnMatched = func(string) {
		if paired.Add(1) == 2*clusterGames {
			close(fired)
		}
	}
	midDone := make(chan struct{})
	go func() {
		defer close(midDone)
		select {
		case <-fired:
		case <-time.After(left / 2):
			return
		}
		<-time.After(500 * time.Millisecond) // into the games
		killedAt = time.Now()
		victim.Kill()
		// Players who queue while the primary of the queue is down.
		laterRun.Go(func() {
			lc := base
			lc.Players, lc.MaxGames, lc.Seed = 2*laterGames, laterGames, 8
			lc.OnMatched = func(string) { laterPaired.Add(1) }
			later, laterErr = load.Run(ctx, lc)
		})
		promoted = c.WaitPromoted(int(mmSlot), victim.Addr)
		promotedAt = time.Now()
		t.Logf("killed the primary %s of the queue's slot %d; %s promoted in %v", victim.Addr, mmSlot, promoted,
			promotedAt.Sub(killedAt).Round(time.Millisecond))
		if err := victim.Start(); err != nil {
			t.Errorf("restart %s: %v", victim.Name, err)
			return
		}
		c.WaitReplicaInSync(victim)
		t.Logf("%s back as a replica, in sync %v after the kill", victim.Addr, time.Since(killedAt).Round(time.Millisecond))
	}()
	rep, err := load.Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	<-midDone
	laterRun.Wait()
	if laterErr != nil {
		t.Fatal(laterErr)
	}
	if paired.Load() < 2*clusterGames {
		t.Fatalf("only %d of %d players paired", paired.Load(), 2*clusterGames)
	}
	if killedAt.IsZero() || promotedAt.IsZero() {
		t.Fatal("the primary was not killed, or no replica was promoted")
	}
	logReport(t, rep)
	logReport(t, later)
	gc := checkGames(t, logs, 0, 100*time.Millisecond)
	t.Logf("games checked %d, rejoined %d, outcomes %v", gc.games, gc.rejoined, gc.outcomes)
	if gc.games < clusterGames+laterGames {
		t.Errorf("%d games checked, want at least %d", gc.games, clusterGames+laterGames)
	}
	for _, r := range []load.Report{rep, later} {
		if r.GamesFinished < r.GamesStarted {
			t.Errorf("%d of %d games finished", r.GamesFinished, r.GamesStarted)
		}
		if n := r.Errors["Internal"]; n > 0 {
			t.Errorf("%d INTERNAL statuses (first: %s)", n, r.ErrorSamples["Internal"])
		}
	}
	if laterPaired.Load() < 2*laterGames {
		t.Errorf("matchmaking after the kill: %d of %d players paired", laterPaired.Load(), 2*laterGames)
	}

	// Games of the killed primary's slots played across the failover.
	logs.mu.Lock()
	defer logs.mu.Unlock()
	across := 0
	for id, seats := range logs.byMatch {
		slot, err := rdb.ClusterKeySlot(ctx, id).Result()
		if err != nil {
			t.Fatal(err)
		}
		p := seats[0].Plies
		if c.slotWasOn(int(slot), promoted) && len(p) > 0 && p[0].GetPlayedAt().AsTime().Before(killedAt) &&
			p[len(p)-1].GetPlayedAt().AsTime().After(promotedAt) {
			across++
		}
	}
	t.Logf("%d games of the killed primary's slots played across the failover", across)
	if across == 0 {
		t.Errorf("no game of the killed primary's slots was in progress across the failover")
	}
	// Those games were followed over sharded Pub/Sub on the promoted
	// primary: the match instances' hubs subscribed there (SSUBSCRIBE;
	// as a replica it took none: the hubs subscribe on the primaries).
	pr := node(promoted)
	defer pr.Close()
	stats, err := pr.Info(ctx, "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	calls := func(cmd string) int {
		for _, line := range strings.Split(stats, "\n") {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "cmdstat_"+cmd+":calls="); ok {
				n, _, _ := strings.Cut(rest, ",")
				v, _ := strconv.Atoi(n)
				return v
			}
		}
		return 0
	}
	t.Logf("on the promoted primary %s: %d SSUBSCRIBE, %d SPUBLISH (with those it ran as a replica), %d PUBLISH",
		promoted, calls("ssubscribe"), calls("spublish"), calls("publish"))
	if calls("ssubscribe") == 0 {
		t.Errorf("no SSUBSCRIBE on the promoted primary: the games of its slots were not followed over sharded Pub/Sub there")
	}

	// Acknowledged plies (shown to the players) against PostgreSQL's.
	db, err := pgx.Connect(ctx, c.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.WithoutCancel(ctx))
	ids := make([]string, 0, len(logs.byMatch))
	for id := range logs.byMatch {
		ids = append(ids, id)
	}
	deadline := Deadline(t)
	var recorded int
	for {
		err := db.QueryRow(ctx, "SELECT count(DISTINCT game_id) FROM games WHERE game_id = ANY($1)", ids).Scan(&recorded)
		if err == nil && recorded == len(ids) || time.Now().After(deadline) {
			break
		}
		poll(200 * time.Millisecond)
	}
	stored := map[string]string{}
	rows, err := db.Query(ctx, "SELECT game_id, plies FROM games WHERE game_id = ANY($1)", ids)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, plies string
		if err := rows.Scan(&id, &plies); err != nil {
			t.Fatal(err)
		}
		if _, twice := stored[id]; twice {
			t.Errorf("match %s recorded twice", id)
		}
		stored[id] = plies
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	var acked, lost int
	for _, id := range ids {
		rec := strings.Fields(stored[id])
		for i, p := range logs.byMatch[id][0].Plies {
			acked++
			if i >= len(rec) || rec[i] != p.GetNotation() {
				lost++
				if lost <= 5 {
					t.Errorf("match %s ply %d %s: acknowledged, not stored (stored %d plies)", id, i+1, p.GetNotation(), len(rec))
				}
			}
		}
		if len(rec) != len(logs.byMatch[id][0].Plies) {
			t.Errorf("match %s: %d plies stored, its players were shown %d", id, len(rec), len(logs.byMatch[id][0].Plies))
		}
	}
	t.Logf("WAIT 1: %d plies acknowledged, %d lost; %d of %d games recorded", acked, lost, recorded, len(ids))
	if lost > 0 || recorded != len(ids) {
		t.Errorf("%d acknowledged plies lost, %d of %d games recorded", lost, recorded, len(ids))
	}
}

// slotWasOn reports whether slot is served by primary now.
func (c *Cluster) slotWasOn(slot int, primary string) bool {
	return c.PrimaryOfSlot(slot) == primary
}
