package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/liveschema"
	"github.com/cqlsize/cqlsize/migrations"
)

type migrateUpFlags struct {
	to             string
	container      string
	keep           bool
	skipModelCheck bool
	lint           lintGate
}

func newMigrateUpCmd(env *Env, mf *migrateFlags) *cobra.Command {
	f := &migrateUpFlags{}
	cmd := &cobra.Command{
		Use:   "up",
		Short: "Apply the pending migrations (every one, or up to --to)",
		Long: `Apply the pending migrations in version order. Safe to run from every instance at
start-up: one process takes the lock and migrates, the others wait and find nothing to do.
When nothing is pending it returns without taking the lock.

Before anything runs, every pending file is parsed, checked against a model of the live
schema and linted; an error-level lint stops the run (exit 1) unless silenced in the file
(-- cqlsize:nolint CODE) or allowed here. The destructive lints (DS1xx) judge against the
live schema: dropping a table or column that is on the cluster reports, dropping one the
pending files create themselves does not, so a whole history replays on a fresh cluster.

When the target keyspace does not exist and the first file's first statement creates it,
that statement runs first (no --replication needed) and the bookkeeping goes into the
keyspace it created.

Exactly once under pauses: the lock is a lease, valid until the TTL counted from when
the renewal was sent, less a margin (1s + TTL/10), and checked immediately before each
statement: a process that stalled past it (GC, SIGSTOP, a frozen VM) sends nothing and
exits 3. Before each statement the run records, fenced on the lock owner, that it is
sending it; a run that takes over and finds a statement recorded as sent but not done
sends it again only when that is harmless (DDL judged by the live schema, INSERT, UPDATE
and DELETE that are not counter updates or list appends), and otherwise stops in doubt
(exit 4) naming the statement, what to check and the resolve command to run.

Across datacenters: before anything is sent, each DC's live replicas of the bookkeeping
and target keyspaces (NetworkTopologyStrategy) are counted against the lock's serial
consistency. The lock is SERIAL (a quorum of every DC's replicas) unless --serial local
takes LOCAL_SERIAL in --local-dc: only when no process in another DC runs migrations
meanwhile, since a process in each DC could then hold the lock at once. A DC too short for
the lock is named and the run exits 3 with nothing sent.

Exit status: 0 applied or up to date; 1 an error-level lint; 2 bad input or a statement
the node refuses (fix the file); 3 cluster trouble, safe to run again as is (unreachable,
lock wait timed out, lease lost, schema agreement timed out, stopped partway on a timeout,
a DC short of replicas for the lock);
4 a statement in doubt: a person checks it and runs ` + "`cqlsize migrate resolve`" + `.`,
		Example: `  cqlsize migrate up --keyspace app
  cqlsize migrate up --keyspace app --to 12 --lock-timeout 5m
  cqlsize migrate up --keyspace app --replication "{'class': 'SimpleStrategy', 'replication_factor': 1}"
  # a throwaway Cassandra with the migrations applied (needs a Docker engine)
  cqlsize migrate up --keyspace app --container cassandra:5.0`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMigrateUp(cmd.Context(), env, cmd, mf, f)
		},
	}
	cmd.Flags().StringVar(&f.to, "to", "", "apply up to and including this version")
	cmd.Flags().StringVar(&f.container, "container", "", "start this Cassandra image with testcontainers (e.g. cassandra:5.0), apply the migrations to it and keep it running until Ctrl-C")
	cmd.Flags().BoolVar(&f.keep, "keep", false, "with --container: leave the container running and exit")
	cmd.Flags().BoolVar(&f.skipModelCheck, "skip-model-check", false, "do not check the pending statements against a model of the live schema first (if the model refuses what Cassandra accepts: please report it)")
	f.lint.bind(cmd)
	return cmd
}

func runMigrateUp(ctx context.Context, env *Env, cmd *cobra.Command, mf *migrateFlags, f *migrateUpFlags) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if f.keep && f.container == "" {
		return Usagef("--keep goes with --container")
	}
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
	if f.container != "" {
		return runWithContainer(ctx, env, cmd, mf, f, migs, to)
	}
	return migrateUp(ctx, env, cmd, mf, f, migs, to)
}

