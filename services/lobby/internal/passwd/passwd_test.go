package passwd

import (
	"strings"
	"testing"
)

func TestHashVerify(t *testing.T) {
	t.Parallel()
	p := Params{Time: 1, MemoryKiB: 64, Threads: 1}
	h := p.Hash("correct horse")
	if !strings.HasPrefix(h, "$argon2id$v=19$m=64,t=1,p=1$") {
		t.Fatalf("hash %q is not an argon2id PHC string of its parameters", h)
	}
	if h2 := p.Hash("correct horse"); h2 == h {
		t.Error("two hashes of one password are equal: no salt")
	}
	for _, tt := range []struct {
		pw   string
		want bool
	}{{"correct horse", true}, {"correct hors", false}, {"", false}, {"Correct horse", false}} {
		if ok, err := Verify(h, tt.pw); err != nil || ok != tt.want {
			t.Errorf("Verify(%q) = %v, %v; want %v", tt.pw, ok, err, tt.want)
		}
	}
	// The default parameters are the documented ones.
	if d := Default().Hash("x"); !strings.HasPrefix(d, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Errorf("default hash %q", d)
	}
	for _, bad := range []string{"", "plain", "$argon2i$v=19$m=64,t=1,p=1$AAAA$AAAA", "$argon2id$v=19$m=64,t=0,p=1$AAAA$AAAA", "$argon2id$v=19$m=64,t=1,p=1$!!$AAAA"} {
		if _, err := Verify(bad, "x"); err == nil {
			t.Errorf("Verify(%q) accepted a malformed hash", bad)
		}
	}
}
