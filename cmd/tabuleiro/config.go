package main

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"tabuleiro.dev/cmd/tabuleiro/internal/local"
	"tabuleiro.dev/cmd/tabuleiro/internal/text"
)

// newConfigCommand keeps the player's settings in the data directory: for
// now the language (`tabuleiro config lang pt-BR`).
func newConfigCommand(e *env) *cobra.Command {
	var dataDir string
	c := &cobra.Command{
		Use:   "config",
		Short: e.t("cmd.config.short"),
		Args:  cobra.NoArgs,
	}
	lang := &cobra.Command{
		Use:   "lang [" + strings.Join(text.Catalog.Languages(), "|") + "|auto]",
		Short: e.t("cmd.config.lang.short"),
		Long:  e.t("cmd.config.lang.long", "languages", languageList()),
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := cmp.Or(dataDir, e.getenv("TABULEIRO_DATA_DIR"))
			if dir == "" {
				d, err := local.DataDir(e.getenv)
				if err != nil {
					return &exitError{code: 2, err: err}
				}
				dir = d
			}
			if len(args) == 0 {
				saved := text.Saved(dir)
				if saved == "" {
					fmt.Fprintln(e.stdout, e.t("config.lang.auto", "lang", e.p.Lang()))
				} else {
					fmt.Fprintln(e.stdout, e.t("config.lang.saved", "lang", saved))
				}
				return nil
			}
			want := args[0]
			if want == "auto" {
				if err := text.Save(dir, ""); err != nil {
					return &exitError{code: 1, err: err}
				}
				fmt.Fprintln(e.stdout, e.t("config.lang.cleared"))
				return nil
			}
			if !text.Known(want) {
				return &exitError{code: 2, err: e.errorf("config.lang.unknown", "lang", want,
					"languages", languageList())}
			}
			got := text.Catalog.Match(want)
			if err := text.Save(dir, got); err != nil {
				return &exitError{code: 1, err: err}
			}
			fmt.Fprintln(e.stdout, text.T(text.Catalog.Printer(got), "config.lang.set", "lang", got))
			return nil
		},
	}
	lang.Flags().StringVar(&dataDir, "data-dir", "", e.t("flag.data_dir"))
	c.AddCommand(lang)
	return c
}

// languageList names the catalog's languages: "en (English), pt-BR
// (Português (Brasil))".
func languageList() string {
	var out []string
	for _, l := range text.Catalog.Languages() {
		out = append(out, l+" ("+text.T(text.Catalog.Printer(l), "language.name")+")")
	}
	return strings.Join(out, ", ")
}

// localizeHelp puts cobra's help words (its usage template's headings,
// the help flag's and command's text) in the player's language.
func localizeHelp(e *env, root *cobra.Command) {
	tpl := root.UsageTemplate()
	for _, w := range []struct{ en, key string }{
		{"Usage:", "cobra.usage"},
		{"Aliases:", "cobra.aliases"},
		{"Examples:", "cobra.examples"},
		{"Available Commands:", "cobra.commands"},
		{"Additional Commands:", "cobra.additional"},
		{"Global Flags:", "cobra.global_flags"},
		{"Flags:", "cobra.flags"},
		{"Additional help topics:", "cobra.topics"},
		{`Use "{{.CommandPath}} [command] --help" for more information about a command.`, "cobra.more"},
		{"[flags]", "cobra.flags_arg"},
		{"[command]", "cobra.command_arg"},
	} {
		tpl = strings.ReplaceAll(tpl, w.en, e.t(w.key))
	}
	root.SetUsageTemplate(tpl)
	root.InitDefaultHelpCmd()
	for _, c := range root.Commands() {
		if c.Name() == "help" {
			c.Short = e.t("cobra.help_short")
			c.Long = e.t("cobra.help_long")
		}
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.InitDefaultHelpFlag()
		if f := c.Flags().Lookup("help"); f != nil {
			f.Usage = e.t("cobra.help_flag", "name", c.Name())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
