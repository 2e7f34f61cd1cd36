package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/design"
	"github.com/cqlsize/cqlsize/migrations"
	"github.com/cqlsize/cqlsize/sizing"
	"github.com/cqlsize/cqlsize/workload"
)

type designFlags struct {
	schema, queries, workload, out, format, keyspace, target string
	replication, nodes                                       string
}

func newDesignCmd(env *Env) *cobra.Command {
	f := &designFlags{}
	cmd := &cobra.Command{
		Use:   "design --schema ENTITIES --queries QUERIES --workload VOLUMES --out DIR",
		Short: "Design query tables from entities, access patterns and volumes: the migration, the rewritten queries, their workload and the write plan",
		Long: `Turn a conceptual model into query-first tables. ENTITIES is CQL with one table per
entity keyed by its identity; QUERIES the access patterns in the queries-file format check
reads, written against the entities as if any column could be filtered, ordered or matched;
VOLUMES a workload file whose entries describe the entities:

  tables:
    app.orders:
      rows: 50k/day            # inserts into the whole table
      retention: 5y            # or ttl: 90d
      avg: {note: 40}
      columns:
        customer_id: {distinct: 10M}
        store_id: {distinct: 2000, skew: zipf:1.1}

Each access pattern gets a table that serves it from one partition (merged when one table
serves several); each partition key gets the coarsest time bucket that keeps the p99 and the
largest partition under the target's limits over the retention
(` + targetLimitsText() + `; none when
it stays bounded without), and write shards when no bucket down to an hour holds the
busiest key.

DIR receives the next numbered migration in DIR/migrations (0001_design.cql in an empty
folder; a migrations folder holds numbered migrations only), queries.cql
(every query rewritten for its table), workload.yaml (what estimate reads for the tables)
and writeplan.yaml (for each entity, the tables a write fans out to and how each key column
is derived; cql/denorm loads it).

The keyspace is created as the entities' CREATE KEYSPACE says, or with --replication: given
data centers ({'class': 'NetworkTopologyStrategy', 'dc1': 3, 'dc2': 3}) the migration
creates a NetworkTopologyStrategy keyspace, and each table's bytes are given per DC (per
node with --nodes) and for the whole cluster beside one replica's.

Exit status: 0 when the design is written, 2 for bad input (a query on a column no entity
has, a volume for a column that does not exist, distinct above the rows, a query no table
can serve), with the file and line.`,
		Example: `  cqlsize design --schema entities.cql --queries queries.cql --workload volumes.yaml --out db
  cqlsize design --schema entities.cql --queries queries.cql --workload volumes.yaml --out design --format json
  cqlsize design -k app --schema entities.cql --queries queries.cql --workload volumes.yaml --out db --replication "{'class': 'NetworkTopologyStrategy', 'dc1': 3, 'dc2': 3}"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runDesign(env, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.schema, "schema", "", "the entities: a .cql file or a folder of migrations")
	fl.StringVar(&f.queries, "queries", "", "the access patterns: a queries file")
	fl.StringVar(&f.workload, "workload", "", "the entities' volumes: a workload file with rows:, retention: and columns:")
	fl.StringVar(&f.out, "out", "", "folder that receives the migration, queries.cql, workload.yaml and writeplan.yaml")
	fl.StringVar(&f.format, "format", "text", "output format: text, json or markdown")
	fl.StringVarP(&f.keyspace, "keyspace", "k", "", "keyspace of unqualified names in the entities and queries")
	fl.StringVar(&f.target, "target", "", "limits to design for: cassandra-5.0 (default), cassandra-4.1 or scylladb")
	fl.StringVar(&f.replication, "replication", "", "how the keyspace is replicated, a CQL map such as \"{'class': 'NetworkTopologyStrategy', 'dc1': 3, 'dc2': 3}\": the migration creates the keyspace with it (default: the entities' CREATE KEYSPACE)")
	fl.StringVar(&f.nodes, "nodes", "", "nodes of each data center, dc1=6,dc2=6 (or the cluster's, 12), for each node's share of the bytes")
	return cmd
}

func runDesign(env *Env, f *designFlags) error {
	var write func(*design.Design, *bytes.Buffer, *design.Files) error
	switch strings.ToLower(f.format) {
	case "text", "":
		write = func(d *design.Design, b *bytes.Buffer, fs *design.Files) error { return d.WriteText(b, fs) }
	case "json":
		write = func(d *design.Design, b *bytes.Buffer, fs *design.Files) error { return d.WriteJSON(b, fs) }
	case "markdown", "md":
		write = func(d *design.Design, b *bytes.Buffer, fs *design.Files) error { return d.WriteMarkdown(b, fs) }
	default:
		return Usagef("--format %q: want text, json or markdown", f.format)
	}
	target, err := sizing.ParseTarget(f.target)
	if err != nil {
		return Usagef("--target: %v", err)
	}
	repl, nodes, err := replicationFlags(f.replication, f.nodes)
	if err != nil {
		return err
	}
	for _, req := range []struct{ v, flag, what string }{
		{f.schema, "--schema", "the entities, one CQL table per entity"},
		{f.queries, "--queries", "the access patterns, a queries file"},
		{f.workload, "--workload", "the entities' volumes (rows:, retention:, columns:)"},
		{f.out, "--out", "the folder the migration and the plan go to"},
	} {
		if req.v == "" {
			return Usagef("%s is required: %s", req.flag, req.what)
		}
	}
	schema, err := loadSchema(f.schema, f.keyspace)
	if err != nil {
		return err
	}
	qs, err := readQueries(env, f.queries)
	if err != nil {
		return InputErr(design.Explain(err))
	}
	if len(qs) == 0 {
		return InputErr(fmt.Errorf("queries %s: no query in it: nothing to design", f.queries))
	}
	w, err := workload.Load(f.workload)
	if err != nil {
		return InputErr(err)
	}
	vols, err := design.FromWorkload(w)
	if err != nil {
		return InputErr(err)
	}
	in := design.Input{Schema: schema, Volumes: vols, Target: target, Replication: repl, Nodes: nodes}
	for _, q := range qs {
		in.Queries = append(in.Queries, design.Query{Name: q.Name, Rate: q.Rate, P99: q.P99, Range: q.Range, Stmt: q.Statement()})
	}
	d, err := design.Run(in)
	if err != nil {
		return InputErr(err)
	}
	files, err := writeDesign(d, schema, f.out)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if err := write(d, &out, files); err != nil {
		return err
	}
	_, err = env.Stdout.Write(out.Bytes())
	return err
}

// writeDesign writes the design's files into dir: the migration under the next free number
// in dir/migrations,
// the others replaced whole (written beside and renamed), so a failed run leaves no half file.
func writeDesign(d *design.Design, schema *cql.Schema, dir string) (*design.Files, error) {
	files := &design.Files{
		Queries:   filepath.Join(dir, "queries.cql"),
		Workload:  filepath.Join(dir, "workload.yaml"),
		WritePlan: filepath.Join(dir, "writeplan.yaml"),
	}
	body := map[string]string{
		files.Queries: d.QueriesFile(), files.Workload: d.WorkloadFile(), files.WritePlan: d.WritePlanFile(),
	}
	migration := d.Migration(schema)
	// The migration goes into its own folder: a migrations folder holds numbered migrations
	// only (migrate refuses queries.cql beside them). The same design run again finds its
	// migration already there as the newest one and writes no second copy.
	migDir := filepath.Join(dir, "migrations")
	path := newestMigration(migDir, migration)
	if path == "" {
		var err error
		if path, err = newMigrationFile(migDir, "design", time.Now()); err != nil {
			return nil, err
		}
	}
	files.Migration = path
	body[path] = migration
	for _, p := range []string{files.Migration, files.Queries, files.Workload, files.WritePlan} {
		tmp := p + ".tmp"
		if err := os.WriteFile(tmp, []byte(body[p]), 0o644); err != nil {
			return nil, InputErr(fmt.Errorf("write %s: %w", p, err))
		}
		if err := os.Rename(tmp, p); err != nil {
			return nil, InputErr(fmt.Errorf("write %s: %w", p, err))
		}
	}
	return files, nil
}

// newestMigration returns the newest migration of dir when it holds exactly body, else "".
func newestMigration(dir, body string) string {
	set, err := migrations.LoadSetDir(dir)
	if err != nil || len(set.Migrations) == 0 {
		return ""
	}
	last := set.Migrations[len(set.Migrations)-1]
	if b, err := os.ReadFile(last.File); err == nil && string(b) == body {
		return last.File
	}
	return ""
}
