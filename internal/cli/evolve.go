package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/evolve"
	"github.com/cqlsize/cqlsize/internal/tokenscan"
	"github.com/cqlsize/cqlsize/sizing"
	"github.com/cqlsize/cqlsize/workload"
)

// defaultCopyRate is the backfill's rows written a second that a plan assumes when
// --copy-rate is not given: about what cqlsize backfill's defaults copy a second on one
// small node (docs/evolve.md gives the measured figure and the command). A real cluster
// is usually faster; measure yours with a --rate-less run on a sample and pass --copy-rate.
const defaultCopyRate = 5600

// defaultCopyRateFrom says where defaultCopyRate comes from, for the plan's output.
const defaultCopyRateFrom = "the default, measured: cqlsize backfill wrote 5,591 rows/s on a one-node dev cluster on 2 shared cores (docs/evolve.md); pass --copy-rate with your cluster's"

type evolvePlanFlags struct {
	from, to, schema, keyspace string
	hosts                      string
	live                       bool
	derive                     []string
	keepFrom                   bool
	workload, target, format   string
	rows                       string
	copyRate                   float64
	reach                      reachFlags
}

func newEvolveCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "evolve",
		Short: "Move a live table's data to a new table keyed for another query: the plan, step by step",
		Long: `A table's primary key cannot be altered: a new access pattern or a new key (a bucket, a
shard) is a new table, filled while the service keeps running. evolve plan prints the way
there for one table: create the new table, deploy dual writes, backfill, verify, switch
reads, drop the old table in a later migration.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return Usagef("evolve needs a subcommand: plan")
		},
	}
	cmd.AddCommand(newEvolvePlanCmd(env))
	return cmd
}

func newEvolvePlanCmd(env *Env) *cobra.Command {
	f := &evolvePlanFlags{}
	cmd := &cobra.Command{
		Use:   "plan --from KS.TABLE --to FILE (--schema PATH | --hosts H)",
		Short: "Print the ordered steps from an existing table to a new one, with the backfill's exact command and duration",
		Long: `Print the steps that move an existing table's data (--from) into a new table whose CREATE
TABLE is in FILE (--to), in the order that loses nothing:

  1. create the new table (the migration file to add);
  2. deploy dual writes (cql/denorm: a Transition at dual-write);
  3. backfill, with the exact cqlsize backfill command;
  4. verify;
  5. switch reads (read-new);
  6. stop writing the old table and drop it in a later migration (or, with --keep-from,
     when the new table adds an access pattern, keep it).

The backfill's --derive rules are inferred for every key column of the new table that the
old one does not have: a column named for a bucket width (month, day, ...) from the old
table's time column, a column typed as the elements of one of its sets or lists with
each(); a shard column, or one nothing fits, is bad input naming the column and what to pass.

The existing table comes from the schema files (--schema, a .cql file or a folder of
migrations) or from a cluster (--hosts, or --live with $CASSANDRA_HOSTS). With --workload
the new table's partitions are sized by estimate's byte model (its entry by name), and the
old table's rows counted from its entry unless --rows gives them. The backfill's duration
is those rows (times the elements of an each() column) over --copy-rate.

Exit status: 0 the plan is printed; 2 bad input (a file, a flag, a column needing a
--derive), naming file:line:col; 3 cluster trouble.`,
		Example: `  cqlsize evolve plan --from posts.posts_by_id --to posts_by_hashtag.cql --schema migrations --keep-from --workload workload.yaml
  cqlsize evolve plan --hosts 10.0.0.1 --from app.readings --to readings_by_day.cql --derive 'shard=shard(sensor_id, 8)'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runEvolvePlan(env, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.from, "from", "", "the existing table, keyspace.table")
	fl.StringVar(&f.to, "to", "", "file holding the new table's CREATE TABLE")
	fl.StringVar(&f.schema, "schema", "", "schema files: a .cql file or a folder of migrations")
	fl.StringVarP(&f.keyspace, "keyspace", "k", "", "keyspace of unqualified names in the schema files and FILE (default: --from's)")
	fl.StringVar(&f.hosts, "hosts", "", "read the existing table from this cluster, host[:port],...")
	fl.BoolVar(&f.live, "live", false, "use the cluster in $CASSANDRA_HOSTS (as --hosts does)")
	fl.StringArrayVar(&f.derive, "derive", nil, "COL=EXPR: how a column of the new table is filled (repeatable; see cqlsize backfill)")
	fl.BoolVar(&f.keepFrom, "keep-from", false, "the new table adds an access pattern: --from stays, nothing is dropped")
	fl.StringVar(&f.workload, "workload", "", "workload YAML: sizes the new table, counts the old one's rows")
	fl.StringVar(&f.rows, "rows", "", "rows of the existing table, such as 40M (default: counted by the cluster, else the workload)")
	fl.Float64Var(&f.copyRate, "copy-rate", defaultCopyRate, "rows the backfill writes a second")
	fl.StringVar(&f.target, "target", "cassandra-5.0", "limits of: cassandra-5.0, cassandra-4.1 or scylladb")
	fl.StringVar(&f.format, "format", "text", "output format: text or json")
	f.reach.bind(fl)
	return cmd
}

