package codes

import (
	"github.com/cqlsize/cqlsize/finding"
	"github.com/cqlsize/cqlsize/tombstone"
)

// tombstoneDocs documents the TS codes: a table's tombstone pattern under its workload
// (TS0xx), then the statements that create tombstones (TS1xx).
func tombstoneDocs() []finding.Doc {
	return append(tombstonePatternDocs(), tombstoneStatementDocs()...)
}

// tombstonePatternDocs documents the TS0xx codes: a table's pattern under the workload.
func tombstonePatternDocs() []finding.Doc {
	est := []string{cmdEstimate}
	info := []finding.Level{finding.Info}
	infoWarn := []finding.Level{finding.Info, finding.Warn}
	warn := []finding.Level{finding.Warn}
	return []finding.Doc{
		{
			Code: tombstone.CodeReadWarn, Name: "read-over-tombstone-warn", Severities: warn, Commands: est,
			What: "the typical read (its LIMIT, its share of the partition, its order) counts more tombstones than tombstone_warn_threshold (1000)",
			Why:  "Cassandra logs a warning for each such read, and the read slows with every tombstone it scans",
			Fix:  "remove the largest source the message names (a TTL instead of DELETE, unset instead of null, frozen collections), give the read a LIMIT, start reads after the deleted rows",
		},
		{
			Code: tombstone.CodeReadFail, Name: "read-over-tombstone-failure", Severities: []finding.Level{finding.Fail}, Commands: est,
			What: "the typical read counts more tombstones than tombstone_failure_threshold (100,000)",
			Why:  "Cassandra aborts the read with TombstoneOverwhelmingException: the query fails",
			Fix:  "as for TS001; the read must meet fewer tombstones, so bucket the partition or stop deleting what a TTL can expire",
		},
		{
			Code: tombstone.CodePeakRead, Name: "later-read-over-threshold", Severities: []finding.Level{finding.Warn, finding.Fail}, Commands: est,
			What: "a read later in the partition's life (an older bucket, rows expiring) crosses a tombstone threshold the typical read does not",
			Why:  "the typical read looks fine while the reads of older or expiring partitions warn or fail",
			Fix:  "do not read buckets whose rows have expired; TWCS and gc_grace_seconds near the TTL let expired data go sooner",
		},
		{
			Code: tombstone.CodeQueue, Name: "queue-pattern", Severities: warn, Commands: est,
			What: "rows or ranges are deleted where reads start (the queue anti-pattern)",
			Why:  "every read scans all the deletions younger than gc_grace_seconds before its first live row; a LIMIT does not help",
			Fix:  "do not consume a table as a queue: start each read after the last row processed (WHERE ck > ?), or move consumed work to a new time bucket instead of deleting it",
		},
		{
			Code: tombstone.CodeNullWrites, Name: "null-writes", Severities: infoWarn, Commands: est,
			What: "the workload's writes set regular columns to null (warn when they are a tenth of the warn threshold of a read)",
			Why:  "each null is a cell tombstone, counted by every read of the row for gc_grace_seconds",
			Fix:  "bind unset instead of null (gocql.UnsetValue), leave the column out of the INSERT, or use INSERT JSON ... DEFAULT UNSET",
		},
		{
			Code: tombstone.CodeWholeCollection, Name: "whole-collection-writes", Severities: info, Commands: est,
			What: "non-frozen collections are written whole (INSERT, or SET c = {...})",
			Why:  "each such write puts a complex deletion before the elements: not counted by reads, but kept on disk until gc_grace_seconds pass and a compaction runs",
			Fix:  "use frozen<...> when the collection is always written whole, or update elements (SET c = c + {...})",
		},
		{
			Code: tombstone.CodeTTLUnderGrace, Name: "ttl-under-gc-grace", Severities: infoWarn, Commands: est,
			What: "the TTL is shorter than gc_grace_seconds",
			Why:  "expired cells count as tombstones in reads until gc_grace_seconds after their write, so reads meet more expired data than live data",
			Fix:  "use TWCS with a window near the bucket length, set gc_grace_seconds no longer than the TTL where repair allows, and do not read expired buckets",
		},
		{
			Code: tombstone.CodeDeletesOnTWCS, Name: "deletes-on-twcs", Severities: warn, Commands: est,
			What: "explicit deletions on a TimeWindowCompactionStrategy table",
			Why:  "a tombstone in a newer window cannot purge data in an older one, so windows are not dropped whole and tombstones pile up",
			Fix:  "let a TTL expire the data instead of deleting it, or use LCS/STCS for a table that needs deletions",
		},
		{
			Code: tombstone.CodeTTLNotTWCS, Name: "ttl-not-twcs", Severities: info, Commands: est,
			What: "rows expire in time order, but the table is not on TimeWindowCompactionStrategy",
			Why:  "expired data is purged only when compaction happens to reach it; TWCS drops whole sstables once they expire",
			Fix:  "use TimeWindowCompactionStrategy with a window of about 1/20 to 1/50 of the TTL",
		},
		{
			Code: tombstone.CodeDeleteByAge, Name: "delete-by-age", Severities: info, Commands: est,
			What:      "the oldest rows are deleted explicitly, in a table without a TTL",
			Why:       "a TTL removes them at the same age without a DELETE and, with TWCS, without tombstones to compact",
			Fix:       "write the rows USING TTL (or set default_time_to_live) instead of deleting them",
			Unreached: "estimate reports SZ103 (the same advice, with the tombstone counts) in its place, so only callers of tombstone.Estimate see TS010 (tombstone's TestScenariosGolden shows it in testdata/scenarios.golden)",
		},
		{
			Code: tombstone.CodeLowerGCGrace, Name: "lower-gc-grace", Severities: info, Commands: est,
			What: "reads count tombstones that gc_grace_seconds (over 3 days) keeps, a tenth of the warn threshold or more",
			Why:  "tombstones are kept gc_grace_seconds so repair can spread them; past it compaction drops them and reads stop counting them",
			Fix:  "lower gc_grace_seconds to just over your repair interval (never below it)",
		},
		{
			Code: tombstone.CodeDiskTombstones, Name: "tombstones-on-disk", Severities: info, Commands: est,
			What: "a partition holds more than 100,000 tombstones on disk",
			Why:  "compaction logs a warning over 100,000 (partition_tombstones_warn_threshold when enabled), and they cost disk and compaction time",
			Fix:  "remove the largest source of tombstones (TTL instead of DELETE, unset instead of null)",
		},
	}
}

