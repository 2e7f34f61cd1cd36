package sizing

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/workload"
)

// Recommendation codes. Verdict codes are those of Limits.
const (
	CodeBucket    = "SZ101" // the coarsest time bucket that keeps the p99 partition under the limits
	CodeShards    = "SZ102" // write shards for a hot key
	CodeTTL       = "SZ103" // TTL instead of DELETE
	CodeTWCS      = "SZ104" // TWCS for time series with TTL
	CodeUnset     = "SZ105" // unset instead of null
	CodeAssumed   = "SZ090" // a default was assumed for a value size
	CodeTTL2038   = "SZ006" // a TTL whose expiry is past 2038-01-19: rejected
	CodeBatchWarn = "SZ020" // batch over batch_size_warn_threshold
	CodeBatchFail = "SZ021" // batch over batch_size_fail_threshold
)

// headFailFactor is how far over a soft limit the busiest key's partition may grow before
// that alone fails the estimate: a partition ten times the guideline (1 GB, a million
// values) is an incident however few keys reach it, and 1000 MB is also ScyllaDB's own
// large-partition threshold.
const headFailFactor = 10

// verdicts checks the typical, p99 and largest partitions against the target's limits. A
// hard limit, a soft one the typical or the p99 partition already exceeds (one key in a
// hundred is many keys), or a busiest key headFailFactor times over a soft limit is a
// failure; a soft limit only the busiest keys exceed, by less than that, is a warning.
func verdicts(est *Estimate, target Target) []Finding {
	var out []Finding
	for _, l := range Limits(target) {
		top, p99, typ := est.Largest.measure(l.Measure), est.P99.measure(l.Measure), est.Typical.measure(l.Measure)
		if top < l.Value {
			continue
		}
		sev := Warn
		if l.Hard || typ >= l.Value || p99 >= l.Value || top >= headFailFactor*l.Value {
			sev = Fail
		}
		var msg string
		switch l.Measure {
		case KeyBytes:
			msg = fmt.Sprintf("the partition key is %s, over the %s: Cassandra rejects the write", FormatBytes(top), l.Name)
		case MutationRow:
			msg = fmt.Sprintf("a row is %s, over the %s: the write is rejected", FormatBytes(top), l.Name)
		case RowBytes:
			msg = fmt.Sprintf("a row is %s, over the %s", FormatBytes(top), l.Name)
		case CellBytes:
			msg = fmt.Sprintf("the largest value is %s, over the %s", FormatBytes(top), l.Name)
		default:
			who := "every partition reaches"
			switch {
			case typ >= l.Value:
				who = "the typical partition reaches " + formatMeasure(l.Measure, typ) + "; the largest"
			case p99 >= l.Value:
				who = "the p99 partition reaches " + formatMeasure(l.Measure, p99) + "; the largest"
			case est.Workload.Skew.Kind == workload.Zipf:
				who = "the busiest key's partition (zipf head) reaches"
			}
			if est.Typical.Activity == est.Largest.Activity {
				who = "every partition reaches"
			}
			msg = who + " " + formatMeasure(l.Measure, top)
			if life := est.lifeText(); life != "" { // a row count says no when
				msg += " " + life
			}
			msg += ", over the " + l.Name
			if !strings.HasPrefix(who, "every") && typ < l.Value {
				msg += fmt.Sprintf(" (typical: %s)", formatMeasure(l.Measure, typ))
			}
		}
		out = append(out, Finding{Code: l.Code, Severity: sev, Table: est.Table, Pos: est.Pos, Message: msg})
	}
	for _, a := range est.Assumptions {
		if strings.Contains(a, "assumed") {
			out = append(out, Finding{Code: CodeAssumed, Severity: Info, Table: est.Table, Pos: est.Workload.Pos, Message: a})
		}
	}
	return out
}

// lifeText says when the partition is sized: "at the end of its month bucket".
func (est *Estimate) lifeText() string {
	switch {
	case !est.Bucket.IsZero():
		return "at the end of its " + est.Bucket.Name + " bucket"
	case est.TTL > 0 && !est.Workload.WriteRate.IsZero():
		return "once its TTL (" + workload.FormatDuration(est.TTL) + ") caps it"
	case !est.Workload.WriteRate.IsZero():
		return "after " + workload.FormatDuration(est.Life)
	}
	return ""
}

// softLimits are the limits a bucket or a shard count should keep a partition under.
func softLimits(target Target) []Limit {
	var out []Limit
	for _, l := range Limits(target) {
		switch l.Measure {
		case Bytes, Values, Rows, Cells:
			out = append(out, l)
		}
	}
	return out
}

// over returns the largest ratio of a partition's measures to the limits (≥ 1 means over one).
func over(pt Partition, limits []Limit) float64 {
	r := 0.0
	for _, l := range limits {
		r = math.Max(r, pt.measure(l.Measure)/l.Value)
	}
	return r
}