// runEvolvePlan checks every flag, reads the tables, builds the plan in memory and only
// then prints it.
func runEvolvePlan(env *Env, f *evolvePlanFlags) error {
	in, err := f.input(env)
	if err != nil {
		return err
	}
	plan, err := evolve.Build(*in)
	if err != nil {
		return InputErr(deriveFlagErrors(err))
	}
	var out bytes.Buffer
	if f.format == "json" {
		if err := plan.WriteJSON(&out); err != nil {
			return err
		}
	} else if err := plan.WriteText(&out); err != nil {
		return err
	}
	_, err = env.Stdout.Write(out.Bytes())
	return err
}

// input checks the flags and reads the schema, the new table and the workload.
func (f *evolvePlanFlags) input(env *Env) (*evolve.Input, error) {
	switch {
	case f.from == "":
		return nil, Usagef("--from is required: the existing table, keyspace.table")
	case f.to == "":
		return nil, Usagef("--to is required: the file holding the new table's CREATE TABLE")
	case f.format != "text" && f.format != "json":
		return nil, Usagef("--format %q: want text or json", f.format)
	case !(f.copyRate > 0) || math.IsInf(f.copyRate, 1):
		return nil, Usagef("--copy-rate %v: want the rows the backfill writes a second, above 0", f.copyRate)
	}
	parts, err := splitCQLName(f.from)
	if err != nil || len(parts) != 2 {
		return nil, Usagef("--from %q: want keyspace.table", f.from)
	}
	target, err := sizing.ParseTarget(f.target)
	if err != nil {
		return nil, Usagef("--target: %v", err)
	}
	in := &evolve.Input{Derive: f.derive, KeepFrom: f.keepFrom, Target: target, Now: time.Now(),
		Rate: f.copyRate, RateFrom: defaultCopyRateFrom, Hosts: f.hosts, Keyspace: parts[0], ToFile: f.to, WorkloadFile: f.workload}
	if f.copyRate != defaultCopyRate || defaultCopyRateFrom == "" {
		in.RateFrom = "--copy-rate"
	}
	if f.rows != "" {
		if in.Rows, err = workload.ParseCount(f.rows); err != nil || in.Rows <= 0 {
			return nil, Usagef("--rows %q: want a count of rows such as 40M", f.rows)
		}
		in.RowsFrom = "--rows"
	}
	schema, err := f.loadSchema(env, parts[0], in)
	if err != nil {
		return nil, err
	}
	from := schema.Table(parts[0], parts[1])
	if from == nil {
		return nil, Usagef("--from %s: no such table in %s", f.from, f.schemaSource())
	}
	src, err := os.ReadFile(f.to)
	if err != nil {
		return nil, InputErr(fmt.Errorf("read --to: %w", err))
	}
	ks := f.keyspace
	if ks == "" {
		ks = parts[0]
	}
	if in.Schema, in.To, err = evolve.NewTable(schema, ks, f.to, src); err != nil {
		return nil, InputErr(err)
	}
	in.From, in.ToSource = from, string(src)
	if f.workload != "" {
		if in.Workload, err = workload.Load(f.workload); err != nil {
			return nil, InputErr(fmt.Errorf("load workload: %w", err))
		}
	}
	if st, err := os.Stat(f.schema); err == nil && st.IsDir() {
		in.CreateFile, in.DropFile, err = nextMigrations(f.schema, in.To.Name, from.Name)
		if err != nil {
			return nil, InputErr(err)
		}
	}
	return in, nil
}

// deriveFlagErrors says the plan's rule errors in the command's words: a given rule is the
// --derive that gave it, a column needing a rule is told to pass one. Several are one line each.
func deriveFlagErrors(err error) error {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range joined.Unwrap() {
			out = append(out, deriveFlagErrors(e))
		}
		return errors.Join(out...)
	}
	var need *evolve.NeedError
	var rule *evolve.RuleError
	switch {
	case errors.As(err, &need):
		return fmt.Errorf("%s: %s needs a --derive: %s: pass --derive %s", need.Pos, need.Column, need.Msg, need.Want)
	case errors.As(err, &rule):
		return fmt.Errorf("--derive %q: %w", rule.Rule, rule.Err)
	}
	return err
}