func migrateUp(ctx context.Context, env *Env, cmd *cobra.Command, mf *migrateFlags, f *migrateUpFlags, migs []*migrations.Migration, to int64) error {
	mf.createsTarget = migrations.CreatesKeyspace(migs, mf.conn.keyspace)
	if err := precheckNewKeyspace(ctx, env, cmd, mf, f, migs, to); err != nil {
		return err
	}
	sess, err := mf.open(ctx, env, cmd, true)
	if err != nil {
		return err
	}
	defer sess.Close()

	prog := newProgress(ctx, env, mf.verbose, 0)
	opt := mf.options(env, prog.on)
	if !f.skipModelCheck {
		opt.BeforeApply = func(ctx context.Context, steps []migrations.Step) error {
			return checkAgainstLive(ctx, sess, mf.conn.keyspace, steps)
		}
	}
	m, err := migrations.New(sess.s, migs, opt)
	if err != nil {
		return Usagef("%v", err)
	}
	// upErr classifies a failure of the run; a quorum the replication makes impossible is
	// bad input, not cluster trouble a retry gets past.
	upErr := func(err error) error {
		bk := mf.bookkeepingKeyspace
		if bk == "" {
			bk = mf.conn.keyspace
		}
		if e := migrations.ImpossibleQuorum(ctx, sess.s, err, mf.conn.keyspace, bk); e != nil {
			return &ExitError{Code: ExitBadInput, Err: e}
		}
		return migrateErr(err)
	}
	steps, err := m.Plan(ctx, to)
	if err != nil {
		return upErr(err)
	}
	prog.total = len(steps)
	if len(steps) > 0 {
		live, err := readLive(ctx, sess, mf.conn.keyspace, steps)
		if err != nil {
			return migrateErr(err)
		}
		// What the node's settings refuse (SASI, masking, a guardrail) stops the run here,
		// every such statement named, before the first one could half-apply the history.
		if err := checkNodeSettings(ctx, env, sess, live, steps); err != nil {
			return err
		}
		// Also before the lock and before anything is created (a first file's CREATE
		// KEYSPACE included): a statement the model refuses stops the run with nothing on
		// the node. BeforeApply checks again under the lock, against what is there then.
		if !f.skipModelCheck {
			if err := applySteps(live.Clone(), steps); err != nil {
				// Another run at work makes this judgement unsafe; the check under the
				// lock, against what is there then, decides instead.
				why, merr := m.Moving(ctx, steps, to)
				if merr != nil {
					return upErr(merr)
				}
				if why == "" {
					return err
				}
				if mf.verbose {
					fmt.Fprintf(env.Stderr, "cqlsize: the live schema is judged again under the lock: %s\n", why)
				}
			}
		}
		// The lints judge the pending files against what the cluster has now: a drop of a
		// table on the node reports, a drop of one the pending files create does not, nor
		// of one the run this one finishes created (a rerun is judged as that run was).
		created, err := runCreated(ctx, m, mf.conn.keyspace)
		if err != nil {
			return err
		}
		if err := f.lint.run(env, mf.conn.keyspace, migs, pendingOf(steps), live, created); err != nil {
			return err
		}
	}
	start := time.Now()
	res, err := m.UpTo(ctx, to)
	prog.finish()
	if err != nil {
		return upErr(err)
	}
	st, err := m.Status(ctx)
	if err != nil {
		return migrateErr(err)
	}
	at := atVersion(st)
	if len(res.Applied) == 0 {
		fmt.Fprintf(env.Stdout, "keyspace %s is up to date, %s\n", mf.conn.keyspace, at)
		return nil
	}
	fmt.Fprintf(env.Stdout, "applied %s to keyspace %s in %s; now %s\n",
		plural(len(res.Applied), "migration", "migrations"), mf.conn.keyspace, time.Since(start).Round(time.Millisecond), at)
	printBehind(env.Stderr, res.Behind, func(d migrations.DCHealth) []migrations.Repair {
		return m.RepairPlan(env.Ctx, d.DC, d.Nodes, d.Down)
	}, mf.conn.keyspace)
	return nil
}

// precheckNewKeyspace runs the node-settings check, the model check and the lints before
// --replication creates a missing target keyspace, so a run they refuse leaves nothing on the node, not even an
// empty keyspace. Nothing can be applied yet when the keyspace (which holds the
// bookkeeping) is missing, so every file up to --to is pending. With a separate
// --bookkeeping-keyspace, or a keyspace that exists, the checks run later as usual.
func precheckNewKeyspace(ctx context.Context, env *Env, cmd *cobra.Command, mf *migrateFlags, f *migrateUpFlags, migs []*migrations.Migration, to int64) error {
	if mf.replication == "" || mf.createsTarget || (mf.bookkeepingKeyspace != "" && mf.bookkeepingKeyspace != mf.conn.keyspace) {
		return nil
	}
	sess, err := mf.open(ctx, env, cmd, false)
	if err != nil {
		return err
	}
	defer sess.Close()
	live, err := liveschema.Read(ctx, sess.s)
	if err != nil {
		return migrateErr(err)
	}
	if live.Keyspaces[mf.conn.keyspace] != nil || live.Keyspaces[strings.ToLower(mf.conn.keyspace)] != nil {
		return nil
	}
	// The keyspace --replication will create, then every statement up to --to.
	mk, err := cql.Parse("--replication", []byte(fmt.Sprintf("CREATE KEYSPACE %s WITH replication = %s", cql.QuoteName(mf.conn.keyspace), mf.replication)))
	if err != nil {
		return Usagef("--replication %q: %v", mf.replication, err)
	}
	if err := live.Apply(mk); err != nil {
		return Usagef("--replication %q: %v", mf.replication, err)
	}
	live.Current = mf.conn.keyspace
	var steps []migrations.Step
	for _, m := range migs {
		if to > 0 && m.Version > to {
			break
		}
		for i, st := range m.Statements {
			steps = append(steps, migrations.Step{Migration: m, Index: i + 1, Statement: st})
		}
	}
	if err := checkNodeSettings(ctx, env, sess, live, steps); err != nil {
		return err
	}
	if !f.skipModelCheck {
		if err := applySteps(live.Clone(), steps); err != nil {
			return err
		}
	}
	// The keyspace is missing: nothing of the history ran here yet.
	return f.lint.run(env, mf.conn.keyspace, migs, pendingOf(steps), live, nil)
}

