package check

import (
	"time"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/finding"
	"github.com/cqlsize/cqlsize/severity"
)

// Finding codes. They are stable: CI configurations and `-- cqlsize:nolint` directives name
// them, so a code never changes meaning and a retired code is never reused.
const (
	CodeNeedsFiltering = "QF001" // Cassandra rejects the query unless it says ALLOW FILTERING
	CodeScan           = "QF002" // only a scan serves it: no or partial partition key, a token range
	CodeFanOut         = "QF003" // it reads N partitions (IN on the partition key)
	CodeClustering     = "QF004" // its clustering restrictions are not a prefix Cassandra can slice
	CodeOrderBy        = "QF005" // its ORDER BY is not one Cassandra can serve
	CodeGroupBy        = "QF006" // its GROUP BY is not a primary key prefix
	CodeDistinct       = "QF007" // its SELECT DISTINCT is not legal
	CodeIndexScan      = "QF008" // a secondary index serves it, but without the partition key: every node is asked
	CodeFilters        = "QF009" // it runs only because of ALLOW FILTERING: it reads rows and drops them
	CodeNeedlessFilter = "QF010" // ALLOW FILTERING is not needed
	CodeUnknownName    = "QF011" // an undefined table or column
	CodeUnsupported    = "QF012" // an operator Cassandra 5.0 does not support there (!=, LIKE, CONTAINS on a non-collection, ...)
	CodeOrderByIn      = "QF013" // ORDER BY with IN on the partition key cannot be paged
	CodeInvalid        = "QF014" // another reason Cassandra rejects it (conflicting restrictions, LIMIT 0, ...)
	CodeIndexFilters   = "QF015" // an index serves part of it; ALLOW FILTERING filters the index's hits on the rest
	CodeDuplicateName  = "QF016" // another query of the file already has its name
)

// CodeInfo is a finding code and what it means.
type CodeInfo struct{ Code, Summary string }

// Codes lists every finding code with a one-line description, for documentation and
// `cqlsize check --list-codes`.
func Codes() []CodeInfo {
	return []CodeInfo{
		{CodeNeedsFiltering, "needs ALLOW FILTERING: Cassandra rejects it as written"},
		{CodeScan, "served only by a scan (no or partial partition key, token range)"},
		{CodeFanOut, "fans out over N partitions (IN on the partition key)"},
		{CodeClustering, "clustering restrictions are not a slice Cassandra can serve"},
		{CodeOrderBy, "ORDER BY Cassandra cannot serve"},
		{CodeGroupBy, "GROUP BY that is not a primary key prefix"},
		{CodeDistinct, "illegal SELECT DISTINCT"},
		{CodeIndexScan, "served by a secondary index without the partition key: every node is asked"},
		{CodeFilters, "runs only thanks to ALLOW FILTERING: reads rows it then discards"},
		{CodeNeedlessFilter, "ALLOW FILTERING that is not needed"},
		{CodeUnknownName, "undefined table or column"},
		{CodeUnsupported, "operator Cassandra 5.0 does not support there"},
		{CodeOrderByIn, "ORDER BY with IN on the partition key: rejected when the driver pages"},
		{CodeInvalid, "rejected by Cassandra for another reason"},
		{CodeIndexFilters, "served by an index, ALLOW FILTERING filtering its hits: costs what the index returns"},
		{CodeDuplicateName, "another query of the file already has this name"},
	}
}

// Severity says how bad a finding is: the scale every cqlsize analysis shares.
type Severity = severity.Level

// Severities, in increasing order.
const (
	Info = severity.Info // worth knowing
	Warn = severity.Warn // costs more than it should, or will when the data grows
	Fail = severity.Fail // Cassandra rejects it, or it scans the table
)

// ParseSeverity reads info, warn or fail.
func ParseSeverity(s string) (Severity, error) { return severity.Parse(s) }

// Finding is one problem with a query: the type every cqlsize analysis reports in. Pos is
// the query, or the clause or relation at fault; in JSON it is file:line:col.
type Finding = finding.Finding

// Access is how Cassandra finds the rows of a query.
type Access string

// Access paths.
const (
	SinglePartition Access = "single-partition" // every partition key column restricted by =
	FanOut          Access = "fan-out"          // = and IN on every partition key column: N partitions
	Scan            Access = "scan"             // anything else: a range of tokens, possibly all of them
	// IndexScan is a Scan a secondary index serves (Result.Index names it): every node reads
	// its index hits, not its whole token range. Only the JSON report uses it; Result.Access
	// stays Scan.
	IndexScan Access = "index"
)

