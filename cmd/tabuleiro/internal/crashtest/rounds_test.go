package crashtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"tabuleiro.dev/cmd/tabuleiro/internal/client"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
)

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