// checkAgainstLive applies the statements about to run to a model of the schema the
// cluster has now (read from system_schema), so a statement Cassandra would refuse (a
// table that does not exist, a column added twice) stops the run before anything runs.
func checkAgainstLive(ctx context.Context, sess *session, keyspace string, steps []migrations.Step) error {
	live, err := readLive(ctx, sess, keyspace, steps)
	if err != nil {
		return InputErr(err)
	}
	return applySteps(live, steps)
}

// readLive reads the live schema the steps are judged against: the keyspaces they can name
// (migrations.Keyspaces), not every keyspace of the cluster, which on a shared cluster
// made these reads most of a first run's wait. The system keyspaces are not read: the
// model knows what a 5.0 node ships.
func readLive(ctx context.Context, sess *session, keyspace string, steps []migrations.Step) (*cql.Schema, error) {
	names, all := migrations.Keyspaces(keyspace, steps)
	var read []string
	for _, n := range names {
		if !liveschema.IsSystem(n) {
			read = append(read, n)
		}
	}
	if all || len(read) == 0 {
		read = nil // every keyspace
	}
	live, err := liveschema.Read(ctx, sess.s, read...)
	if err != nil {
		return nil, err
	}
	live.Current = keyspace
	return live, nil
}

// applySteps applies the statements about to run to live, a model of the cluster's schema.
// They are judged as validate judges a history (judging): a SELECT the node would refuse
// stops the run here, not half way through it.
func applySteps(live *cql.Schema, steps []migrations.Step) error {
	judging(live)
	var r migrations.Refusals
	for _, st := range steps {
		if st.InFlight {
			// It may have run before the last run died; the runner sorts that out.
			_ = live.Apply(st.Migration.Parsed[st.Index-1])
			continue
		}
		r.Apply(live, st.Migration.Parsed[st.Index-1])
	}
	err := r.Err()
	if err == nil {
		return nil
	}
	if ks := missingKeyspaceName(err); ks != "" {
		err = fmt.Errorf("%w: the cluster has no keyspace %s and no pending statement before this one creates it; create it, run with --keyspace %s --replication \"{...}\" to have it created, or start the first file with CREATE KEYSPACE %s", err, ks, ks, ks)
	}
	return InputErr(fmt.Errorf("%w\n(%s, checked against the live schema before running anything: nothing was applied; --skip-model-check skips this check)", err, refusedCount(r.Len())))
}

// refusedCount says how many statements the model refused in one run.
func refusedCount(n int) string {
	return plural(n, "statement the node would refuse", "statements the node would refuse")
}

// pendingOf lists the files a plan touches, in order.
func pendingOf(steps []migrations.Step) []*migrations.Migration {
	var out []*migrations.Migration
	for _, s := range steps {
		if len(out) == 0 || out[len(out)-1] != s.Migration {
			out = append(out, s.Migration)
		}
	}
	return out
}

// atVersion says where the keyspace is: "at version N", or "nothing applied" (version 0
// is a migration version like any other, so it cannot also mean "none").
func atVersion(st []migrations.Status) string {
	var last *migrations.Status
	for i, s := range st {
		switch s.State {
		case migrations.StatusApplied, migrations.StatusBaseline, migrations.StatusChanged:
			if last == nil || s.Version > last.Version {
				last = &st[i]
			}
		}
	}
	if last == nil {
		return "nothing applied"
	}
	return "at version " + statusLabel(*last)
}

// statusLabel is a status line's version as its file writes it (1.46 for Flyway's
// V1.46__x.cql), or the recorded number when no file has it.
func statusLabel(s migrations.Status) string {
	if s.Migration != nil {
		return s.Migration.VersionLabel()
	}
	return fmt.Sprint(s.Version)
}
