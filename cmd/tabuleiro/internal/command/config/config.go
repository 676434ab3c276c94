// Package config is `tabuleiro config`: the player's settings kept in the
// data directory.
package config

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"tabuleiro.dev/cmd/tabuleiro/internal/cli"
	"tabuleiro.dev/cmd/tabuleiro/internal/local"
	"tabuleiro.dev/cmd/tabuleiro/internal/text"
)

// newConfigCommand keeps the player's settings in the data directory: for
// now the language (`tabuleiro config lang pt-BR`).
func New(e *cli.Env) *cobra.Command {
	var dataDir string
	c := &cobra.Command{
		Use:   "config",
		Short: e.T("cmd.config.short"),
		Args:  cobra.NoArgs,
	}
	lang := &cobra.Command{
		Use:   "lang [" + strings.Join(text.Catalog.Languages(), "|") + "|auto]",
		Short: e.T("cmd.config.lang.short"),
		Long:  e.T("cmd.config.lang.long", "languages", text.LanguageList()),
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := cmp.Or(dataDir, e.Getenv("TABULEIRO_DATA_DIR"))
			if dir == "" {
				d, err := local.DataDir(e.Getenv)
				if err != nil {
					return &cli.ExitError{Code: 2, Err: err}
				}
				dir = d
			}
			if len(args) == 0 {
				saved := text.Saved(dir)
				if saved == "" {
					fmt.Fprintln(e.Stdout, e.T("config.lang.auto", "lang", e.P.Lang()))
				} else {
					fmt.Fprintln(e.Stdout, e.T("config.lang.saved", "lang", saved))
				}
				return nil
			}
			want := args[0]
			if want == "auto" {
				if err := text.Save(dir, ""); err != nil {
					return &cli.ExitError{Code: 1, Err: err}
				}
				fmt.Fprintln(e.Stdout, e.T("config.lang.cleared"))
				return nil
			}
			if !text.Known(want) {
				return &cli.ExitError{Code: 2, Err: e.Errorf("config.lang.unknown", "lang", want,
					"languages", text.LanguageList())}
			}
			got := text.Catalog.Match(want)
			if err := text.Save(dir, got); err != nil {
				return &cli.ExitError{Code: 1, Err: err}
			}
			fmt.Fprintln(e.Stdout, text.T(text.Catalog.Printer(got), "config.lang.set", "lang", got))
			return nil
		},
	}
	lang.Flags().StringVar(&dataDir, "data-dir", "", e.T("flag.data_dir"))
	c.AddCommand(lang)
	return c
}
