package lint

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
)

// analyzers builds the registry. Codes: DS destructive, IF idempotence, BK time buckets,
// TT time to live, AF allow filtering, IX indexes, MV materialized views, CS compact
// storage, WL workload. The prefixes are distinct from the checker's (QF), the sizer's (SZ)
// and the tombstone analysis's (TS), so a nolint directive never means two things.
func analyzers() []*Analyzer {
	return []*Analyzer{
		{
			Code: "IF101", Name: "create-without-if-not-exists", Severity: Warning,
			What: "CREATE KEYSPACE/TABLE/TYPE/INDEX/MATERIALIZED VIEW/FUNCTION/AGGREGATE without IF NOT EXISTS",
			Why:  "DDL is not transactional: a statement that ran before its run died cannot be run again by hand or by another tool without failing",
			Fix:  "write CREATE ... IF NOT EXISTS",
			run:  runIfNotExists,
		},
		{
			Code: "DS101", Name: "drop-keyspace", Severity: Error,
			What: "DROP KEYSPACE of a keyspace that held tables before this run (a rerun after an interruption counts what the stopped run created as its own)",
			Why:  "deletes every table of the keyspace and its data (only a snapshot, if auto_snapshot is on, keeps it)",
			Fix:  "if it is intended, silence it on the statement: -- cqlsize:nolint DS101",
			run:  runDrop(true),
		},
		{
			Code: "DS102", Name: "drop-table", Severity: Error,
			What: "DROP TABLE of a table that existed before this run (in the live schema for up; in the applied files offline), not one the same run created; on a rerun after an interruption, what the stopped run created (its applied files and the statements of the file it stopped in) counts as this run's, while a table a finished run created is data",
			Why:  "deletes the table's data; a deploy that still reads it fails",
			Fix:  "stop using the table in a release before the one that drops it; then silence: -- cqlsize:nolint DS102",
			run:  runDrop(false),
		},
		{
			Code: "DS103", Name: "drop-column", Severity: Error,
			What: "ALTER TABLE ... DROP of a column that existed before this run (a rerun after an interruption counts what the stopped run created as its own)",
			Why:  "the column's data is gone, instances still running the old code fail on it, and Cassandra refuses to re-add the column later with another type",
			Fix:  "stop reading and writing the column in an earlier release, then silence: -- cqlsize:nolint DS103",
			run:  runDropColumn,
		},
		{
			Code: "DS104", Name: "change-column-type", Severity: Error,
			What: "changing a column's or field's type: ALTER ... TYPE, or dropping a column and adding it back with another type; reported whoever created the column, a rerun's included, since the node refuses it either way",
			Why:  "Cassandra 5.0 refuses ALTER ... TYPE, and values already written in the old type cannot be read as the new one",
			Fix:  "add a new column with the new type, backfill it, and switch readers over",
			run:  runTypeChange,
		},
		{
			Code: "DS105", Name: "truncate", Severity: Error,
			What: "TRUNCATE of a table that existed before this run (a rerun after an interruption counts what the stopped run created as its own)",
			Why:  "deletes every row on every node, and needs every node up",
			Fix:  "delete what has to go with TTLs or targeted deletes; if intended, silence: -- cqlsize:nolint DS105",
			run:  runTruncate,
		},
		{
			Code: "BK101", Name: "unbucketed-time-series", Severity: Warning,
			What: "a table clustered by event time (a timestamp, an event's timeuuid, a bigint or int named like a time) whose partition nothing bounds: no time bucket, no count column, no default_time_to_live, no USING TTL on the application's writes (a queries file's INSERTs and UPDATEs, when given), no short-lived key; a heuristic on names and types, so a warning; with a workload that sizes the table it steps aside for WL101-WL104",
			Why:  "every write adds a row to the same partition for as long as the key is written: it passes 100 MB / 100,000 rows and reads and compactions of it slow down",
			Fix:  "add a bucket (day, month, ...) to the partition key, e.g. PRIMARY KEY ((sensor_id, day), at), or a default_time_to_live (or write with USING TTL, and pass those writes in --queries); if the partition stays small, size it with `cqlsize estimate` or --workload, or silence: -- cqlsize:nolint BK101 <why>",
			run:  runUnbucketed,
		},
		{
			Code: "TT101", Name: "delete-instead-of-ttl", Severity: Warning,
			What: "rows deleted by age (a DELETE on a table clustered by event time, as BK101 judges it, or by a range of time, in the migrations or the workload) from a table with no default_time_to_live",
			Why:  "each delete writes tombstones that reads must skip until gc_grace_seconds pass; expiring data with a TTL (and TimeWindowCompactionStrategy) drops whole sstables instead",
			Fix:  "set default_time_to_live on the table (ALTER TABLE ... WITH default_time_to_live = N) or write with USING TTL, and stop deleting",
			run:  runDeleteWithoutTTL,
		},
		{
			Code: "WL101", Name: "partition-over-limit", Severity: Error, NeedsWorkload: true,
			What: "under the workload, partitions of a table the statements create or change cross a hard limit, or the typical one crosses a rule of thumb (100 MB, 100,000 values)",
			Why:  "large partitions make reads, repairs and compactions slow and uneven; past the hard limits Cassandra rejects writes",
			Fix:  "add a time bucket or shard to the partition key; `cqlsize estimate` shows the bucket that keeps the p99 partition under the limits",
			run:  runPartitionLimits(true),
		},
		{
			Code: "WL102", Name: "partition-near-limit", Severity: Warning, NeedsWorkload: true,
			What: "under the workload, the largest (busiest) partitions of a table the statements create or change cross a rule of thumb",
			Why:  "the hottest keys grow past what reads and compactions handle well, even if the typical one does not",
			Fix:  "a smaller bucket or write shards for the hot keys; see `cqlsize estimate`",
			run:  runPartitionLimits(false),
		},
		{
			Code: "WL103", Name: "tombstone-warn", Severity: Warning, NeedsWorkload: true,
			What: "under the workload, the table's typical read counts more tombstones than tombstone_warn_threshold (1000)",
			Why:  "Cassandra logs a warning for each such read, and the reads slow down as the tombstones pile up until gc_grace_seconds pass",
			Fix:  "expire rows with a TTL instead of deleting them, write unset instead of null, and read slices that start after the deleted rows; see `cqlsize estimate`",
			run:  runTombstones(false),
		},
		{
			Code: "WL104", Name: "tombstone-fail", Severity: Error, NeedsWorkload: true,
			What: "under the workload, the table's typical read counts more tombstones than tombstone_failure_threshold (100,000)",
			Why:  "Cassandra aborts such reads (TombstoneOverwhelmingException): the query fails",
			Fix:  "stop deleting what a TTL can expire, bucket the partition so old tombstones fall into partitions nobody reads",
			run:  runTombstones(true),
		},
		{
			Code: "AF101", Name: "allow-filtering", Severity: Error,
			What: "ALLOW FILTERING",
			Why:  "the query reads every row it may match, across partitions, and its latency grows with the data",
			Fix:  "add a table keyed for this query (query-first design), or restrict the partition key",
			run:  runAllowFiltering,
		},
		{
			Code: "IX101", Name: "high-cardinality-index", Severity: Warning,
			What: "a secondary index (legacy or SAI) on a column whose values are nearly unique (uuid, timeuuid, timestamp, an id-, email- or token-like name) or on a clustering column",
			Why:  "an index lookup asks every node; for a value that matches one row that is a cluster-wide read for one result",
			Fix:  "make a lookup table keyed by that column instead",
			run:  runHighCardinalityIndex,
		},
		{
			Code: "MV101", Name: "materialized-view", Severity: Warning,
			What: "CREATE MATERIALIZED VIEW",
			Why:  "materialized views are experimental in Cassandra (disabled by default in cassandra.yaml): a view can drift from its base table with no built-in repair",
			Fix:  "maintain a second table from the application (a logged batch writes both)",
			run:  runView,
		},
		{
			Code: "CS101", Name: "compact-storage", Severity: Error,
			What: "WITH COMPACT STORAGE",
			Why:  "Cassandra 5.0 still creates it (the compact_tables_enabled guardrail, on by default), but as a Thrift-era table: hidden column1/value columns, no non-frozen collections, no columns added later, at most one regular column beside clustering columns; and leaving the format takes ALTER TABLE ... DROP COMPACT STORAGE, which 5.0 refuses unless cassandra.yaml sets drop_compact_storage_enabled: true",
			Fix:  "remove WITH COMPACT STORAGE: since 3.0 a plain table is stored as compactly; an existing compact table leaves the format with ALTER TABLE ... DROP COMPACT STORAGE after setting drop_compact_storage_enabled: true",
			run:  runCompactStorage,
		},
	}
}

