package play

import (
	"regexp"
	"strings"
	"testing"

	"tabuleiro.dev/cmd/tabuleiro/internal/client"
	"tabuleiro.dev/cmd/tabuleiro/internal/clitest"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
)

// `play --room new` shows the invite code, the room id and the command a
// friend runs while it waits; the friend joins by the code or by the room
// id, and both reach the same game, one seat each.
func TestRoomInviteAndJoin(t *testing.T) {
	t.Parallel()
	c, _, ctx := clitest.StartLocal(t)
	for _, by := range []string{"invite code", "room id"} {
		// New players each time: a player is in one match at a time.
		host, err := c.SignIn(t.Context(), "Ana")
		if err != nil {
			t.Fatal(err)
		}
		guest, err := c.SignIn(t.Context(), "Bea")
		if err != nil {
			t.Fatal(err)
		}
		notices := make(chan string, 1)
		th := &tables{c: c, me: host, opp: opponent{room: "new"}, game: gamev1.Game_GAME_CORNERS, variant: "classic-3x3",
			addr: c.Target(), notify: func(s string) { notices <- s }}
		type result struct {
			id    string
			seats map[gamev1.Seat]client.Player
			err   error
		}
		hostDone := make(chan result, 1)
		go func() {
			id, seats, err := th.matchFor(ctx, 0)
			hostDone <- result{id, seats, err}
		}()
		var notice string
		select {
		case notice = <-notices:
		case r := <-hostDone:
			t.Fatalf("%s: the host's room ended before any invitation: %v", by, r.err)
		}
		m := regexp.MustCompile(`invite code (\S+) \(room id (\S+)\)`).FindStringSubmatch(notice)
		if m == nil || !strings.Contains(notice, "tabuleiro play --room "+m[1]+" --server "+c.Target()) {
			t.Fatalf("%s: the invitation lacks the code, the room id or the command to join:\n%s", by, notice)
		}
		target := m[1]
		if by == "room id" {
			target = m[2]
		}
		tg := &tables{c: c, me: guest, opp: opponent{room: target}, game: gamev1.Game_GAME_CORNERS, variant: "classic-3x3", addr: c.Target()}
		gid, gseats, err := tg.matchFor(ctx, 0)
		if err != nil {
			t.Fatalf("%s: join %s: %v", by, target, err)
		}
		h := <-hostDone
		if h.err != nil || h.id != gid || h.id == "" {
			t.Fatalf("%s: host reached %q (%v), guest %q", by, h.id, h.err, gid)
		}
		for name, side := range map[string]struct {
			t     *tables
			seats map[gamev1.Seat]client.Player
			title string
		}{"host": {th, h.seats, "vs Bea"}, "guest": {tg, gseats, "vs Ana"}} {
			tb, err := side.t.table(ctx, gid, side.seats, "")
			if err != nil {
				t.Fatalf("%s: %s joins the match: %v", by, name, err)
			}
			if tb.Title != side.title {
				t.Errorf("%s: %s's table is titled %q, want %q", by, name, tb.Title, side.title)
			}
			for seat, conn := range tb.Seats {
				r, err := conn.Recv()
				if err != nil || r.GetSnapshot().GetYourSeat() != seat {
					t.Errorf("%s: %s's first message %v (%v), want the snapshot for %v", by, name, r, err, seat)
				}
			}
		}
		if len(h.seats) != 1 || len(gseats) != 1 || h.seats[gamev1.Seat_SEAT_FIRST] == gseats[gamev1.Seat_SEAT_FIRST] {
			t.Errorf("%s: seats host %v guest %v, want one each", by, h.seats, gseats)
		}
	}
}

