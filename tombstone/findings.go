package tombstone

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cqlsize/cqlsize/finding"
	"github.com/cqlsize/cqlsize/severity"
)

// Severity orders findings: the scale every cqlsize analysis shares. CI fails a run on the
// findings at or over its chosen level.
type Severity = severity.Level

// Severities, least to most severe.
const (
	OK   = severity.OK   // nothing to report
	Info = severity.Info // worth knowing, no action needed
	Warn = severity.Warn // Cassandra will warn, or a pattern that will hurt as data grows
	Fail = severity.Fail // Cassandra will fail reads
)

// Finding is one problem or notice about a table's tombstones or a statement that creates
// them: the type every cqlsize analysis reports in. Table is keyspace.table (or table); Pos
// the statement, for statement findings; Message what happens, with the numbers; Fix what
// to do about it. Codes are stable (`cqlsize explain CODE` documents each): scripts and
// nolint directives may name them.
type Finding = finding.Finding

// Codes of the table-pattern findings. Statement findings are TS1xx (see statements.go).
const (
	CodeReadWarn        = "TS001" // the typical read counts more than tombstone_warn_threshold
	CodeReadFail        = "TS002" // the typical read counts more than tombstone_failure_threshold
	CodePeakRead        = "TS003" // a read later in the partition's life crosses a threshold
	CodeQueue           = "TS004" // deletions where reads start: the queue anti-pattern
	CodeNullWrites      = "TS005" // writes set columns to null: a cell tombstone each
	CodeWholeCollection = "TS006" // non-frozen collections written whole: a complex deletion each
	CodeTTLUnderGrace   = "TS007" // TTL shorter than gc_grace_seconds: expired cells count in reads
	CodeDeletesOnTWCS   = "TS008" // explicit deletions on a TWCS table
	CodeTTLNotTWCS      = "TS009" // TTL'd time series not on TWCS
	CodeDeleteByAge     = "TS010" // deleting the oldest rows: a TTL does it without DELETE
	CodeLowerGCGrace    = "TS011" // tombstones held for gc_grace_seconds dominate reads
	CodeDiskTombstones  = "TS012" // many tombstones per partition on disk
)

// fix is the recommendation that removes tombstones of one source, leaving out what the
// table already does.
func fix(src Source, in Input) string {
	expiry := func() string {
		var parts []string
		if in.Table.Compaction.Strategy != TWCS {
			parts = append(parts, "use TWCS with a window near the bucket length")
		}
		ttl := in.Writes.TTLSeconds
		if ttl == 0 {
			ttl = in.Table.DefaultTTLSeconds
		}
		if in.Table.GCGraceSeconds > ttl {
			parts = append(parts, "set gc_grace_seconds no longer than the TTL where repair allows")
		}
		parts = append(parts, "do not read buckets whose rows have expired")
		return strings.Join(parts, ", ")
	}
	head := queueLike(in)
	switch src {
	case RowTombstones:
		if head {
			return "start each read after the last row consumed (WHERE ck > ?) instead of at the deleted ones"
		}
		return "use a TTL instead of DELETE when rows die at a known age; read a smaller clustering range or with a LIMIT"
	case RangeMarkers:
		if head {
			return "start each read after the last deleted range (WHERE ck > ?)"
		}
		return "prefer one range deletion over many adjacent ones, or a TTL; read a smaller clustering range or with a LIMIT"
	case CellTombstones:
		return "rewrite the row instead of deleting single cells, or give the cells a TTL"
	case ElementTombstones:
		return "use a frozen collection rewritten whole, or model the elements as clustering rows with a TTL"
	case NullCells:
		return "bind unset instead of null (gocql.UnsetValue), leave the column out of the INSERT, or use INSERT JSON ... DEFAULT UNSET"
	case ExpiredCells, ExpiredRows:
		return expiry()
	}
	return ""
}