func runIfNotExists(p *pass) {
	for _, st := range p.stmts {
		var what string
		var ine bool
		switch s := st.s.(type) {
		case *cql.CreateKeyspace:
			what, ine = "CREATE KEYSPACE "+s.Name.String(), s.IfNotExists
		case *cql.CreateTable:
			what, ine = "CREATE TABLE "+s.Name.String(), s.IfNotExists
		case *cql.CreateType:
			what, ine = "CREATE TYPE "+s.Name.String(), s.IfNotExists
		case *cql.CreateIndex:
			what, ine = "CREATE INDEX", s.IfNotExists
			if !s.Name.IsZero() {
				what += " " + s.Name.String()
			}
		case *cql.CreateView:
			what, ine = "CREATE MATERIALIZED VIEW "+s.Name.String(), s.IfNotExists
		case *cql.CreateFunction:
			what, ine = "CREATE FUNCTION "+s.Name.String(), s.IfNotExists || s.OrReplace
		case *cql.CreateAggregate:
			what, ine = "CREATE AGGREGATE "+s.Name.String(), s.IfNotExists || s.OrReplace
		case *cql.CreateTrigger:
			what, ine = "CREATE TRIGGER "+s.Name.String(), s.IfNotExists
		default:
			continue
		}
		if !ine {
			p.report(st.s.Info().Pos, "%s without IF NOT EXISTS: running it a second time fails", what)
		}
	}
}

