package cli

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/cobra"
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
	root.InitDefaultHelpCmd()
	for _, c := range root.Commands() {
		if c.Name() == "help" {
			c.Short = e.T("cobra.help_short")
			c.Long = e.T("cobra.help_long")
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
