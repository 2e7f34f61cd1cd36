package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/lint"
	"github.com/cqlsize/cqlsize/internal/report"
	"github.com/cqlsize/cqlsize/migrations"
	"github.com/cqlsize/cqlsize/sizing"
	"github.com/cqlsize/cqlsize/workload"
)

// lintGate is how up decides whether the pending files may run: error-level lints stop
// it unless silenced in the file, allowed by code, or lints are turned off.
type lintGate struct {
	noLint bool
	allow  []string
	workloadArgs
}

// workloadArgs are --workload and the --queries that say how its tables are read: the
// lints that need a workload count each table's tombstones per read for the worst of its
// queries, as estimate does (the whole partition when none reads it).
type workloadArgs struct {
	workload, queries string
}

func (a *workloadArgs) bind(fl *pflag.FlagSet) {
	fl.StringVar(&a.workload, "workload", "", "workload file (workload.yaml): turns on the lints that need one")
	fl.StringVar(&a.queries, "queries", "", "the application's statements (a queries file): with --workload its SELECTs count tombstones per read for the worst of each table's queries, as estimate counts them; its INSERTs and UPDATEs with USING TTL tell BK101 the rows expire")
}

func (g *lintGate) bind(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&g.noLint, "no-lint", false, "apply even when a lint reports an error")
	cmd.Flags().StringSliceVar(&g.allow, "allow-lint", nil, "apply even when this lint code reports an error (repeatable, or comma-separated)")
	g.workloadArgs.bind(cmd.Flags())
}

// check rejects unknown codes and an unreadable --workload before anything connects: a
// mistyped --workload in a deploy script fails on the first run, not on the first run
// that has a migration pending.
func (g *lintGate) check() error {
	if g.workload != "" {
		if _, err := workload.Load(g.workload); err != nil {
			return InputErr(fmt.Errorf("--workload: %w", err))
		}
	}
	if g.queries != "" {
		if _, _, err := loadQueriesAndWrites(g.queries); err != nil {
			return InputErr(fmt.Errorf("--queries: %w", err))
		}
	}
	for _, c := range g.allow {
		for _, code := range strings.Split(c, ",") {
			if lint.Lookup(strings.TrimSpace(code)) == nil {
				return Usagef("--allow-lint %q: no such lint code (cqlsize migrate validate --list-lints)", code)
			}
		}
	}
	return nil
}

// run lints the pending files on top of live, the schema the cluster has now (nil: the
// schema the applied files produce), and prints what it finds on stderr. Live is also what
// the destructive lints judge against: a drop of what exists there reports, a drop of what
// the pending files create does not, nor one of what created names (what the run this one
// finishes created: migrations.CreatedByUnfinishedRun). Error-level findings stop the run
// with exit 1.
func (g *lintGate) run(env *Env, keyspace string, all, pending []*migrations.Migration, live *cql.Schema, created map[string]bool) error {
	return g.runAs(env, keyspace, all, pending, live, created, false)
}

// runAs is run; dry says the caller is plan, which applies nothing either way and says what
// up would do. A nil live lints from the schema the files before pending produce.
func (g *lintGate) runAs(env *Env, keyspace string, all, pending []*migrations.Migration, live *cql.Schema, created map[string]bool, dry bool) error {
	if g.noLint || len(pending) == 0 {
		return nil
	}
	rep, err := lintMigrationsOn(keyspace, all, pending, g.workloadArgs, g.allow, live, created)
	if err != nil {
		return err
	}
	if rep.Errors() == 0 && rep.Warnings() == 0 {
		return nil
	}
	if err := rep.WriteText(env.Stderr, false); err != nil {
		return err
	}
	if rep.Errors() > 0 && dry {
		fmt.Fprintf(env.Stderr, "up would refuse to apply this plan: %s in the pending migrations.\n"+
			"Fix them, silence one with a `-- cqlsize:nolint CODE` comment above the statement, or pass --allow-lint CODE (or --no-lint) to up and plan.\n",
			plural(rep.Errors(), "lint error", "lint errors"))
		return Findings()
	}
	if rep.Errors() > 0 {
		fmt.Fprintf(env.Stderr, "refusing to apply: %s in the pending migrations; nothing was applied.\n"+
			"Fix them, silence one with a `-- cqlsize:nolint CODE` comment above the statement, or pass --allow-lint CODE (or --no-lint).\n",
			plural(rep.Errors(), "lint error", "lint errors"))
		return Findings()
	}
	return nil
}

// runCreated is what the run m's next up finishes created, read from its bookkeeping
// (migrations.CreatedByUnfinishedRun): the destructive lints treat it as the pending
// files' own.
func runCreated(ctx context.Context, m *migrations.Migrator, keyspace string) (map[string]bool, error) {
	st, err := m.Status(ctx)
	if err != nil {
		return nil, migrateErr(err)
	}
	return migrations.CreatedByUnfinishedRun(st, keyspace), nil
}

