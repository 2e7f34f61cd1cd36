package liveschema

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql"
)

// IsSystem reports whether keyspace is one Cassandra 5.0 owns (system, system_schema,
// system_auth, ...). Read skips them unless asked for one by name.
func IsSystem(keyspace string) bool {
	switch keyspace {
	case "system", "system_schema", "system_auth", "system_distributed", "system_traces",
		"system_views", "system_virtual_schema", "system_cluster_metadata":
		return true
	}
	return false
}

// Read reads the named keyspaces (every non-system keyspace when none is named) from
// system_schema into a cql.Schema. A named keyspace that does not exist is simply absent
// from the result, so a caller can tell "not created yet" from an error.
//
// Each system_schema table is read once for all the keyspaces (keyspace_name IN ...),
// not once per keyspace: a shared cluster holds hundreds of keyspaces, and `migrate up`
// reads the schema twice before its first statement, so eight queries per keyspace made
// the reads, not the files, most of a first run.
//
// The schema is the view of the node that answers; call it after schema agreement
// (migrations does) when the cluster has just changed. The system_schema tables are read
// one after the other, so a table created or dropped between two reads (by another
// deploy) could be seen without its columns: such a torn read is read again, and after
// readTries torn reads in a row Read returns a *ChangingError.
func Read(ctx context.Context, s *gocql.Session, keyspaces ...string) (*cql.Schema, error) {
	if s == nil {
		return nil, fmt.Errorf("read live schema: no session")
	}
	var tear string
	for try := 1; ; try++ {
		out, err := readOnce(ctx, s, keyspaces)
		if err != nil {
			return nil, err
		}
		if tear = Torn(out); tear == "" {
			return out, nil
		}
		if try == readTries {
			return nil, &ChangingError{Tries: try, Seen: tear}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("read live schema: %w", ctx.Err())
		case <-time.After(time.Duration(try) * 100 * time.Millisecond):
		}
	}
}

// readTries bounds the reads of a schema that keeps changing under them: about 4.5 s
// of waits in all, longer than a schema change takes to reach every node of a healthy
// cluster.
const readTries = 10

// ChangingError says the schema kept changing while it was read: every read saw a table
// without its columns. It is cluster trouble that passes, not bad input.
type ChangingError struct {
	Tries int    // reads made
	Seen  string // what the last one saw, e.g. "table ks.t without a partition key column"
}

func (e *ChangingError) Error() string {
	return fmt.Sprintf("read live schema: the schema changed while it was read, %d times in a row (last: %s); run again when the cluster's schema changes have settled", e.Tries, e.Seen)
}

// Torn names a table or view of s that has no partition key column, which no table
// Cassandra holds can lack: a read of system_schema.columns and one of
// system_schema.tables that straddled a schema change (or went to two nodes that did
// not agree yet). It returns "" for a schema that can be whole.
func Torn(s *cql.Schema) string {
	for _, ksName := range slices.Sorted(maps.Keys(s.Keyspaces)) {
		ks := s.Keyspaces[ksName]
		for _, name := range slices.Sorted(maps.Keys(ks.Tables)) {
			if len(ks.Tables[name].PartitionKey) == 0 {
				return fmt.Sprintf("table %s.%s without a partition key column", ks.Name, name)
			}
		}
		for _, name := range slices.Sorted(maps.Keys(ks.Views)) {
			if v := ks.Views[name]; v.Table == nil || len(v.Table.PartitionKey) == 0 {
				return fmt.Sprintf("view %s.%s without a partition key column", ks.Name, name)
			}
		}
	}
	return ""
}

// readOnce reads the keyspaces once, each system_schema table once.
func readOnce(ctx context.Context, s *gocql.Session, keyspaces []string) (*cql.Schema, error) {
	found, err := readKeyspaceRows(ctx, s, keyspaces)
	if err != nil {
		return nil, err
	}
	out := cql.NewSchema()
	names := make([]string, 0, len(found))
	for name := range found {
		names = append(names, name)
	}
	sort.Strings(names)
	for len(names) > 0 {
		n := min(len(names), readChunk)
		if err := readKeyspaces(ctx, s, found, names[:n]); err != nil {
			return nil, err
		}
		for _, name := range names[:n] {
			out.Keyspaces[name] = found[name]
		}
		names = names[n:]
	}
	return out, nil
}

