package denorm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/bucket"
	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/sizing/readcost"
	"github.com/cqlsize/cqlsize/workload"
)

// Timeline reads the newest rows for one key across its time buckets: posts_by_user
// ((user_id, month), post_id) read newest month first until a page is full. A key whose
// writes are spread over write shards (bucket.Shard), as in posts_by_hashtag
// ((hashtag, day, shard), post_id), is read from every shard and merged on the clustering
// key, newest first. Rows come in bucket order, which is clustering order when, as in every
// time-bucketed table, the bucket is cut from the first clustering column's time.
//
// Pages resume exactly where the previous one ended: the page token carries, for each
// shard, the bucket and the clustering key of the last row returned, and the next page
// reads the rows after that key (`AND (post_id) < (?)` for a DESC table). Rows written or
// deleted between pages never make a page repeat or skip one that existed all along, as
// a row offset would. Tokens are signed, so a token altered by a client is refused
// rather than read. The clustering columns and their order come from the node's schema
// (the driver's metadata); the query must select them. When they sort in different
// directions, (liked_at DESC, user_id ASC), a resumed bucket takes one query per column.
//
// A walk never stops silently. It ends at the key's Retention (or the request's Oldest
// bound): a page that gets there has read every row there is, and its Next is empty. A
// page also stops after its budget of buckets (MaxBuckets, by default what the typical
// key's page needs: Budget); if it has fewer than Limit rows then, it says so
// (Page.StoppedEarly) and its Next continues the walk from that bucket, so a client can
// tell "no more rows" from "not found within this page's reads", and chooses whether to
// read on. A Timeline is safe for concurrent use.
type Timeline struct {
	Session *gocql.Session
	// Query selects one partition of the key, ending with its WHERE clause (the timeline
	// adds the resume bound and sets the page size). Its bind markers are the key values,
	// then the bucket, then the shard when Shards > 1:
	//   SELECT post_id, content FROM posts_by_user WHERE user_id = ? AND month = ?
	Query string
	// Scheme cuts time into the buckets the table is partitioned by.
	Scheme bucket.Scheme
	// BucketValue is the value bound for the bucket column. Default: the bucket's label
	// (b.String(), "2024-01" for months) for a text column; use b.Start() for a timestamp.
	BucketValue func(bucket.Bucket) any
	// Shards is how many write shards each bucket of a key is spread over (bucket.Shard),
	// 0 or 1 for none. Every shard's newest bucket is read for a page; the shard number
	// (an int) is bound last. Merging shards needs a clustering key of types whose order
	// this package knows (timeuuid, timestamp, date, integers, text, ascii, blob, boolean).
	Shards int
	// ShardColumn says that the query binds a shard (last) even when Shards is 0 or 1, as
	// shard 0: on a table whose keys are on tiers (TieredTimeline), every key's partitions
	// have a shard column, whatever its tier's shard count.
	ShardColumn bool
	// Retention is how long a key's rows are kept (the table's default TTL, or how long the
	// entity is kept). No row is older than Retention before the walk's Newest, so the walk
	// ends with the bucket that holds that instant: a page that reaches it has read every
	// row there is, and its Next is empty. A walk needs an end, or a client that follows
	// Next through a key's empty buckets would never stop: Retention, or
	// PageRequest.Oldest on the first page (the later of the two ends the walk).
	Retention time.Duration
	// KeyRate is how many rows the typical key of the table receives (the p50 key's rate
	// from `cqlsize estimate`, or the design's): it sets the default MaxBuckets to what a
	// page of that key needs (see Budget).
	KeyRate workload.Rate
	// MaxBuckets bounds the buckets one page reads, per shard. A page that reaches it
	// before it has its Limit rows and before the walk's end stops there and says so
	// (Page.StoppedEarly), with a token that continues the walk: a key that posted once
	// three years ago costs a client pages of at most MaxBuckets reads each, and the client
	// decides whether to go on. Default: Budget(limit).
	MaxBuckets int
	// Parallel bounds the partitions read at once (default 4, or Shards if more) and how
	// far a reader reads ahead. A page first reads one bucket per shard and widens the
	// read-ahead (2, 4, ... buckets at once) only after a bucket came back short, so a page
	// that the newest bucket fills costs one read per shard.
	Parallel int
	// Consistency of the reads (default LOCAL_QUORUM).
	Consistency gocql.Consistency
	// SpeculativeReadAfter, when positive, sends each partition read of a page a second
	// time, to another replica, when the first attempt has not answered after this long
	// (see SpeculativeReads): a page then waits on a slow or frozen replica only when two
	// are slow. Reads are idempotent, so a read sent twice is only a read. Zero: one
	// attempt at a time (retries still follow the session's retry policy). Pick a delay
	// near the reads' p99; on a one-node cluster there is no other replica and it only
	// costs (see readIter).
	SpeculativeReadAfter time.Duration
	// Secret signs page tokens with HMAC-SHA256. Without one, tokens carry a checksum that
	// catches corruption and casual edits but not a forger who knows this package.
	Secret []byte
}

