package codes

import (
	"github.com/cqlsize/cqlsize/cql/check"
	"github.com/cqlsize/cqlsize/finding"
)

// checkIntro is said once above the QF codes: where their rules come from.
const checkIntro = "The rules are Cassandra 5.0's own: cql/check/testdata/corpus holds queries over tables of every key shape, with 2i and SAI indexes, and verdicts.golden records what a real 5.0.9 node answered to each (as written and with ALLOW FILTERING toggled); the checker agrees with every one."

func checkDocs() []finding.Doc {
	c := []string{cmdCheck}
	fail := []finding.Level{finding.Fail}
	warn := []finding.Level{finding.Warn}
	return []finding.Doc{
		{
			Code: check.CodeNeedsFiltering, Name: "needs-allow-filtering", Severities: fail, Commands: c,
			What: "Cassandra rejects the query unless it says ALLOW FILTERING: a restriction is on a column no index answers (a regular or static column, part of the partition key, a clustering column out of order, several legacy indexes at once)",
			Why:  "the node answers \"Cannot execute this query as it might involve data filtering\"; with ALLOW FILTERING it runs by reading rows and discarding them",
			Fix:  "read from a table keyed for the query (check suggests one), or index the column",
		},
		{
			Code: check.CodeScan, Name: "scan", Severities: []finding.Level{finding.Info, finding.Warn, finding.Fail}, Commands: c,
			What: "only a scan serves the query: no partition key, part of it, a range on it, or a token range; fail when the workload says the table holds more than 5,000 rows, info when it says fewer or --small names the table, warn (asking for the size) when nothing says",
			Why:  "every partition (of the range) is read, on every node: the latency grows with the table, which is fine only for a table that stays small",
			Fix:  "query by the full partition key; for a small table, say so with --small TABLE (or its volume in --workload); for a deliberate full-table job (token ranges), silence it with -- cqlsize:nolint QF002",
		},
		{
			Code: check.CodeFanOut, Name: "fan-out", Severities: warn, Commands: c,
			What: "IN on the partition key reads N partitions through one coordinator (N unknown for IN ?)",
			Why:  "the coordinator waits for the slowest partition and holds every result in memory; one slow replica slows the whole query",
			Fix:  "run one query per partition concurrently from the client",
		},
		{
			Code: check.CodeClustering, Name: "clustering-not-sliceable", Severities: fail, Commands: c,
			What: "clustering restrictions Cassandra cannot slice: a clustering column restricted while an earlier one is not, or after a range on an earlier one; a tuple relation that does not start the key",
			Why:  "rows are stored sorted by the clustering key, so only a prefix with a range on its last column is one contiguous slice; Cassandra rejects the rest (or filters with ALLOW FILTERING)",
			Fix:  "restrict the clustering key as a prefix with a range only on the last restricted column, or use the suggested table",
		},
		{
			Code: check.CodeOrderBy, Name: "order-by-unservable", Severities: fail, Commands: c,
			What: "ORDER BY Cassandra cannot serve: not on clustering columns, not in their order, mixed directions that are neither the declared nor the reversed order, with a secondary index, or without the partition key",
			Why:  "Cassandra returns rows in clustering order (or its reverse) and never sorts; it rejects any other ORDER BY",
			Fix:  "order by the clustering columns in their declared order (or all reversed), or use a table clustered in the order you need",
		},
		{
			Code: check.CodeGroupBy, Name: "group-by-not-key-prefix", Severities: fail, Commands: c,
			What: "GROUP BY that is not a primary key prefix (columns restricted by = may be skipped), or only part of the partition key",
			Why:  "Cassandra groups rows as it reads them in key order, so it accepts only primary key prefixes",
			Fix:  "group by the partition key, then clustering columns in order",
		},
		{
			Code: check.CodeDistinct, Name: "illegal-distinct", Severities: fail, Commands: c,
			What: "SELECT DISTINCT that requests non-key, non-static columns, misses a partition key column on a scan, restricts clustering or regular columns, or has PER PARTITION LIMIT",
			Why:  "DISTINCT returns partition keys (and static columns) only; Cassandra rejects the rest",
			Fix:  "select only partition key and static columns",
		},
		{
			Code: check.CodeIndexScan, Name: "index-scan", Severities: warn, Commands: c,
			What: "a secondary index (2i or SAI) answers the query without the partition key",
			Why:  "indexes are local to each node, so every node (a token range at a time) is asked",
			Fix:  "fine for rare queries; on a hot path, add the partition key or use a table keyed for the query",
		},
		{
			Code: check.CodeFilters, Name: "filters", Severities: []finding.Level{finding.Info, finding.Warn, finding.Fail}, Commands: c,
			What: "the query runs only because it says ALLOW FILTERING: on a scan as severe as QF002 (by the table's size), warn in wide partitions, info in one-row partitions",
			Why:  "Cassandra reads rows and discards those that do not match; the cost is the rows read, not the rows returned",
			Fix:  "use the suggested table",
		},
		{
			Code: check.CodeNeedlessFilter, Name: "needless-allow-filtering", Severities: []finding.Level{finding.Info}, Commands: c,
			What: "ALLOW FILTERING that is not needed: Cassandra accepts the query without it and does not filter",
			Why:  "it hides a later change that would make the query filter",
			Fix:  "remove ALLOW FILTERING",
		},
		{
			Code: check.CodeUnknownName, Name: "unknown-name", Severities: fail, Commands: c,
			What: "an undefined table, keyspace or column, or a table name found in several keyspaces",
			Why:  "Cassandra rejects the query (\"unconfigured table\", \"Undefined column name\")",
			Fix:  "fix the name, qualify it, or pass --keyspace",
		},
		{
			Code: check.CodeUnsupported, Name: "unsupported-operator", Severities: fail, Commands: c,
			What: "an operator Cassandra 5.0 does not support there: !=, LIKE without a SASI index, CONTAINS on a non-collection, = on a whole non-frozen collection, IS NOT NULL",
			Why:  "Cassandra rejects the query",
			Fix:  "rewrite the restriction",
		},
		{
			Code: check.CodeOrderByIn, Name: "order-by-with-in", Severities: fail, Commands: c,
			What: "ORDER BY with IN on the partition key",
			Why:  "Cassandra refuses it when the driver pages, which every driver does by default",
			Fix:  "sort on the client, or turn paging off for this query (--unpaged tells the checker you do)",
		},
		{
			Code: check.CodeInvalid, Name: "invalid", Severities: fail, Commands: c,
			What: "rejected by Cassandra for another reason: conflicting restrictions on a column, LIMIT <= 0, token() on part of the partition key, an index used with IN on the partition key, writetime() of a key column, PER PARTITION LIMIT with an aggregate, clustering restrictions when only static columns are selected",
			Why:  "Cassandra rejects the query; the finding quotes its message",
			Fix:  "follow Cassandra's message, quoted in the finding",
		},
		{
			Code: check.CodeIndexFilters, Name: "index-with-filtering", Severities: warn, Commands: c,
			What: "a secondary index (2i or SAI) serves part of the restrictions and ALLOW FILTERING filters the index's hits on the rest (within the partition, or on every node without the partition key)",
			Why:  "not a scan: Cassandra reads the rows the index returns and drops those that fail the other restrictions, so the cost is the index's selectivity (cheap when few rows match the indexed value, a near-scan when many do)",
			Fix:  "index the other restricted columns too (SAI intersects indexes), or read from a table keyed for the query when the indexed value matches many rows",
		},
		{
			Code: check.CodeDuplicateName, Name: "duplicate-query-name", Severities: fail, Commands: c,
			What: "a query is named (-- query: NAME) as another query of the same file already is",
			Why:  "reports, JSON consumers and CI name queries by it, so two of one name cannot be told apart; the query itself is still checked, and the others are unaffected",
			Fix:  "rename one of the two",
		},
	}
}
