package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/check"
	"github.com/cqlsize/cqlsize/design"
	"github.com/cqlsize/cqlsize/finding"
	"github.com/cqlsize/cqlsize/sizing"
	"github.com/cqlsize/cqlsize/workload"
)

// checkFlags are the flags of `cqlsize check`.
type checkFlags struct {
	schema    string
	queries   string
	keyspace  string
	format    string
	failOn    string
	unpaged   bool
	listCodes bool
	workload  string
	small     []string
}

func newCheckCmd(env *Env) *cobra.Command {
	f := &checkFlags{}
	cmd := &cobra.Command{
		Use:   "check --schema PATH --queries FILE",
		Short: "Check named queries against the schema: partitions read, ALLOW FILTERING, scans, a table that serves each",
		Long: `Check every SELECT of a queries file against the schema the way Cassandra 5.0 would:
which table it reads; whether one partition, a fan-out over N partitions or only a scan
serves it; whether Cassandra rejects it for needing ALLOW FILTERING or as invalid (and
why); which secondary index serves it; and, for a query no table serves well, a table
that serves it from one partition, with the query rewritten for it. Without --workload a
suggested time series gets no invented bucket width: it names the volume that decides
it; with --workload (the volumes cqlsize design reads) it is sized as design sizes it.

The schema is a .cql file or a folder of migrations (applied in version order). The
queries file holds SELECT statements separated by ';', each optionally named by a
comment line above it, which may also give its rate and latency target:

  -- query: user_timeline  rate=500/s  p99=20ms
  SELECT * FROM posts_by_user WHERE user_id = ? AND month = ? LIMIT 20;

A "-- cqlsize:nolint QF002" line above a query silences that code for it.

A query only a scan serves (QF002) is judged by the table's size: a failure when the
workload (--workload) says the table holds more than 5,000 rows (one page at the drivers'
default page size), fine when it says fewer or when --small names the table
(configuration and lookup tables), and a warning that asks for the size otherwise.

Exit status: 0 when no finding reaches --fail-on, 1 when one does, 2 when the schema or
the queries cannot be read (nothing is printed on stdout then).`,
		Example: `  cqlsize check --schema schema.cql --queries queries.cql
  cqlsize check --schema db/migrations --queries queries.cql --format json > check.json
  cqlsize check --schema schema.cql --queries queries.cql --format markdown --fail-on warn
  cqlsize check --list-codes`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runCheck(env, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.schema, "schema", "", "schema: a .cql file or a folder of migrations")
	fl.StringVar(&f.queries, "queries", "", `queries file ("-" reads standard input)`)
	fl.StringVarP(&f.keyspace, "keyspace", "k", "", "keyspace of unqualified names in the schema files and queries (default: the only keyspace holding the table)")
	fl.StringVar(&f.format, "format", "text", "output format: text, json or markdown")
	fl.StringVar(&f.failOn, "fail-on", "fail", "exit 1 when a finding is at least this severe: warn, fail or never")
	fl.StringVar(&f.workload, "workload", "", "the tables' volumes (a workload file's entity entries: rows:, retention:, columns:): suggested tables are then sized and bucketed as cqlsize design does")
	fl.StringSliceVar(&f.small, "small", nil, "a table that stays small (configuration, lookups: at most 5,000 rows), so a scan of it is fine; repeat or comma-separate (app.settings,countries)")
	fl.BoolVar(&f.unpaged, "unpaged", false, "the service turns paging off (allows ORDER BY with IN on the partition key)")
	fl.BoolVar(&f.listCodes, "list-codes", false, "list the finding codes (as `cqlsize explain --list-codes QF` does) and exit")
	return cmd
}

// failOnThreshold reads --fail-on; never is reported as ok=false.
func failOnThreshold(s string) (sev check.Severity, ok bool, err error) {
	switch strings.ToLower(s) {
	case "never":
		return 0, false, nil
	case "warn", "fail":
		sev, err := check.ParseSeverity(s)
		return sev, true, err
	}
	return 0, false, Usagef("--fail-on %q: want warn, fail or never", s)
}

func runCheck(env *Env, f *checkFlags) error {
	if f.listCodes {
		return listCodes(env, f.format, func(d finding.Doc) bool { return d.Family() == "QF" })
	}
	write, err := checkWriter(f.format)
	if err != nil {
		return err
	}
	threshold, failing, err := failOnThreshold(f.failOn)
	if err != nil {
		return err
	}
	if f.schema == "" {
		return Usagef("--schema is required: a .cql file or a folder of migrations")
	}
	if f.queries == "" {
		return Usagef("--queries is required: a file of named SELECT statements")
	}
	if f.keyspace == "" {
		if ks := onlyKeyspaceCreatedFirst(f.schema); ks != "" {
			f.keyspace = ks
			fmt.Fprintf(env.Stderr, "cqlsize: note: keyspace %s: the first file creates it and no other, so unqualified names are in it (-k to choose another)\n", ks)
		}
	}
	schema, err := loadSchema(f.schema, f.keyspace)
	if err != nil {
		return err
	}
	schemaNotes(env, f.schema)
	queries, err := readQueries(env, f.queries)
	if err != nil {
		return InputErr(err)
	}
	if len(queries) == 0 {
		return InputErr(fmt.Errorf("queries %s: no query in it (an empty file, or only comments): nothing to check; is the path right?", f.queries))
	}
	opts := check.Options{Keyspace: f.keyspace, Unpaged: f.unpaged, Limits: sizing.LimitsText(sizing.Cassandra50, "and"), Small: f.small}
	for _, name := range f.small {
		if _, ok := schema.FindTable(name); !ok {
			return Usagef("--small %s: no such table in the schema (name it as keyspace.table or table)", name)
		}
	}
	if f.workload != "" {
		w, err := workload.Load(f.workload)
		if err != nil {
			return InputErr(err)
		}
		vols, err := design.FromWorkload(w)
		if err != nil {
			return InputErr(err)
		}
		opts.Size = vols.Size
		opts.TableRows = func(t *cql.Table) (float64, string, bool) { return workloadRows(vols, t) }
	}
	results, err := check.Check(schema, queries, opts)
	if err != nil {
		return InputErr(err)
	}
	// Render first, so a failure never leaves half a report on stdout.
	var out bytes.Buffer
	if err := write(&out, results); err != nil {
		return err
	}
	if _, err := env.Stdout.Write(out.Bytes()); err != nil {
		return err
	}
	if failing && check.AtLeast(results, threshold) {
		return Findings()
	}
	return nil
}

func checkWriter(format string) (func(io.Writer, []check.Result) error, error) {
	switch strings.ToLower(format) {
	case "text", "":
		return check.WriteText, nil
	case "json":
		return check.WriteJSON, nil
	case "markdown", "md":
		return check.WriteMarkdown, nil
	}
	return nil, Usagef("--format %q: want text, json or markdown", format)
}

func readQueries(env *Env, path string) ([]check.Query, error) {
	var src []byte
	var err error
	name := path
	if path == "-" {
		name = "<stdin>"
		src, err = io.ReadAll(env.Stdin)
	} else {
		src, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, fmt.Errorf("read queries: %w", err)
	}
	qs, notes, err := check.ParseQueriesSkippingWrites(name, src)
	for _, n := range notes {
		fmt.Fprintf(env.Stderr, "cqlsize: note: %s\n", n)
	}
	return qs, err
}

// workloadRows is how many rows the workload's entry for t says the table holds: rows
// inserted per span of time, kept for the TTL or the retention; kept forever, a year of
// them (the horizon the estimate projects to by default), which already makes any table a
// scan should not read.
func workloadRows(vols *design.Volumes, t *cql.Table) (float64, string, bool) {
	e := vols.Entity(t.Keyspace, t.Name)
	if e == nil || e.Rows.IsZero() {
		return 0, "", false
	}
	life, kept := e.TTL, "its TTL"
	if life <= 0 {
		life, kept = e.Retention, "its retention"
	}
	if life <= 0 {
		life, kept = 365*24*time.Hour, "a year, with no TTL or retention"
	}
	rows := e.Rows.Over(life)
	return rows, fmt.Sprintf("the workload says %s rows (%s kept %s, %s)", sizing.FormatCount(rows), e.Rows, workload.FormatDuration(life), kept), true
}