// maxWriteShards is the most write shards SZ102 recommends. A read of a sharded key visits
// every shard of every bucket it covers; past ten thousand partitions a read, that is no
// longer a design but a scan, and the key needs a finer bucket or less data instead.
const maxWriteShards = 10000

// formatRatio renders how many times over a limit a partition is: 1.5, 1536.1, 4.46e+22.
func formatRatio(r float64) string {
	if r < 1e6 {
		return fmt.Sprintf("%.1f", r)
	}
	return fmt.Sprintf("%.3g", r)
}

// bucketCandidates are the widths SZ101 chooses from, coarsest first.
var bucketCandidates = []string{"year", "month", "iso-week", "day", "12h", "6h", "hour", "15m", "minute"}

func recommendations(est *Estimate, p *plan, sh *shape, skew workload.Skew) []Finding {
	var out []Finding
	add := func(code, format string, args ...any) {
		out = append(out, Finding{Code: code, Severity: Info, Table: est.Table, Pos: est.Pos, Message: fmt.Sprintf(format, args...)})
	}
	w := p.w
	limits := softLimits(est.Target)
	p99rank := workload.Rank(est.Keys, 0.99)

	// SZ101: the coarsest bucket that keeps the p99 partition under the limits.
	if !w.WriteRate.IsZero() {
		var best workload.Span
		var bestP99, bestTop Partition
		for _, name := range bucketCandidates {
			bw, _ := workload.ParseSpan(name)
			if p.ttl > 0 && bw.Max > p.ttl && name != "minute" {
				// A bucket outlasting the TTL keeps expired rows, tombstones to every read,
				// in partitions still being read.
				continue
			}
			q := *p
			q.bucket = bw
			q.avgRows = w.WriteRate.Over(bw.Avg)
			qs := q.shape()
			pt := q.partitionAt(qs, q.activity(skew, est.Keys, p99rank), bw.Max, bw.Max)
			if over(pt, limits) < 1 {
				best, bestP99 = bw, pt
				bestTop = q.partitionAt(qs, q.activity(skew, est.Keys, 1), bw.Max, bw.Max)
				break
			}
		}
		switch {
		case best.IsZero():
			add(CodeBucket, "no time bucket down to a minute keeps the p99 partition under the limits at %s per key: shard the partition key", w.WriteRate)
		case p.bucket.IsZero() && unknownWidthBucket(p.table) != "":
			// The key has a bucket; only its width is unknown: ask for it, not for a bucket.
			if over(est.P99, limits) >= 1 {
				add(CodeBucket, "%s looks like a time bucket of unknown width: if it holds %s %s (--bucket %s), the p99 partition ends its bucket at %s rows, %s (the coarsest span under the limits)",
					unknownWidthBucket(p.table), article(best.Name), best.Name, best.Name, FormatCount(bestP99.Rows), FormatBytes(bestP99.Bytes))
			}
		case p.bucket.IsZero():
			if over(est.P99, limits) >= 1 {
				add(CodeBucket, "add a time bucket to the partition key: by %s, the p99 partition ends its bucket at %s rows, %s (the coarsest bucket under the limits)",
					best.Name, FormatCount(bestP99.Rows), FormatBytes(bestP99.Bytes))
			}
		case best.Max < p.bucket.Max:
			add(CodeBucket, "bucket by %s instead of %s: the p99 partition then ends its bucket at %s rows, %s (the coarsest bucket under the limits)",
				best.Name, p.bucket.Name, FormatCount(bestP99.Rows), FormatBytes(bestP99.Bytes))
		case best.Max > p.bucket.Max && over(bestTop, limits) < 1:
			// Coarser only when the busiest key stays under too: a coarser bucket grows the head.
			add(CodeBucket, "%s %s bucket would also keep the p99 partition under the limits (%s, %s rows); with %s buckets a read over a time range touches more partitions than it needs to",
				article(best.Name), best.Name, FormatBytes(bestP99.Bytes), FormatCount(bestP99.Rows), p.bucket.Name)
		}
	}

	// SZ102: write shards for a hot key.
	if r := over(est.Largest, limits); r >= 1 && over(est.Typical, limits) < 1 {
		n := math.Ceil(r * 1.25) // headroom: shards fill unevenly
		if n <= maxWriteShards {
			add(CodeShards, "the busiest key's partition is %s× over the limits: spread that key over %.0f write shards (add a shard column to the partition key, e.g. shard = hash(clustering key) %% %.0f, and read all %.0f)",
				formatRatio(r), n, n, n)
		} else {
			add(CodeShards, "the busiest key's partition is %s× over the limits: it would take %s write shards, and a read visits every shard (over %s is a scan, not a read); give that key a finer time bucket, fewer rows or a TTL",
				formatRatio(r), workload.FormatBound(n), workload.FormatBound(maxWriteShards))
		}
	}

	// SZ103: TTL instead of DELETE.
	if p.ttl == 0 {
		var tombs float64
		for _, d := range w.Deletes {
			if d.Kind == workload.DeleteRow || d.Kind == workload.DeleteRange {
				tombs += 1
			}
		}
		if tombs > 0 {
			t := est.Largest.Tombstones
			add(CodeTTL, "deletes leave %s row tombstones and %s range markers in the largest partition; if rows are deleted because they age out, write them with a TTL (USING TTL or default_time_to_live) instead: expired data needs no DELETE",
				FormatCount(t.Rows), FormatCount(t.RangeMarkers))
		}
	}

	// SZ104: TWCS for time series with a TTL.
	if p.ttl > 0 && isTimeSeries(p) && p.table.Options.CompactionClass() != "TimeWindowCompactionStrategy" {
		win := TWCSWindowFor(p.bucket, p.ttl)
		add(CodeTWCS, "time series with a %s TTL on %s: use TimeWindowCompactionStrategy (compaction_window_unit '%s', compaction_window_size %d) so whole sstables expire and are dropped without compacting tombstones",
			workload.FormatDuration(p.ttl), p.table.Options.CompactionClass(), win.Unit, win.Size)
	}

	// SZ105: unset instead of null.
	if w.NullsAs == workload.NullTombstone && sh.rowNullTombs > 0 {
		q := *p
		ww := *w
		ww.NullsAs = workload.NullUnset
		q.w = &ww
		q.enc = q.encodingCosts()
		qs := q.shape()
		alt := q.partitionAt(qs, est.Largest.Activity, est.Life, est.Life)
		msg := fmt.Sprintf("nulls written as null leave %s tombstone cells in the largest partition (%.2g a row), and every read that scans them counts them against tombstone_warn_threshold (1000); bind unset instead (gocql.UnsetValue, or leave the column out of the statement) to write nothing",
			FormatCount(est.Largest.Tombstones.Cells), sh.rowNullTombs)
		if saved := est.Largest.Bytes - alt.Bytes; saved > 0.01*est.Largest.Bytes {
			msg += fmt.Sprintf(" and save %s of %s", FormatBytes(saved), FormatBytes(est.Largest.Bytes))
		}
		add(CodeUnset, "%s", msg)
	}
	return out
}

