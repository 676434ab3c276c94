package signin

import (
	"errors"
	"testing"
	"time"

	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/testenv"
)

// A sign-in the lobby marked signed out or revoked is reported so; one it
// keeps live, or no longer keeps, is live.
func TestCheckReadsTheLobbysSignIns(t *testing.T) {
	t.Parallel()
	rdb, prefix := testenv.Redis(t, "signin")
	ctx := t.Context()
	for family, mark := range map[string]string{"out": SignedOut, "revoked": Revoked, "live": ""} {
		fields := []any{"player", "p1", "gen", "1"}
		if mark != "" {
			fields = append(fields, Field, mark)
		}
		if err := rdb.HSet(ctx, Key(prefix, family), fields...).Err(); err != nil {
			t.Fatal(err)
		}
	}
	c := New(rdb, prefix, 0)
	for family, want := range map[string]error{"out": auth.ErrSignedOut, "revoked": auth.ErrSignInRevoked, "live": nil, "gone": nil} {
		if err := c.Check(ctx, family); !errors.Is(err, want) || (want == nil && err != nil) {
			t.Errorf("%s: %v, want %v", family, err, want)
		}
	}
}

// A live answer is reused for the cache's time, then read again: a
// sign-out is seen once it has passed.
func TestCheckReusesALiveAnswerForItsTime(t *testing.T) {
	t.Parallel()
	rdb, prefix := testenv.Redis(t, "signin")
	ctx := t.Context()
	c := New(rdb, prefix, 300*time.Millisecond)
	if err := c.Check(ctx, "f"); err != nil {
		t.Fatal(err)
	}
	if err := rdb.HSet(ctx, Key(prefix, "f"), Field, SignedOut).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.Check(ctx, "f"); err != nil {
		t.Errorf("within the cache's time: %v, want the live answer reused", err)
	}
	deadline := testenv.Deadline(t)
	for !errors.Is(c.Check(ctx, "f"), auth.ErrSignedOut) {
		if time.Now().After(deadline) {
			t.Fatal("the sign-out is never seen")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := c.Check(ctx, "f"); !errors.Is(err, auth.ErrSignedOut) {
		t.Errorf("an ended sign-in is not cached live: %v", err)
	}
}
