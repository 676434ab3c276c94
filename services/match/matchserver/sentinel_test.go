package matchserver_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/grpcserve"
	"tabuleiro.dev/pkg/platform/redisconn"
	ptestenv "tabuleiro.dev/pkg/platform/testenv"
	"tabuleiro.dev/services/match/internal/redisstore"
	"tabuleiro.dev/services/match/matchserver"
)

// TestSentinelFailoverGames plays Quoridor games through a match instance
// whose Redis is a primary, a replica and a Sentinel (real processes,
// reached through a Sentinel URL), kills the primary with SIGKILL while
// plies are being played, and checks that every game goes on once
// Sentinel has promoted the replica. The killed server is then started
// again as a replica of the new primary (what an orchestrator asking
// Sentinel does), so that WAIT 1 can be met again.
//
// Two ways: the primary killed while its replica is in sync (on loopback a
// replica is a fraction of a millisecond behind), and "cut": the replica
// frozen (SIGSTOP) and its link closed by the primary (CLIENT KILL TYPE
// replica) while the games go on, then the primary killed and the replica
// resumed — a replica cut off by the network when the primary dies, which
// then holds none of the plies played since.
//
// It counts the acknowledged plies lost: a ply whose SubmitPly returned OK
// and that the game no longer holds after the failover. With
// MATCH_REDIS_WAIT_REPLICAS=1 (redisstore.Options.WaitReplicas) none may
// be lost; without it the number is logged (deploy/README.md). Runs in the
// sentinel step of scripts/test.sh (TABULEIRO_TEST_SENTINEL=1).
func TestSentinelFailoverGames(t *testing.T) {
	if testing.Short() && os.Getenv("TABULEIRO_TEST_SENTINEL") == "" {
		t.Skip("set TABULEIRO_TEST_SENTINEL=1 (scripts/test.sh sentinel)")
	}
	for _, cut := range []bool{false, true} {
		for _, wait := range []int{0, 1} {
			t.Run(fmt.Sprintf("cut=%v/wait=%d", cut, wait), func(t *testing.T) { failoverGames(t, wait, cut) })
		}
	}
}

// ackedPly is a ply the server acknowledged.
type ackedPly struct {
	id       string
	n        int32
	notation string
}

// slot is one client playing both seats of one game after another.
type slot struct {
	games     []string
	acked     map[string]map[int32]string // match id -> ply number -> notation acknowledged
	suspect   []ackedPly                  // acknowledged plies a resync did not show (a stale read, or lost): checked at the end
	gone      map[string]bool             // matches the store no longer had (every acknowledged ply of theirs lost)
	lost      []string                    // acknowledged plies of gone matches
	total     atomic.Int64                // plies acknowledged
	afterKill atomic.Int64                // of which after the kill
	answered  atomic.Int64                // SubmitPly calls answered (acknowledged or not)
	errs      atomic.Int64                // calls that failed (and were retried)
}