// MaxPageRows bounds PageRequest.Limit: a page is held in memory, and a driver page size
// is a 32-bit number.
const MaxPageRows = 100_000

// PageRequest asks for one page of a timeline.
type PageRequest struct {
	Key    []any     // the partition key values before the bucket, in the Query's order
	Newest time.Time // the timeline starts in the bucket holding this instant (default now); ignored with a Token
	// Oldest bounds the timeline: no bucket that ends at or before it is read, and when
	// the first clustering column is a timestamp or a timeuuid, no row older than it is
	// returned. A conversation that started last Tuesday reads back to Tuesday and
	// stops, instead of reading empty buckets back to the retention; a walk that reaches it
	// says there are no more rows. Zero: no bound (Retention then ends the walk). Ignored
	// with a Token, which carries the first page's bound.
	Oldest time.Time
	Limit  int    // rows per page
	Token  string // Page.Next of the previous page; empty for the first page
}

// Page is one page of a timeline.
type Page struct {
	Rows []Values
	// Next is the token that continues the walk after this page. It is empty only when
	// the walk has reached its end (Retention or Oldest): there are no more rows.
	Next string
	// StoppedEarly says the page holds fewer than Limit rows because it read its
	// MaxBuckets buckets before the walk's end: older rows may exist, and Next continues
	// the walk where this page stopped. A page that holds Limit rows never stopped early.
	StoppedEarly bool
	// Visited counts the partition reads this page made (queries of one bucket of one
	// shard), read-ahead included.
	Visited int
}

// fallbackBuckets is the default page budget of a timeline whose KeyRate is not known:
// twice the partitions a typical read of a table designed for its reads visits
// (readcost.FewPartitions, past which design, check and estimate flag a read), so a key
// that reads as the design expects fills its page, and one that does not costs a bounded
// number of reads before its page says it stopped early.
const fallbackBuckets = 2 * readcost.FewPartitions

// maxWalkBuckets bounds the buckets from a walk's newest to its end: a retention of
// millions of buckets (three years of minutes) is a design to change, not a walk.
const maxWalkBuckets = 1 << 20

// Budget returns the most buckets a page of limit rows reads per shard: MaxBuckets when
// set; else, with KeyRate, twice the buckets the typical key walks for limit rows in the
// read-cost model (sizing/readcost: ceil(limit / (KeyRate × bucket width)), at most the
// retention's), so that a key at half the typical rate still fills its page; else 8
// (fallbackBuckets). The width of a calendar bucket is its average (a month is 30.44
// days).
func (tl *Timeline) Budget(limit int) int {
	if tl.MaxBuckets > 0 {
		return tl.MaxBuckets
	}
	span, err := workload.ParseSpan(tl.Scheme.Width().String())
	rate := tl.KeyRate.PerSecond()
	if err != nil || !(rate > 0) || math.IsInf(rate, 0) {
		return fallbackBuckets
	}
	kept := tl.Retention
	if kept <= 0 { // an Oldest bound ends the walk: the model is given no cap
		kept = time.Duration(math.MaxInt64)
	}
	typical := readcost.Pattern{Retention: kept, Bucket: span.Avg, Limit: max(limit, 1)}.ForRate(0, rate)
	return int(min(2*typical.Buckets, maxWalkBuckets))
}

