package cli

import (
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"tabuleiro.dev/cmd/tabuleiro/internal/termtext"
)

// flagDefault is pflag's "(default VALUE)" at the end of a flag's line.
var flagDefault = regexp.MustCompile(`(?m) \(default (.+)\)$`)

// registerFlagDefaults adds the template function flagDefaults, which
// writes each flag's default in a usage template's words: cobra's template
// functions are process-wide, so the words are the template's, passed in
// (quoted) where it calls the function.
var registerFlagDefaults = sync.OnceFunc(func() {
	cobra.AddTemplateFunc("flagDefaults", func(usages, format string) string {
		return flagDefault.ReplaceAllStringFunc(usages, func(m string) string {
			return " (" + strings.Replace(format, "{value}", flagDefault.FindStringSubmatch(m)[1], 1) + ")"
		})
	})
	// cobra's UseLine ends in " [flags]" (its code's word, not the
	// template's): the template passes its own.
	cobra.AddTemplateFunc("useLine", func(line, flags string) string {
		return strings.Replace(line, "[flags]", flags, 1)
	})
})

// column finds where a help line's second column starts (a command's or
// a flag's text): after the spaces that align it.
var column = regexp.MustCompile(`^(\s*\S.*?\s{2,})\S`)

// wrapHelp wraps cobra's help to width at spaces: a paragraph of the
// command's description is laid out anew (the catalogs break them at 80
// columns, some a little past), a line with two columns (a command and
// what it does, a flag and its usage) keeps its further lines under its
// second column, any other line under its own indent.
func wrapHelp(help string, width int) string {
	var out []string
	paras := strings.Split(help, "\n\n")
	for _, para := range paras {
		lines := strings.Split(para, "\n")
		prose := true
		for _, l := range lines {
			prose = prose && l != "" && l == strings.TrimLeft(l, " ") && !strings.HasSuffix(l, ":")
		}
		if prose {
			out = append(out, termtext.Wrap(strings.Join(lines, " "), width))
			continue
		}
		var b []string
		for _, line := range lines {
			if utf8.RuneCountInString(line) <= width {
				b = append(b, line)
				continue
			}
			col := len(line) - len(strings.TrimLeft(line, " "))
			if m := column.FindStringSubmatch(line); m != nil && len(m[1]) < width-20 {
				col = len(m[1])
			}
			for i, l := range strings.Split(termtext.Wrap(line[col:], width-col), "\n") {
				if i == 0 {
					b = append(b, line[:col]+l)
				} else {
					b = append(b, strings.Repeat(" ", col)+l)
				}
			}
		}
		out = append(out, strings.Join(b, "\n"))
	}
	return strings.Join(out, "\n\n")
}

// localizeHelp puts cobra's help words (its usage template's headings,
// the help flag's and command's text) in the player's language.
func localizeHelp(e *Env, root *cobra.Command) {
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
		tpl = strings.ReplaceAll(tpl, w.en, e.T(w.key))
	}
	registerFlagDefaults()
	tpl = strings.ReplaceAll(tpl, "{{.UseLine}}", "{{useLine .UseLine "+strconv.Quote(e.T("cobra.flags_arg"))+"}}")
	for _, set := range []string{".LocalFlags", ".InheritedFlags"} {
		tpl = strings.ReplaceAll(tpl, "{{"+set+".FlagUsages | trimTrailingWhitespaces}}",
			"{{flagDefaults ("+set+".FlagUsages | trimTrailingWhitespaces) "+strconv.Quote(e.T("cobra.default"))+"}}")
	}
	// Shell completion scripts are for shells, not players: the command
	// works but is not listed (its texts are cobra's, in English).
	root.CompletionOptions.HiddenDefaultCmd = true
	root.SetUsageTemplate(tpl)
	// Help is wrapped to the terminal it goes to (80 columns for a pipe).
	help := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		var b strings.Builder
		c.SetOut(&b)
		help(c, args)
		c.SetOut(nil)
		root.SetOut(e.Stdout)
		_, _ = io.WriteString(e.Stdout, wrapHelp(b.String(), termtext.Width(e.Stdout)))
	})
	root.InitDefaultHelpCmd()
	for _, c := range root.Commands() {
		if c.Name() == "help" {
			c.Short = e.T("cobra.help_short")
			c.Long = e.T("cobra.help_long")
			// cobra's own answer to an unknown topic is English, and exits 0.
			c.RunE = func(c *cobra.Command, args []string) error {
				cmd, _, err := c.Root().Find(args)
				if cmd == nil || err != nil {
					return &ExitError{Code: 2, Err: e.Errorf("error.help_topic", "topic", strconv.Quote(strings.Join(args, " ")), "command", c.Root().CommandPath())}
				}
				cmd.InitDefaultHelpFlag()
				return cmd.Help()
			}
		}
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.InitDefaultHelpFlag()
		if f := c.Flags().Lookup("help"); f != nil {
			f.Usage = e.T("cobra.help_flag", "name", c.Name())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
