package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/check"
	"github.com/cqlsize/cqlsize/internal/report"
	"github.com/cqlsize/cqlsize/internal/version"
	"github.com/cqlsize/cqlsize/internal/workloadflag"
	"github.com/cqlsize/cqlsize/sizing"
	"github.com/cqlsize/cqlsize/tombstone"
	"github.com/cqlsize/cqlsize/workload"
)

// estimateFlags are the flags of `cqlsize estimate`.
type estimateFlags struct {
	schema, workload, table string
	queries, statements     string
	batches                 []string

	// A one-table workload from flags: each is a workload field (workloadflag.Set).
	quick    map[string]*string
	quickMul map[string]*[]string

	target, format, output, failOn string

	readLimit int
	readOrder string
	pageSize  int
	deletesAt string

	hosts, keyspace string
	live            bool

	replication, nodes string
	reach              reachFlags
}

// quickFields are the single-valued workload fields a flag can set, flag name -> field.
var quickFields = []struct{ flag, field, usage string }{
	{"rows", "rows_per_partition", "rows an average partition holds (instead of --rate)"},
	{"rate", "write_rate", "rows written per partition key, such as 50/day or 3/hour"},
	{"bucket", "bucket", "span one partition covers: minute, hour, day, iso-week, month, year, or 6h"},
	{"partitions", "partitions", "partition keys the table holds, such as 2M"},
	{"ttl", "ttl", "time to live of every write, such as 30d (0: none)"},
	{"skew", "skew", "how writes spread over keys: uniform or zipf:1.1"},
	{"max-rate", "skew.max_rate", "the most rows any one key is written, such as 10/s (a truncated skew: the excess is not written)"},
	{"null-fraction", "nulls", "fraction of writes that leave each regular column without a value"},
	{"nulls-as", "nulls_as", "how a missing value is written: null (a tombstone) or unset"},
	{"writes", "writes", "insert or update (an UPDATE writes no row marker)"},
	{"horizon", "horizon", "how far to project a partition no bucket bounds (default 1y)"},
	{"write-spread", "write_spread", "span of write times in one sstable (default: the TWCS window, else 1d)"},
}

// quickLists are the repeatable workload fields.
var quickLists = []struct{ flag, field, usage string }{
	{"avg", "avg", "column=bytes: average size of a variable-length value (repeatable)"},
	{"items", "items", "column=count[xsize[:value]]: elements of a collection (repeatable)"},
	{"nulls", "nulls", "column=fraction of writes leaving it without a value (repeatable)"},
	{"delete", "delete", "kind:amount, such as row:5/day, range:2/day:50, element:tags:1/day (repeatable)"},
	{"overwrites", "overwrites", "column=rate of whole-collection replacements, such as tags=1/day (repeatable)"},
}