func failoverGames(t *testing.T, wait int, cut bool) {
	ctx := ptestenv.Context(t, context.Background())
	set := ptestenv.StartSentinelSet(t, 1)
	primary := set.Primary()
	rdb, err := redisconn.Open(set.URL("dial_timeout=1s&read_timeout=2s&write_timeout=2s"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rdb.Close() })

	key, err := auth.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	iss, _ := auth.NewIssuer(key)
	ver, _ := auth.NewVerifier(key)
	srvCtx, stop := context.WithCancel(context.Background())
	var bg sync.WaitGroup
	t.Cleanup(func() { stop(); bg.Wait() })
	srv := matchserver.New(srvCtx, matchserver.Deps{Redis: rdb}, matchserver.Config{
		KeyPrefix: "tabuleiro:", InstanceID: "sentinel-test",
		Store: redisstore.Options{WaitReplicas: wait, WaitTimeout: 500 * time.Millisecond},
		// The players play at machine speed, far past a person's call rate.
		Unlimited: true,
	})
	bg.Go(func() { _ = srv.Run(srvCtx) })
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	bg.Go(func() {
		_ = grpcserve.Run(srvCtx, grpcserve.Options{Listener: lis, ShutdownTimeout: time.Second,
			Auth: auth.NewInterceptor(ver, auth.Policy{ServiceOnly: matchserver.ServiceOnly()})}, srv.Register)
	})
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	client := matchv1.NewMatchServiceClient(conn)
	token := func(who string) context.Context {
		var tok string
		var err error
		if who == "lobby" {
			tok, _, err = iss.IssueService("lobby", time.Hour)
		} else {
			tok, _, err = iss.IssuePlayer(who, who, true, time.Hour)
		}
		if err != nil {
			t.Fatal(err)
		}
		return auth.WithToken(ctx, tok)
	}

	const slots = 4
	var (
		killed   atomic.Bool
		stopPlay = make(chan struct{})
		players  sync.WaitGroup
		all      [slots]*slot
	)
	for i := range slots {
		s := &slot{acked: map[string]map[int32]string{}, gone: map[string]bool{}}
		all[i] = s
		seats := map[gamev1.Seat]context.Context{
			gamev1.Seat_SEAT_FIRST: token(fmt.Sprintf("a%d", i)), gamev1.Seat_SEAT_SECOND: token(fmt.Sprintf("b%d", i)),
		}
		lobby := token("lobby")
		r := rand.New(rand.NewPCG(uint64(i), uint64(wait)))
		players.Go(func() {
			retry := func(err error) bool {
				// Anything but a refusal is the store's outage: try again.
				switch status.Code(err) {
				case codes.Internal, codes.Unavailable, codes.DeadlineExceeded, codes.Unknown, codes.Aborted:
					s.errs.Add(1)
					time.Sleep(20 * time.Millisecond)
					return true
				}
				return false
			}
			id := ""
			for {
				select {
				case <-stopPlay:
					return
				default:
				}
				if id == "" {
					resp, err := client.CreateMatch(lobby, &matchv1.CreateMatchRequest{
						RequestId: fmt.Sprintf("sentinel-%d-%d-%d", wait, i, len(s.games)), Game: gamev1.Game_GAME_QUORIDOR,
						First:       &matchv1.SeatSpec{Occupant: &matchv1.SeatSpec_Player{Player: &matchv1.PlayerSeat{PlayerId: fmt.Sprintf("a%d", i), DisplayName: "a"}}},
						Second:      &matchv1.SeatSpec{Occupant: &matchv1.SeatSpec_Player{Player: &matchv1.PlayerSeat{PlayerId: fmt.Sprintf("b%d", i), DisplayName: "b"}}},
						TimeControl: &gamev1.TimeControl{BaseMs: 3_600_000},
					})
					if err != nil {
						if retry(err) {
							continue
						}
						t.Errorf("slot %d: create match: %v", i, err)
						return
					}
					id = resp.GetMatchId()
					s.games = append(s.games, id)
					s.acked[id] = map[int32]string{}
				}
				legal, err := client.ListLegalPlies(seats[gamev1.Seat_SEAT_FIRST], &matchv1.ListLegalPliesRequest{MatchId: id})
				if err != nil {
					if retry(err) {
						// With WAIT a read is refused too while no
						// replica confirms it (the replica cut off):
						// an answer all the same.
						s.answered.Add(1)
						continue
					}
					if status.Code(err) == codes.FailedPrecondition { // over
						id = ""
						continue
					}
					if status.Code(err) == codes.NotFound { // the promoted replica never had it
						for k, v := range s.acked[id] {
							s.lost = append(s.lost, fmt.Sprintf("%s ply %d %s (match gone)", id, k, v))
						}
						s.gone[id] = true
						id = ""
						continue
					}
					t.Errorf("slot %d: list legal plies of %s: %v", i, id, err)
					return
				}
				n := legal.GetPlyNumber()
				// Acknowledged plies at or past the server's next number
				// are missing from this read: lost, or read from a server
				// that was not yet up to date (the killed primary comes
				// back on its address as a replica). The end decides.
				for k, v := range s.acked[id] {
					if k >= n {
						s.suspect = append(s.suspect, ackedPly{id, k, v})
						delete(s.acked[id], k)
					}
				}
				if len(legal.GetPlies()) == 0 { // the game is over: the next one
					id = ""
					continue
				}
				notation := legal.GetPlies()[r.IntN(len(legal.GetPlies()))].GetNotation()
				for {
					_, err = client.SubmitPly(seats[legal.GetToMove()], &matchv1.SubmitPlyRequest{MatchId: id, PlyNumber: n, Notation: notation})
					s.answered.Add(1)
					if err == nil || !retry(err) {
						break
					}
				}
				if err != nil {
					continue // refused: list again
				}
				s.acked[id][n] = notation
				s.total.Add(1)
				if killed.Load() {
					s.afterKill.Add(1)
				}
			}
		})
	}
	stopped := false
	stopPlaying := func() {
		if !stopped {
			stopped = true
			close(stopPlay)
			players.Wait()
		}
	}
	t.Cleanup(stopPlaying)
	until := func(what string, cond func(s *slot) bool) {
		t.Helper()
		set.Eventually(2*time.Minute, what, func() bool {
			if t.Failed() {
				t.FailNow()
			}
			for _, s := range all {
				if !cond(s) {
					return false
				}
			}
			return true
		})
	}
	began := time.Now()
	until("every game has 20 plies", func(s *slot) bool { return s.total.Load() >= 20 })
	before := time.Since(began)

	if cut {
		// Freeze the replica, close its link, and let the clients make
		// five more calls each (commits acknowledged without WAIT; with
		// WAIT 1 the commits and the reads time out: nothing a replica
		// does not hold is shown), then kill the primary and resume the
		// replica.
		replica := set.Replicas[0]
		set.Signal(replica, syscall.SIGSTOP)
		pc := redis.NewClient(&redis.Options{Addr: primary})
		if err := pc.ClientKillByFilter(ctx, "TYPE", "replica").Err(); err != nil {
			t.Fatalf("close the replica's link: %v", err)
		}
		_ = pc.Close()
		var from [slots]int64
		for i, s := range all {
			from[i] = s.answered.Load()
		}
		until("five calls a game while the replica is cut off", func(s *slot) bool {
			return s.answered.Load()-from[slices.Index(all[:], s)] >= 5
		})
		defer set.Signal(replica, syscall.SIGCONT)
	}
	killedAt := time.Now()
	killed.Store(true)
	set.Kill(primary)
	if cut {
		set.Signal(set.Replicas[0], syscall.SIGCONT)
	}
	newPrimary := set.WaitFailover(primary)
	promoted := time.Since(killedAt)
	set.RestartAsReplica(primary)
	rejoined := time.Since(killedAt)
	until("a ply acknowledged after the kill", func(*slot) bool {
		for _, s := range all {
			if s.afterKill.Load() > 0 {
				return true
			}
		}
		return false
	})
	resumed := time.Since(killedAt)
	until("every game goes on: 20 plies after the failover", func(s *slot) bool { return s.afterKill.Load() >= 20 })
	after := time.Since(killedAt)
	stopPlaying()

	// Every acknowledged ply still in its game?
	var acked, lost int64
	var lostPlies []string
	for i, s := range all {
		acked += s.total.Load()
		lostPlies = append(lostPlies, s.lost...)
		final := map[string]*matchv1.Match{}
		for _, id := range s.games {
			if s.gone[id] {
				continue
			}
			var m *matchv1.Match
			for {
				resp, err := client.GetMatch(token(fmt.Sprintf("a%d", i)), &matchv1.GetMatchRequest{MatchId: id})
				if err == nil {
					m = resp.GetMatch()
					break
				}
				if status.Code(err) == codes.NotFound {
					break // lost entirely: every acknowledged ply below
				}
				if ctx.Err() != nil {
					t.Fatalf("match %s after the failover: %v", id, err)
				}
				time.Sleep(20 * time.Millisecond)
			}
			final[id] = m
			for n, notation := range s.acked[id] {
				if int(n) > len(m.GetPlies()) || m.GetPlies()[n-1].GetNotation() != notation {
					lostPlies = append(lostPlies, fmt.Sprintf("%s ply %d %s", id, n, notation))
				}
			}
		}
		for _, p := range s.suspect {
			m := final[p.id] // nil for a gone match: lost
			if int(p.n) > len(m.GetPlies()) || m.GetPlies()[p.n-1].GetNotation() != p.notation {
				lostPlies = append(lostPlies, fmt.Sprintf("%s ply %d %s", p.id, p.n, p.notation))
			}
		}
	}
	lost = int64(len(lostPlies))
	if len(lostPlies) > 5 {
		lostPlies = append(lostPlies[:5], "…")
	}
	var errs int64
	for _, s := range all {
		errs += s.errs.Load()
	}
	ms := func(d time.Duration) time.Duration { return d.Round(10 * time.Millisecond) }
	t.Logf("cut %v, WAIT %d: %d games, %d plies acknowledged, %d lost %v; %d calls retried. 20 plies a game took %v; "+
		"after the kill Sentinel promoted %s at %v, the killed server was back as a replica at %v, the first ply was acknowledged at %v, 20 plies a game at %v",
		cut, wait, slots, acked, lost, lostPlies, errs, ms(before), newPrimary, ms(promoted), ms(rejoined), ms(resumed), ms(after))
	if wait > 0 && lost > 0 {
		t.Errorf("%d plies acknowledged with WAIT %d were lost", lost, wait)
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatal("the test's time ran out")
	}
}