// runDrop reports drops of what held data before this run (see existedTable): replaying a
// whole history on an empty cluster drops only what the history itself created.
func runDrop(keyspace bool) func(p *pass) {
	return func(p *pass) {
		for _, st := range p.stmts {
			switch s := st.s.(type) {
			case *cql.DropKeyspace:
				if keyspace && p.existedKeyspaceData(s.Name.Name) {
					p.report(s.Pos, "DROP KEYSPACE %s deletes every table in it and their data", s.Name)
				}
			case *cql.DropTable:
				if !keyspace && p.existedTable(s.Name, st.keyspace) {
					k, n := qualify(s.Name, st.keyspace)
					p.report(s.Pos, "DROP TABLE %s deletes the table and its data", join(k, n))
				}
			}
		}
	}
}

func join(ks, name string) string {
	if ks == "" {
		return name
	}
	return ks + "." + name
}

// runDropColumn reports dropped columns that existed before this run (see existedTable).
func runDropColumn(p *pass) {
	for _, st := range p.stmts {
		s, ok := st.s.(*cql.AlterTable)
		if !ok || s.Action != cql.AlterDrop {
			continue
		}
		for _, id := range s.Drop {
			if p.existedColumn(s.Name, st.keyspace, id.Name) {
				p.report(id.Pos, "ALTER TABLE %s DROP %s deletes the column's data", s.Name, id)
			}
		}
	}
}

func runTypeChange(p *pass) {
	// Walk the statements in order, knowing each column's type as of that statement.
	types := map[string]cql.Type{}   // keyspace.table.column -> type while it exists
	dropped := map[string]cql.Type{} // keyspace.table.column -> type it had when dropped
	for _, st := range p.stmts {
		switch s := st.s.(type) {
		case *cql.DropTable:
			// Cassandra forgets a dropped table's dropped columns with it.
			k, n := qualify(s.Name, st.keyspace)
			for key := range dropped {
				if strings.HasPrefix(key, k+"."+n+".") {
					delete(dropped, key)
				}
			}
		case *cql.CreateTable:
			k, n := qualify(s.Name, st.keyspace)
			for _, d := range s.Columns {
				types[k+"."+n+"."+d.Name.Name] = d.Type
			}
		case *cql.AlterTable:
			k, n := qualify(s.Name, st.keyspace)
			switch s.Action {
			case cql.AlterType:
				to := "another type"
				if s.NewType != nil {
					to = s.NewType.String()
				}
				p.report(s.Column.Pos, "ALTER TABLE %s ALTER %s TYPE %s: Cassandra 5.0 refuses column type changes", s.Name, s.Column, to)
			case cql.AlterDrop:
				for _, id := range s.Drop {
					key := k + "." + n + "." + id.Name
					if typ, ok := types[key]; ok {
						dropped[key] = typ
					} else if typ, ok := p.dropped[key]; ok { // created by an earlier, applied file
						dropped[key] = typ
					}
					delete(types, key)
				}
			case cql.AlterAdd:
				for _, d := range s.Add {
					key := k + "." + n + "." + d.Name.Name
					if old, ok := dropped[key]; ok && old.String() != d.Type.String() {
						p.report(d.Name.Pos, "column %s was dropped as %s and is added back as %s: Cassandra refuses it, and old values would not read as the new type",
							d.Name, old, d.Type)
					}
					types[key] = d.Type
				}
			}
		case *cql.AlterUserType:
			if s.Action == cql.AlterTypeAlter {
				p.report(s.Field.Pos, "ALTER TYPE %s ALTER %s TYPE: Cassandra 5.0 refuses field type changes", s.Name, s.Field)
			}
		}
	}
}

