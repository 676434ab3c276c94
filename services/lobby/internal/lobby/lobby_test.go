package lobby

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The web client checks a name in the page before it asks (web/src/names.ts):
// both take and refuse the same names, the list in web/test/names.json.
func TestDisplayNamesAsTheWebClientChecksThem(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "web", "test", "names.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ Valid, Invalid []string }
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Valid) < 5 || len(f.Invalid) < 5 {
		t.Fatalf("names.json has %d valid and %d invalid names, want at least 5 of each", len(f.Valid), len(f.Invalid))
	}
	for _, n := range f.Valid {
		if err := ValidateDisplayName(n); err != nil {
			t.Errorf("ValidateDisplayName(%q) = %v; names.json lists it as valid", n, err)
		}
	}
	for _, n := range f.Invalid {
		if err := ValidateDisplayName(n); err == nil {
			t.Errorf("ValidateDisplayName(%q) = nil; names.json lists it as invalid", n)
		}
	}
}

func TestValidateDisplayName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		give    string
		wantErr string // substring; empty for valid
	}{
		{"ascii", "Ana", ""},
		{"all allowed marks", "a_b-c.d 9", ""},
		{"two letters", "Bo", ""},
		{"non-latin letters", "João Ñandú", ""},
		{"max length", strings.Repeat("x", 24), ""},
		{"one letter", "A", "2 to 24 characters, got 1"},
		{"too long", strings.Repeat("x", 25), "2 to 24 characters, got 25"},
		{"empty", "", "2 to 24 characters, got 0"},
		{"leading space", " Ana", "start or end with white space"},
		{"trailing space", "Ana ", "start or end with white space"},
		{"trailing tab", "Ana\t", "start or end with white space"},
		{"emoji", "Ana😀", "not allowed"},
		{"angle bracket", "<b>x", "not allowed"},
		{"invalid utf8", "a\xffb", "UTF-8"},
		{"cyrillic", "Анна", ""},
		{"greek with digits", "Αθηνά 7", ""},
		{"japanese", "ラーメン太郎", ""},
		{"korean", "김민수", ""},
		{"cyrillic A in a latin name", "Аnа", "mixes Cyrillic ('А') and Latin ('n') letters"},
		{"latin o in a cyrillic name", "Бoрис", "mixes Cyrillic"},
		{"greek omicron in a latin name", "Bοb", "mixes Latin ('B') and Greek ('ο')"},
		{"hangul fillers", "\u3164\u3164", "shows as blank"},
		{"hangul choseong filler", "A\u115Fb", "shows as blank"},
		{"punctuation only", "..", "at least one letter or digit"},
		{"marks and spaces only", "- _", "at least one letter or digit"},
		{"fullwidth", "Ｂｏｂ", `write it as "Bob"`},
		{"mathematical bold", "𝐁𝐨𝐛", `write it as "Bob"`},
		{"script capital", "ℬob", `write it as "Bob"`},
		{"decomposed accent", "Joa\u0303o", `write it as "João"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := ValidateDisplayName(tt.give)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("ValidateDisplayName(%q) = %v, want nil", tt.give, err)
				}
				return
			}
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("ValidateDisplayName(%q) = %v, want ErrInvalid containing %q", tt.give, err, tt.wantErr)
			}
		})
	}
}

func TestTimeControlValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		give TimeControl
		ok   bool
	}{
		{"none", TimeControl{}, true},
		{"quoridor default (Q5)", TimeControl{180000, 2000}, true},
		{"base too short", TimeControl{999, 0}, false},
		{"base too long", TimeControl{MaxBaseMS + 1, 0}, false},
		{"negative increment", TimeControl{60000, -1}, false},
		{"increment too long", TimeControl{60000, MaxIncrementMS + 1}, false},
	}
	for _, tt := range tests {
		if err := tt.give.Validate(); (err == nil) != tt.ok {
			t.Errorf("%s: Validate(%v) = %v, want ok %v", tt.name, tt.give, err, tt.ok)
		}
	}
}

func TestNewIDIsUnique(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 1000 {
		id := NewID("p_")
		if seen[id] || len(id) != 28 {
			t.Fatalf("NewID gave %q (len %d, seen %v)", id, len(id), seen[id])
		}
		seen[id] = true
	}
}

func TestClip(t *testing.T) {
	t.Parallel()
	tests := []struct{ give, want string }{
		{"", ""},
		{strings.Repeat("a", MaxEcho), strings.Repeat("a", MaxEcho)},
		{strings.Repeat("a", MaxEcho+1), strings.Repeat("a", MaxEcho) + "…"},
		{strings.Repeat("a", MaxEcho-1) + "é", strings.Repeat("a", MaxEcho-1) + "…"}, // no split rune
	}
	for _, tt := range tests {
		if got := Clip(tt.give); got != tt.want {
			t.Errorf("Clip(%d bytes) = %q, want %q", len(tt.give), got, tt.want)
		}
	}
}