// Verdict is what Cassandra 5.0 answers to the query as written.
type Verdict string

// Verdicts.
const (
	OK             Verdict = "ok"
	NeedsFiltering Verdict = "needs_filtering" // rejected: "... use ALLOW FILTERING"
	Invalid        Verdict = "invalid"         // rejected for another reason
)

// Result is the checker's answer for one query.
type Result struct {
	Query Query
	// Table is the table read, keyspace-qualified when the schema knows its keyspace;
	// empty when the query names no table of the schema.
	Table string
	// Access is how the rows are found; Partitions how many partitions are read for
	// single-partition (1) and fan-out (N); 0 when unknown (IN ?) or for a scan.
	Access     Access
	Partitions int
	// Verdict is what Cassandra answers to the query as written. NeedsFiltering is
	// Verdict == NeedsFiltering; Filters is true when the query runs only because it says
	// ALLOW FILTERING (Cassandra reads rows and discards those that do not match).
	Verdict        Verdict
	NeedsFiltering bool
	Filters        bool
	// WithoutFilteringToggled is the verdict for the same query with ALLOW FILTERING
	// added (when absent) or removed (when present).
	WithFilteringToggled Verdict
	// Index names the secondary indexes Cassandra uses for the query, comma-separated.
	Index string
	// Findings are sorted by severity (most serious first), then code.
	Findings []Finding
	// ExistingTable names another table or view of the schema that already serves the
	// query from one partition; SuggestedQuery is the query rewritten to read it.
	ExistingTable string
	// SuggestedTable is a CREATE TABLE statement for a table that serves the query from
	// one partition, when no table of the schema does; SuggestedQuery is the query
	// rewritten for it.
	SuggestedTable string
	SuggestedQuery string
}

// Worst is the highest severity among the findings, and false when there are none.
func (r *Result) Worst() (Severity, bool) {
	if len(r.Findings) == 0 {
		return Info, false
	}
	w := Info
	for _, f := range r.Findings {
		if f.Severity > w {
			w = f.Severity
		}
	}
	return w, true
}

// Options tune the checker.
type Options struct {
	// Keyspace is the keyspace of unqualified table names. When empty, an unqualified name
	// is looked up in every keyspace of the schema and must be unique.
	Keyspace string
	// Unpaged says the service turns paging off for these queries. Every driver pages by
	// default, and Cassandra refuses ORDER BY with IN on the partition key when paging.
	Unpaged bool
	// Size designs the table that serves a query sized by the tables' volumes (a workload
	// file's entity entries): with it a suggested table is the one `cqlsize design` makes,
	// bucketed and sharded by its size; without it (nil) no bucket width is invented and
	// the suggestion names the volume that would decide it.
	Size Sizer
	// Limits words the partition limits an unsized suggestion names (sizing.LimitsText of
	// the target); empty: "the partition limits".
	Limits string
	// TableRows says how many rows a table holds, and in words where that figure comes
	// from ("the workload says about 2M rows"); known is false when nothing says. A scan
	// of a table known to hold more than SmallTableRows rows fails; of one known to hold
	// fewer it is fine; of one whose size nothing gives, it is a warning that asks.
	TableRows func(t *cql.Table) (rows float64, said string, known bool)
	// Small lists the tables the user says are small (configuration, lookups): a scan of
	// them is fine. Qualified (app.settings) or bare (settings).
	Small []string
}

// SmallTableRows is the most rows a table may hold for a scan of it to be fine: one page
// at the drivers' default page size (5,000 rows in gocql and the Java driver), so reading
// all of it is one request per token range, not a read that grows with the table.
const SmallTableRows = 5000

// Sizer designs the table that serves one query (its name, rate, p99 target and usual
// range width as the queries file gives them), sized by volumes: the table, the query rewritten for it (its
// name qualified), the notes written as comment lines above its CREATE TABLE (the reasons
// for its key, what it asks of the writers) and why the bucket lint (BK101) waits, or "".
// The design engine is one (design.Volumes.Size; it sits above check, so the command passes
// it in). An error means it cannot serve the query: the suggestion is the unsized table.
type Sizer func(schema *cql.Schema, name string, rate float64, p99, rng time.Duration, stmt *cql.Select) (table *cql.Table, query string, notes []string, nolint string, err error)
