package cli

import (
	"errors"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// cobra and pflag refuse a command line in English, in sentences of their
// own; these word the refusals in the player's language, each naming what
// to run for help.

// flagError is the root's FlagErrorFunc (every command inherits it): an
// unknown option, one without its value, or a value that does not parse.
func flagError(e *Env) func(*cobra.Command, error) error {
	return func(c *cobra.Command, err error) error {
		var (
			unknown *pflag.NotExistError
			needs   *pflag.ValueRequiredError
			invalid *pflag.InvalidValueError
		)
		switch {
		case errors.As(err, &unknown):
			flag := "--" + unknown.GetSpecifiedName()
			if strings.HasPrefix(unknown.Error(), "unknown shorthand") {
				flag = "-" + unknown.GetSpecifiedName()
			}
			return e.Errorf("error.unknown_flag", "flag", flag, "command", c.CommandPath())
		case errors.As(err, &needs):
			return e.Errorf("error.flag_needs_value", "flag", "--"+needs.GetFlag().Name, "usage", needs.GetFlag().Usage)
		case errors.As(err, &invalid):
			return e.Errorf("error.flag_invalid", "flag", "--"+invalid.GetFlag().Name, "value", strconv.Quote(invalid.GetValue()), "usage", invalid.GetFlag().Usage)
		}
		return err
	}
}

// cobra's refusals of a command's arguments (args.go), which come as
// plain errors.
var (
	unknownCommand = regexp.MustCompile(`^unknown command "(.*)" for "(.*?)"`)
	argsAtMost     = regexp.MustCompile(`^accepts at most (\d+) arg\(s\), received (\d+)$`)
	argsExact      = regexp.MustCompile(`^accepts (\d+) arg\(s\), received (\d+)$`)
)

// argsError words cobra's refusal of a command's arguments; other errors
// come back as they are.
func argsError(e *Env, root *cobra.Command, args []string, err error) error {
	msg := err.Error()
	if m := unknownCommand.FindStringSubmatch(msg); m != nil {
		c, _, ferr := root.Find(strings.Fields(m[2])[1:])
		if ferr != nil || c == nil {
			c = root
		}
		if !c.HasAvailableSubCommands() {
			return e.Errorf("error.args_none", "command", c.CommandPath(), "arg", strconv.Quote(m[1]))
		}
		out := e.T("error.unknown_command", "arg", strconv.Quote(m[1]), "command", c.CommandPath())
		if s := c.SuggestionsFor(m[1]); len(s) > 0 {
			out += "; " + e.T("error.did_you_mean", "commands", strings.Join(s, ", "))
		}
		return errors.New(out)
	}
	c, _, ferr := root.Find(args)
	if ferr != nil || c == nil {
		return err
	}
	for _, r := range []struct {
		re  *regexp.Regexp
		key string
	}{{argsAtMost, "error.args_at_most"}, {argsExact, "error.args_exact"}} {
		if m := r.re.FindStringSubmatch(msg); m != nil {
			n, _ := strconv.Atoi(m[1])
			got, _ := strconv.Atoi(m[2])
			return e.Errorf(r.key, "count", n, "got", got, "command", c.CommandPath())
		}
	}
	return err
}