func (tl *Timeline) settings() (parallel, shards int, cons gocql.Consistency, err error) {
	parallel, shards, cons = tl.Parallel, max(tl.Shards, 1), tl.Consistency
	if parallel == 0 {
		parallel = max(4, shards)
	}
	if cons == gocql.Any {
		cons = gocql.LocalQuorum
	}
	switch {
	case tl.Session == nil:
		err = errors.New("timeline: no session")
	case tl.Query == "":
		err = errors.New("timeline: no query")
	case tl.SpeculativeReadAfter < 0:
		err = fmt.Errorf("timeline: SpeculativeReadAfter %s: must not be negative", tl.SpeculativeReadAfter)
	case tl.Retention < 0:
		err = fmt.Errorf("timeline: Retention %s: must not be negative", tl.Retention)
	case tl.KeyRate.Count < 0 || tl.KeyRate.Per < 0:
		err = fmt.Errorf("timeline: KeyRate %s: must not be negative", tl.KeyRate)
	case tl.MaxBuckets < 0 || parallel < 0 || tl.Shards < 0:
		err = fmt.Errorf("timeline: MaxBuckets %d, Parallel %d and Shards %d must not be negative", tl.MaxBuckets, tl.Parallel, tl.Shards)
	case tl.MaxBuckets > maxWalkBuckets:
		err = fmt.Errorf("timeline: MaxBuckets %d: at most %d", tl.MaxBuckets, maxWalkBuckets)
	case shards > MaxShards:
		err = fmt.Errorf("timeline: Shards %d: at most %d", shards, MaxShards)
	case tl.Scheme.For(time.Unix(0, 0)) == bucket.Bucket{}:
		err = fmt.Errorf("timeline: %w: the zero bucket.Scheme (make one with bucket.New)", bucket.ErrInvalidWidth)
	}
	return
}

// walk returns how many buckets a walk that starts in first reads before its end, first
// included: back to the bucket holding Retention before newest, or the one holding
// oldest, whichever is newer. A walk with neither has no end and is refused.
func (tl *Timeline) walk(first bucket.Bucket, newest, oldest time.Time) (int, error) {
	var end time.Time
	if tl.Retention > 0 {
		end = newest.Add(-tl.Retention)
	}
	if oldest.After(end) {
		end = oldest
	}
	if end.IsZero() {
		return 0, errors.New("timeline: no end to walk to: set Timeline.Retention (how long a key's rows are kept) or PageRequest.Oldest, so that a walk can tell \"no more rows\" from \"not found yet\"")
	}
	n := 1
	for b := first; b.Start().After(end); b = b.Prev() {
		if n++; n > maxWalkBuckets {
			return 0, fmt.Errorf("timeline: from %s back to %s is more than %d %s buckets: shorten Retention or use a wider bucket", first, end.Format(time.RFC3339), maxWalkBuckets, tl.Scheme.Width())
		}
	}
	return n, nil
}

// parsedQuery is what the timeline needs to know about its query: the table it reads,
// how many bind markers it has, and where its text ends (before a closing semicolon).
type parsedQuery struct {
	keyspace, table string // keyspace "" when the query does not name one
	markers         int
	text            string
}

// parseQuery reads the table and the bind markers of a timeline query, and refuses
// clauses the timeline adds itself or that would break resuming by clustering key.
func parseQuery(query string) (parsedQuery, error) {
	var p parsedQuery
	toks, err := cql.Lex("timeline query", []byte(query))
	if err != nil {
		return p, err
	}
	name := func(t cql.Token) bool { return t.Kind == cql.TokIdent || t.Kind == cql.TokQuotedIdent }
	end, where := 0, false
	for i, t := range toks {
		if t.Kind == cql.TokEOF || t.IsPunct(";") {
			break
		}
		end = t.End().Offset
		switch {
		case t.Kind == cql.TokQMark || t.IsPunct(":") && i+1 < len(toks) && name(toks[i+1]):
			p.markers++
		case i == 0 && !t.Is("select"):
			return p, fmt.Errorf("%s: a timeline query is a SELECT", t.Pos)
		case t.Is("from") && p.table == "" && i+1 < len(toks) && name(toks[i+1]):
			p.table = toks[i+1].Val
			if i+3 < len(toks) && toks[i+2].IsPunct(".") && name(toks[i+3]) {
				p.keyspace, p.table = p.table, toks[i+3].Val
			}
		case t.Is("where"):
			where = true
		case where && (t.Is("limit") || t.Is("order") || t.Is("allow") || t.Is("per") || t.Is("group")):
			return p, fmt.Errorf("%s: end the query with its WHERE clause: the timeline adds the resume bound and sets the page size itself (%s)", t.Pos, strings.ToUpper(t.Val))
		}
	}
	if p.table == "" || !where {
		return p, errors.New("a timeline query reads one partition: SELECT ... FROM table WHERE ...")
	}
	p.text = query[:end]
	return p, nil
}

// keyColumn is one clustering column of the table.
type keyColumn struct {
	name string
	desc bool
	typ  gocql.Type
}