func findings(m model, r Result) []Finding {
	in := m.in
	th := r.Thresholds
	name := in.Table.Name
	var out []Finding
	add := func(code string, sev Severity, msg, fix string) {
		out = append(out, Finding{Code: code, Severity: sev, Table: name, Message: msg, Fix: fix})
	}
	typical := r.BucketEnd
	when := "at the end of its bucket"
	if !m.bucketSet {
		when = "in steady state"
	}
	readDesc := describeRead(in.Read)

	switch {
	case th.overFail(typical.PerRead):
		add(CodeReadFail, Fail, fmt.Sprintf("%s %s counts about %s tombstones, over %s (%d): Cassandra aborts it with TombstoneOverwhelmingException; %s",
			readDesc, when, num(typical.PerRead), th.failName(), th.Fail, mainSources(typical)), fixFor(typical, in))
	case th.overWarn(typical.PerRead):
		add(CodeReadWarn, Warn, fmt.Sprintf("%s %s counts about %s tombstones, over %s (%d): %s; %s",
			readDesc, when, num(typical.PerRead), th.warnName(), th.Warn, th.warnEffect(), mainSources(typical)), fixFor(typical, in))
	}
	// A later read is worth its own finding only when it crosses a threshold the typical
	// read does not.
	if pk := r.Peak; th.overWarn(pk.PerRead) && pk.PerRead > typical.PerRead+0.5 &&
		(!th.overWarn(typical.PerRead) || (th.overFail(pk.PerRead) && !th.overFail(typical.PerRead))) {
		sev, over := Warn, fmt.Sprintf("%s (%d)", th.warnName(), th.Warn)
		if th.overFail(pk.PerRead) {
			sev, over = Fail, fmt.Sprintf("%s (%d)", th.failName(), th.Fail)
		}
		state := fmt.Sprintf("when %s of its rows are live", count(pk.LiveRows))
		if pk.LiveRows < 0.5 {
			state = "when all its rows have expired or been deleted"
		}
		add(CodePeakRead, sev, fmt.Sprintf("%s of a partition %s after its first write (%s) counts about %s tombstones, over %s; %s",
			strings.Replace(readDesc, "the typical read", "the same read", 1), age(pk.Age), state, num(pk.PerRead), over, mainSources(pk)), fixFor(pk, in))
	}
	for _, d := range in.Deletes {
		if queueLike(in) && d.At == Head && (d.Kind == RowDelete || d.Kind == RangeDelete) && d.PerDay > 0 {
			perDelete := 1.0
			if d.Kind == RangeDelete {
				perDelete = 2 // two markers
			}
			held := d.PerDay * perDelete * math.Min(m.gc, math.Min(m.bucket, m.gc+m.bucket)) / day
			add(CodeQueue, Warn, fmt.Sprintf("%s deletions land where reads start (a queue): every read scans all those younger than gc_grace_seconds, about %s per partition, before its first live row",
				d.Kind, num(held)),
				"do not consume a Cassandra table as a queue: start each read after the last row processed (WHERE ck > ?), or put consumed work in a new time bucket instead of deleting it")
			break
		}
	}
	if m.nulls > 0 && m.rate > 0 {
		sev := Info
		if share(typical, NullCells) > float64(th.Warn)/10 {
			sev = Warn
		}
		add(CodeNullWrites, sev, fmt.Sprintf("each write sets %s of %d regular columns to null: %s cell tombstones a row, counted by every read for gc_grace_seconds",
			count(m.nulls), in.Table.RegularColumns, count(m.nulls)), fix(NullCells, in))
	}
	if m.whole > 0 && m.rate > 0 {
		add(CodeWholeCollection, Info, fmt.Sprintf("writing %d non-frozen collection(s) whole (INSERT or SET c = {...}) writes a complex deletion before the elements each time: not counted by reads, but %s per partition stay on disk until gc_grace_seconds pass and a compaction runs",
			in.Table.CollectionColumns, num(countOf(typical, ComplexDeletions).OnDisk)),
			"use frozen<...> when the collection is always written whole, or update elements (SET c = c + {...}) instead of overwriting")
	}
	if m.ttl > 0 && m.ttl < m.gc && m.rate > 0 {
		sev := Info
		if ex := share(r.Peak, ExpiredCells) + share(r.Peak, ExpiredRows); ex > float64(th.Warn)/10 {
			sev = Warn
		}
		add(CodeTTLUnderGrace, sev, fmt.Sprintf("the TTL (%s) is shorter than gc_grace_seconds (%s): expired cells count as tombstones in reads until gc_grace_seconds after their write",
			age(secs(m.ttl)), age(secs(m.gc))), fix(ExpiredCells, in))
	}
	hasDeletes := false
	for _, d := range in.Deletes {
		if d.PerDay > 0 && d.Kind != PartitionDelete {
			hasDeletes = true
		}
	}
	if in.Table.Compaction.Strategy == TWCS && hasDeletes {
		add(CodeDeletesOnTWCS, Warn, "explicit deletions on a TWCS table: a tombstone in a newer window cannot purge data in an older one, so windows are not dropped whole and tombstones pile up",
			"let a TTL expire the data instead of deleting it, or use LCS/STCS for a table that needs deletions")
	}
	if m.ttl > 0 && !hasDeletes && in.Table.Compaction.Strategy != TWCS && in.Read.Order != Unordered && m.rate > 0 {
		add(CodeTTLNotTWCS, Info, fmt.Sprintf("rows expire after %s in time order, but the table uses %s: expired data is purged only when compaction reaches it",
			age(secs(m.ttl)), in.Table.Compaction.Strategy),
			"use TimeWindowCompactionStrategy with a window of about 1/20-1/50 of the TTL, so whole sstables are dropped once they expire")
	}
	if m.ttl == 0 {
		for _, d := range in.Deletes {
			if d.At == Tail && (d.Kind == RowDelete || d.Kind == RangeDelete) && d.PerDay > 0 {
				add(CodeDeleteByAge, Info, "the oldest rows are deleted explicitly: a TTL removes them at the same age without a DELETE and, with TWCS, without tombstones to compact",
					"write the rows USING TTL (or set default_time_to_live) instead of deleting them")
				break
			}
		}
	}
	worst := math.Max(typical.PerRead, r.Peak.PerRead)
	if m.gc > 3*day && worst > float64(th.Warn)/10 && heldByGrace(r.Peak) {
		add(CodeLowerGCGrace, Info, fmt.Sprintf("reads count tombstones for gc_grace_seconds (%s) after they are written; here up to %s a read",
			age(secs(m.gc)), num(worst)),
			"lower gc_grace_seconds to just over your repair interval (incremental repair daily lets it go down to a few days), never below it")
	}
	if od := math.Max(r.BucketEnd.OnDisk, r.Steady.OnDisk); od > 100000 {
		add(CodeDiskTombstones, Info, fmt.Sprintf("a partition holds at least %s tombstones on disk: compaction logs a warning over 100,000 (partition_tombstones_warn_threshold when enabled)", num(od)),
			fixFor(r.BucketEnd, in))
	}
	return out
}

