package bound

import (
	"fmt"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
)

// words splits a column or table name into lower-case words at underscores and other
// non-alphanumerics, and splits a few words people glue on (timebucket, epochday).
func words(name string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		out = append(out, unglue(w)...)
	}
	return out
}

// glued are words that come glued to another in names: timebucket, hourbucket, epochday.
var glued = []string{"bucket", "partition", "epoch"}

func unglue(w string) []string {
	for _, g := range glued {
		if w != g && strings.HasSuffix(w, g) {
			return append(unglue(strings.TrimSuffix(w, g)), g)
		}
		if w != g && strings.HasPrefix(w, g) {
			return append([]string{g}, unglue(strings.TrimPrefix(w, g))...)
		}
	}
	return []string{w}
}

func set(ws ...string) map[string]bool {
	m := map[string]bool{}
	for _, w := range ws {
		m[w] = true
	}
	return m
}

func union(a, b map[string]bool) map[string]bool {
	m := map[string]bool{}
	for _, s := range []map[string]bool{a, b} {
		for w := range s {
			m[w] = true
		}
	}
	return m
}

// widthWords name the span a bucket column covers, as bucket.ParseWidth names it.
var widthWords = map[string]string{
	"minute": "minute", "minutes": "minute", "yyyymmddhhmm": "minute",
	"hour": "hour", "hours": "hour", "hr": "hour", "hourly": "hour", "yyyymmddhh": "hour",
	"day": "day", "days": "day", "date": "day", "dt": "day", "daily": "day", "yyyymmdd": "day", "ymd": "day",
	"week": "iso-week", "weeks": "iso-week", "weekly": "iso-week", "isoweek": "iso-week", "wk": "iso-week", "yyyyww": "iso-week",
	"month": "month", "months": "month", "monthly": "month", "yyyymm": "month", "yymm": "month", "ym": "month",
	"year": "year", "years": "year", "yearly": "year", "yyyy": "year", "yr": "year",
}

// widthRank orders widths finest first, so "day_hour" reads as an hour.
var widthRank = map[string]int{"minute": 0, "hour": 1, "day": 2, "iso-week": 3, "month": 4, "year": 5}

// bucketWords name a time bucket without saying its width.
var bucketWords = set("bucket", "buckets", "partition", "slot", "window", "period", "epoch", "interval", "quarter", "tb")

// timeBucket reads a partition key column as a time bucket: by a width word in its name
// (day, hour_bucket, yyyymm, week_start), by a bucket word (bucket, ts_bucket, partition,
// slot, window: width unknown), or by its type (date: a day; timestamp, or an integer named
// like a time: a span of unknown width).
func timeBucket(c *cql.Column) (Bound, bool) {
	if !native(c, "text", "ascii", "int", "bigint", "smallint", "tinyint", "varint", "date", "timestamp") {
		return Bound{}, false
	}
	ws := words(c.Name)
	width := ""
	for _, w := range ws {
		if wd, ok := widthWords[w]; ok && (width == "" || widthRank[wd] < widthRank[width]) {
			width = wd
		}
	}
	if width != "" {
		return Bound{Kind: TimeBucket, Column: c.Name, Width: width,
			Reason: fmt.Sprintf("%s (%s) in the partition key is a %s bucket", c.Name, c.Type, width)}, true
	}
	for _, w := range ws {
		if bucketWords[w] {
			return unknownWidth(c, "looks like a time bucket of unknown width"), true
		}
	}
	switch {
	case native(c, "date"):
		return Bound{Kind: TimeBucket, Column: c.Name, Width: "day",
			Reason: fmt.Sprintf("%s (date) in the partition key is a day bucket", c.Name)}, true
	case native(c, "timestamp"):
		return unknownWidth(c, "cuts partitions by time (a bucket of unknown width)"), true
	case native(c, "int", "bigint", "varint") && timeName(c.Name):
		return unknownWidth(c, "is named like a time: a bucket of unknown width"), true
	}
	return Bound{}, false
}

func unknownWidth(c *cql.Column, what string) Bound {
	return Bound{Kind: TimeBucket, Column: c.Name, Reason: fmt.Sprintf("%s (%s) in the partition key %s", c.Name, c.Type, what)}
}