func newEstimateCmd(env *Env) *cobra.Command {
	f := &estimateFlags{quick: map[string]*string{}, quickMul: map[string]*[]string{}}
	cmd := &cobra.Command{
		Use:   "estimate --schema PATH (--workload FILE | --table NAME --rows N|--rate R ...)",
		Short: "Size every partition and count its tombstones before deploying: verdicts against the limits and what to change",
		Long: `Estimate each table of a workload under Cassandra 5.0's storage engine: rows, values and
bytes per partition (the byte model of what Cassandra writes, and the classic formula beside
it), the typical, p99 and largest partition under key skew, growth across the bucket (or when
an unbucketed partition crosses each limit), tombstones per partition and per read the way
Cassandra counts them, and verdicts against the target's partition limits
(` + targetLimitsText() + `) and
tombstone_warn_threshold / tombstone_failure_threshold, each with a stable code and a fix.

The schema is a .cql file or a folder of migrations. The workload is a YAML file (see
workload/testdata/workload-example.yaml), or one table described by flags (--table with
--rows or --rate and the others). A queries file (--queries, the one cqlsize check reads)
gives each table's typical read (its LIMIT and order); without one a read takes the whole
partition (--read-limit to change it). --statements classifies the application's writes
(INSERT/UPDATE/DELETE) by the tombstones they write.

With a cluster (--hosts, or --live with $CASSANDRA_HOSTS) the schema may come from
system_schema, and what the cluster reports (system_views.max_partition_size,
system_views.tombstones_per_read, system.size_estimates) is shown beside the estimate. A
role that may read system_schema but not those tables gets the estimate without the
cluster's figures, and a note naming the permission the node refused.

Replication: every byte figure is one replica's. When the keyspace's replication is known
(the schema's CREATE KEYSPACE, the cluster's system_schema, or --replication over both), each
table also gets its copies: per data center (bytes × that DC's replication factor), per
node when the node count is known (--nodes, or counted from the cluster), and for the whole
cluster. SimpleStrategy is one figure, its replication factor's copies.

Formats: text (default), json (the contract in docs/estimate-json.md), markdown (for a pull
request comment) and html (one self-contained page with a growth chart per table).

Numbers no cluster could hold are bad input, refused naming the flag (or workload field)
and the bound: over 10^15 partition keys, 10^12 rows a partition (or covered by one range
delete), 10^9 writes, deletes or overwrites a second to one key, 2 GiB a value, 2 billion
elements a collection.

Exit status: 0 when no finding reaches --fail-on, 1 when one does, 2 for bad flags or an
unreadable or invalid schema or workload, or a login the cluster refuses (wrong or missing
CASSANDRA_USERNAME / CASSANDRA_PASSWORD), 3 for an unreachable cluster (safe to retry);
nothing on stdout on 2 or 3.`,
		Example: `  cqlsize estimate --schema examples/posts/migrations --keyspace posts --workload examples/posts/workload.yaml --queries examples/posts/queries.cql
  cqlsize estimate --schema s.cql --table posts_by_user --rate 50/day --bucket month --avg content=280
  cqlsize estimate --schema s.cql --table inbox --rows 2000 --delete row:5/day --read-limit 50
  cqlsize estimate --schema s.cql --workload w.yaml --queries queries.cql --format markdown --fail-on warn
  cqlsize estimate --schema s.cql --workload w.yaml --format html --output estimate.html
  cqlsize estimate --schema s.cql --workload w.yaml --batch posts_by_id,posts_by_user,posts_by_hashtag
  cqlsize estimate --schema s.cql --workload w.yaml --replication "{'class': 'NetworkTopologyStrategy', 'dc1': 3, 'dc2': 3}" --nodes dc1=6,dc2=6
  CASSANDRA_HOSTS=10.0.0.1 cqlsize estimate --live --keyspace app --workload w.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runEstimate(env, cmd, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.schema, "schema", "", "schema: a .cql file or a folder of migrations")
	fl.StringVar(&f.workload, "workload", "", "workload YAML file")
	fl.StringVar(&f.table, "table", "", "the table the workload flags describe (or, with --workload, the only table to estimate)")
	for _, q := range quickFields {
		f.quick[q.flag] = fl.String(q.flag, "", q.usage)
	}
	for _, q := range quickLists {
		f.quickMul[q.flag] = fl.StringArray(q.flag, nil, q.usage)
	}
	fl.StringVar(&f.queries, "queries", "", "named queries file: each table's typical read is the worst of the SELECTs that read it")
	fl.StringVar(&f.statements, "statements", "", "the application's INSERT/UPDATE/DELETE statements, to classify the tombstones they write")
	fl.StringArrayVar(&f.batches, "batch", nil, "tables one entity is written to in one logged batch, table,table,...: its size against batch_size_warn_threshold (repeatable)")
	fl.StringVar(&f.target, "target", "cassandra-5.0", "limits and thresholds of: cassandra-5.0, cassandra-4.1 or scylladb")
	fl.StringVar(&f.format, "format", "text", "output format: text, json, markdown or html")
	fl.StringVarP(&f.output, "output", "o", "", "write the report to this file instead of standard output")
	fl.StringVar(&f.failOn, "fail-on", "fail", "exit 1 when a finding is at least this severe: warn, fail or never")
	fl.IntVar(&f.readLimit, "read-limit", 0, "LIMIT of the typical read when no query gives one (0: the whole partition)")
	fl.StringVar(&f.readOrder, "read-order", "auto", "how the typical read meets rows by age: auto (from the clustering order), newest-first, oldest-first or unordered")
	fl.IntVar(&f.pageSize, "page-size", tombstone.DefaultPageSize, "the driver's page size: each page is one read for the tombstone thresholds")
	fl.StringVar(&f.deletesAt, "deletes-at", "scattered", "where deleted rows lie in the clustering order when the workload's deletes do not say (at:): scattered, head (a queue), tail, oldest or newest")
	fl.StringVar(&f.hosts, "hosts", "", "read the schema and live figures from this cluster, host[:port],...")
	fl.BoolVar(&f.live, "live", false, "use the cluster in $CASSANDRA_HOSTS (as --hosts does)")
	fl.StringVar(&f.replication, "replication", "", "the keyspace's replication, a CQL map such as \"{'class': 'NetworkTopologyStrategy', 'dc1': 3, 'dc2': 3}\" (default: the schema's CREATE KEYSPACE, or the cluster's)")
	fl.StringVar(&f.nodes, "nodes", "", "nodes of each data center, dc1=6,dc2=6 (or the cluster's, 12), to give each node's share (default: counted from the cluster with --hosts/--live)")
	f.reach.bind(fl)
	fl.StringVarP(&f.keyspace, "keyspace", "k", "", "keyspace of unqualified table names in the schema files (migrations written for cqlsize migrate --keyspace), and the keyspace to read from a cluster")
	return cmd
}

// runEstimate checks every flag, loads and estimates everything, renders the report into
// memory and only then writes it, so bad input never leaves half a report behind.
func runEstimate(env *Env, cmd *cobra.Command, f *estimateFlags) error {
	target, err := sizing.ParseTarget(f.target)
	if err != nil {
		return Usagef("--target: %v", err)
	}
	write, err := report.WriterFor(f.format)
	if err != nil {
		return Usagef("--format: %v", err)
	}
	failOn, err := parseFailOn(f.failOn)
	if err != nil {
		return err
	}
	opt := report.Options{Target: target, Tool: "cqlsize " + version.Module(), SchemaPath: f.schema, WorkloadPath: f.workload}
	if opt.Read, opt.OrderSet, err = f.read(); err != nil {
		return err
	}
	if opt.DeletesAt, err = tombstone.ParsePlacement(f.deletesAt); err != nil {
		return Usagef("--deletes-at: %v", err)
	}
	if opt.FanOut, err = parseBatches(f.batches); err != nil {
		return err
	}
	if opt.Replication, opt.Nodes, err = replicationFlags(f.replication, f.nodes); err != nil {
		return err
	}
	quickSet := f.quickFlagsSet(cmd)
	switch {
	case f.schema == "-" || f.workload == "-":
		// A schema is a file or a folder of migrations (its positions name them), and a
		// workload's errors name file:line:col: stdin would leave both without a name.
		flag := "--schema"
		if f.workload == "-" {
			flag = "--workload"
		}
		return Usagef("%s -: estimate reads a file, not stdin (pass the path; only check --queries - reads stdin)", flag)
	case f.workload != "" && len(quickSet) > 0:
		return Usagef("--%s describes a workload from flags: use it with --table and without --workload", quickSet[0])
	case f.workload == "" && f.table == "":
		return Usagef("no workload: pass --workload FILE, or --table NAME with --rows or --rate (see --help)")
	case f.workload == "" && len(quickSet) == 0:
		return Usagef("--table %s: describe its workload with --rows or --rate (and --avg, --bucket, ...), or pass --workload", f.table)
	}
	live, err := f.liveConfig(env)
	if err != nil {
		return err
	}
	if f.schema == "" && live == nil {
		return Usagef("--schema is required (a .cql file or a folder of migrations), unless --hosts or --live reads it from a cluster")
	}

	// The schema: from the files, from the cluster, or both (then compared).
	var schema *cql.Schema
	if f.schema != "" {
		if schema, err = loadSchemaOn(f.schema, f.keyspace, releaseOf(target)); err != nil {
			return err
		}
		schemaNotes(env, f.schema)
	}
	var conn *liveConn
	if live != nil {
		if conn, schema, err = openEstimateLive(env, *live, schema, f.keyspace, &opt); err != nil {
			return InputErr(err)
		}
		defer conn.Close()
	}

	w, err := f.loadWorkload()
	if err != nil {
		return err
	}
	if opt.Queries, err = loadReads(f.queries); err != nil {
		return InputErr(err)
	}
	if f.statements != "" {
		src, err := os.ReadFile(f.statements)
		if err != nil {
			return InputErr(fmt.Errorf("read statements: %w", err))
		}
		if opt.Statements, err = cql.ParseFile(f.statements, src); err != nil {
			return InputErr(fmt.Errorf("parse statements: %w", err))
		}
	}

	r, err := report.Build(schema, w, opt)
	if err != nil {
		return InputErr(err)
	}
	if conn != nil {
		if err := conn.fill(env, r); err != nil {
			return InputErr(err)
		}
	}
	var out bytes.Buffer
	if err := write(&out, r); err != nil {
		return err
	}
	if f.output != "" {
		if err := os.WriteFile(f.output, out.Bytes(), 0o644); err != nil {
			return InputErr(fmt.Errorf("write --output: %w", err))
		}
		fmt.Fprintf(env.Stderr, "cqlsize: wrote %s (%s)\n", f.output, r.Summary.Worst)
	} else if _, err := env.Stdout.Write(out.Bytes()); err != nil {
		return err
	}
	if failOn != "" && r.AtLeast(failOn) {
		return Findings()
	}
	return nil
}

// parseBatches reads each --batch table,table,...: the tables one entity is written to.
func parseBatches(batches []string) ([][]string, error) {
	var out [][]string
	for _, b := range batches {
		var tables []string
		for _, name := range strings.Split(b, ",") {
			if name = strings.TrimSpace(name); name != "" {
				tables = append(tables, name)
			}
		}
		if len(tables) < 2 {
			return nil, Usagef("--batch %q: want two or more tables, table,table,...", b)
		}
		out = append(out, tables)
	}
	return out, nil
}

// parseFailOn reads --fail-on; "" means never.
func parseFailOn(s string) (string, error) {
	switch v := strings.ToLower(strings.TrimSpace(s)); v {
	case "never":
		return "", nil
	case "warn", "fail":
		return v, nil
	}
	return "", Usagef("--fail-on %q: want warn, fail or never", s)
}

func (f *estimateFlags) read() (tombstone.Read, bool, error) {
	rd := tombstone.Read{Limit: f.readLimit, PageSize: f.pageSize}
	if f.readLimit < 0 {
		return rd, false, Usagef("--read-limit %d: want 0 (no LIMIT) or more", f.readLimit)
	}
	if f.pageSize < 1 {
		return rd, false, Usagef("--page-size %d: want 1 or more", f.pageSize)
	}
	if strings.EqualFold(f.readOrder, "auto") || f.readOrder == "" {
		return rd, false, nil
	}
	o, err := tombstone.ParseOrder(f.readOrder)
	if err != nil {
		return rd, false, Usagef("--read-order: %v (or auto)", err)
	}
	rd.Order = o
	return rd, true, nil
}

// quickFlagsSet lists the workload flags given on the command line, in flag order.
func (f *estimateFlags) quickFlagsSet(cmd *cobra.Command) []string {
	var out []string
	for _, q := range quickFields {
		if cmd.Flags().Changed(q.flag) {
			out = append(out, q.flag)
		}
	}
	for _, q := range quickLists {
		if cmd.Flags().Changed(q.flag) {
			out = append(out, q.flag)
		}
	}
	return out
}

// loadWorkload reads --workload (restricted to --table when both are given) or builds a
// one-table workload from the flags.
func (f *estimateFlags) loadWorkload() (*workload.Workload, error) {
	if f.workload != "" {
		w, err := workload.Load(f.workload)
		if err != nil {
			return nil, InputErr(fmt.Errorf("load workload: %w", err))
		}
		if f.table != "" {
			tw := w.Table(f.table)
			if tw == nil {
				var names []string
				for _, t := range w.Tables {
					names = append(names, t.Name)
				}
				return nil, Usagef("--table %s: %s has no entry for it (it has %s)", f.table, f.workload, strings.Join(names, ", "))
			}
			w.Tables = []*workload.TableWorkload{tw}
		}
		return w, nil
	}
	tw := &workload.TableWorkload{Name: f.table}
	for _, q := range quickFields {
		if v := *f.quick[q.flag]; v != "" {
			if err := workloadflag.Set(tw, q.field, v); err != nil {
				return nil, Usagef("--%s: %v", q.flag, err)
			}
		}
	}
	for _, q := range quickLists {
		for _, v := range *f.quickMul[q.flag] {
			if err := workloadflag.Set(tw, q.field, v); err != nil {
				return nil, Usagef("--%s: %v", q.flag, err)
			}
		}
	}
	if errs := tw.Check(); len(errs) > 0 {
		return nil, Usagef("%v", flagNames(errs, *f.quickMul["delete"]))
	}
	return &workload.Workload{Tables: []*workload.TableWorkload{tw}}, nil
}

// Workload field paths in a check's messages that a repeatable flag set: deletes[1].rate,
// avg.content, items.tags, nulls.title, overwrites.tags.
var (
	deletePath = regexp.MustCompile(`\bdeletes\[(\d+)\](\.[a-z_]+)?:`)
	columnPath = regexp.MustCompile(`\b(avg|items|nulls|overwrites)\.([^\s:]+):`)
)

// flagNames rewrites workload field names in a check's errors as the flags that set them:
// write_rate: becomes --rate:, deletes[1].rate: becomes --delete "range:2/day:50": (the
// second --delete, deletes), avg.content: becomes --avg content:.
func flagNames(err error, deletes []string) error {
	msg := err.Error()
	msg = deletePath.ReplaceAllStringFunc(msg, func(m string) string {
		i, convErr := strconv.Atoi(deletePath.FindStringSubmatch(m)[1])
		if convErr != nil || i >= len(deletes) {
			return m
		}
		return fmt.Sprintf("--delete %q:", deletes[i])
	})
	msg = columnPath.ReplaceAllString(msg, "--$1 $2:")
	for _, q := range append(append([]struct{ flag, field, usage string }{}, quickFields...), quickLists...) {
		field := regexp.MustCompile(`(^|[\s(])` + regexp.QuoteMeta(q.field) + `:`)
		msg = field.ReplaceAllString(msg, "${1}--"+q.flag+":")
	}
	return errors.New(msg)
}

// loadReads reads a queries file into the typical reads of the tables it names.
func loadReads(path string) ([]report.NamedQuery, error) {
	reads, writes, err := loadQueriesAndWrites(path)
	if err == nil && len(writes) > 0 {
		err = fmt.Errorf("read queries: %s: a queries file holds SELECT statements only", writes[0].Info().Pos)
	}
	return reads, err
}

// loadQueriesAndWrites reads a queries file into its reads and the writes (INSERT, UPDATE,
// DELETE, BATCH) a file copied from a service's statements also holds; any other statement
// is refused.
func loadQueriesAndWrites(path string) ([]report.NamedQuery, []cql.Statement, error) {
	if path == "" {
		return nil, nil, nil
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read queries: %w", err)
	}
	stmts, err := cql.ParseFile(path, src)
	if err != nil {
		return nil, nil, fmt.Errorf("read queries: %w", err)
	}
	var reads []report.NamedQuery
	var writes []cql.Statement
	for _, st := range stmts {
		switch s := st.(type) {
		case *cql.Select:
			q, err := namedQuery(s, len(reads))
			if err != nil {
				return nil, nil, fmt.Errorf("read queries: %w", err)
			}
			reads = append(reads, q)
		case *cql.Insert, *cql.Update, *cql.Delete, *cql.Batch:
			writes = append(writes, st)
		default:
			return nil, nil, fmt.Errorf("read queries: %s: a queries file holds SELECT statements and the application's writes only", st.Info().Pos)
		}
	}
	return reads, writes, nil
}

// namedQuery is a SELECT of a queries file with what its "-- query:" header declares (read
// by check's one header parser), named q<N> by its position when it has none.
func namedQuery(s *cql.Select, i int) (report.NamedQuery, error) {
	h, ok, err := check.Header(s.Doc, s.Pos)
	if err != nil {
		return report.NamedQuery{}, err
	}
	if !ok {
		h.Name = fmt.Sprintf("q%d", i+1)
	}
	return report.NamedQuery{Name: h.Name, Rate: h.Rate, P99: h.P99, Range: h.Range, Stmt: s}, nil
}

// replicationFlags reads --replication (a CQL replication map, through cql.ParseReplication)
// and --nodes (dc=N,dc=N, or one number for the whole cluster); nil for a flag not given.
func replicationFlags(replication, nodes string) (*cql.Replication, map[string]int, error) {
	var r *cql.Replication
	if strings.TrimSpace(replication) != "" {
		p, err := cql.ParseReplication("", replication)
		if err != nil {
			return nil, nil, Usagef("--replication %s: %v", replication, err)
		}
		r = &p
	}
	n, err := parseNodes(nodes)
	if err != nil {
		return nil, nil, Usagef("--nodes %s: %v", nodes, err)
	}
	return r, n, nil
}

// parseNodes reads node counts: "dc1=6,dc2=6" per data center, or "12" for the whole
// cluster (the key ""); nil for "".
func parseNodes(s string) (map[string]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	count := func(v string) (int, error) {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 {
			return 0, fmt.Errorf("%q is not a node count (a whole number, 1 or more)", v)
		}
		return n, nil
	}
	if !strings.Contains(s, "=") {
		n, err := count(s)
		if err != nil {
			return nil, fmt.Errorf("%w; per data center write dc1=6,dc2=6", err)
		}
		return map[string]int{"": n}, nil
	}
	out := map[string]int{}
	for _, part := range strings.Split(s, ",") {
		dc, v, ok := strings.Cut(part, "=")
		dc = strings.TrimSpace(dc)
		if !ok || dc == "" {
			return nil, fmt.Errorf("%q: want dc=N", strings.TrimSpace(part))
		}
		if _, dup := out[dc]; dup {
			return nil, fmt.Errorf("data center %s given twice", dc)
		}
		n, err := count(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", dc, err)
		}
		out[dc] = n
	}
	return out, nil
}