// queueLike reports whether rows are deleted where reads start, so a LIMIT does not help.
// A read that starts after a cursor, or seeks one row, does not meet them.
func queueLike(in Input) bool {
	if in.Read.Slice != FromStart {
		return false
	}
	for _, d := range in.Deletes {
		if d.At == Head && (d.Kind == RowDelete || d.Kind == RangeDelete) && d.PerDay > 0 {
			return true
		}
	}
	return false
}

// heldByGrace reports whether the counted tombstones are ones gc_grace_seconds keeps alive
// (deletions, nulls and expired cells), as opposed to none at all.
func heldByGrace(s Snapshot) bool { return s.Readable > 0 }

func countOf(s Snapshot, src Source) Count {
	for _, c := range s.Sources {
		if c.Source == src {
			return c
		}
	}
	return Count{Source: src}
}

func share(s Snapshot, src Source) float64 { return countOf(s, src).PerRead }

// mainSources names the sources of a read's tombstones, largest first.
func mainSources(s Snapshot) string {
	var cs []Count
	for _, c := range s.Sources {
		if c.PerRead >= 0.5 && c.Source.Counted() {
			cs = append(cs, c)
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].PerRead > cs[j].PerRead })
	var parts []string
	for _, c := range cs {
		parts = append(parts, count(c.PerRead)+" "+c.Source.String())
	}
	if len(parts) == 0 {
		return "no counted source"
	}
	return "from " + strings.Join(parts, ", ")
}

