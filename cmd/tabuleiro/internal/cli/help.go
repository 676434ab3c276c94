package cli

import (
	"strings"

	"github.com/spf13/cobra"
)

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