// lintMigrationsOn is lintMigrations starting from existing (what the cluster has) when it
// is not nil; created is lint.Input.RunCreated.
func lintMigrationsOn(keyspace string, all, lintFiles []*migrations.Migration, wl workloadArgs, allow []string, existing *cql.Schema, created map[string]bool) (*lint.Report, error) {
	in := lint.Input{Keyspace: keyspace, RunCreated: created}
	linted := map[*migrations.Migration]bool{}
	for _, m := range lintFiles {
		linted[m] = true
		in.Files = append(in.Files, lint.File{Name: m.File, Source: m.Source, Statements: m.Parsed})
	}
	if existing != nil {
		in.Schema = existing
	} else {
		base, err := baseSchema(keyspace, all, linted)
		if err != nil {
			return nil, InputErr(err)
		}
		in.Schema = base
	}
	if wl.queries != "" {
		// The writes say which tables expire their rows by USING TTL (BK101).
		_, writes, err := loadQueriesAndWrites(wl.queries)
		if err != nil {
			return nil, InputErr(err)
		}
		in.Writes = writes
	}
	if wl.workload != "" {
		lw, err := workloadFacts(keyspace, all, wl)
		if err != nil {
			return nil, err
		}
		in.Workload = lw
	}
	// IF101 is for histories applied by hand or by tools that re-run a file: cqlsize migrate
	// records each statement as it completes and resumes after the last one recorded, so it
	// never sends a CREATE twice, and on its histories IF101 was most of the warnings and all
	// noise.
	rep, err := lint.Run(in, lint.Config{Allow: allow, Disable: []string{"IF101"}})
	if err != nil {
		return nil, Usagef("%v", err)
	}
	return rep, nil
}

// baseSchema applies, in order, the statements of the files that are not linted and come
// before the first linted one: the schema the linted statements start from.
func baseSchema(keyspace string, all []*migrations.Migration, linted map[*migrations.Migration]bool) (*cql.Schema, error) {
	var before []*migrations.Migration
	for _, m := range all {
		if linted[m] {
			break
		}
		before = append(before, m)
	}
	// The target keyspace exists before the first file runs (migrate creates it). The
	// statements are judged as validate judges them, so plan refuses what validate does.
	s, err := judgedHistory(before, keyspace, cql.Release50)
	if err != nil {
		if keyspace == "" && errors.Is(err, cql.ErrNoKeyspace) {
			return nil, fmt.Errorf("%w (or pass the target keyspace: --keyspace)", err)
		}
		return nil, keyspaceHint(err)
	}
	return s, nil
}

// workloadFacts sizes the tables of the schema every file produces under the workload and
// hands the lints what they need: which tables are deleted from, which partitions cross a
// limit, how many tombstones a read meets.
func workloadFacts(keyspace string, all []*migrations.Migration, wl workloadArgs) (*lint.Workload, error) {
	workloadFile := wl.workload
	w, err := workload.Load(workloadFile)
	if err != nil {
		return nil, InputErr(err)
	}
	final, err := baseSchema(keyspace, all, nil)
	if err != nil {
		return nil, InputErr(err)
	}
	ests, err := sizing.EstimateAll(final, w, sizing.Options{})
	if err != nil {
		return nil, InputErr(fmt.Errorf("size the workload %s against the schema the migrations produce: %w", workloadFile, err))
	}
	lw := &lint.Workload{}
	for _, t := range w.Tables {
		if len(t.Deletes) > 0 {
			lw.Deletes = append(lw.Deletes, t.Name)
		}
	}
	// Tombstones a read counts are the tombstone model's, as estimate reports them: the
	// sizing estimate's count is what a partition holds on disk, complex deletions included,
	// which reads do not count.
	queries, _, err := loadQueriesAndWrites(wl.queries)
	if err != nil {
		return nil, InputErr(err)
	}
	rep, err := report.Build(final, w, report.Options{Queries: queries})
	if err != nil {
		return nil, InputErr(fmt.Errorf("the tombstones of the workload %s under the schema the migrations produce: %w", workloadFile, err))
	}
	tombs := map[string]report.Tombs{}
	for _, t := range rep.Tables {
		tombs[t.Name] = t.Tombstones
	}
	for _, e := range ests {
		tr := tombs[e.Table]
		ts := lint.TableSize{Table: e.Table, Tombstones: float64(tr.LargestPerRead), TypicalTombstones: float64(tr.PerRead), Read: tr.Read}
		for _, f := range e.Findings {
			if f.Severity >= sizing.Warn {
				ts.Limits = append(ts.Limits, lint.LimitFinding{Code: f.Code, Fail: f.Severity == sizing.Fail, Message: f.Message})
			}
		}
		lw.Sizes = append(lw.Sizes, ts)
	}
	return lw, nil
}