// fixFor recommends what removes the read's largest sources of tombstones, then a smaller read.
func fixFor(s Snapshot, in Input) string {
	var cs []Count
	for _, c := range s.Sources {
		if c.PerRead > 0 && c.Source.Counted() {
			cs = append(cs, c)
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].PerRead > cs[j].PerRead })
	var parts []string
	seen := map[string]bool{}
	for _, c := range cs {
		if f := fix(c.Source, in); f != "" && !seen[f] {
			seen[f] = true
			parts = append(parts, f)
		}
		if len(parts) == 2 {
			break
		}
	}
	if in.Read.Limit == 0 && s.LiveRows >= 1 && !queueLike(in) {
		parts = append(parts, "give the read a LIMIT so it stops before the tombstones")
	}
	out := strings.Join(parts, "; ")
	if in.Table.GCGraceSeconds > 3*86400 && !strings.Contains(out, "gc_grace_seconds") {
		out += "; lower gc_grace_seconds where repairs run more often"
	}
	return strings.TrimPrefix(out, "; ")
}

func describeRead(r Read) string {
	var b strings.Builder
	b.WriteString("the typical read")
	if r.Limit > 0 {
		fmt.Fprintf(&b, " (LIMIT %d", r.Limit)
	} else {
		b.WriteString(" (no LIMIT")
	}
	if r.Fraction > 0 && r.Fraction < 1 {
		fmt.Fprintf(&b, ", %s of the partition", pct(r.Fraction))
	}
	if r.Order != Unordered {
		b.WriteString(", " + r.Order.String())
	}
	switch r.Slice {
	case AfterCursor:
		b.WriteString(", after a cursor")
	case Point:
		b.WriteString(", one row")
	}
	b.WriteString(")")
	return b.String()
}

// secs converts seconds to a duration, saturating at the longest one instead of wrapping
// (gc_grace_seconds from a schema file can be any integer).
func secs(s float64) time.Duration {
	switch ns := s * float64(time.Second); {
	case !(ns > 0): // NaN too
		return 0
	case ns >= math.MaxInt64: // float64(MaxInt64) rounds up to 2^63
		return math.MaxInt64
	default:
		return time.Duration(ns)
	}
}

// age renders a duration the way people say it: 10d, 36h, 90m, 45s.
func age(d time.Duration) string {
	switch s := d.Seconds(); {
	case s >= 2*day && math.Mod(s, day) == 0, s >= 10*day:
		return trimNum(s/day) + "d"
	case s >= 2*3600:
		return trimNum(s/3600) + "h"
	case s >= 120:
		return trimNum(s/60) + "m"
	default:
		return trimNum(s) + "s"
	}
}

func trimNum(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

func pct(f float64) string { return trimNum(f*100) + "%" }

// count renders a small quantity with one decimal when it is not whole (0.4 nulls a row),
// and a large one as num does.
func count(v float64) string {
	if v < 10 && math.Abs(v-math.Round(v)) > 0.05 {
		return fmt.Sprintf("%.1f", v)
	}
	return num(v)
}

// num renders a count for a sentence: whole numbers with thousands separators up to a
// quadrillion, and in scientific notation past it (1.5e+22), where an int64 would overflow
// and the digits mean nothing. It never recurses, whatever the number.
func num(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) >= 1e15 {
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	n := int64(math.Round(v))
	sign := ""
	if n < 0 {
		sign, n = "-", -n
	}
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	b.WriteString(sign)
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