// clustering reads the table's clustering columns from the driver's schema metadata
// (system_schema, cached by the driver and refreshed on schema changes).
func (tl *Timeline) clustering(p parsedQuery) ([]keyColumn, error) {
	ks := p.keyspace
	if ks == "" {
		ks = tl.Session.Query("").Keyspace() // the session's keyspace
	}
	if ks == "" {
		return nil, fmt.Errorf("table %s: the query names no keyspace and the session has none", p.table)
	}
	var cols []keyColumn
	if md, err := tl.Session.KeyspaceMetadata(ks); err == nil && md.Tables[p.table] != nil {
		for _, c := range md.Tables[p.table].ClusteringColumns {
			if c == nil {
				cols = nil // a gap in the driver's metadata: ask the node
				break
			}
			k := keyColumn{name: c.Name, desc: c.Order == gocql.DESC || strings.EqualFold(c.ClusteringOrder, "desc")}
			if c.Type != nil {
				k.typ = c.Type.Type()
			}
			cols = append(cols, k)
		}
	}
	if cols == nil {
		// The driver's cached schema can lag a table just created (its schema events
		// are debounced): read the node's own.
		var err error
		if cols, err = tl.readClustering(ks, p.table); err != nil {
			return nil, err
		}
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("table %s.%s has no clustering column: a timeline pages through the rows of a partition", ks, p.table)
	}
	return cols, nil
}

// readClustering reads a table's clustering columns from system_schema.
func (tl *Timeline) readClustering(ks, table string) ([]keyColumn, error) {
	iter := tl.Session.Query("SELECT column_name, kind, position, clustering_order, type FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ?", ks, table).Iter()
	var name, kind, order, typ string
	var pos int
	var cols []keyColumn
	found := false
	for iter.Scan(&name, &kind, &pos, &order, &typ) {
		found = true
		if kind != "clustering" {
			continue
		}
		if pos < 0 || pos > maxKeyColumns {
			return nil, fmt.Errorf("table %s.%s: clustering column %s at position %d", ks, table, name, pos)
		}
		for len(cols) <= pos {
			cols = append(cols, keyColumn{})
		}
		cols[pos] = keyColumn{name: name, desc: strings.EqualFold(order, "desc"), typ: typeNamed(typ)}
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("read the schema of %s.%s: %w", ks, table, err)
	}
	if !found {
		return nil, fmt.Errorf("keyspace %s has no table %s", ks, table)
	}
	for i, c := range cols {
		if c.name == "" {
			return nil, fmt.Errorf("table %s.%s: no clustering column at position %d", ks, table, i)
		}
	}
	return cols, nil
}

// typeNamed maps a CQL type name from system_schema to the driver's type, for the types
// whose order a shard merge knows; any other is TypeCustom.
func typeNamed(name string) gocql.Type {
	switch name {
	case "timeuuid":
		return gocql.TypeTimeUUID
	case "timestamp":
		return gocql.TypeTimestamp
	case "date":
		return gocql.TypeDate
	case "time":
		return gocql.TypeTime
	case "bigint":
		return gocql.TypeBigInt
	case "int":
		return gocql.TypeInt
	case "smallint":
		return gocql.TypeSmallInt
	case "tinyint":
		return gocql.TypeTinyInt
	case "text", "varchar":
		return gocql.TypeText
	case "ascii":
		return gocql.TypeAscii
	case "blob":
		return gocql.TypeBlob
	case "boolean":
		return gocql.TypeBoolean
	}
	return gocql.TypeCustom
}

// resumeClause is one query's bound for resuming a bucket after a clustering key, using
// the key's first cells columns.
type resumeClause struct {
	text  string
	cells int
}

// afterClauses are the bounds that resume a bucket after a clustering key: the rows later
// in clustering order. When every column sorts the same way that is one tuple bound,
// (post_id) < (?) for a DESC table; when they differ, as in (liked_at DESC, user_id ASC),
// no single CQL bound says it, so the rows come from one query per column, deepest first:
// the same liked_at and a later user_id, then an earlier liked_at.
func afterClauses(cols []keyColumn) []resumeClause {
	quoted := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = cql.QuoteName(c.name)
	}
	op := func(c keyColumn) string {
		if c.desc {
			return "<"
		}
		return ">"
	}
	uniform := true
	for _, c := range cols {
		uniform = uniform && c.desc == cols[0].desc
	}
	if uniform {
		marks := strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ")
		return []resumeClause{{fmt.Sprintf(" AND (%s) %s (%s)", strings.Join(quoted, ", "), op(cols[0]), marks), len(cols)}}
	}
	out := make([]resumeClause, 0, len(cols))
	for depth := len(cols) - 1; depth >= 0; depth-- {
		var b strings.Builder
		for i := 0; i < depth; i++ {
			fmt.Fprintf(&b, " AND %s = ?", quoted[i])
		}
		fmt.Fprintf(&b, " AND %s %s ?", quoted[depth], op(cols[depth]))
		out = append(out, resumeClause{b.String(), depth + 1})
	}
	return out
}