// tombstoneStatementDocs documents the TS1xx codes: the statements the application runs
// that create tombstones.
func tombstoneStatementDocs() []finding.Doc {
	est := []string{cmdEstimate}
	info := []finding.Level{finding.Info}
	warn := []finding.Level{finding.Warn}
	return []finding.Doc{
		{
			Code: tombstone.NullWrite.Code(), Name: "literal-null", Severities: warn, Commands: est,
			What: "a statement writes a literal NULL to a one-cell column",
			Why:  "a cell tombstone on every execution, counted by reads for gc_grace_seconds",
			Fix:  "leave the column out of the statement instead of writing NULL",
		},
		{
			Code: tombstone.MaybeNull.Code(), Name: "bound-maybe-null", Severities: info, Commands: est,
			What: "a statement binds a regular column (a bind marker)",
			Why:  "a nil bound value writes a tombstone; drivers send nil for Go's nil, Java's null, Python's None",
			Fix:  "bind unset for a missing value (gocql.UnsetValue), never nil",
		},
		{
			Code: tombstone.JSONNulls.Code(), Name: "insert-json-nulls", Severities: warn, Commands: est,
			What: "INSERT JSON without DEFAULT UNSET",
			Why:  "every column missing from the JSON is written as null: a tombstone each",
			Fix:  "write INSERT INTO ... JSON ? DEFAULT UNSET",
		},
		{
			Code: tombstone.CollectionWrite.Code(), Name: "collection-written-whole", Severities: info, Commands: est,
			What: "a statement writes a whole non-frozen collection or UDT",
			Why:  "Cassandra writes a complex deletion before the new value (on disk until gc_grace_seconds pass; reads do not count it)",
			Fix:  "declare it frozen<...> when it is always written whole, or add elements (SET c = c + ...) instead of replacing the value",
		},
		{
			Code: tombstone.ElementRemoval.Code(), Name: "element-removal", Severities: info, Commands: est,
			What: "a statement removes collection elements",
			Why:  "an element tombstone each, counted by every read of the row for gc_grace_seconds",
			Fix:  "rewrite a frozen collection whole, or model the elements as clustering rows with a TTL",
		},
		{
			Code: tombstone.PartitionDeletion.Code(), Name: "partition-deletion", Severities: info, Commands: est,
			What: "a DELETE of whole partitions",
			Why:  "one partition deletion each; reads do not count it against tombstone_warn_threshold, but it shadows the partition's data until compaction",
			Fix:  "nothing to do when partitions really end; a TTL when they end at a known age",
		},
		{
			Code: tombstone.RowDeletion.Code(), Name: "row-deletion", Severities: info, Commands: est,
			What: "a DELETE of single rows",
			Why:  "a row tombstone each, counted by every read that scans it for gc_grace_seconds",
			Fix:  "when rows die at a known age, write them with a TTL instead",
		},
		{
			Code: tombstone.RangeDeletion.Code(), Name: "range-deletion", Severities: info, Commands: est,
			What: "a DELETE of a clustering range or prefix",
			Why:  "two range tombstone markers each, counted by every read that crosses them",
			Fix:  "prefer a few wide range deletions to many narrow ones; a TTL when rows die at a known age",
		},
		{
			Code: tombstone.CellDeletion.Code(), Name: "cell-deletion", Severities: info, Commands: est,
			What: "a DELETE of one-cell columns or UDT fields",
			Why:  "a cell tombstone each, counted by reads of the row for gc_grace_seconds",
			Fix:  "rewrite the row instead of deleting single cells, or give the cells a TTL",
		},
		{
			Code: tombstone.TTLWrite.Code(), Name: "ttl-write", Severities: info, Commands: est,
			What: "a write USING TTL",
			Why:  "each cell becomes a tombstone when it expires; reads count it until gc_grace_seconds after the write",
			Fix:  "pair TTL'd time series with TWCS and read only unexpired buckets",
		},
		{
			Code: tombstone.CollectionDeletion.Code(), Name: "collection-deletion", Severities: info, Commands: est,
			What: "a whole non-frozen collection deleted or set to null",
			Why:  "a complex deletion (reads do not count it; it stays on disk until gc_grace_seconds pass)",
			Fix:  "nothing to do when it is rare; a frozen collection when it is always replaced whole",
		},
	}
}
