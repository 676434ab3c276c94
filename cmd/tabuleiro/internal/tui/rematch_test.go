package tui

import (
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"google.golang.org/protobuf/types/known/timestamppb"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
)

// end ends the fake match: the opponent (black) wins by resignation.
func (f *fakeMatch) end() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seq++
	v := f.view()
	v.Outcome = &gamev1.Outcome{Result: gamev1.Result_RESULT_WIN, Winner: gamev1.Seat_SEAT_SECOND, Reason: gamev1.Reason_REASON_RESIGNATION}
	f.out <- &matchv1.PlayResponse{Message: &matchv1.PlayResponse_Event{Event: &matchv1.MatchEvent{
		Seq: f.seq, Kind: &matchv1.MatchEvent_GameEnded{GameEnded: &matchv1.GameEnded{Outcome: v.GetOutcome(), View: v}},
	}}}
	close(f.out)
	f.closed = true
}

// fakeRematch is the lobby's rematch as the opponent Bo (p_bo) plays it:
// the test pushes Bo's side on the watch; offers by this player are
// recorded and answered as the lobby would.
type fakeRematch struct {
	mu      sync.Mutex
	watch   chan *lobbyv1.Rematch
	offers  int
	decline int
	bo      bool // Bo has offered
	next    *fakeMatch
}

func newFakeRematch(next *fakeMatch) *fakeRematch {
	return &fakeRematch{watch: make(chan *lobbyv1.Rematch, 8), next: next}
}

var bo = &lobbyv1.RoomMember{PlayerId: "p_bo", DisplayName: "Bo"}

func (r *fakeRematch) deps() *Rematcher {
	return &Rematcher{
		Offer: func(id string) (*lobbyv1.Rematch, error) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.offers++
			st := &lobbyv1.Rematch{MatchId: id, Status: lobbyv1.RematchStatus_REMATCH_STATUS_OFFERED, OfferedBy: []string{"p_me"}, Opponent: bo}
			if r.bo {
				st.Status, st.OfferedBy, st.NewMatchId, st.YourSeat = lobbyv1.RematchStatus_REMATCH_STATUS_STARTED, []string{"p_bo", "p_me"}, "m2", gamev1.Seat_SEAT_FIRST
			}
			return st, nil
		},
		Decline: func(id string) (*lobbyv1.Rematch, error) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.decline++
			return &lobbyv1.Rematch{MatchId: id, Status: lobbyv1.RematchStatus_REMATCH_STATUS_DECLINED, DeclinedBy: "p_me", Opponent: bo}, nil
		},
		Watch: func(id string) (func() (*lobbyv1.Rematch, error), error) {
			return func() (*lobbyv1.Rematch, error) {
				st, ok := <-r.watch
				if !ok {
					return nil, io.EOF
				}
				return st, nil
			}, nil
		},
		Table: func(st *lobbyv1.Rematch) (*Table, error) {
			t := r.next.table()
			t.MatchID, t.Title = st.GetNewMatchId(), "vs Bo (rematch)"
			return t, nil
		},
	}
}

// After a room game the loser is told so, sees the opponent's rematch
// offer, accepts it with n and is taken to the new game's board.
func TestRematchAccepted(t *testing.T) {
	t.Parallel()
	f, next := newFakeMatch(t), newFakeMatch(t)
	fr := newFakeRematch(next)
	deps := startOn(f)
	deps.Rematch = fr.deps()
	d := newDriver(t, New(deps))
	d.waitText("Your move")
	f.end()
	d.waitText("Black wins by resignation: you lost")
	d.waitText("Rematch? n: offer or accept")
	fr.watch <- &lobbyv1.Rematch{MatchId: "m1", Status: lobbyv1.RematchStatus_REMATCH_STATUS_NONE, Opponent: bo}
	fr.mu.Lock()
	fr.bo = true
	fr.mu.Unlock()
	fr.watch <- &lobbyv1.Rematch{MatchId: "m1", Status: lobbyv1.RematchStatus_REMATCH_STATUS_OFFERED, OfferedBy: []string{"p_bo"}, Opponent: bo}
	d.waitText("Bo offers a rematch (colours swap): n accepts, x declines.")
	d.key("n")
	d.waitText("vs Bo (rematch)")
	d.waitText("Your move")
	if !strings.Contains(d.screen(), "match m2") || strings.Contains(d.screen(), "you lost") {
		t.Errorf("the rematch's board is not shown:\n%s", d.screen())
	}
	if fr.offers != 1 {
		t.Errorf("%d offers sent, want 1", fr.offers)
	}
}