// readChunk bounds the keyspaces of one IN query, well under the partition-key guardrail a
// cluster may set (partition_keys_in_select).
const readChunk = 100

// readKeyspaceRows reads system_schema.keyspaces: the named keyspaces that exist, or every
// non-system one when none is named.
func readKeyspaceRows(ctx context.Context, s *gocql.Session, want []string) (map[string]*cql.Keyspace, error) {
	out := map[string]*cql.Keyspace{}
	add := func(iter *gocql.Iter) error {
		var name string
		var durable bool
		var repl map[string]string
		for iter.Scan(&name, &durable, &repl) {
			if len(want) == 0 && IsSystem(name) {
				continue
			}
			ks := cql.NewKeyspace(name)
			ks.DurableWrites = durable
			for k, v := range repl {
				ks.Replication[k] = v
			}
			out[name] = ks
			repl = nil
		}
		if err := iter.Close(); err != nil {
			return fmt.Errorf("read system_schema.keyspaces: %w", err)
		}
		return nil
	}
	const cols = `SELECT keyspace_name, durable_writes, replication FROM system_schema.keyspaces`
	if len(want) == 0 {
		return out, add(query(ctx, s, cols).Iter())
	}
	for i := 0; i < len(want); i += readChunk {
		if err := add(query(ctx, s, cols+` WHERE keyspace_name IN ?`, want[i:min(i+readChunk, len(want))]).Iter()); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func query(ctx context.Context, s *gocql.Session, stmt string, args ...any) *gocql.Query {
	return s.Query(stmt, args...).WithContext(ctx).Consistency(gocql.One)
}

// readKeyspaces fills the keyspaces named (rows of kss) from the other system_schema tables,
// one query per table.
func readKeyspaces(ctx context.Context, s *gocql.Session, kss map[string]*cql.Keyspace, names []string) error {
	if err := readTypes(ctx, s, kss, names); err != nil {
		return err
	}
	cols, err := readColumns(ctx, s, names)
	if err != nil {
		return err
	}
	if err := readTables(ctx, s, kss, names, cols); err != nil {
		return err
	}
	if err := readViews(ctx, s, kss, names, cols); err != nil {
		return err
	}
	if err := readIndexes(ctx, s, kss, names); err != nil {
		return err
	}
	return readFunctions(ctx, s, kss, names)
}

func readTypes(ctx context.Context, s *gocql.Session, kss map[string]*cql.Keyspace, names []string) error {
	iter := query(ctx, s, `SELECT keyspace_name, type_name, field_names, field_types FROM system_schema.types WHERE keyspace_name IN ?`, names).Iter()
	var keyspace, name string
	var fieldNames, fieldTypes []string
	for iter.Scan(&keyspace, &name, &fieldNames, &fieldTypes) {
		ks := kss[keyspace]
		if ks == nil {
			continue
		}
		ut := &cql.UserType{Keyspace: ks.Name, Name: name}
		if len(fieldNames) != len(fieldTypes) {
			_ = iter.Close()
			return fmt.Errorf("read live schema: type %s.%s: %d field names but %d field types", ks.Name, name, len(fieldNames), len(fieldTypes))
		}
		for i, fn := range fieldNames {
			t, err := parseType(fieldTypes[i])
			if err != nil {
				_ = iter.Close()
				return fmt.Errorf("read live schema: type %s.%s field %s: %w", ks.Name, name, fn, err)
			}
			ut.Fields = append(ut.Fields, cql.Field{Name: fn, Type: qualify(t, ks.Name)})
		}
		ks.Types[name] = ut
		fieldNames, fieldTypes = nil, nil
	}
	if err := iter.Close(); err != nil {
		return fmt.Errorf("read system_schema.types: %w", err)
	}
	return nil
}

// qualify records the keyspace of every user type in t: system_schema prints them
// unqualified because a type can only be used in its own keyspace.
func qualify(t cql.Type, keyspace string) cql.Type {
	if t.Kind == cql.UDT && t.Keyspace == "" {
		t.Keyspace = keyspace
	}
	if len(t.Params) > 0 {
		ps := make([]cql.Type, len(t.Params))
		for i, p := range t.Params {
			ps[i] = qualify(p, keyspace)
		}
		t.Params = ps
	}
	return t
}

// columnsOf is the columns of every table and view, by keyspace and table name.
type columnsOf map[string]map[string][]*cql.Column

// readColumns returns the columns of every table and view of the keyspaces.
func readColumns(ctx context.Context, s *gocql.Session, names []string) (columnsOf, error) {
	iter := query(ctx, s, `SELECT keyspace_name, table_name, column_name, kind, position, clustering_order, type
		FROM system_schema.columns WHERE keyspace_name IN ?`, names).Iter()
	out := columnsOf{}
	var keyspace, table, name, kind, order, typ string
	var position int
	for iter.Scan(&keyspace, &table, &name, &kind, &position, &order, &typ) {
		t, err := parseType(typ)
		if err != nil {
			_ = iter.Close()
			return nil, fmt.Errorf("read live schema: column %s.%s.%s: %w", keyspace, table, name, err)
		}
		c := &cql.Column{Name: name, Type: qualify(t, keyspace), Position: position}
		switch kind {
		case "partition_key":
			c.Kind = cql.PartitionKey
		case "clustering":
			c.Kind = cql.Clustering
		case "static":
			c.Kind, c.Position = cql.Static, -1
		default:
			c.Kind, c.Position = cql.Regular, -1
		}
		if strings.EqualFold(order, "desc") {
			c.Order = cql.Desc
		}
		if out[keyspace] == nil {
			out[keyspace] = map[string][]*cql.Column{}
		}
		out[keyspace][table] = append(out[keyspace][table], c)
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("read system_schema.columns: %w", err)
	}
	return out, nil
}

// buildTable orders the columns the way a CREATE TABLE would most likely have declared
// them (partition key, clustering, then the rest by name, as Cassandra sorts them) and
// fills the key slices.
func buildTable(keyspace, name string, cols []*cql.Column) *cql.Table {
	t := &cql.Table{Keyspace: keyspace, Name: name}
	rank := func(c *cql.Column) int {
		switch c.Kind {
		case cql.PartitionKey:
			return 0
		case cql.Clustering:
			return 1
		}
		return 2
	}
	sort.SliceStable(cols, func(i, j int) bool {
		a, b := cols[i], cols[j]
		if rank(a) != rank(b) {
			return rank(a) < rank(b)
		}
		if rank(a) < 2 {
			return a.Position < b.Position
		}
		return a.Name < b.Name
	})
	t.Columns = cols
	for _, c := range cols {
		switch c.Kind {
		case cql.PartitionKey:
			t.PartitionKey = append(t.PartitionKey, c)
		case cql.Clustering:
			t.Clustering = append(t.Clustering, c)
		}
	}
	return t
}

// options turns a system_schema.tables (or views) row into TableOptions; every column
// but the names and ids goes to Raw.
func options(row map[string]any) cql.TableOptions {
	o := cql.TableOptions{GCGraceSeconds: cql.DefaultGCGraceSeconds, Raw: map[string]any{}}
	for k, v := range row {
		switch k {
		case "keyspace_name", "table_name", "view_name", "id", "base_table_id", "base_table_name",
			"include_all_columns", "where_clause", "flags":
			continue
		}
		o.Raw[k] = v
		switch k {
		case "default_time_to_live":
			o.DefaultTTL, _ = v.(int)
		case "gc_grace_seconds":
			if n, ok := v.(int); ok {
				o.GCGraceSeconds = n
			}
		case "compaction":
			o.Compaction, _ = v.(map[string]string)
		case "compression":
			o.Compression, _ = v.(map[string]string)
		case "caching":
			o.Caching, _ = v.(map[string]string)
		case "comment":
			o.Comment, _ = v.(string)
		}
	}
	return o
}

func readTables(ctx context.Context, s *gocql.Session, kss map[string]*cql.Keyspace, names []string, cols columnsOf) error {
	iter := query(ctx, s, `SELECT * FROM system_schema.tables WHERE keyspace_name IN ?`, names).Iter()
	for {
		row := map[string]any{}
		if !iter.MapScan(row) {
			break
		}
		ks := kss[str(row["keyspace_name"])]
		if ks == nil {
			continue
		}
		name, _ := row["table_name"].(string)
		t := buildTable(ks.Name, name, cols[ks.Name][name])
		t.Options = options(row)
		if flags, ok := row["flags"].([]string); ok {
			// Tables created WITH COMPACT STORAGE are "dense" or not "compound"; 4.0+
			// refuses to create them but an upgraded cluster may still carry one.
			compound, dense := false, false
			for _, f := range flags {
				compound = compound || f == "compound"
				dense = dense || f == "dense" || f == "super"
			}
			t.Options.CompactStorage = dense || !compound
		}
		ks.Tables[name] = t
	}
	if err := iter.Close(); err != nil {
		return fmt.Errorf("read system_schema.tables: %w", err)
	}
	return nil
}

func readViews(ctx context.Context, s *gocql.Session, kss map[string]*cql.Keyspace, names []string, cols columnsOf) error {
	iter := query(ctx, s, `SELECT * FROM system_schema.views WHERE keyspace_name IN ?`, names).Iter()
	for {
		row := map[string]any{}
		if !iter.MapScan(row) {
			break
		}
		ks := kss[str(row["keyspace_name"])]
		if ks == nil {
			continue
		}
		name, _ := row["view_name"].(string)
		base, _ := row["base_table_name"].(string)
		t := buildTable(ks.Name, name, cols[ks.Name][name])
		t.Options = options(row)
		ks.Views[name] = &cql.View{Keyspace: ks.Name, Name: name, BaseTable: base, Table: t}
	}
	if err := iter.Close(); err != nil {
		return fmt.Errorf("read system_schema.views: %w", err)
	}
	return nil
}

// saiClass is the class Cassandra 5.0 registers for storage-attached indexes; USING 'sai'
// is its alias.
const saiClass = "org.apache.cassandra.index.sai.StorageAttachedIndex"

func readIndexes(ctx context.Context, s *gocql.Session, kss map[string]*cql.Keyspace, names []string) error {
	iter := query(ctx, s, `SELECT keyspace_name, index_name, table_name, kind, options FROM system_schema.indexes WHERE keyspace_name IN ?`, names).Iter()
	var keyspace, name, table, kind string
	var opts map[string]string
	for iter.Scan(&keyspace, &name, &table, &kind, &opts) {
		ks := kss[keyspace]
		if ks == nil {
			opts = nil
			continue
		}
		ix := &cql.Index{Keyspace: ks.Name, Name: name, Table: table, Target: opts["target"], Options: map[string]string{}}
		for k, v := range opts {
			if k != "target" && k != "class_name" {
				ix.Options[k] = v
			}
		}
		if kind == "CUSTOM" {
			ix.Custom = true
			ix.Class = opts["class_name"]
			if isSAI(ix.Class) {
				ix.Class = "sai"
			}
		}
		ks.Indexes[name] = ix
		opts = nil
	}
	if err := iter.Close(); err != nil {
		return fmt.Errorf("read system_schema.indexes: %w", err)
	}
	return nil
}

// str is a text column of a MapScan row.
func str(v any) string {
	s, _ := v.(string)
	return s
}

// isSAI reports whether an index class names the storage-attached index, however written.
func isSAI(class string) bool {
	c := strings.ToLower(strings.Trim(class, "'"))
	return c == "sai" || c == "storageattachedindex" || c == strings.ToLower(saiClass)
}

func readFunctions(ctx context.Context, s *gocql.Session, kss map[string]*cql.Keyspace, names []string) error {
	for _, q := range []struct {
		stmt string
		into func(*cql.Keyspace) map[string]cql.Pos
	}{
		{`SELECT keyspace_name, function_name FROM system_schema.functions WHERE keyspace_name IN ?`, func(ks *cql.Keyspace) map[string]cql.Pos { return ks.Functions }},
		{`SELECT keyspace_name, aggregate_name FROM system_schema.aggregates WHERE keyspace_name IN ?`, func(ks *cql.Keyspace) map[string]cql.Pos { return ks.Aggregates }},
	} {
		iter := query(ctx, s, q.stmt, names).Iter()
		var keyspace, name string
		for iter.Scan(&keyspace, &name) {
			if ks := kss[keyspace]; ks != nil {
				q.into(ks)[name] = cql.Pos{}
			}
		}
		if err := iter.Close(); err != nil {
			return fmt.Errorf("read %s: %w", strings.Fields(q.stmt)[3], err)
		}
	}
	return nil
}
