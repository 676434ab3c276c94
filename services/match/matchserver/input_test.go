package matchserver_test

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	ptestenv "tabuleiro.dev/pkg/platform/testenv"
	"tabuleiro.dev/services/match/internal/match"
)

// TestListLegalPliesFrom: a malformed or off-board `from` is
// INVALID_ARGUMENT (the proto's promise), with the input not echoed in
// full; a good one filters the plies (RULES.md Q1, C1, B1).
func TestListLegalPliesFrom(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 1, match.Config{}, nil)
	q := c.create(&matchv1.CreateMatchRequest{Game: gamev1.Game_GAME_QUORIDOR})
	b := c.create(&matchv1.CreateMatchRequest{Game: gamev1.Game_GAME_BANQI})
	k := c.create(&matchv1.CreateMatchRequest{Game: gamev1.Game_GAME_CORNERS, Variant: "classic-3x3"})
	h := c.create(&matchv1.CreateMatchRequest{Game: gamev1.Game_GAME_CORNERS, Variant: "halma-16x16"})
	long := strings.Repeat("a", 10000)
	ctx := c.as(t.Context(), "alice")
	tests := []struct {
		name, id, from string
		code           codes.Code
		plies          bool // some plies expected (when OK)
	}{
		{"Q zz", q, "zz", codes.InvalidArgument, false},
		{"Q e10", q, "e10", codes.InvalidArgument, false},
		{"Q E1", q, "E1", codes.InvalidArgument, false},
		{"Q e", q, "e", codes.InvalidArgument, false},
		{"Q 10,000 chars", q, long, codes.InvalidArgument, false},
		{"Q e1 (the pawn)", q, "e1", codes.OK, true},
		{"Q e5 (empty)", q, "e5", codes.OK, false},
		{"B i1", b, "i1", codes.InvalidArgument, false},
		{"B a5", b, "a5", codes.InvalidArgument, false},
		{"B h4", b, "h4", codes.OK, true},
		{"C i1 off 8x8", k, "i1", codes.InvalidArgument, false},
		{"C a9 off 8x8", k, "a9", codes.InvalidArgument, false},
		{"C c3", k, "c3", codes.OK, true},
		{"C halma p16", h, "p16", codes.OK, false},
		{"C halma q1", h, "q1", codes.InvalidArgument, false},
	}
	for _, tt := range tests {
		resp, err := c.client(0).ListLegalPlies(ctx, &matchv1.ListLegalPliesRequest{MatchId: tt.id, From: tt.from})
		if status.Code(err) != tt.code {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.code)
			continue
		}
		if err != nil && len(status.Convert(err).Message()) > 200 {
			t.Errorf("%s: message of %d bytes echoes the input", tt.name, len(status.Convert(err).Message()))
		}
		if err == nil && (len(resp.GetPlies()) > 0) != tt.plies {
			t.Errorf("%s: %d plies, want some: %v", tt.name, len(resp.GetPlies()), tt.plies)
		}
	}
}

// TestPlayClosedBeforeJoin: a Play stream closed without a message ends
// quietly (OK), not as an internal error.
func TestPlayClosedBeforeJoin(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 1, match.Config{}, nil)
	st, err := c.client(0).Play(c.as(t.Context(), "alice"))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.CloseSend(); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Recv(); err != io.EOF {
		t.Fatalf("Play closed before the join ended with %v (code %v), want OK", err, status.Code(err))
	}
}

// TestPlayRequestAfterJoin: a PlayRequest with no action after the join is
// refused as empty, and a second join as a join; each says which.
func TestPlayRequestAfterJoin(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 1, match.Config{}, nil)
	id := c.create(&matchv1.CreateMatchRequest{Game: gamev1.Game_GAME_QUORIDOR})
	for _, tt := range []struct {
		name string
		req  *matchv1.PlayRequest
		want string
	}{
		{"empty", &matchv1.PlayRequest{}, "the request is empty"},
		{"second join", &matchv1.PlayRequest{Action: &matchv1.PlayRequest_Join{Join: &matchv1.JoinMatch{MatchId: id}}}, "a join may only be the first message"},
	} {
		alice := c.play(0, "alice", id, 0)
		alice.until("the snapshot", func(m any) bool { return snapshot(m) != nil })
		if err := alice.send(tt.req); err != nil {
			t.Fatal(err)
		}
		var err error
		select {
		case err = <-alice.done:
		case <-time.After(time.Until(ptestenv.Deadline(t))):
			t.Fatalf("%s: the stream did not end", tt.name)
		}
		if st, _ := status.FromError(err); st.Code() != codes.InvalidArgument || !strings.Contains(st.Message(), tt.want) {
			t.Errorf("%s: %v, want InvalidArgument saying %q", tt.name, err, tt.want)
		}
		alice.cancel()
	}
}

