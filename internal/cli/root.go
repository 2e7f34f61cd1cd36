// Package cli is the cqlsize command line: a thin cobra layer over the library packages.
// Every command is testable in-process through Do, which takes its arguments and streams
// and returns the exit status instead of calling os.Exit.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/cqlsize/cqlsize/sizing"
)

// Env is what a command may touch of the outside world: its streams and environment.
// Commands read configuration from Env.Getenv, never os.Getenv, so tests control it.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	Ctx    context.Context
}

// Main runs cqlsize with the process's arguments and streams and exits with its status.
func Main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := DoContext(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

// Do runs cqlsize with args (without the program name) and returns the exit status.
func Do(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return DoContext(context.Background(), args, stdin, stdout, stderr, os.Getenv)
}

// DoContext is Do with a context (cancelled on SIGINT/SIGTERM by Main) and an environment.
func DoContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) (code int) {
	env := &Env{Stdin: stdin, Stdout: stdout, Stderr: stderr, Getenv: getenv, Ctx: ctx}
	defer func() {
		// A panic is a bug, but the user still gets a message and a status, not a stack dump.
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "cqlsize: internal error: %v\nplease report it with the command that caused it\n", r)
			code = ExitBadInput
		}
	}()
	root := newRootCmd(env)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	// After SetOut: cobra's completion commands take their writer when they are built.
	strictHelpAndCompletion(root)
	err := root.ExecuteContext(ctx)
	if err != nil {
		var e *ExitError
		if !errors.As(err, &e) || e.Err != nil {
			fmt.Fprintf(stderr, "cqlsize: %s\n", asTyped(cliWords(err.Error()), args))
		}
		for _, h := range hints(err) {
			fmt.Fprintf(stderr, "cqlsize: hint: %s\n", h)
		}
		if isUsageError(err) {
			fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", commandPath(root, args))
		}
	}
	return exitCode(err)
}

func newRootCmd(env *Env) *cobra.Command {
	root := &cobra.Command{
		Use:   "cqlsize",
		Short: "Query-first Cassandra table design: size partitions, count tombstones, check queries, migrate safely",
		Long: `cqlsize checks a Cassandra schema before it is deployed: partition sizes against the
` + sizing.LimitsText(sizing.Cassandra50, "and") + ` guideline (--target scylladb: ScyllaDB's thresholds) with a
byte model of what Cassandra 5.0 writes, tombstones per read against
tombstone_warn_threshold, access patterns that would need ALLOW FILTERING, and applies
versioned migrations safely from every deploy at once.

Exit status, the same for every command:
  0  fine
  1  findings or lints at or over --fail-on
  2  bad usage or bad input (a file, a flag, a statement the node refuses, a permission or a
     login it refuses): fix it first
  3  cluster trouble that is safe to retry as is: unreachable, lock wait timed out, lease lost,
     schema agreement timed out, a migration run stopped partway (the next run continues)
  4  in doubt: a statement may or may not have been applied; a person decides
     (cqlsize migrate resolve)`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return Usagef("%v", err)
	})
	// One line per command; keep the list sorted.
	root.AddCommand(
		newBackfillCmd(env),
		newCheckCmd(env),
		newDesignCmd(env),
		newEstimateCmd(env),
		newEvolveCmd(env),
		newExplainCmd(env),
		newMigrateCmd(env),
		newProfileCmd(env),
		newTierCmd(env),
		newVersionCmd(env),
	)
	return root
}

// strictHelpAndCompletion makes cobra's built-in `help` and `completion` commands refuse what
// they do not know (exit 2) instead of printing usage with exit 0: `cqlsize help nosuch` and
// `cqlsize completion tcsh` in a script must fail, like every other typo.
func strictHelpAndCompletion(root *cobra.Command) {
	root.SetHelpCommand(&cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		RunE: func(_ *cobra.Command, args []string) error {
			cmd, rest, err := root.Find(args)
			if err != nil || cmd == nil || len(rest) > 0 {
				return Usagef("unknown help topic %q: the commands are listed by `cqlsize --help`", strings.Join(args, " "))
			}
			return cmd.Help()
		},
	})
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return Usagef("completion %q: want bash, zsh, fish or powershell", args[0])
			}
			return cmd.Help()
		}
	}
}

// isUsageError reports whether cobra rejected the command line itself.
func isUsageError(err error) bool {
	s := err.Error()
	return strings.HasPrefix(s, "unknown command") || strings.HasPrefix(s, "unknown flag") ||
		strings.Contains(s, "accepts ") || strings.Contains(s, "requires at least") || strings.Contains(s, "required flag")
}

func commandPath(root *cobra.Command, args []string) string {
	c, _, err := root.Find(args)
	if err != nil || c == nil {
		return root.Name()
	}
	return c.CommandPath()
}
