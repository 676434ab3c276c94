package cli

import (
	"cmp"
	"context"
	"errors"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"tabuleiro.dev/cmd/tabuleiro/internal/local"
	"tabuleiro.dev/cmd/tabuleiro/internal/termtext"
	"tabuleiro.dev/cmd/tabuleiro/internal/text"
)

// Command makes one subcommand of the root command in e's language.
type Command func(e *Env) *cobra.Command

// Run executes one command line with the root command made of commands
// and returns the process exit status: 0 on success, 1 when the command
// failed (an illegal ply, a failed game), 2 on a usage error.
func Run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer, commands ...Command) int {
	return RunAs(ctx, SelfCommand(), args, getenv, stdin, stdout, stderr, commands...)
}

// RunAs is Run with the program's name as the player runs it (Env.Self).
func RunAs(ctx context.Context, self string, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer, commands ...Command) int {
	lang, unspoken := chooseLang(args, getenv)
	p := text.Catalog.Printer(lang)
	for _, l := range unspoken {
		_, _ = io.WriteString(stderr, "tabuleiro: "+text.LangWarning(p, l)+"\n") // one line, never wrapped
	}
	env := &Env{Getenv: getenv, Stdin: stdin, Stdout: stdout, Stderr: stderr, P: text.Or(p), Self: self}
	root := NewRoot(env, commands...)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	err = argsError(env, root, args, err)
	termtext.Eprintln(stderr, "tabuleiro: "+Hints(text.Err(p, err), self))
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	return 2
}

// NewRoot is the root command with the given subcommands, its help in e's
// language.
func NewRoot(e *Env, commands ...Command) *cobra.Command {
	root := &cobra.Command{
		Use:           "tabuleiro",
		Short:         e.T("cmd.root.short"),
		Long:          e.T("cmd.root.long"),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().String("lang", "", e.T("flag.lang"))
	root.SetIn(e.Stdin)
	root.SetOut(e.Stdout)
	root.SetErr(e.Stderr)
	root.SetFlagErrorFunc(flagError(e))
	for _, c := range commands {
		root.AddCommand(c(e))
	}
	localizeHelp(e, root)
	return root
}

// chooseLang finds the player's language before the command line is
// parsed (the commands' help is in it): --lang, $TABULEIRO_LANG, the
// setting `tabuleiro config lang` kept in the data directory (--data-dir,
// $TABULEIRO_DATA_DIR or the default), the POSIX locale, English. It
// also returns the languages named by --lang or $TABULEIRO_LANG that no
// catalog speaks, passed over, for a warning.
func chooseLang(args []string, getenv func(string) string) (string, []string) {
	flag := func(name string) string {
		for i, a := range args {
			if a == "--" {
				break
			}
			if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
				return v
			}
			if a == "--"+name && i+1 < len(args) {
				return args[i+1]
			}
		}
		return ""
	}
	dir := cmp.Or(flag("data-dir"), getenv("TABULEIRO_DATA_DIR"))
	if dir == "" {
		dir, _ = local.DataDir(getenv)
	}
	return text.Choose(flag("lang"), getenv, text.Saved(dir)), text.Unspoken(flag("lang"), getenv)
}
