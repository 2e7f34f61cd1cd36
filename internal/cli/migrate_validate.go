package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/lint"
	"github.com/cqlsize/cqlsize/cql/liveschema"
	"github.com/cqlsize/cqlsize/migrations"
	"github.com/cqlsize/cqlsize/sizing"
)

type migrateValidateFlags struct {
	format string
	workloadArgs
	allow     []string
	offline   bool
	listLints bool
	verbose   bool
	container string
	target    string
}

func newMigrateValidateCmd(env *Env, mf *migrateFlags) *cobra.Command {
	f := &migrateValidateFlags{}
	cmd := &cobra.Command{
		Use:   "validate [DIR]",
		Short: "Parse and lint every migration; compare checksums when a cluster is given",
		Long: `Check the migration folder without changing anything: every file name and statement
parses, the statements build a consistent schema, and the lints pass (--list-lints shows
them). With a cluster (--hosts or CASSANDRA_HOSTS, and --keyspace) it also compares each
applied file's checksum with the recorded one, and checks and lints the pending files
against the live schema, as up and plan do: a drop of a table the cluster holds is DS102
here as it is for up. --offline skips the cluster: the lints then judge against what the
earlier files create. A file with no statement (an unfilled ` + "`migrate new`" + ` template) is
refused, named.

With --container IMAGE it starts a throwaway node from IMAGE instead (a Docker engine is
needed), replays the whole history on it from an empty keyspace, going on past the
statements the node refuses, and reports each of them beside what the offline model
(the schema model and the node's settings) says; a statement the two judge differently is
reported as a model bug. The container is removed at the end. Exit status there: 0 the
node applies every statement, 1 it does but the model disagrees somewhere, 2 the node
refuses a statement, 3 the container could not be started or gave no answer.

Exit status: 0 clean (warnings allowed), 1 an error-level lint or a changed file,
2 a file that does not parse (file:line:col), a file with no statement, or bad flags.`,
		Example: `  cqlsize migrate validate --dir db/migrations
  cqlsize migrate validate --keyspace app --format json
  cqlsize migrate validate --list-lints
  cqlsize migrate validate --keyspace app --container cassandra:5.0`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := dirArgument(cmd, mf, args); err != nil {
				return err
			}
			return runMigrateValidate(cmd.Context(), env, cmd, mf, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.format, "format", "text", "output format: text or json")
	f.workloadArgs.bind(fl)
	fl.StringSliceVar(&f.allow, "allow-lint", nil, "report this lint code as silenced instead of failing (repeatable)")
	fl.StringVar(&f.target, "target", "cassandra-5.0", "judge the schema by the rules of: cassandra-5.0 or cassandra-4.1 (offline)")
	fl.BoolVar(&f.offline, "offline", false, "do not read the cluster even when hosts are configured")
	fl.BoolVar(&f.listLints, "list-lints", false, "print the lint codes (code, name, severity, what, why, fix) as a Markdown table, or JSON with --format json, and exit")
	fl.BoolVar(&f.listLints, "list-codes", false, "the same as --list-lints, named as on every other command")
	fl.BoolVar(&f.verbose, "show-silenced", false, "also list diagnostics silenced by nolint directives")
	fl.StringVar(&f.container, "container", "", "replay the whole history, from an empty keyspace, on a fresh node started from this image (e.g. cassandra:5.0; needs a Docker engine), report every statement it refuses beside what the offline model says, and remove it")
	return cmd
}

type checksumJSON struct {
	File     string `json:"file"`
	Version  int64  `json:"version"`
	Recorded string `json:"recorded"`
	Current  string `json:"current"`
	Message  string `json:"message"`
}

type validateJSON struct {
	Files      int             `json:"files"`
	Statements int             `json:"statements"`
	Lint       lint.JSONReport `json:"lint"`
	Cluster    bool            `json:"checked_against_cluster"`
	Checksums  []checksumJSON  `json:"changed_files"`
}

func runMigrateValidate(ctx context.Context, env *Env, cmd *cobra.Command, mf *migrateFlags, f *migrateValidateFlags) error {
	if f.listLints {
		// The lint listing has always been the Markdown table (what, why, fix); JSON on request.
		format := f.format
		if format == "text" {
			format = "markdown"
		}
		return listCodes(env, format, isLint)
	}
	if f.format != "text" && f.format != "json" {
		return Usagef("--format %q: want text or json", f.format)
	}
	if err := (&lintGate{allow: f.allow, workloadArgs: f.workloadArgs}).check(); err != nil {
		return err
	}
	target, err := sizing.ParseTarget(f.target)
	if err != nil {
		return Usagef("--target: %v", err)
	}
	rel := releaseOf(target)
	migs, err := mf.loadRunnable(env)
	if err != nil {
		return err
	}
	if f.container != "" {
		return validateOnContainer(ctx, env, cmd, mf, f, migs)
	}
	if _, err := judgedHistory(migs, mf.conn.keyspace, rel); err != nil {
		return InputErr(keyspaceHint(err))
	}
	out := validateJSON{Files: len(migs), Checksums: []checksumJSON{}}
	for _, m := range migs {
		out.Statements += len(m.Statements)
	}

	_, hosts, err := mf.conn.config(env, cmd, false)
	if err != nil {
		return err
	}
	var rep *lint.Report
	pending := -1 // files linted against the cluster; -1: offline
	if hosts && !f.offline && mf.conn.keyspace != "" {
		sess, err := mf.open(ctx, env, cmd, false)
		if err != nil {
			return err
		}
		defer sess.Close()
		m, err := migrations.New(sess.s, migs, mf.options(env, nil))
		if err != nil {
			return Usagef("%v", err)
		}
		st, err := m.Status(ctx)
		if err != nil {
			return migrateErr(err)
		}
		out.Cluster = true
		for _, s := range st {
			var ce *migrations.ChecksumError
			if s.Err != nil && errors.As(s.Err, &ce) {
				out.Checksums = append(out.Checksums, checksumJSON{File: ce.File, Version: ce.Version, Recorded: ce.Recorded, Current: ce.Current, Message: cliWords(ce.Error())})
			}
		}
		// With a cluster, validate says what up will: the pending files are checked against
		// the model of the live schema and linted against it, so a drop of a table the
		// cluster holds is DS102 here as it is for up (offline it is judged against the
		// schema the earlier files produce, where the same drop may be harmless).
		if len(out.Checksums) == 0 {
			if rep, pending, err = validateAgainstLive(ctx, env, sess, mf, m, migs, f); err != nil {
				return err
			}
		}
	}
	if rep == nil {
		var start *cql.Schema // from the keyspace alone, by the target's rules
		if rel != cql.Release50 {
			start = cql.NewSchemaIn(mf.conn.keyspace)
			start.Release = rel
		}
		if rep, err = lintMigrationsOn(mf.conn.keyspace, migs, migs, f.workloadArgs, f.allow, start, nil); err != nil {
			return err
		}
	}
	out.Lint = rep.JSON()

	if f.format == "json" {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else {
		if err := rep.WriteText(env.Stdout, f.verbose); err != nil {
			return err
		}
		for _, c := range out.Checksums {
			fmt.Fprintf(env.Stdout, "%s\n", c.Message)
		}
		where := "offline: checksums not compared"
		if out.Cluster {
			where = fmt.Sprintf("checksums compared with keyspace %s: %d changed", mf.conn.keyspace, len(out.Checksums))
			if pending >= 0 {
				where += fmt.Sprintf("; %s linted against its live schema", plural(pending, "pending file", "pending files"))
			}
		}
		fmt.Fprintf(env.Stdout, "validated %s, %s (%s)\n", plural(out.Files, "file", "files"), plural(out.Statements, "statement", "statements"), where)
	}
	if rep.Errors() > 0 || len(out.Checksums) > 0 {
		return Findings()
	}
	return nil
}

// validateAgainstLive checks and lints the pending files as up does before it runs them:
// against a model of the schema the cluster has now. It returns the lint report and how
// many files were pending (0: nothing to lint, an empty report).
func validateAgainstLive(ctx context.Context, env *Env, sess *session, mf *migrateFlags, m *migrations.Migrator, migs []*migrations.Migration, f *migrateValidateFlags) (*lint.Report, int, error) {
	steps, err := m.Plan(ctx, 0)
	if err != nil {
		return nil, 0, migrateErr(err)
	}
	pending := pendingOf(steps)
	if len(pending) == 0 {
		rep, err := lint.Run(lint.Input{Keyspace: mf.conn.keyspace, Schema: cql.NewSchemaIn(mf.conn.keyspace)}, lint.Config{Allow: f.allow})
		if err != nil {
			return nil, 0, Usagef("%v", err)
		}
		return rep, 0, nil
	}
	live, err := liveschema.Read(ctx, sess.s)
	if err != nil {
		return nil, 0, migrateErr(err)
	}
	live.Current = mf.conn.keyspace
	if live.Keyspaces[mf.conn.keyspace] == nil && !migrations.CreatesKeyspace(migs, mf.conn.keyspace) {
		// Not there yet and not created by the first file: up creates it empty with
		// --replication (or refuses without it), so the files are judged from an empty one.
		live.Keyspaces[mf.conn.keyspace] = cql.NewKeyspace(mf.conn.keyspace)
	}
	if err := checkNodeSettings(ctx, env, sess, live, steps); err != nil {
		return nil, 0, err
	}
	if err := applySteps(live.Clone(), steps); err != nil {
		return nil, 0, err
	}
	created, err := runCreated(ctx, m, mf.conn.keyspace)
	if err != nil {
		return nil, 0, err
	}
	rep, err := lintMigrationsOn(mf.conn.keyspace, migs, pending, f.workloadArgs, f.allow, live, created)
	if err != nil {
		return nil, 0, err
	}
	return rep, len(pending), nil
}
