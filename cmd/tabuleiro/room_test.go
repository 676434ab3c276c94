package main

import (
	"regexp"
	"strings"
	"testing"

	"tabuleiro.dev/cmd/tabuleiro/internal/client"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
)

// `play --room new` shows the invite code, the room id and the command a
// friend runs while it waits; the friend joins by the code or by the room
// id, and both reach the same game, one seat each.
func TestRoomInviteAndJoin(t *testing.T) {
	t.Parallel()
	c, _, ctx := startLocal(t)
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
			tb, err := side.t.table(ctx, gid, side.seats)
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