// loadSchema reads the schema from the files or the cluster; a cluster also counts the
// rows of the existing table when --rows does not.
func (f *evolvePlanFlags) loadSchema(env *Env, keyspace string, in *evolve.Input) (*cql.Schema, error) {
	live, err := liveReaderConfig(env, f.hosts, f.live, &f.reach)
	if err != nil {
		return nil, err
	}
	ks := f.keyspace
	if ks == "" {
		ks = keyspace
	}
	switch {
	case live != nil && f.schema != "":
		return nil, Usagef("--schema and --hosts: read the existing table from one of them")
	case live == nil && f.schema == "":
		return nil, Usagef("no schema: pass --schema (a .cql file or a folder of migrations), or --hosts to read the cluster's")
	case live == nil && f.keyspace == "":
		// Files that create their keyspace load as they are; files of unqualified names
		// (migrations run in a session's keyspace), or whose names are qualified with
		// --from's keyspace and nothing creates it, load in --from's.
		if _, err := readSchema(f.schema, "", cql.Release50); err == nil || !errors.Is(err, cql.ErrNoKeyspace) && missingKeyspaceName(err) != keyspace {
			return loadSchema(f.schema, "")
		}
		return loadSchema(f.schema, ks)
	case live == nil:
		return loadSchema(f.schema, ks)
	}
	conn, err := openLive(env, *live)
	if err != nil {
		return nil, InputErr(err)
	}
	defer conn.Close()
	schema, err := conn.schema(env, nil, keyspace)
	if err != nil {
		return nil, InputErr(err)
	}
	in.Hosts = strings.Join(live.Hosts, ",")
	if in.Rows == 0 {
		parts, _ := splitCQLName(f.from)
		if err := countSourceRows(env, conn, *live, schema.Table(parts[0], parts[1]), in); err != nil {
			return nil, InputErr(err)
		}
	}
	return schema, nil
}

// countSourceRows counts the existing table's rows as profile does, from system.size_estimates
// summed over every node (each records its primary ranges): flushed data only. A table with
// clustering columns has more rows than partitions; the plan says so.
func countSourceRows(env *Env, conn *liveConn, cfg connect.Config, t *cql.Table, in *evolve.Input) error {
	if t == nil {
		return nil // reported as an unknown --from by the caller
	}
	ctx, cancel := context.WithTimeout(env.Ctx, 60*time.Second)
	defer cancel()
	addrs, err := tokenscan.NodeAddrs(ctx, conn.s)
	if err != nil {
		return err
	}
	est := tokenscan.NewEstimator(tokenscan.HostOpener(perHost(cfg)), addrs)
	defer est.Close()
	size, nodes, problem := est.Sum(ctx, t.Keyspace, t.Name)
	if problem != "" {
		fmt.Fprintf(env.Stderr, "cqlsize: %s\n", problem)
	}
	if size.Partitions == 0 {
		return nil // nothing flushed yet: the workload, if any, counts them
	}
	in.Rows = size.Partitions
	in.RowsFrom = fmt.Sprintf("system.size_estimates summed over %d node(s), flushed data only", nodes)
	if len(t.Clustering) > 0 {
		in.RowsFrom += "; these are partitions, and a table with clustering columns has more rows (pass --rows)"
	}
	return nil
}

func (f *evolvePlanFlags) schemaSource() string {
	if f.schema != "" {
		return f.schema
	}
	return "the cluster's schema"
}

// nextMigrations names the migration files a plan adds to the folder dir: the new table's
// after the last version there, and the later one dropping the old table after it, in the
// folder's numbering (its width of zero-padded digits).
func nextMigrations(dir, to, from string) (create, drop string, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", "", fmt.Errorf("read the migrations folder: %w", err)
	}
	var last int64
	width := 4
	for _, e := range entries {
		name := e.Name()
		n := 0
		for n < len(name) && name[n] >= '0' && name[n] <= '9' {
			n++
		}
		if n == 0 || e.IsDir() || !strings.HasSuffix(name, ".cql") {
			continue
		}
		v, err := strconv.ParseInt(name[:n], 10, 64)
		if err != nil {
			continue
		}
		if v >= last {
			last, width = v, n
		}
	}
	create = filepath.Join(dir, fmt.Sprintf("%0*d_create_%s.cql", width, last+1, to))
	drop = filepath.Join(dir, fmt.Sprintf("%0*d_drop_%s.cql", width, last+2, from))
	return create, drop, nil
}
