package match_test

import (
	"fmt"
	"testing"
	"time"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/redisstore"
)

// TestResendShortFormChain: a Corners chain sent by its ends is stored
// with its full path (C1); the same short form sent again with its ply
// number is the same ply, acknowledged with the same event, whatever was
// played since.
func TestResendShortFormChain(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1, redisstore.Options{}, match.Config{})
	svc := e.svcs[0]
	ctx := t.Context()
	st, err := svc.Create(ctx, match.CreateParams{
		RequestID: fmt.Sprintf("resend-%d", time.Now().UnixNano()), Game: engine.Corners, Variant: "classic-3x3",
		Seats: []match.Participant{{PlayerID: "alice", DisplayName: "Alice"}, {PlayerID: "bob", DisplayName: "Bob"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.SubmitPly(ctx, st.ID, engine.First, 1, "c3-c4"); err != nil {
		t.Fatal(err)
	}
	e.play(svc, st.ID) // ply 2, black
	ev, _, err := svc.SubmitPly(ctx, st.ID, engine.First, 3, "b2-d4")
	if err != nil {
		t.Fatal(err)
	}
	if ev.Ply.Notation != "b2-b4-d4" {
		t.Fatalf("ply 3 stored as %q, want b2-b4-d4", ev.Ply.Notation)
	}
	for _, resend := range []string{"b2-d4", "b2-b4-d4"} {
		again, dup, err := svc.SubmitPly(ctx, st.ID, engine.First, 3, resend)
		if err != nil || !dup || again.Seq != ev.Seq {
			t.Fatalf("resend %q of ply 3: seq %d dup %v err %v; want seq %d again", resend, again.Seq, dup, err, ev.Seq)
		}
	}
	e.play(svc, st.ID) // ply 4: the resend still matches ply 3
	if again, dup, err := svc.SubmitPly(ctx, st.ID, engine.First, 3, "b2-d4"); err != nil || !dup || again.Seq != ev.Seq {
		t.Fatalf("resend of ply 3 after ply 4: seq %d dup %v err %v", again.Seq, dup, err)
	}
	// A different ply with an old number is still stale.
	if _, _, err := svc.SubmitPly(ctx, st.ID, engine.First, 3, "a1-a2"); err == nil {
		t.Fatal("a different ply 3 accepted")
	}
}
