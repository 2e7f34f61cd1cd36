package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cqlsize/cqlsize/migrations"
)

type migratePlanFlags struct {
	to      string
	offline bool
}

func newMigratePlanCmd(env *Env, mf *migrateFlags) *cobra.Command {
	f := &migratePlanFlags{}
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "Print the statements up would run, in order, with file:line",
		Long: `Print the statements ` + "`migrate up`" + ` would run, in order, each under a comment naming
its file:line:col, so the output is itself a CQL script to review. With a cluster it reads
the bookkeeping (a partly applied file continues from its next statement); without one
(no --hosts and no CASSANDRA_HOSTS, or --offline) it assumes nothing is applied.`,
		Example: `  cqlsize migrate plan --keyspace app
  cqlsize migrate plan --offline --to 12`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMigratePlan(cmd.Context(), env, cmd, mf, f)
		},
	}
	cmd.Flags().StringVar(&f.to, "to", "", "plan up to and including this version")
	cmd.Flags().BoolVar(&f.offline, "offline", false, "do not read the cluster: plan every file")
	return cmd
}

func runMigratePlan(ctx context.Context, env *Env, cmd *cobra.Command, mf *migrateFlags, f *migratePlanFlags) error {
	migs, err := mf.loadMigrations(env)
	if err != nil {
		return err
	}
	var to int64
	if f.to != "" {
		if to, err = parseVersion(f.to); err != nil {
			return err
		}
	}
	var steps []migrations.Step
	_, hosts, err := mf.conn.config(env, cmd, false)
	if err != nil {
		return err
	}
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
			return InputErr(fmt.Errorf("--to %d: %w", to, migrations.ErrUnknownVersion))
		}
		fmt.Fprintf(env.Stdout, "-- offline plan: assumes no migration is applied\n")
	} else {
		sess, err := mf.open(ctx, env, cmd, false)
		if err != nil {
			return err
		}
		defer sess.Close()
		m, err := migrations.New(sess.s, migs, mf.options(env, nil))
		if err != nil {
			return Usagef("%v", err)
		}
		if steps, err = m.Plan(ctx, to); err != nil {
			return migrateErr(err)
		}
		fmt.Fprintf(env.Stdout, "-- plan for keyspace %s\n", mf.conn.keyspace)
	}
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
			note := ""
			if s.Resume {
				note = fmt.Sprintf(" (partly applied: continues at statement %d)", s.Index)
			}
			fmt.Fprintf(env.Stdout, "\n-- %s: version %d%s\n", cur.File, cur.Version, note)
		}
		fmt.Fprintf(env.Stdout, "-- %s (statement %d/%d)\n%s;\n", s.Statement.Pos, s.Index, len(cur.Statements), s.Statement.Text)
	}
	fmt.Fprintf(env.Stdout, "\n-- %s in %s\n", plural(len(steps), "statement", "statements"), plural(files, "file", "files"))
	return nil
}
