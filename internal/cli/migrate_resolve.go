package cli

import (
	"context"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"
)

type migrateResolveFlags struct {
	applied bool
	rerun   bool
}

func newMigrateResolveCmd(env *Env, mf *migrateFlags) *cobra.Command {
	f := &migrateResolveFlags{}
	cmd := &cobra.Command{
		Use:   "resolve VERSION STATEMENT --applied|--rerun",
		Short: "Record whether an in-doubt statement ran, so the next up continues",
		Long: `Record a person's decision about a statement that is in doubt: a run that held the
migration lock recorded that it was sending the statement and stopped (paused past its
lease, killed, lost the cluster) before recording that it ran, and the statement cannot
safely be sent twice (a counter update, a list append or prepend, a TRUNCATE, DDL whose
object exists but differs). ` + "`migrate up`" + ` stops there with exit status 4 and says what
to check; ` + "`migrate status`" + ` shows it as in-doubt.

--applied: it ran; it is recorded as done and the next up continues after it.
--rerun:   it did not run; the next up sends it.

The decision is written under the migration lock and kept in the bookkeeping table
(column resolved) with who made it and when. Nothing is executed.`,
		Example: `  cqlsize migrate status --keyspace app
  cqlsize migrate resolve 7 3 --applied --keyspace app
  cqlsize migrate resolve 0007 3 --rerun --keyspace app`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMigrateResolve(cmd.Context(), env, cmd, mf, f, args)
		},
	}
	cmd.Flags().BoolVar(&f.applied, "applied", false, "the statement ran: record it as done")
	cmd.Flags().BoolVar(&f.rerun, "rerun", false, "the statement did not run: the next up sends it")
	return cmd
}

func runMigrateResolve(ctx context.Context, env *Env, cmd *cobra.Command, mf *migrateFlags, f *migrateResolveFlags, args []string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if f.applied == f.rerun {
		return Usagef("resolve needs exactly one of --applied (it ran) or --rerun (it did not)")
	}
	stmt, err := strconv.Atoi(args[1])
	if err != nil || stmt < 1 {
		return Usagef("statement %q: want the statement's number in its file (1, 2, ...), as `migrate up` and `migrate status` print it", args[1])
	}
	m, sess, v, err := openMigratorAt(ctx, env, cmd, mf, args[0])
	if err != nil {
		return err
	}
	defer sess.Close()
	if err := m.Resolve(ctx, v, stmt, f.applied); err != nil {
		return migrateErr(err)
	}
	for _, mg := range m.Migrations() {
		if mg.Version != v {
			continue
		}
		if f.applied {
			fmt.Fprintf(env.Stdout, "%s: statement %d recorded as applied; the next up continues after it\n", mg.File, stmt)
		} else {
			fmt.Fprintf(env.Stdout, "%s: statement %d recorded as not run; the next up sends it\n", mg.File, stmt)
		}
	}
	return nil
}
