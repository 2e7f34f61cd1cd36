package codes

import (
	"fmt"

	"github.com/cqlsize/cqlsize/finding"
	"github.com/cqlsize/cqlsize/sizing"
	"github.com/cqlsize/cqlsize/sizing/readcost"
)

// limitNames are the stable names of the sizing limits' codes.
var limitNames = map[string]string{
	"SZ001": "values-per-partition",
	"SZ002": "partition-bytes",
	"SZ003": "cells-per-partition",
	"SZ004": "partition-key-bytes",
	"SZ005": "mutation-size",
	"SZ010": "scylla-large-partition",
	"SZ011": "scylla-large-row",
	"SZ012": "scylla-large-cell",
	"SZ013": "scylla-rows-per-partition",
}

// limitNoun is what a limit is about: a partition, a row, a value.
func limitNoun(m sizing.Measure) string {
	switch m {
	case sizing.RowBytes, sizing.MutationRow:
		return "a row"
	case sizing.CellBytes:
		return "a value"
	}
	return "a partition"
}

// limitFix is how to get a partition back under a limit, by what the limit measures.
func limitFix(m sizing.Measure) string {
	switch m {
	case sizing.KeyBytes:
		return "key by a shorter value (a hash or an id of the long one)"
	case sizing.MutationRow, sizing.RowBytes:
		return "split the row: move large values to their own table, or into clustering rows (chunks)"
	case sizing.CellBytes:
		return "store large values outside Cassandra (an object store) and keep a reference, or chunk them into clustering rows"
	}
	return "add a time bucket or a shard to the partition key; `cqlsize estimate` recommends the coarsest bucket that keeps the p99 partition under the limits (SZ101) and the shard count for hot keys (SZ102)"
}

