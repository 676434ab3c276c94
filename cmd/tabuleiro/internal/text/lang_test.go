package text

import (
	"slices"
	"strings"
	"testing"
)

// TestUnspoken: a language named by --lang or $TABULEIRO_LANG that no
// catalog speaks is reported, for a warning in the language chosen
// instead that names the languages there are; a tag a catalog serves
// (es-ES, pt) is not.
func TestUnspoken(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		flag string
		env  string
		want []string
	}{
		{name: "none named"},
		{name: "spoken", flag: "pt-BR", env: "es"},
		{name: "regional tags", flag: "es-ES", env: "pt"},
		{name: "unknown flag", flag: "xx", want: []string{"xx"}},
		{name: "french", flag: "fr", want: []string{"fr"}},
		{name: "both", flag: "fr", env: "de_DE.UTF-8", want: []string{"fr", "de_DE.UTF-8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Unspoken(tt.flag, func(k string) string {
				if k == EnvLang {
					return tt.env
				}
				return ""
			})
			if !slices.Equal(got, tt.want) {
				t.Errorf("Unspoken(%q, %s=%q) = %q, want %q", tt.flag, EnvLang, tt.env, got, tt.want)
			}
		})
	}
	for _, lang := range Catalog.Languages() {
		w := LangWarning(Catalog.Printer(lang), "xx")
		if strings.Contains(w, "\n") || !strings.Contains(w, "xx") || !strings.Contains(w, "pt-BR") || !strings.Contains(w, "es (Español)") {
			t.Errorf("%s: LangWarning = %q, want one line naming xx and every language", lang, w)
		}
	}
}