// An offer waits for the opponent; their decline is shown and n then does
// nothing more.
func TestRematchDeclined(t *testing.T) {
	t.Parallel()
	f := newFakeMatch(t)
	fr := newFakeRematch(newFakeMatch(t))
	deps := startOn(f)
	deps.Rematch = fr.deps()
	d := newDriver(t, New(deps))
	d.waitText("Your move")
	f.end()
	d.waitText("Rematch?")
	d.key("n")
	d.waitText("Rematch offered; waiting for Bo (x withdraws).")
	fr.watch <- &lobbyv1.Rematch{MatchId: "m1", Status: lobbyv1.RematchStatus_REMATCH_STATUS_DECLINED, DeclinedBy: "p_bo", Opponent: bo}
	d.waitText("Bo declined the rematch.")
	if strings.Contains(d.screen(), "Rematch? n") {
		t.Errorf("rematch still offered after the decline:\n%s", d.screen())
	}
	if !strings.Contains(d.screen(), "n: a new room") {
		t.Errorf("no way on after the decline:\n%s", d.screen())
	}
	d.key("n") // a new room: startOn has no second game
	d.waitText("no more games")
	if fr.offers != 1 {
		t.Errorf("n after a decline sent an offer (%d offers)", fr.offers)
	}
	d.key("q")
	d.waitFor("quit", func(string) bool { return d.quit })
}

// Leaving with an offer pending declines it, so the opponent is not left
// waiting.
func TestQuitDeclinesPendingRematch(t *testing.T) {
	t.Parallel()
	f := newFakeMatch(t)
	fr := newFakeRematch(newFakeMatch(t))
	deps := startOn(f)
	deps.Rematch = fr.deps()
	d := newDriver(t, New(deps))
	d.waitText("Your move")
	f.end()
	fr.watch <- &lobbyv1.Rematch{MatchId: "m1", Status: lobbyv1.RematchStatus_REMATCH_STATUS_OFFERED, OfferedBy: []string{"p_bo"}, Opponent: bo}
	d.waitText("Bo offers a rematch")
	d.key("q")
	d.waitFor("quit", func(string) bool { return d.quit })
	fr.mu.Lock()
	defer fr.mu.Unlock()
	if fr.decline != 1 {
		t.Errorf("%d declines sent on quit, want 1", fr.decline)
	}
}

// n after a game without rematch leaves the finished board: the waiting
// screen shows what the new game needs (a room's invite code).
func TestPlayAgainShowsWaitingScreen(t *testing.T) {
	t.Parallel()
	f := newFakeMatch(t)
	block := make(chan struct{})
	t.Cleanup(func() { close(block) })
	calls := 0
	deps := Deps{Start: func(int) (*Table, error) {
		calls++
		if calls > 1 {
			<-block
			return nil, errNoMore
		}
		return f.table(), nil
	}}
	d := newDriver(t, New(deps))
	d.waitText("Your move")
	f.end()
	d.waitText("Play again?")
	d.key("n")
	d.handle(Notice("Room open for Quoridor standard, no clock: invite code K7MX2QPD"))
	d.waitText("invite code K7MX2QPD")
	if s := d.screen(); strings.Contains(s, "Your move") || strings.Contains(s, "wins by") {
		t.Errorf("the finished game is still shown:\n%s", s)
	}
}