// Page reads one page: up to req.Limit rows, newest first, across as many buckets (and
// shards) as it takes, within the page's budget (Budget) and the walk's end (Retention,
// Oldest). A page that spends its budget first stops early and says so; its token goes on
// from there. A token that does not verify is ErrBadToken, with nothing read.
func (tl *Timeline) Page(ctx context.Context, req PageRequest) (*Page, error) {
	parallel, shards, cons, err := tl.settings()
	if err != nil {
		return nil, err
	}
	if req.Limit <= 0 || req.Limit > MaxPageRows {
		return nil, fmt.Errorf("timeline: limit %d: want 1 to %d rows a page", req.Limit, MaxPageRows)
	}
	pq, err := parseQuery(tl.Query)
	if err != nil {
		return nil, fmt.Errorf("timeline: %w", err)
	}
	want := len(req.Key) + 1
	what := "the %d key values then the bucket"
	if shards > 1 || tl.ShardColumn {
		want, what = want+1, "the %d key values, the bucket, then the shard"
	}
	if pq.markers != want {
		return nil, fmt.Errorf("timeline: the query has %d bind markers: want "+what, pq.markers, len(req.Key))
	}
	fp := tl.fingerprint(req.Key)
	var tok token
	var first bucket.Bucket // the first page's newest bucket, and its walk's length
	var left int
	if req.Token == "" {
		newest := req.Newest
		if newest.IsZero() {
			newest = time.Now()
		}
		first = tl.Scheme.For(newest)
		if left, err = tl.walk(first, newest, req.Oldest); err != nil {
			return nil, err
		}
	} else {
		if tok, err = tl.decodeToken(req.Token, fp); err != nil {
			return nil, err
		}
		if len(tok.shards) != shards {
			return nil, fmt.Errorf("timeline: %w: %d shards, this timeline has %d", ErrBadToken, len(tok.shards), shards)
		}
	}
	cols, err := tl.clustering(pq)
	if err != nil {
		return nil, fmt.Errorf("timeline: %w", err)
	}
	r := &reader{tl: tl, key: req.Key, cols: cols, cons: cons, parallel: parallel, sharded: shards > 1 || tl.ShardColumn,
		base: pq.text, sem: make(chan struct{}, parallel)}
	for _, c := range afterClauses(cols) {
		r.after = append(r.after, resumeClause{pq.text + c.text, c.cells})
	}
	if shards > 1 {
		if err := mergeable(cols); err != nil {
			return nil, fmt.Errorf("timeline: %w", err)
		}
	}
	streams := make([]*stream, shards)
	if req.Token == "" {
		r.oldest = req.Oldest
		for i := range streams {
			streams[i] = &stream{shard: i, pos: r.bounded(position{left: left, bucket: first}), width: 1}
		}
	} else {
		r.oldest = tok.oldest
		for i, s := range tok.shards {
			pos, err := tl.resume(s, len(cols))
			if err != nil {
				return nil, err
			}
			streams[i] = &stream{shard: i, pos: pos, width: 1}
		}
	}
	// The page reads the budget's buckets down from the newest place any shard resumes
	// at, the same buckets in every shard: every row it returns is then newer than every
	// row it leaves unread, and the merge stays in order.
	top := 0
	for _, s := range streams {
		top = max(top, s.pos.left)
	}
	r.floor = max(0, top-tl.Budget(req.Limit))
	return r.page(ctx, streams, req.Limit, fp)
}

// resume checks one shard's position from a token against this timeline.
func (tl *Timeline) resume(s shardPos, keyColumns int) (position, error) {
	if s.left == 0 {
		return position{}, nil
	}
	if s.left > maxWalkBuckets {
		return position{}, fmt.Errorf("timeline: %w: %d buckets to the walk's end, out of range", ErrBadToken, s.left)
	}
	b, err := tl.Scheme.Parse(s.bucket)
	if err != nil {
		return position{}, fmt.Errorf("timeline: %w: %v", ErrBadToken, err)
	}
	if s.after != nil && len(s.after) != keyColumns {
		return position{}, fmt.Errorf("timeline: %w: a clustering key of %d columns, the table has %d", ErrBadToken, len(s.after), keyColumns)
	}
	return position{left: s.left, bucket: b, after: s.after}, nil
}