// After a room game, n on both sides is a rematch through the lobby: the
// host offers, the guest's watch sees it, the guest accepts, and both
// reach the same new match with the seats swapped.
func TestRoomRematch(t *testing.T) {
	t.Parallel()
	c, _, ctx := clitest.StartLocal(t)
	host, err := c.SignIn(t.Context(), "Ana")
	if err != nil {
		t.Fatal(err)
	}
	guest, err := c.SignIn(t.Context(), "Bea")
	if err != nil {
		t.Fatal(err)
	}
	notices := make(chan string, 1)
	th := &tables{c: c, me: host, opp: opponent{room: "new"}, game: gamev1.Game_GAME_QUORIDOR, variant: "standard",
		addr: c.Target(), notify: func(s string) { notices <- s }}
	type result struct {
		id    string
		seats map[gamev1.Seat]client.Player
		err   error
	}
	hostDone := make(chan result, 1)
	go func() {
		id, seats, err := th.matchFor(ctx, 0)
		hostDone <- result{id, seats, err}
	}()
	code := regexp.MustCompile(`invite code (\S+)`).FindStringSubmatch(<-notices)[1]
	tg := &tables{c: c, me: guest, opp: opponent{room: code}, game: gamev1.Game_GAME_QUORIDOR, variant: "standard", addr: c.Target()}
	first, _, err := tg.matchFor(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	h := <-hostDone
	if h.err != nil || h.id != first {
		t.Fatalf("host reached %q (%v), guest %q", h.id, h.err, first)
	}
	var hostSeat gamev1.Seat
	for s := range h.seats {
		hostSeat = s
	}
	// The host resigns.
	st, err := c.Join(ctx, host, first, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Send(&matchv1.PlayRequest{Action: &matchv1.PlayRequest_Resign{Resign: &matchv1.Resign{}}}); err != nil {
		t.Fatal(err)
	}
	waitFinished(t, c, host, first)

	hr, gr := th.rematcher(ctx), tg.rematcher(ctx)
	next, err := gr.Watch(first)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := next(); err != nil || r.GetStatus() != lobbyv1.RematchStatus_REMATCH_STATUS_NONE {
		t.Fatalf("guest's first rematch state %v, %v", r, err)
	}
	offer, err := hr.Offer(first)
	if err != nil || offer.GetStatus() != lobbyv1.RematchStatus_REMATCH_STATUS_OFFERED {
		t.Fatalf("host's offer: %v, %v", offer, err)
	}
	if r, err := next(); err != nil || r.GetStatus() != lobbyv1.RematchStatus_REMATCH_STATUS_OFFERED || r.GetOpponent().GetDisplayName() != "Ana" {
		t.Fatalf("guest's watch after the offer: %v, %v", r, err)
	}
	acc, err := gr.Offer(first)
	if err != nil || acc.GetStatus() != lobbyv1.RematchStatus_REMATCH_STATUS_STARTED || acc.GetYourSeat() != hostSeat {
		t.Fatalf("guest's acceptance: %v, %v; want started with the guest on the host's old seat %v", acc, err, hostSeat)
	}
	tb, err := gr.Table(acc)
	if err != nil {
		t.Fatal(err)
	}
	if tb.MatchID == first || tb.Title != "vs Ana" {
		t.Errorf("rematch table %q titled %q", tb.MatchID, tb.Title)
	}
	for _, conn := range tb.Seats {
		r, err := conn.Recv()
		if err != nil || r.GetSnapshot().GetMatchId() != acc.GetNewMatchId() || r.GetSnapshot().GetYourSeat() != hostSeat {
			t.Errorf("guest's first message of the rematch %v (%v)", r, err)
		}
	}
	// The host's watch ends with the same new match, on the other seat.
	hnext, err := hr.Watch(first)
	if err != nil {
		t.Fatal(err)
	}
	r, err := hnext()
	if err != nil || r.GetNewMatchId() != acc.GetNewMatchId() || r.GetYourSeat() == hostSeat || r.GetYourSeat() == gamev1.Seat_SEAT_UNSPECIFIED {
		t.Fatalf("host's view of the rematch %v, %v", r, err)
	}
}