var (
	shardWords = set("shard", "shards", "shardid")
	countWords = set("part", "page", "chunk")
	countBases = set("partition", "bucket", "part", "page", "chunk", "block", "slice", "segment")
	numWords   = set("nr", "no", "num", "number", "idx", "index", "seq")
)

// isShard: a write-shard column (shard = hash % N) spreads a key, it bounds nothing.
func isShard(c *cql.Column) bool {
	for _, w := range words(c.Name) {
		if shardWords[w] {
			return true
		}
	}
	return false
}

// isCount: an integer numbering fixed-size pieces of a key: partition_nr, bucket_nr, part.
func isCount(c *cql.Column) bool {
	if !native(c, "int", "bigint", "smallint", "tinyint", "varint") {
		return false
	}
	ws := words(c.Name)
	for i, w := range ws {
		if countWords[w] || numWords[w] && i > 0 && countBases[ws[i-1]] {
			return true
		}
	}
	return false
}

var (
	// timeNames are whole names that say a moment.
	timeNames = set("ts", "time", "timestamp", "created", "updated", "modified", "when", "at", "epoch",
		"instant", "moment", "started", "ended", "began", "finished", "occurred", "happened", "published",
		"received", "sent", "posted", "logged", "recorded", "collected")
	// unitWords end a name that holds a time in a unit: began_us, taken_ms, ts_nanos.
	unitWords = set("us", "ms", "ns", "nanos", "micros", "millis", "usec", "msec", "nsec", "sec", "secs", "seconds")
	// durationWords make a unit-suffixed name a length of time, not a moment: took_us.
	durationWords = set("took", "duration", "dur", "latency", "elapsed", "wait", "ttl", "timeout", "age", "delay",
		"interval", "length", "len", "spent", "lag", "uptime", "runtime", "response", "cpu", "exec", "processing",
		"total", "avg", "max", "min")
)

// timeName reports whether an integer column's name says it holds a moment: ts, *_ts, ts_*,
// *_at, *_time, epoch_*, created, or a unit suffix on a non-duration (began_us, not took_us).
func timeName(name string) bool {
	ws := words(name)
	if len(ws) == 0 {
		return false
	}
	for _, w := range ws {
		if durationWords[w] {
			return false
		}
	}
	first, last := ws[0], ws[len(ws)-1]
	switch {
	case len(ws) == 1:
		return timeNames[first]
	case first == "ts" || first == "epoch" || last == "ts" || last == "at" || last == "time" || last == "timestamp":
		return true
	case unitWords[last]:
		return true
	}
	return false
}

// eventNouns name things that happen (an id of one is the moment it happened); other
// nouns name things that are made once and kept (a segment, a schedule, a device). A thing
// that ends (shortNouns) also happens: under its owner's key its ids pile up like events (a
// user's sessions, a customer's orders, a task's runs).
var eventNouns = union(shortNouns, set("event", "comment", "message", "msg", "notice", "notification", "entry", "run", "activity",
	"post", "view", "click", "txn", "transaction", "log", "tick", "reading", "sample", "point", "action", "change",
	"update", "visit", "alert", "reply", "tweet", "like", "vote", "payment", "login", "attempt", "execution",
	"delivery", "signal", "ping", "heartbeat", "beat", "snapshot", "occurrence", "audit", "history",
	"measurement", "observation", "trade", "fill", "status", "checkin", "scan", "hit", "error", "incident"))

// shortNouns name things that end: a partition keyed by one collects rows only while it lives.
var shortNouns = set("trace", "span", "session", "order", "request", "build", "run", "execution", "txn",
	"transaction", "cart", "checkout", "upload", "call", "trip", "ride", "game", "match")

// idNoun returns the noun an id column names: comment for comment_id or commentid, "" for
// a name that is not an id.
func idNoun(name string) string {
	ws := words(name)
	if n := len(ws); n >= 2 && (ws[n-1] == "id" || ws[n-1] == "uuid" || ws[n-1] == "key") {
		return cql.Singular(ws[n-2])
	}
	if n := len(ws); n == 1 && len(ws[0]) > 4 && strings.HasSuffix(ws[0], "id") {
		return cql.Singular(strings.TrimSuffix(ws[0], "id"))
	}
	return ""
}