// isTimeSeries reports whether a table looks like a time series: bucketed by time, or
// clustered first by a time-typed column.
func isTimeSeries(p *plan) bool {
	if !p.bucket.IsZero() {
		return true
	}
	if len(p.table.Clustering) > 0 {
		switch p.table.Clustering[0].Type.Name {
		case "timeuuid", "timestamp", "date", "time":
			return p.table.Clustering[0].Type.Kind == cql.Native
		}
	}
	return false
}

// article is "a" or "an" for a bucket name.
func article(name string) string {
	if name != "" && strings.ContainsRune("aeiou", rune(name[0])) || strings.HasPrefix(name, "hour") {
		return "an"
	}
	return "a"
}

// maxExpiry2038Unix is the latest expiry (Unix seconds, 2038-01-19T03:14:06Z) Cassandra 4.1
// accepts, and 5.0 while storage_compatibility_mode is CASSANDRA_4 (its default): local
// deletion times are 32-bit seconds (Cell.MAX_DELETION_TIME_2038_LEGACY_CAP). A write whose
// now + TTL is later is rejected under the default expiration_date_overflow_policy, REJECT
// (CASSANDRA-14092).
const maxExpiry2038Unix = 1<<31 - 2

// MaxExpiry2038 is maxExpiry2038Unix as a time.
func MaxExpiry2038() time.Time { return time.Unix(maxExpiry2038Unix, 0).UTC() }

// ttlVerdict checks that writes with the table's TTL expire before the 2038 limit.
func ttlVerdict(est *Estimate, target Target, now time.Time) []Finding {
	if est.TTL <= 0 || target == ScyllaDB {
		return nil
	}
	if expiry := now.Add(est.TTL); expiry.After(MaxExpiry2038()) {
		max := MaxExpiry2038().Sub(now).Truncate(time.Second)
		return []Finding{{Code: CodeTTL2038, Severity: Fail, Table: est.Table, Pos: est.Pos, Message: fmt.Sprintf(
			"a TTL of %s written on %s expires after %s, the latest expiry %s accepts (storage_compatibility_mode CASSANDRA_4 on 5.0): the write is rejected (CASSANDRA-14092); keep the TTL under %.0f seconds (%s)",
			workload.FormatDuration(est.TTL), now.UTC().Format("2006-01-02"), MaxExpiry2038().Format(time.RFC3339), target, max.Seconds(), workload.FormatDuration(max))}}
	}
	return nil
}
