package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cqlsize/cqlsize/migrations"
)

func newMigrateBaselineCmd(env *Env, mf *migrateFlags) *cobra.Command {
	var from, fromTable string
	cmd := &cobra.Command{
		Use:   "baseline VERSION | --from golang-migrate|gocqlx|flyway",
		Short: "Record migrations as applied without running them (up to VERSION, or what another tool applied)",
		Long: `Record every migration up to and including VERSION as applied (state baseline)
without running it: for a keyspace whose schema was created before these files were
used. Files already recorded are left as they are. The next up starts after VERSION.

--from adopts the history another tool kept in the target keyspace, recording exactly the
files it applied (with the checksums cqlsize computes), so the next up runs only the rest:

  golang-migrate  its schema_migrations table (version bigint PRIMARY KEY, dirty boolean)
                  holds the last version applied: every file up to it is recorded. A dirty
                  version (a run that failed partway) is refused, saying what to do.
  gocqlx          its gocqlx_migrate table (name, checksum, done, ...) holds one row per
                  file: each is recorded, after checking the file's md5 against the
                  recorded one and that every ';'-separated piece of it ran. A folder
                  of unversioned names (v2.0.0.cql) needs --layout gocqlx.
  flyway          its flyway_schema_history table (Flyway's Cassandra support) holds a
                  row per run: each successful version is recorded after checking the
                  file against Flyway's checksum, and every version up to a BASELINE row;
                  a failed run (success = false) is refused, saying what to do.

--from-table names the other tool's table when it is not the default
(golang-migrate's x-migrations-table).`,
		Example: `  cqlsize migrate baseline 12 --keyspace app
  cqlsize migrate baseline --from golang-migrate --keyspace app --dir db/migrations
  cqlsize migrate baseline --from gocqlx --layout gocqlx --keyspace app
  cqlsize migrate baseline --from flyway --keyspace app --dir db/cassandra`,
		Args: cobra.RangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case from != "" && len(args) == 1:
				return Usagef("baseline takes a VERSION or --from, not both")
			case from == "" && len(args) == 0:
				return Usagef("baseline needs a VERSION (record every file up to it) or --from golang-migrate|gocqlx|flyway (record what that tool applied)")
			case from == "" && fromTable != "":
				return Usagef("--from-table goes with --from")
			case from != "":
				return runMigrateAdopt(cmd.Context(), env, cmd, mf, from, fromTable)
			}
			return runMigrateBaseline(cmd.Context(), env, cmd, mf, args[0])
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "adopt the history of another tool: golang-migrate, gocqlx or flyway")
	cmd.Flags().StringVar(&fromTable, "from-table", "", "the other tool's bookkeeping table (default schema_migrations for golang-migrate, gocqlx_migrate for gocqlx)")
	return cmd
}

func runMigrateAdopt(ctx context.Context, env *Env, cmd *cobra.Command, mf *migrateFlags, from, table string) error {
	tool, err := migrations.ParseTool(from)
	if err != nil {
		return Usagef("--from %v", err)
	}
	m, sess, err := openMigrator(ctx, env, cmd, mf)
	if err != nil {
		return err
	}
	defer sess.Close()
	done, err := m.Adopt(ctx, tool, table)
	if err != nil {
		return migrateErr(err)
	}
	for _, mg := range done {
		fmt.Fprintf(env.Stdout, "baseline %s\n", mg.File)
	}
	fmt.Fprintf(env.Stdout, "recorded %s as applied in keyspace %s, as %s applied them; `cqlsize migrate up` runs the rest\n",
		plural(len(done), "migration", "migrations"), mf.conn.keyspace, tool)
	return nil
}