// A refusal names the ply once; long messages wrap at the terminal's
// width instead of being cut; the status goes when the cursor moves.
func TestRefusalWrapsAndClears(t *testing.T) {
	t.Parallel()
	f := newFakeMatch(t)
	d := newDriver(t, New(startOn(f)))
	d.handle(tea.WindowSizeMsg{Width: 40, Height: 24})
	d.waitText("Your move")
	d.key(":", "type:e5", "enter")
	d.waitText("e5 refused")
	s := d.screen()
	if strings.Contains(s, "illegal ply e5") {
		t.Errorf("the refusal repeats the ply:\n%s", s)
	}
	if !strings.Contains(s, "(Q2") {
		t.Errorf("the refusal lost its rule:\n%s", s)
	}
	if got := (&Model{}).refusal("e6", "illegal ply e6: not a neighbouring square (Q2.1)", "Q2.1"); got != "e6 refused: not a neighbouring square (Q2.1)" {
		t.Errorf("refusal = %q", got)
	}
	// A syntax error says what is wrong once, without the ply again: as
	// the server words it, and as an older server did (with the status
	// code's words and the ply twice).
	for _, reason := range []string{
		`ply "zz": syntax error at offset 0: file z is off the board (files a–i)`,
		`ply "zz": invalid argument: syntax error in "zz" at offset 0: file z is off the board (files a–i)`,
	} {
		if got := (&Model{}).refusal("zz", reason, ""); got != "zz refused: not a ply: file z is off the board (files a–i)" {
			t.Errorf("refusal(%q) = %q", reason, got)
		}
	}
	long := "no room has this invite code or id on the server of this command; a friend's room needs --server ADDR"
	w := wordwrap(long, 40)
	if !strings.Contains(w, "--server ADDR") || strings.ReplaceAll(w, "\n", " ") != long {
		t.Errorf("wrapped text lost words: %q", w)
	}
	for line := range strings.SplitSeq(w, "\n") {
		if len([]rune(line)) > 40 {
			t.Errorf("line wider than 40: %q", line)
		}
	}
	d.key("left")
	if strings.Contains(d.screen(), "refused") {
		t.Errorf("the refusal stayed after the cursor moved:\n%s", d.screen())
	}
}

// "is back" only after the opponent was seen leaving: a seat's first
// connection is announced as a reconnection too.
func TestBackOnlyAfterLeaving(t *testing.T) {
	t.Parallel()
	f := newFakeMatch(t)
	d := newDriver(t, New(startOn(f)))
	d.waitText("Your move")
	ev := func(e *matchv1.MatchEvent) {
		f.mu.Lock()
		f.seq++
		e.Seq = f.seq
		f.out <- &matchv1.PlayResponse{Message: &matchv1.PlayResponse_Event{Event: e}}
		f.mu.Unlock()
	}
	ev(&matchv1.MatchEvent{Kind: &matchv1.MatchEvent_PlayerReconnected{PlayerReconnected: &matchv1.PlayerReconnected{Seat: gamev1.Seat_SEAT_SECOND}}})
	ev(&matchv1.MatchEvent{Kind: &matchv1.MatchEvent_PlayerDisconnected{PlayerDisconnected: &matchv1.PlayerDisconnected{Seat: gamev1.Seat_SEAT_SECOND,
		ReconnectDeadline: timestamppb.New(time.Now().Add(time.Minute))}}})
	d.waitText("black disconnected")
	// How long the opponent has, said with the departure.
	if s := strings.Join(strings.Fields(d.screen()), " "); !strings.Contains(s, "lose by abandonment unless they are back by") {
		t.Errorf("the departure does not say when the game is ruled:\n%s", d.screen())
	}
	ev(&matchv1.MatchEvent{Kind: &matchv1.MatchEvent_PlayerReconnected{PlayerReconnected: &matchv1.PlayerReconnected{Seat: gamev1.Seat_SEAT_SECOND}}})
	d.waitText("black is back")
}

// i shows the rules of the game on the board, from the repository's
// rules document, with the sections the refusals cite.
func TestRulesScreen(t *testing.T) {
	t.Parallel()
	f := newFakeMatch(t)
	d := newDriver(t, New(startOn(f)))
	d.handle(tea.WindowSizeMsg{Width: 80, Height: 200})
	d.waitText("Your move")
	d.key("i")
	s := d.screen()
	for _, want := range []string{"Quoridor", "Q3.2 No overlap", "Q2.3 Diagonal jump", "i or esc returns"} {
		if !strings.Contains(s, want) {
			t.Errorf("rules screen lacks %q:\n%s", want, s)
		}
	}
	d.key("esc")
	d.waitText("Your move")
}

// Keys typed fast arrive in one message: each still counts ("Ry" resigns
// with its confirmation).
func TestKeysInOneBurst(t *testing.T) {
	t.Parallel()
	f := newFakeMatch(t)
	d := newDriver(t, New(startOn(f)))
	d.waitText("Your move")
	d.handle(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("Ry")})
	d.waitText("resigned")
}