// runTruncate reports TRUNCATE of a table that existed before this run: rows the run itself
// wrote into a table it created are not data anyone has yet.
func runTruncate(p *pass) {
	for _, st := range p.stmts {
		if s, ok := st.s.(*cql.Truncate); ok && p.existedTable(s.Table, st.keyspace) {
			p.report(s.Pos, "TRUNCATE %s deletes every row", s.Table)
		}
	}
}

func runDeleteWithoutTTL(p *pass) {
	type hit struct {
		pos    cql.Pos
		reason string
	}
	hits := map[*cql.Table]hit{}
	var order []*cql.Table
	add := func(t *cql.Table, pos cql.Pos, reason string) {
		if _, ok := hits[t]; !ok {
			hits[t] = hit{pos, reason}
			order = append(order, t)
		}
	}
	for _, st := range p.stmts {
		var dels []*cql.Delete
		switch s := st.s.(type) {
		case *cql.Delete:
			dels = []*cql.Delete{s}
		case *cql.Batch:
			for _, b := range s.Statements {
				if d, ok := b.(*cql.Delete); ok {
					dels = append(dels, d)
				}
			}
		}
		for _, d := range dels {
			t := p.table(d.Table, st.keyspace)
			if t == nil || t.Options.DefaultTTL > 0 {
				continue
			}
			if reason := byAge(t, d); reason != "" {
				add(t, d.Pos, reason)
			}
		}
	}
	if w := p.in.Workload; w != nil {
		for _, name := range w.Deletes {
			t, ok := p.lookup(name)
			if !ok || t.Options.DefaultTTL > 0 || eventTime(t) == nil {
				continue
			}
			// Report at the table's CREATE when it is among the linted statements.
			for _, st := range p.stmts {
				if c, ok := st.s.(*cql.CreateTable); ok {
					if k, n := qualify(c.Name, st.keyspace); k == t.Keyspace && n == t.Name {
						add(t, c.Pos, "the workload deletes from this time-ordered table")
					}
				}
			}
		}
	}
	for _, t := range order {
		h := hits[t]
		p.report(h.pos, "%s: %s, and %s has no default_time_to_live; a TTL expires old rows without tombstones to read past",
			join(t.Keyspace, t.Name), h.reason, t.Name)
	}
}

// byAge says why a DELETE looks like it removes rows by age, or "" if it does not.
func byAge(t *cql.Table, d *cql.Delete) string {
	et := eventTime(t)
	for _, r := range d.Where {
		if r.Kind != cql.RelColumn || !r.Op.IsSlice() {
			continue
		}
		// A range of event time (the shared rule's, bigint included) or of a timestamp or
		// date column; a range of an entity's id timeuuid is not a range of age.
		if c := t.Column(r.Column().Name); c != nil && ((et != nil && c.Name == et.Name) || native(c, "timestamp", "date")) {
			return fmt.Sprintf("DELETE by a range of %s", c.Name)
		}
	}
	if tc := et; tc != nil {
		return fmt.Sprintf("DELETE from a table ordered by %s", tc.Name)
	}
	return ""
}

func (p *pass) lookup(name string) (*cql.Table, bool) {
	ks, n, ok := strings.Cut(name, ".")
	if !ok {
		ks, n = p.in.Keyspace, name
	}
	q := cql.QualifiedName{Name: cql.Ident{Name: n, Pos: cql.Pos{Line: 1}}}
	if ks != "" {
		q.Keyspace = cql.Ident{Name: ks, Pos: cql.Pos{Line: 1}}
	}
	t := p.table(q, ks)
	return t, t != nil
}

func runAllowFiltering(p *pass) {
	for _, st := range p.stmts {
		if s, ok := st.s.(*cql.Select); ok && s.AllowFiltering {
			p.report(s.Pos, "SELECT from %s with ALLOW FILTERING scans rows across partitions", s.Table)
		}
	}
}

// uniqueName matches column names whose values are usually unique per row.
var uniqueName = regexp.MustCompile(`(?i)(^id$|_id$|^uuid$|_uuid$|email|token|hash|username|phone|serial|^key$|_key$)`)

