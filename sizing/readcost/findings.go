package readcost

import (
	"fmt"
	"time"

	"github.com/cqlsize/cqlsize/finding"
)

// The read-cost finding codes (their text is in the codes registry).
const (
	CodeScatter = "RC001" // the typical read visits more than a few partitions
	CodeEmpty   = "RC002" // the typical read walks mostly empty buckets
	CodeP99     = "RC003" // the p99 read's buckets, one after another, cannot meet its p99
)

// FewPartitions is how many partitions a typical read may visit before its cost is worth a
// finding: a LIMIT read that merges a bucket's shards or steps back a bucket or two is
// normal; beyond that each read is a scatter of partition reads, each with its own latency
// and its own sstables, and the slowest sets the read's.
const FewPartitions = 4

// PartitionReadTime is the least time one partition read of a walk takes: a round trip
// from the client to a coordinator and on to the replicas and back, on a healthy cluster in
// one data centre. A walk reads its buckets one after another (it cannot know it needs the
// next until the last is short), so its time is at least its buckets times this.
const PartitionReadTime = time.Millisecond

// Findings judges a pattern's read cost: RC001 when the typical read visits more than
// FewPartitions partitions, RC002 when at least half the partitions it visits are empty,
// RC003 when p99 (the query's declared target; 0: none) is shorter than the p99 key's
// buckets times PartitionReadTime. table and pos say where; query names the pattern.
func (c Cost) Findings(table, query string, p99 time.Duration) []finding.Finding {
	var out []finding.Finding
	t := c.Typical
	if t.Partitions > FewPartitions {
		out = append(out, finding.Finding{Code: CodeScatter, Severity: finding.Warn, Table: table,
			Message: fmt.Sprintf("query %s: a typical read visits %.0f partitions (%s; p99 key %.0f, busiest %.0f) for %.0f rows",
				query, t.Partitions, walkText(t), c.P99.Partitions, c.Busiest.Partitions, t.Rows),
			Fix: "a coarser bucket or fewer shards for the typical key; where the busiest key needs them, tiers (cqlsize design)"})
	}
	if t.Partitions > 1 && t.EmptyShare() >= 0.5 {
		out = append(out, finding.Finding{Code: CodeEmpty, Severity: finding.Warn, Table: table,
			Message: fmt.Sprintf("query %s: %.0f%% of the %.0f partitions a typical read visits are empty (the typical key gets %.3g rows a bucket)",
				query, 100*t.EmptyShare(), t.Partitions, t.Rows/max(1, t.Buckets)),
			Fix: "a bucket wide enough that the typical key has rows in most of them"})
	}
	if p99 > 0 && time.Duration(c.P99.Buckets)*PartitionReadTime > p99 {
		out = append(out, finding.Finding{Code: CodeP99, Severity: finding.Warn, Table: table,
			Message: fmt.Sprintf("query %s: the p99 key's read walks %.0f buckets one after another, at least %v at %v each, over its p99 target of %v",
				query, c.P99.Buckets, time.Duration(c.P99.Buckets)*PartitionReadTime, PartitionReadTime, p99),
			Fix: "fewer buckets for the p99 key: a coarser bucket, or tiers that give the busy keys their own scheme"})
	}
	return out
}

// walkText is "30 buckets" or "1800 buckets × 2 shards".
func walkText(k Key) string {
	s := fmt.Sprintf("%.0f buckets", k.Buckets)
	if k.Buckets == 1 {
		s = "1 bucket"
	}
	if sh := k.Partitions / max(1, k.Buckets); sh > 1 {
		s += fmt.Sprintf(" × %.0f shards", sh)
	}
	return s
}
