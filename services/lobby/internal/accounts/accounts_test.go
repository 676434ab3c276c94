package accounts

import (
	"errors"
	"testing"

	"tabuleiro.dev/services/lobby/internal/lobby"
)

func TestUsernames(t *testing.T) {
	t.Parallel()
	alice, err := ParseUsername("Alice")
	if err != nil || alice.Key != "alice" {
		t.Fatalf("ParseUsername(Alice) = %+v, %v", alice, err)
	}
	// One username under case folding and width; look-alikes share a
	// skeleton.
	same := []string{"ALICE", "aLiCe"}
	for _, n := range same {
		u, err := ParseUsername(n)
		if err != nil || u.Key != alice.Key {
			t.Errorf("ParseUsername(%q) = %+v, %v; want key %q", n, u, err, alice.Key)
		}
	}
	for _, tt := range []struct{ a, b string }{
		{"alice", "a1ice"}, {"alice", "AIice"}, {"modern", "rnodern"}, {"good", "g00d"},
		{"ace", "асе"}, // Cyrillic а, с, е
		{"paypal", "pаypаl_"[:len("pаypаl")]},
	} {
		ua, erra := ParseUsername(tt.a)
		ub, errb := ParseUsername(tt.b)
		if erra != nil {
			t.Errorf("%q: %v", tt.a, erra)
			continue
		}
		if errb != nil {
			// A mix of scripts is refused outright: a look-alike too.
			if !errors.Is(errb, lobby.ErrInvalid) {
				t.Errorf("%q: %v", tt.b, errb)
			}
			continue
		}
		if !LookAlike(ua, ub) {
			t.Errorf("skeletons of %q (%q) and %q (%q) differ; want look-alikes to share one", tt.a, ua.Skeleton, tt.b, ub.Skeleton)
		}
	}
	for _, tt := range []struct{ a, b string }{{"alice", "alicia"}, {"bob", "rob"}} {
		ua, _ := ParseUsername(tt.a)
		ub, _ := ParseUsername(tt.b)
		if LookAlike(ua, ub) {
			t.Errorf("%q and %q share skeleton %q", tt.a, tt.b, ua.Skeleton)
		}
	}
	for _, bad := range []string{"", "ab", "with space", "ａｌｉｃｅ", "аlice", "a@b", "___", "averyveryverylongusername1"} {
		if _, err := ParseUsername(bad); !errors.Is(err, lobby.ErrInvalid) {
			t.Errorf("ParseUsername(%q) = %v, want ErrInvalid", bad, err)
		}
	}
}

func TestPasswords(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"", "short", string(make([]byte, 129)), "abc\x00defgh", "\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8"} {
		if _, err := ParsePassword(bad); !errors.Is(err, lobby.ErrInvalid) {
			t.Errorf("ParsePassword(%q) = %v, want ErrInvalid", bad, err)
		}
	}
	pw, err := ParsePassword("correct horse battery")
	if err != nil || NormalizePassword("correct horse battery") != pw {
		t.Errorf("ParsePassword = %q, %v", pw, err)
	}
}