func runHighCardinalityIndex(p *pass) {
	for _, st := range p.stmts {
		s, ok := st.s.(*cql.CreateIndex)
		if !ok {
			continue
		}
		t := p.table(s.Table, st.keyspace)
		for _, target := range s.Targets {
			if target.Kind == "keys" || target.Kind == "values" || target.Kind == "entries" {
				continue // collection contents: usually a small set of tags or labels
			}
			var c *cql.Column
			if t != nil {
				c = t.Column(target.Column.Name)
			}
			var why string
			switch {
			case c != nil && c.Kind == cql.Clustering:
				// Not "restrict it instead": a query that needs this index is one that
				// cannot give the partition key, and so cannot restrict the column either.
				why = "it is a clustering column, which a query restricts without an index only when it also gives the partition key"
			case c != nil && c.Type.Kind == cql.Native && (c.Type.Name == "timeuuid" || c.Type.Name == "timestamp"):
				// A moment is distinct per write (a heartbeat, an event time). A uuid is not
				// judged by its type: it may hold a tenant's or a parent's id shared by many
				// rows, so only its name can suggest uniqueness.
				why = fmt.Sprintf("its values are moments (%s), nearly one per write", c.Type)
			case uniqueName.MatchString(target.Column.Name):
				why = "its name suggests a unique value per row"
			default:
				continue
			}
			p.report(target.Column.Pos, "index on %s.%s: %s; each lookup asks every node", s.Table, target.Column, why)
		}
	}
}

func runView(p *pass) {
	for _, st := range p.stmts {
		if s, ok := st.s.(*cql.CreateView); ok {
			p.report(s.Pos, "materialized view %s is experimental in Cassandra and can drift from %s", s.Name, s.Base)
		}
	}
}

func runCompactStorage(p *pass) {
	for _, st := range p.stmts {
		if s, ok := st.s.(*cql.CreateTable); ok && s.CompactStorage {
			p.report(s.Pos, "CREATE TABLE %s WITH COMPACT STORAGE creates a legacy Thrift-era table that 5.0 only lets you leave with drop_compact_storage_enabled: true in cassandra.yaml", s.Name)
		}
	}
}

// touched returns, for each table the linted statements create or alter, where to report
// a finding about it (its CREATE TABLE, else its first ALTER TABLE).
func (p *pass) touched() map[string]cql.Pos {
	out := map[string]cql.Pos{}
	for _, st := range p.stmts {
		var q cql.QualifiedName
		switch s := st.s.(type) {
		case *cql.CreateTable:
			q = s.Name
		case *cql.AlterTable:
			q = s.Name
		default:
			continue
		}
		k, n := qualify(q, st.keyspace)
		key := join(k, n)
		if _, seen := out[key]; !seen {
			out[key] = st.s.Info().Pos
		}
	}
	return out
}

// sizeFor finds the workload's size entry of a touched table.
func (p *pass) sizes() map[string]TableSize {
	out := map[string]TableSize{}
	for _, ts := range p.in.Workload.Sizes {
		out[ts.Table] = ts
	}
	return out
}

func runPartitionLimits(fail bool) func(p *pass) {
	return func(p *pass) {
		sizes := p.sizes()
		for table, pos := range p.touched() {
			for _, l := range sizes[table].Limits {
				if l.Fail == fail {
					p.report(pos, "%s: %s (%s)", table, l.Message, l.Code)
				}
			}
		}
	}
}

func runTombstones(fail bool) func(p *pass) {
	return func(p *pass) {
		sizes := p.sizes()
		for table, pos := range p.touched() {
			ts, ok := sizes[table]
			if !ok {
				continue
			}
			n := ts.Tombstones
			read := "a read"
			if ts.Read != "" {
				read += " (" + ts.Read + ")"
			}
			switch {
			case fail && n > TombstoneFailureThreshold:
				p.report(pos, "%s: %s of the largest partition counts about %.0f tombstones, over tombstone_failure_threshold (%d): the read fails (typical partition: %.0f)",
					table, read, n, TombstoneFailureThreshold, ts.TypicalTombstones)
			case !fail && n > TombstoneWarnThreshold && n <= TombstoneFailureThreshold:
				p.report(pos, "%s: %s of the largest partition counts about %.0f tombstones, over tombstone_warn_threshold (%d) (typical partition: %.0f)",
					table, read, n, TombstoneWarnThreshold, ts.TypicalTombstones)
			}
		}
	}
}
