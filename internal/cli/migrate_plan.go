package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/liveschema"
	"github.com/cqlsize/cqlsize/migrations"
)

type migratePlanFlags struct {
	to      string
	offline bool
	lint    lintGate
}

func newMigratePlanCmd(env *Env, mf *migrateFlags) *cobra.Command {
	f := &migratePlanFlags{}
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "Print the statements up would run, in order, with file:line",
		Long: `Print the statements ` + "`migrate up`" + ` would run, in order, each under a comment naming
its file:line:col, so the output is itself a CQL script to review. With a cluster it reads
the bookkeeping (a partly applied file continues from its next statement); without one
(no --hosts and no CASSANDRA_HOSTS, or --offline) it assumes nothing is applied.

Plan is up's dry run: it checks the pending statements against a model of the live
schema (offline: of the schema the files before them produce) and lints them as up does,
the destructive lints (DS1xx) judging against that same schema: a drop of a table on the
cluster reports, a drop of one an earlier pending file creates does not. The plan goes to
stdout, the findings to stderr.

Exit status: 0 up would apply the plan; 1 up would refuse it on an error-level lint (the
plan is still printed; --allow-lint and --no-lint act as on up); 2 bad input or a
statement the model refuses (file:line:col, nothing printed); 3 cluster trouble.`,
		Example: `  cqlsize migrate plan --keyspace app
  cqlsize migrate plan --offline --to 12`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMigratePlan(cmd.Context(), env, cmd, mf, f)
		},
	}
	cmd.Flags().StringVar(&f.to, "to", "", "plan up to and including this version")
	cmd.Flags().BoolVar(&f.offline, "offline", false, "do not read the cluster: plan every file")
	f.lint.bind(cmd)
	return cmd
}

func runMigratePlan(ctx context.Context, env *Env, cmd *cobra.Command, mf *migrateFlags, f *migratePlanFlags) error {
	if err := f.lint.check(); err != nil {
		return err
	}
	migs, err := mf.loadRunnable(env)
	if err != nil {
		return err
	}
	var to int64
	if f.to != "" {
		if to, err = parseToVersion(migs, f.to); err != nil {
			return err
		}
	}
	var (
		steps  []migrations.Step
		base   *cql.Schema // the schema the pending statements start from
		header string
		// unchecked: offline with no keyspace for unqualified names, so no model check or lint.
		unchecked bool
	)
	_, hosts, err := mf.conn.config(env, cmd, false)
	if err != nil {
		return err
	}
	var created map[string]bool // what the run up would finish created (lint.Input.RunCreated)
	if f.offline || !hosts {
		known := false
		for _, m := range migs {
			if to > 0 && m.Version > to {
				break
			}
			known = known || m.Version == to
			for i, s := range m.Statements {
				steps = append(steps, migrations.Step{Migration: m, Index: i + 1, Statement: s})
			}
		}
		if to > 0 && !known {
			return InputErr(fmt.Errorf("--to %s: %w", f.to, migrations.ErrUnknownVersion))
		}
		// Nothing applied: the files up to --to must build a schema, as validate checks;
		// the lints then start from the target keyspace alone (base stays nil).
		var upTo []*migrations.Migration
		for _, m := range migs {
			if to == 0 || m.Version <= to {
				upTo = append(upTo, m)
			}
		}
		if _, err := baseSchema(mf.conn.keyspace, upTo, nil); err != nil {
			if mf.conn.keyspace != "" || !errors.Is(err, cql.ErrNoKeyspace) {
				return InputErr(err)
			}
			// Unqualified names and no --keyspace: the plan is still worth printing.
			fmt.Fprintf(env.Stderr, "cqlsize: plan not checked or linted: %v\n", err)
			unchecked = true
		}
		header = "-- offline plan: assumes no migration is applied\n"
	} else {
		if steps, base, created, err = planLive(ctx, env, cmd, mf, migs, to); err != nil {
			return err
		}
		header = fmt.Sprintf("-- plan for keyspace %s\n", mf.conn.keyspace)
	}
	// As up does before anything runs: the model check (exit 2, nothing printed), then the
	// lints against the same starting schema, whose findings go to stderr after the plan.
	var lintErr error
	if len(steps) > 0 && !unchecked {
		if base != nil {
			if err := applySteps(base.Clone(), steps); err != nil {
				return err
			}
		}
		var lintOut bytes.Buffer
		lintEnv := *env
		lintEnv.Stderr = &lintOut
		lintErr = f.lint.runAs(&lintEnv, mf.conn.keyspace, migs, pendingOf(steps), base, created, true)
		if lintErr != nil && exitCode(lintErr) != ExitFindings {
			return lintErr
		}
		defer func() { _, _ = env.Stderr.Write(lintOut.Bytes()) }()
	}
	fmt.Fprint(env.Stdout, header)
	if len(steps) == 0 {
		fmt.Fprintf(env.Stdout, "-- nothing to apply\n")
		return nil
	}
	var cur *migrations.Migration
	files := 0
	for _, s := range steps {
		if s.Migration != cur {
			cur = s.Migration
			files++
			printPlanFile(env, s)
		}
		if err := printPlanStep(env, cur, s); err != nil {
			return err
		}
	}
	fmt.Fprintf(env.Stdout, "\n-- %s in %s\n", plural(len(steps), "statement", "statements"), plural(files, "file", "files"))
	return lintErr
}