// shortLived reports whether a partition key column names a thing that ends.
func shortLived(name string) (string, bool) {
	n := idNoun(name)
	return n, shortNouns[n]
}

// entityID says whether a timeuuid clustering column is the id of a thing rather than the
// moment of an event, and which thing. An id names a thing (segment_id, schedule_id,
// device_id; a bare id names the table's own rows), unless the thing is an event
// (comment_id, run_id, event_id: the timeuuid is when it happened).
func entityID(t *cql.Table, c *cql.Column) (noun string, entity bool) {
	if c.Name == "id" || c.Name == "uuid" {
		for _, w := range words(t.Name) {
			if eventNouns[cql.Singular(w)] {
				return cql.Singular(w), false
			}
		}
		return "row of " + t.Name, true
	}
	n := idNoun(c.Name)
	if n == "" {
		return "", false // at, started, written_at: a moment
	}
	return n, !eventNouns[n]
}

var (
	seqWords  = set("seq", "sequence", "version", "revision", "nr", "no", "num", "position", "pos", "ordinal", "lineno")
	lastWords = set("last", "latest", "newest", "recent")
)

func isSequence(c *cql.Column) bool {
	if !native(c, "int", "bigint", "smallint", "varint") {
		return false
	}
	for _, w := range words(c.Name) {
		if seqWords[w] {
			return true
		}
	}
	return false
}

func isID(c *cql.Column) bool {
	return native(c, "uuid", "timeuuid") || c.Name == "id" || idNoun(c.Name) != "" && !strings.HasSuffix(c.Name, "key")
}

// deepIDs is how many id columns before a time column make it deep: the rows are keyed by
// those things, and time only orders the rows of one of them (a workflow engine's
// executions table: shard, kind, namespace, workflow, run, then a timer's fire time).
const deepIDs = 2

// series finds the clustering column that orders a partition by event time, or says in
// words why the table is not a time series.
func series(t *cql.Table) (*cql.Column, string) {
	if len(t.Clustering) == 0 {
		return nil, "no clustering column"
	}
	var ids, seen []string
	for i, c := range t.Clustering {
		switch {
		case native(c, "date"):
			if i == len(t.Clustering)-1 {
				return nil, fmt.Sprintf("%s (date) clusters one row a day: 3,650 rows in ten years", c.Name)
			}
			return timeCol(c, ids, "")
		case native(c, "timeuuid"):
			if noun, entity := entityID(t, c); entity {
				return nil, fmt.Sprintf("%s is the id of %s %s, a timeuuid that names a thing, not a moment", c.Name, article(noun), noun)
			} else if noun == "event" {
				return timeCol(c, ids, "an event's id: the timeuuid is when it happened")
			} else if noun != "" {
				return timeCol(c, ids, fmt.Sprintf("the id of %s %s, an event, so the timeuuid is when it happened", article(noun), noun))
			}
			return timeCol(c, ids, "")
		case native(c, "timestamp"):
			return timeCol(c, ids, "")
		case native(c, "int", "bigint", "varint") && timeName(c.Name):
			return timeCol(c, ids, "named like a time")
		case isSequence(c):
			return nil, fmt.Sprintf("ordered by %s, a sequence number: how many rows a key collects is for a workload to say", c.Name)
		case isID(c):
			ids = append(ids, c.Name)
		}
		seen = append(seen, c.Name)
	}
	return nil, fmt.Sprintf("clustered by %s, none of them a time", strings.Join(seen, ", "))
}

// timeCol accepts a time clustering column as the series order, unless it is deep after
// ids or holds the latest time of something (re-keyed, not appended).
func timeCol(c *cql.Column, ids []string, why string) (*cql.Column, string) {
	if ws := words(c.Name); len(ws) > 1 && lastWords[ws[0]] {
		return nil, fmt.Sprintf("%s holds the latest time of each row's thing: a row is moved when it changes, not appended", c.Name)
	}
	if len(ids) >= deepIDs {
		return nil, fmt.Sprintf("time (%s) comes after the ids %s: rows are keyed by those, and time only orders the rows of one of them",
			c.Name, strings.Join(ids, ", "))
	}
	return c, why
}

// article is "a" or "an" for a noun.
func article(noun string) string {
	if noun != "" && strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an"
	}
	return "a"
}
