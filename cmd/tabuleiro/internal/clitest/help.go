package clitest

import (
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"tabuleiro.dev/cmd/tabuleiro/internal/cli"
	"tabuleiro.dev/cmd/tabuleiro/internal/text"
)

// HelpTranslated checks that the help of these commands (each command's
// Short and Long, each flag's usage, hidden ones too) is in every
// language of the catalog: a text that reads as in English in another
// language was not translated.
func (cs Commands) HelpTranslated(t *testing.T) {
	t.Helper()
	english := cli.NewRoot(&cli.Env{P: text.English}, cs...)
	for _, lang := range text.Catalog.Languages() {
		if lang == text.English.Lang() {
			continue
		}
		other := cli.NewRoot(&cli.Env{P: text.Catalog.Printer(lang)}, cs...)
		compareHelp(t, lang, english, other)
	}
}

func compareHelp(t *testing.T, lang string, en, other *cobra.Command) {
	t.Helper()
	path := en.CommandPath()
	if en.Short != "" && en.Short == other.Short {
		t.Errorf("%s: %s's short help is in English: %q", lang, path, en.Short)
	}
	if en.Long != "" && en.Long == other.Long {
		t.Errorf("%s: %s's long help is in English: %q", lang, path, en.Long)
	}
	en.Flags().VisitAll(func(f *pflag.Flag) {
		if o := other.Flags().Lookup(f.Name); o != nil && f.Usage != "" && o.Usage == f.Usage {
			t.Errorf("%s: %s --%s's usage is in English: %q", lang, path, f.Name, f.Usage)
		}
	})
	for _, sub := range en.Commands() {
		if o, _, err := other.Find([]string{sub.Name()}); err == nil && o != other {
			compareHelp(t, lang, sub, o)
		}
	}
}