// printPlanStep prints one statement as up sends it: after a USE with its names qualified,
// and the USE itself as a comment, since it is never sent.
func printPlanStep(env *Env, cur *migrations.Migration, s migrations.Step) error {
	text, sent, err := cur.SentText(s.Index)
	if err != nil {
		return err
	}
	if !sent {
		fmt.Fprintf(env.Stdout, "-- %s (statement %d/%d, not sent: the driver refuses USE; the file's later statements are sent with their names qualified)\n-- %s;\n",
			s.Statement.Pos, s.Index, len(cur.Statements), text)
		return nil
	}
	fmt.Fprintf(env.Stdout, "-- %s (statement %d/%d)\n%s;\n", s.Statement.Pos, s.Index, len(cur.Statements), text)
	return nil
}

// printPlanFile prints the header of a file's statements.
func printPlanFile(env *Env, s migrations.Step) {
	note := ""
	if s.Resume {
		note = fmt.Sprintf(" (partly applied: continues at statement %d)", s.Index)
	}
	fmt.Fprintf(env.Stdout, "\n-- %s: version %s%s\n", s.Migration.File, s.Migration.VersionLabel(), note)
}

// planLive is what plan reads from the cluster: the steps up would run, the live schema they
// start from (nil when nothing is pending) and what the run up would finish created
// (migrations.CreatedByUnfinishedRun), after the node-settings check.
func planLive(ctx context.Context, env *Env, cmd *cobra.Command, mf *migrateFlags, migs []*migrations.Migration, to int64) (steps []migrations.Step, base *cql.Schema, created map[string]bool, err error) {
	sess, err := mf.open(ctx, env, cmd, false)
	if err != nil {
		return nil, nil, nil, err
	}
	defer sess.Close()
	m, err := migrations.New(sess.s, migs, mf.options(env, nil))
	if err != nil {
		return nil, nil, nil, Usagef("%v", err)
	}
	if steps, err = m.Plan(ctx, to); err != nil || len(steps) == 0 {
		return steps, nil, nil, migrateErr(err)
	}
	if base, err = liveschema.Read(ctx, sess.s); err != nil {
		return nil, nil, nil, migrateErr(err)
	}
	if created, err = runCreated(ctx, m, mf.conn.keyspace); err != nil {
		return nil, nil, nil, err
	}
	base.Current = mf.conn.keyspace
	if err := checkNodeSettings(ctx, env, sess, base, steps); err != nil {
		return nil, nil, nil, err
	}
	return steps, base, created, nil
}