func sizingDocs() []finding.Doc {
	est := []string{cmdEstimate}
	var out []finding.Doc
	seen := map[string]bool{}
	for _, t := range sizing.Targets() {
		for _, l := range sizing.Limits(t) {
			if seen[l.Code] {
				continue
			}
			seen[l.Code] = true
			d := finding.Doc{
				Code: l.Code, Name: limitNames[l.Code], Commands: est,
				What: fmt.Sprintf("%s over the limit of %s (target %s)", limitNoun(l.Measure), l.Name, t),
				Why:  l.Source,
				Fix:  limitFix(l.Measure),
			}
			if l.Code == "SZ004" {
				d.What = "a partition key over " + l.Name[len("partition key of "):] + " (every target)"
			}
			if l.Hard {
				d.Severities = []finding.Level{finding.Fail}
			} else {
				d.Severities = []finding.Level{finding.Warn, finding.Fail}
				d.What += ": fail when the typical or the p99 partition is over it, or the busiest key is ten times over; warn when only the busiest keys are"
			}
			if l.Code == "SZ001" {
				d.What = "a partition over " + l.Short() + " (the classic formula Nv = Nr(Nc-Npk-Ns)+Ns, target cassandra-5.0 or 4.1): fail when the typical or the p99 partition is over it, or the busiest key is ten times over; warn when only the busiest keys are"
			}
			out = append(out, d)
		}
	}
	info := []finding.Level{finding.Info}
	out = append(out,
		finding.Doc{
			Code: sizing.CodeTTL2038, Name: "ttl-past-2038", Severities: []finding.Level{finding.Fail}, Commands: est,
			What: "a TTL whose expiry (now + TTL) is after 2038-01-19T03:14:06Z",
			Why:  "local deletion times are 32-bit seconds on 4.1, and on 5.0 while storage_compatibility_mode is CASSANDRA_4 (its default): under the default expiration_date_overflow_policy REJECT the write is rejected (CASSANDRA-14092)",
			Fix:  "keep the TTL under the seconds left until 2038-01-19 (the finding says how many), or move to storage_compatibility_mode NONE on 5.0",
		},
		finding.Doc{
			Code: sizing.CodeBatchWarn, Name: "batch-size-warn", Severities: []finding.Level{finding.Warn}, Commands: est,
			What: "a logged batch (a denormalized write to several tables) over batch_size_warn_threshold (5 KiB), as Cassandra measures it",
			Why:  "the coordinator logs a warning for every such batch, and large batches load the coordinator and the batchlog",
			Fix:  "write fewer or smaller values per batch, or write the tables with separate statements where atomicity is not needed",
		},
		finding.Doc{
			Code: sizing.CodeBatchFail, Name: "batch-size-fail", Severities: []finding.Level{finding.Fail}, Commands: est,
			What: "a logged batch over batch_size_fail_threshold (50 KiB), as Cassandra measures it",
			Why:  "Cassandra rejects the batch (\"Batch too large\"): the write fails",
			Fix:  "split the batch, or keep large values out of the denormalized tables (store them once and reference them)",
		},
		finding.Doc{
			Code: sizing.CodeAssumed, Name: "assumed-size", Severities: info, Commands: est,
			What: "a value size the workload does not give was assumed (a default for the type)",
			Why:  "the estimate is only as good as its sizes: a text or blob column assumed small may be large",
			Fix:  "give the column's average size in the workload (avg: {col: 200B}) or with --avg",
		},
		finding.Doc{
			Code: sizing.CodeBucket, Name: "time-bucket", Severities: info, Commands: est,
			What: "the coarsest time bucket (year down to minute) that keeps the p99 partition under the limits: add one, make it finer, or a coarser one is enough",
			Why:  "a time bucket in the partition key bounds how long a partition grows; too coarse and partitions pass the limits, too fine and reads over a time range touch more partitions than needed",
			Fix:  "put the recommended bucket column in the partition key, e.g. PRIMARY KEY ((sensor_id, day), at)",
		},
		finding.Doc{
			Code: sizing.CodeShards, Name: "write-shards", Severities: info, Commands: est,
			What: "the busiest key's partition is over the limits while the typical one is not: how many write shards spread it",
			Why:  "under a skewed workload one key can outgrow every bucket; a shard column spreads its writes over several partitions",
			Fix:  "add a shard column to the partition key (shard = hash(clustering key) % N) and read all N; past 10,000 shards, a finer bucket, fewer rows or a TTL instead",
		},
		finding.Doc{
			Code: sizing.CodeTTL, Name: "ttl-instead-of-delete", Severities: info, Commands: est,
			What: "the workload deletes rows or ranges from a table without a TTL",
			Why:  "each delete leaves row tombstones or range markers that reads skip until gc_grace_seconds pass; expiring data needs no DELETE",
			Fix:  "write the rows USING TTL or set default_time_to_live when they are deleted because they age out",
		},
		finding.Doc{
			Code: sizing.CodeTWCS, Name: "twcs-for-ttl", Severities: info, Commands: est,
			What: "a time series with a TTL on a compaction strategy other than TimeWindowCompactionStrategy, with the window to use",
			Why:  "TWCS groups rows written together into one sstable per window, so once they expire the whole sstable is dropped without compacting tombstones",
			Fix:  "ALTER TABLE ... WITH compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': ..., 'compaction_window_size': ...} as recommended",
		},
		finding.Doc{
			Code: readcost.CodeScatter, Name: "read-scatter", Severities: []finding.Level{finding.Warn}, Commands: []string{cmdEstimate},
			What: fmt.Sprintf("a query's typical read (its median key's) visits more than %d partitions: buckets walked back times shards", readcost.FewPartitions),
			Why:  "each partition is a read of its own, with its own latency and sstables; a bucket fine enough for the busiest key makes the median key's LIMIT read walk back through many buckets, and the query's rate times those partitions is what the cluster serves",
			Fix:  "a coarser bucket or fewer shards for the typical key; where the busiest key needs them, tiers: hot keys on the fine scheme, the rest on a coarse one (`cqlsize design` works them out)",
		},
		finding.Doc{
			Code: readcost.CodeEmpty, Name: "empty-buckets", Severities: []finding.Level{finding.Warn}, Commands: []string{cmdEstimate},
			What: "at least half the partitions a query's typical read visits hold no row: its key gets fewer rows than one a bucket",
			Why:  "an empty partition still costs a read (bloom filters, a replica round trip) and returns nothing; the walk goes on until the LIMIT is met or the retention reached",
			Fix:  "a bucket wide enough that the typical key has rows in most of them, or tiers",
		},
		finding.Doc{
			Code: readcost.CodeP99, Name: "read-p99", Severities: []finding.Level{finding.Warn}, Commands: []string{cmdEstimate},
			What: fmt.Sprintf("the p99 key's read walks more buckets than its declared p99 (`-- query: NAME p99=20ms`) allows at %v a partition read", readcost.PartitionReadTime),
			Why:  "a walk reads its buckets one after another (it needs the next only when the last was short), and each is at least a round trip to the replicas",
			Fix:  "fewer buckets for the p99 key: a coarser bucket, or tiers that give the busy keys their own scheme",
		},
		finding.Doc{
			Code: sizing.CodeUnset, Name: "unset-instead-of-null", Severities: info, Commands: est,
			What: "the workload writes missing values as null (nulls_as: tombstone)",
			Why:  "every null written is a cell tombstone, counted by reads against tombstone_warn_threshold for gc_grace_seconds, and bytes on disk",
			Fix:  "bind unset (gocql.UnsetValue) or leave the column out of the statement",
		},
	)
	return out
}
