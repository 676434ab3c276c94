package scaletest

import (
	"sync/atomic"
	"testing"
	"time"

	"tabuleiro.dev/cmd/tabuleiro/internal/load"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
)

// faultGames is the number of concurrent games of the fault tests (the
// issue asks for 100; 2 cores hold them).
const faultGames = 100

// runGames plays n games on the cluster, one per pair of players, and
// calls mid once every game has been paired and a little played.
func runGames(t *testing.T, c *Cluster, n int, think time.Duration, wander int, mid func()) (load.Report, *seatLogs) {
	t.Helper()
	logs := newSeatLogs()
	var paired atomic.Int64
	fired := make(chan struct{})
	midDone := make(chan struct{})
	cfg := load.Config{
		Lobby: c.LobbyAddrs, Match: c.MatchAddrs, Players: 2 * n, Duration: 10 * time.Second, Drain: 45 * time.Second,
		Think: think, Wander: wander, MaxGames: n, TimeControl: &gamev1.TimeControl{BaseMs: 120_000}, Seed: 7, ConnsPerAddr: 2, OnSeat: logs.add,
		OnMatched: func(string) {
			if paired.Add(1) == int64(2*n) {
				close(fired)
			}
		},
	}
	go func() { // stopped by the run: fired closes once every seat is paired
		defer close(midDone)
		select {
		case <-fired:
		case <-time.After(40 * time.Second):
			return
		}
		<-time.After(500 * time.Millisecond) // into the games
		mid()
	}()
	rep, err := load.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	<-midDone
	if paired.Load() < int64(2*n) {
		t.Fatalf("only %d of %d players paired", paired.Load(), 2*n)
	}
	return rep, logs
}

func logReport(t *testing.T, rep load.Report) {
	t.Logf("games %d finished %d, plies %d (%.0f/s), rtt %v, wait %v, rejoins %d, errors %v",
		rep.GamesStarted, rep.GamesFinished, rep.Plies, rep.PliesPerSecond(), rep.PlyRTT, rep.Wait, rep.Rejoins, rep.Errors)
}

// TestFaultMatchKilled: kill -9 of a match instance in the middle of 100
// games; every game goes on on the other instances once its players rejoin,
// with no ply lost or duplicated and every clock as the timestamps say
// (DESIGN.md, match: "a game whose instance died carries on with nothing
// lost and clocks right").
func TestFaultMatchKilled(t *testing.T) {
	if testing.Short() {
		return
	}
	c := Start(t, Options{Lobbies: 2, Matches: 3, Bots: 2, MatchEnv: []string{"MATCH_PRESENCE_TTL=3s"}})
	rep, logs := runGames(t, c, faultGames, 20*time.Millisecond, 30, func() {
		c.Match[1].Kill()
		t.Logf("killed %s", c.Match[1].Name)
	})
	logReport(t, rep)
	gc := checkGames(t, logs, 0, 100*time.Millisecond)
	t.Logf("games checked %d, rejoined %d, outcomes %v, worst clock error %v", gc.games, gc.rejoined, gc.outcomes, gc.worstClock)
	if gc.games != faultGames {
		t.Errorf("%d games checked, want %d", gc.games, faultGames)
	}
	if gc.rejoined == 0 {
		t.Errorf("no game rejoined: the kill hit no game in progress")
	}
}
