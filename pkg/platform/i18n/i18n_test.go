package i18n

import (
	"os"
	"slices"
	"testing"
)

func load(t *testing.T, dir string) *Bundle {
	t.Helper()
	b, err := Load(os.DirFS("testdata"), dir)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestLanguagesComeFromTheFiles(t *testing.T) {
	b := load(t, "ok")
	if got, want := b.Languages(), []string{"en", "es", "pt-BR"}; !slices.Equal(got, want) {
		t.Errorf("Languages() = %v, want %v", got, want)
	}
}

func TestMatch(t *testing.T) {
	b := load(t, "ok")
	tests := []struct {
		name  string
		prefs []string
		want  string
	}{
		{name: "exact", prefs: []string{"pt-BR"}, want: "pt-BR"},
		{name: "portugal gets brazil", prefs: []string{"pt-PT"}, want: "pt-BR"},
		{name: "bare pt", prefs: []string{"pt"}, want: "pt-BR"},
		{name: "accept-language", prefs: []string{"fr-FR,fr;q=0.9,es;q=0.8,en;q=0.5"}, want: "es"},
		{name: "posix locale", prefs: []string{"pt_BR.UTF-8"}, want: "pt-BR"},
		{name: "posix C", prefs: []string{"C"}, want: "en"},
		{name: "spanish of mexico", prefs: []string{"es-MX"}, want: "es"},
		{name: "unserved", prefs: []string{"de-DE"}, want: "en"},
		{name: "first non-empty wins", prefs: []string{"", "es_AR.UTF-8", "pt_BR"}, want: "es"},
		{name: "nothing", prefs: nil, want: "en"},
		{name: "garbage", prefs: []string{"%%%"}, want: "en"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := b.Match(tt.prefs...); got != tt.want {
				t.Errorf("Match(%q) = %q, want %q", tt.prefs, got, tt.want)
			}
		})
	}
}

func TestT(t *testing.T) {
	b := load(t, "ok")
	tests := []struct {
		name, lang, key string
		params          Params
		want            string
	}{
		{name: "one", lang: "en", key: "plies", params: Params{"count": 1}, want: "1 ply"},
		{name: "other", lang: "en", key: "plies", params: Params{"count": 2}, want: "2 plies"},
		{name: "zero is other in english", lang: "en", key: "plies", params: Params{"count": 0}, want: "0 plies"},
		{name: "zero is one in portuguese", lang: "pt-BR", key: "plies", params: Params{"count": 0}, want: "0 lance"},
		{name: "grouping en", lang: "en", key: "plies", params: Params{"count": 1234}, want: "1,234 plies"},
		{name: "grouping pt", lang: "pt-BR", key: "plies", params: Params{"count": 1234}, want: "1.234 lances"},
		{name: "count as text", lang: "es", key: "plies", params: Params{"count": "1"}, want: "1 jugada"},
		{name: "placeholders", lang: "es", key: "refused", params: Params{"ply": "e5h", "rule": "Q3.2"}, want: "Jugada e5h rechazada (Q3.2)"},
		{name: "missing param shows", lang: "en", key: "refused", params: Params{"ply": "e5h"}, want: "Ply e5h refused ({rule})"},
		{name: "missing key is the key", lang: "pt-BR", key: "no.such.key", want: "no.such.key"},
		{name: "unserved language is english", lang: "de", key: "refused", params: Params{"ply": "a1", "rule": "Q1"}, want: "Ply a1 refused (Q1)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := b.Printer(tt.lang).T(tt.key, tt.params); got != tt.want {
				t.Errorf("T(%q) in %s = %q, want %q", tt.key, tt.lang, got, tt.want)
			}
		})
	}
}

func TestProblems(t *testing.T) {
	if p := load(t, "ok").Problems(); len(p) != 0 {
		t.Errorf("agreeing catalogs have problems: %q", p)
	}
	got := load(t, "bad").Problems()
	want := []string{
		`en.json lacks "extra"`,
		`pt-BR.json: "extra" is empty`,
		`pt-BR.json: "plies" lacks the plural form "one" (for 0)`,
		`pt-BR.json: "refused" has placeholders [lance rule], en.json [ply rule]`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("Problems() =\n%q\nwant\n%q", got, want)
	}
}

func TestLoadRefuses(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(dir+"/"+name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("es.json", `{"a": "b"}`)
	if _, err := Load(os.DirFS(dir), "."); err == nil {
		t.Error("catalogs without en.json loaded")
	}
	write("en.json", `{"a": {"one": "x"}}`)
	if _, err := Load(os.DirFS(dir), "."); err == nil {
		t.Error("plural forms without other loaded")
	}
	write("en.json", `{"a": {"plenty": "x", "other": "y"}}`)
	if _, err := Load(os.DirFS(dir), "."); err == nil {
		t.Error("a plural form that is no CLDR category loaded")
	}
	write("en.json", `{"a": "b"}`)
	write("pt_BR.json", `{"a": "b"}`)
	if _, err := Load(os.DirFS(dir), "."); err == nil {
		t.Error("a catalog named pt_BR.json loaded")
	}
}