func runMigrateBaseline(ctx context.Context, env *Env, cmd *cobra.Command, mf *migrateFlags, arg string) error {
	migs, err := mf.loadMigrations(env)
	if err != nil {
		return err
	}
	v, err := parseVersion(migs, arg)
	if err != nil {
		return err
	}
	sess, err := mf.open(ctx, env, cmd, false)
	if err != nil {
		return err
	}
	defer sess.Close()
	prog := newProgress(ctx, env, mf.verbose, 0)
	m, err := migrations.New(sess.s, migs, mf.options(env, prog.on))
	if err != nil {
		return Usagef("%v", err)
	}
	done, err := m.Baseline(ctx, v)
	if err != nil {
		return migrateErr(err)
	}
	for _, mg := range done {
		fmt.Fprintf(env.Stdout, "baseline %s\n", mg.File)
	}
	fmt.Fprintf(env.Stdout, "recorded %s as applied up to version %s in keyspace %s\n",
		plural(len(done), "migration", "migrations"), strings.TrimSpace(arg), mf.conn.keyspace)
	return nil
}

func newMigrateAcceptCmd(env *Env, mf *migrateFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "accept-checksum VERSION",
		Short: "Accept the current content of an applied file that was changed",
		Long: `Record the current checksum of an applied migration whose file changed (a comment
fixed, a statement reformatted), after checking that the change does not need to run:
nothing is executed. The previous checksum is kept in the bookkeeping table.`,
		Example: `  cqlsize migrate accept-checksum 7 --keyspace app`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, sess, v, err := openMigratorAt(cmd.Context(), env, cmd, mf, args[0])
			if err != nil {
				return err
			}
			defer sess.Close()
			prev, err := m.AcceptChecksum(cmd.Context(), v)
			if err != nil {
				return migrateErr(err)
			}
			for _, mg := range m.Migrations() {
				if mg.Version == v {
					if prev == mg.Checksum {
						fmt.Fprintf(env.Stdout, "%s: unchanged (checksum %s); nothing to accept\n", mg.File, migrations.ShortSum(prev))
					} else {
						fmt.Fprintf(env.Stdout, "%s: accepted checksum %s (was %s)\n", mg.File, mg.Checksum, prev)
					}
				}
			}
			return nil
		},
	}
}

func newMigrateRepairCmd(env *Env, mf *migrateFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "repair",
		Short: "Accept the current content of every applied file that was changed",
		Long: `Accept the current checksum of every applied (or partly applied) file that changed,
as accept-checksum does for one: nothing is executed. Run status first to see them.`,
		Example: `  cqlsize migrate status --keyspace app && cqlsize migrate repair --keyspace app`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m, sess, err := openMigrator(cmd.Context(), env, cmd, mf)
			if err != nil {
				return err
			}
			defer sess.Close()
			fixed, err := m.Repair(cmd.Context())
			if err != nil {
				return migrateErr(err)
			}
			for _, s := range fixed {
				fmt.Fprintf(env.Stdout, "%s: accepted checksum %s (was %s)\n", s.File, s.Migration.Checksum, s.Record.Checksum)
			}
			fmt.Fprintf(env.Stdout, "repaired %s\n", plural(len(fixed), "checksum", "checksums"))
			return nil
		},
	}
}

// openMigrator loads the files and opens an unbound session for commands that only touch
// the bookkeeping.
func openMigrator(ctx context.Context, env *Env, cmd *cobra.Command, mf *migrateFlags) (*migrations.Migrator, *session, error) {
	m, sess, _, err := openMigratorAt(ctx, env, cmd, mf, "")
	return m, sess, err
}

// openMigratorAt is openMigrator for a command that names a version (arg, "" for none):
// the version is read against the folder's files before anything connects, so a wrong
// one is bad input even with no cluster at hand.
func openMigratorAt(ctx context.Context, env *Env, cmd *cobra.Command, mf *migrateFlags, arg string) (*migrations.Migrator, *session, int64, error) {
	migs, err := mf.loadMigrations(env)
	if err != nil {
		return nil, nil, 0, err
	}
	var v int64
	if arg != "" {
		if v, err = parseVersion(migs, arg); err != nil {
			return nil, nil, 0, err
		}
	}
	sess, err := mf.open(ctx, env, cmd, false)
	if err != nil {
		return nil, nil, 0, err
	}
	prog := newProgress(ctx, env, mf.verbose, 0)
	m, err := migrations.New(sess.s, migs, mf.options(env, prog.on))
	if err != nil {
		sess.Close()
		return nil, nil, 0, Usagef("%v", err)
	}
	return m, sess, v, nil
}