// TestLongInputIsNotEchoed: a huge notation or match id is refused at the
// edge (INVALID_ARGUMENT) and never repeated in full: the refusal stays
// small whatever the client sent.
func TestLongInputIsNotEchoed(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 1, match.Config{}, nil)
	id := c.create(&matchv1.CreateMatchRequest{Game: gamev1.Game_GAME_QUORIDOR})
	alice := c.play(0, "alice", id, 0)
	for _, notation := range []string{strings.Repeat("e", 1<<20), strings.Repeat("z", 200)} {
		alice.submit(1, notation)
		m := alice.until("rejection", func(m any) bool { return m.(*matchv1.PlayResponse).GetPlyRejected() != nil })
		r := m.(*matchv1.PlayResponse).GetPlyRejected()
		if codes.Code(r.GetCode()) != codes.InvalidArgument || len(r.GetNotation()) > 100 || len(r.GetReason()) > 600 || !strings.HasPrefix(r.GetNotation(), notation[:10]) {
			t.Fatalf("%d-byte notation: code %d, echoed notation %d bytes, reason %d bytes", len(notation), r.GetCode(), len(r.GetNotation()), len(r.GetReason()))
		}
	}
	alice.submit(1, "e2") // the stream is still open
	alice.until("ply 1", hasPly(1))

	long := strings.Repeat("x", 100_000)
	ctx := c.as(t.Context(), "alice")
	_, err := c.client(0).GetMatch(ctx, &matchv1.GetMatchRequest{MatchId: long})
	if status.Code(err) != codes.InvalidArgument || len(status.Convert(err).Message()) > 200 {
		t.Fatalf("GetMatch with a 100 kB id: %v", status.Code(err))
	}
	_, err = c.client(0).ListLegalPlies(ctx, &matchv1.ListLegalPliesRequest{MatchId: id, Ply: long})
	if status.Code(err) != codes.InvalidArgument || len(status.Convert(err).Message()) > 200 {
		t.Fatalf("ListLegalPlies with a 100 kB ply: %v", status.Code(err))
	}
	p := c.play(0, "alice", long, 0)
	select {
	case <-p.msgs:
	case <-time.After(time.Until(ptestenv.Deadline(t))):
		t.Fatal("Play with a 100 kB id did not end")
	}
	if err := <-p.done; status.Code(err) != codes.InvalidArgument || len(status.Convert(err).Message()) > 200 {
		t.Fatalf("Play with a 100 kB id: %v", status.Code(err))
	}
}

// TestCreateMatchRefusesBadSeats: the same player in both seats, display
// names that carry terminal control codes or bidi overrides, and
// oversized names or ids are INVALID_ARGUMENT.
func TestCreateMatchRefusesBadSeats(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 1, match.Config{}, nil)
	named := func(id, name string) *matchv1.SeatSpec {
		return &matchv1.SeatSpec{Occupant: &matchv1.SeatSpec_Player{Player: &matchv1.PlayerSeat{PlayerId: id, DisplayName: name}}}
	}
	lobby := c.as(t.Context(), "lobby")
	tests := []struct {
		name          string
		first, second *matchv1.SeatSpec
		code          codes.Code
	}{
		{"same player twice", named("alice", "Alice"), named("alice", "Alice again"), codes.InvalidArgument},
		{"ANSI escape", named("alice", "\x1b[2J\x1b[31mAlice"), named("bob", "Bob"), codes.InvalidArgument},
		{"newline", named("alice", "Alice"), named("bob", "Bob\nwins"), codes.InvalidArgument},
		{"bidi override", named("alice", "Alice\u202e"), named("bob", "Bob"), codes.InvalidArgument},
		{"name of 65 bytes", named("alice", strings.Repeat("A", 65)), named("bob", "Bob"), codes.InvalidArgument},
		{"id of 129 bytes", named(strings.Repeat("a", 129), "Alice"), named("bob", "Bob"), codes.InvalidArgument},
		{"accents are fine", named("alice", "Alíce Ünal 🙂"), named("bob", "Bob"), codes.OK},
	}
	for i, tt := range tests {
		_, err := c.client(0).CreateMatch(lobby, &matchv1.CreateMatchRequest{
			RequestId: fmt.Sprintf("seats-%d-%d", time.Now().UnixNano(), i), Game: gamev1.Game_GAME_QUORIDOR,
			First: tt.first, Second: tt.second,
		})
		if status.Code(err) != tt.code {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.code)
		}
	}
}
