package backfillcheck

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gocql/gocql"
)

// Expected is a target row computed from the source, with the token of the source row it
// comes from (the node's token(), read with it).
type Expected struct {
	Cells       Row
	SourceToken int64
}

// ReadSource reads every row of the source table with the node's token of its partition
// key and each cell's write time and TTL.
func ReadSource(ctx context.Context, s *gocql.Session, table string, opts ReadOptions) ([]SourceRow, error) {
	query := "SELECT token(user_id), user_id, created_at, post_id, content, writetime(content), ttl(content), " +
		"likes, writetime(likes), ttl(likes), hashtags, writetime(hashtags), ttl(hashtags) FROM " + table +
		" WHERE token(user_id) > ? AND token(user_id) <= ?"
	var (
		mu  sync.Mutex
		out []SourceRow
	)
	err := scan(ctx, s, query, opts, func() []any {
		return []any{new(int64), new(gocql.UUID), new(time.Time), new(gocql.UUID), new(*string), new(*int64), new(*int),
			new(*int), new(*int64), new(*int), new([]string), new([]int64), new([]*int)}
	}, func(d []any, at ReadWindow) error {
		r := SourceRow{Token: *d[0].(*int64), UserID: *d[1].(*gocql.UUID), CreatedAt: *d[2].(*time.Time), PostID: *d[3].(*gocql.UUID),
			Cells: Row{}}
		if c := *d[4].(**string); c != nil {
			v := *c
			r.Content = &v
			r.Cells["content"] = cell(v, *d[5].(**int64), *d[6].(**int), at)
		}
		if l := *d[7].(**int); l != nil {
			r.Cells["likes"] = cell(strconv.Itoa(*l), *d[8].(**int64), *d[9].(**int), at)
		}
		if err := setCells(r.Cells, "hashtags", *d[10].(*[]string), *d[11].(*[]int64), *d[12].(*[]*int), at); err != nil {
			return fmt.Errorf("source row %s/%s: %w", r.UserID, r.PostID, err)
		}
		r.Hashtags = append([]string(nil), *d[10].(*[]string)...)
		mu.Lock()
		out = append(out, r)
		mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read source %s: %w", table, err)
	}
	return out, nil
}

func cell(v string, write *int64, ttl *int, at ReadWindow) Cell {
	c := Cell{Value: v, Read: at}
	if write != nil {
		c.Write = *write
	}
	if ttl != nil {
		c.TTL = *ttl
	}
	return c
}

// setCells adds a set's elements to cells, one cell each with its own write time and TTL
// (Cassandra 5.0 answers writetime() and ttl() of a multi-cell set with a list, one entry
// per element in the set's order).
func setCells(cells Row, col string, elems []string, writes []int64, ttls []*int, at ReadWindow) error {
	if len(writes) != len(elems) || len(ttls) != len(elems) {
		return fmt.Errorf("%s has %d elements, %d write times and %d TTLs", col, len(elems), len(writes), len(ttls))
	}
	for i, e := range elems {
		w := writes[i]
		cells[col+"["+e+"]"] = cell("", &w, ttls[i], at)
	}
	return nil
}

// MonthKey is the primary key of a posts_by_month row as one string.
func MonthKey(user gocql.UUID, month string, created time.Time, post gocql.UUID) string {
	return fmt.Sprintf("%s|%s|%d|%s", user, month, created.UnixMilli(), post)
}

// TagDayKey is the primary key of a posts_by_tag_day row as one string.
func TagDayKey(tag string, day time.Time, created time.Time, user, post gocql.UUID) string {
	return fmt.Sprintf("%q|%s|%d|%s|%s", tag, day.Format(time.DateOnly), created.UnixMilli(), user, post)
}

// ExpectMonth maps every source row to its posts_by_month row: the same cells, keyed by the
// month of created_at.
func ExpectMonth(src []SourceRow) map[string]Expected {
	out := make(map[string]Expected, len(src))
	for _, r := range src {
		out[MonthKey(r.UserID, Month(r.CreatedAt), r.CreatedAt, r.PostID)] = Expected{Cells: r.Cells, SourceToken: r.Token}
	}
	return out
}

// ExpectTagDay maps every source row to its posts_by_tag_day rows: one per hashtag, keyed by
// the day of created_at, holding the content cell.
func ExpectTagDay(src []SourceRow) map[string]Expected {
	out := map[string]Expected{}
	for _, r := range src {
		for _, tag := range r.Hashtags {
			cells := Row{}
			if c, ok := r.Cells["content"]; ok {
				cells["content"] = c
			}
			out[TagDayKey(tag, Day(r.CreatedAt), r.CreatedAt, r.UserID, r.PostID)] = Expected{Cells: cells, SourceToken: r.Token}
		}
	}
	return out
}

// ReadMonth reads every row of a posts_by_month table.
func ReadMonth(ctx context.Context, s *gocql.Session, table string, opts ReadOptions) (map[string]Row, error) {
	query := "SELECT user_id, month, created_at, post_id, content, writetime(content), ttl(content), " +
		"likes, writetime(likes), ttl(likes), hashtags, writetime(hashtags), ttl(hashtags) FROM " + table +
		" WHERE token(user_id, month) > ? AND token(user_id, month) <= ?"
	return readTarget(ctx, s, table, query, opts, func() []any {
		return []any{new(gocql.UUID), new(string), new(time.Time), new(gocql.UUID), new(*string), new(*int64), new(*int),
			new(*int), new(*int64), new(*int), new([]string), new([]int64), new([]*int)}
	}, func(d []any, at ReadWindow) (string, Row, error) {
		key := MonthKey(*d[0].(*gocql.UUID), *d[1].(*string), *d[2].(*time.Time), *d[3].(*gocql.UUID))
		cells := Row{}
		if c := *d[4].(**string); c != nil {
			cells["content"] = cell(*c, *d[5].(**int64), *d[6].(**int), at)
		}
		if l := *d[7].(**int); l != nil {
			cells["likes"] = cell(strconv.Itoa(*l), *d[8].(**int64), *d[9].(**int), at)
		}
		return key, cells, setCells(cells, "hashtags", *d[10].(*[]string), *d[11].(*[]int64), *d[12].(*[]*int), at)
	})
}

// ReadTagDay reads every row of a posts_by_tag_day table.
func ReadTagDay(ctx context.Context, s *gocql.Session, table string, opts ReadOptions) (map[string]Row, error) {
	query := "SELECT hashtag, day, created_at, user_id, post_id, content, writetime(content), ttl(content) FROM " + table +
		" WHERE token(hashtag, day) > ? AND token(hashtag, day) <= ?"
	return readTarget(ctx, s, table, query, opts, func() []any {
		return []any{new(string), new(time.Time), new(time.Time), new(gocql.UUID), new(gocql.UUID), new(*string), new(*int64), new(*int)}
	}, func(d []any, at ReadWindow) (string, Row, error) {
		key := TagDayKey(*d[0].(*string), *d[1].(*time.Time), *d[2].(*time.Time), *d[3].(*gocql.UUID), *d[4].(*gocql.UUID))
		cells := Row{}
		if c := *d[5].(**string); c != nil {
			cells["content"] = cell(*c, *d[6].(**int64), *d[7].(**int), at)
		}
		return key, cells, nil
	})
}

// readTarget reads every row of a target table into a map by key; row turns the scanned
// destinations into a row.
func readTarget(ctx context.Context, s *gocql.Session, table, query string, opts ReadOptions, dest func() []any,
	row func(d []any, at ReadWindow) (string, Row, error)) (map[string]Row, error) {
	var mu sync.Mutex
	out := map[string]Row{}
	err := scan(ctx, s, query, opts, dest, func(d []any, at ReadWindow) error {
		key, cells, err := row(d, at)
		if err != nil {
			return fmt.Errorf("%s row %s: %w", table, key, err)
		}
		mu.Lock()
		out[key] = cells
		mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", table, err)
	}
	return out, nil
}

// Report is what Compare found in one target table.
type Report struct {
	Table     string
	Expected  int // rows the source says the target must hold
	Found     int // rows the target holds
	Missing   int // expected rows absent
	Extra     int // rows present that no source row maps to (a deleted row brought back)
	Values    int // rows with a cell missing, extra or of another value
	Writes    int // rows with a cell of another write time
	TTLs      int // rows with a TTL lost, added, or expiring at another time
	TTLCells  int // cells with a TTL compared (so a test can see TTLs were checked at all)
	Examples  []string
	TTLSlack  time.Duration
	maxTTLGap time.Duration
}

func (r Row) String() string {
	if len(r) == 0 {
		return "key columns only"
	}
	cols := make([]string, 0, len(r))
	for col, c := range r {
		cols = append(cols, fmt.Sprintf("%s written at %d ttl %d", col, c.Write, c.TTL))
	}
	sort.Strings(cols)
	return strings.Join(cols, ", ")
}

// OK reports whether the target matches the source in every row and cell.
func (r Report) OK() bool { return r.Missing+r.Extra+r.Values+r.Writes+r.TTLs == 0 }

func (r Report) String() string {
	s := fmt.Sprintf("%s: %d rows expected, %d found: %d missing, %d extra, %d with other values, %d with other write times, %d with other TTLs (%d TTL cells compared, largest expiry gap %s, allowed %s)",
		r.Table, r.Expected, r.Found, r.Missing, r.Extra, r.Values, r.Writes, r.TTLs, r.TTLCells, r.maxTTLGap, r.TTLSlack)
	if len(r.Examples) > 0 {
		s += "\n  " + strings.Join(r.Examples, "\n  ")
	}
	return s
}

func (r *Report) example(format string, a ...any) {
	if len(r.Examples) < 12 {
		r.Examples = append(r.Examples, fmt.Sprintf(format, a...))
	}
}

// Compare checks found against expected row by row and cell by cell. A cell must have the
// source cell's value and write time; a cell with a TTL must keep one that expires when the
// source cell does, give or take slack (the copy's elapsed time, which bounds both the time
// between the copy reading a TTL and writing it and how long its page took to come back)
// and a second for the whole seconds TTL() is counted in; the checker's own pages count by
// when each was asked for and answered (ReadWindow).
func Compare(table string, expected map[string]Expected, found map[string]Row, slack time.Duration) Report {
	rep := Report{Table: table, Expected: len(expected), Found: len(found), TTLSlack: slack}
	keys := make([]string, 0, len(expected))
	for k := range expected {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		got, ok := found[k]
		if !ok {
			rep.Missing++
			rep.example("missing %s", k)
			continue
		}
		rep.compareRow(k, expected[k].Cells, got, slack)
	}
	for k, row := range found {
		if _, ok := expected[k]; !ok {
			rep.Extra++
			rep.example("extra %s (%s)", k, row)
		}
	}
	return rep
}

func (rep *Report) compareRow(key string, want, got Row, slack time.Duration) {
	var values, writes, ttls []string
	for col, w := range want {
		g, ok := got[col]
		switch {
		case !ok:
			values = append(values, col+" absent")
			continue
		case g.Value != w.Value:
			values = append(values, fmt.Sprintf("%s=%q, source %q", col, g.Value, w.Value))
		}
		if g.Write != w.Write {
			writes = append(writes, fmt.Sprintf("writetime(%s)=%d, source %d", col, g.Write, w.Write))
		}
		if msg := rep.compareTTL(col, w, g, slack); msg != "" {
			ttls = append(ttls, msg)
		}
	}
	for col := range got {
		if _, ok := want[col]; !ok {
			values = append(values, col+" present, absent in the source")
		}
	}
	for _, p := range []struct {
		n    *int
		what []string
	}{{&rep.Values, values}, {&rep.Writes, writes}, {&rep.TTLs, ttls}} {
		if len(p.what) > 0 {
			*p.n++
			sort.Strings(p.what)
			rep.example("%s: %s", key, strings.Join(p.what, "; "))
		}
	}
}

func (rep *Report) compareTTL(col string, want, got Cell, slack time.Duration) string {
	switch {
	case want.TTL == 0 && got.TTL == 0:
		return ""
	case want.TTL == 0:
		return fmt.Sprintf("ttl(%s)=%d, source has none", col, got.TTL)
	case got.TTL == 0:
		return fmt.Sprintf("ttl(%s) none, source %d", col, want.TTL)
	}
	rep.TTLCells++
	// Each expiry is known to lie in an interval: the node computed the remaining TTL
	// (whole seconds) at some moment between the page's request and its answer. The copy
	// keeps the source's expiry or, written later, a later one by at most slack plus the
	// second the rounding can add; it fails only if no moment in the two intervals allows
	// that, so a slow page cannot make a good copy look short.
	wantLo, wantHi := want.Read.expiry(want.TTL)
	gotLo, gotHi := got.Read.expiry(got.TTL)
	gap := gotLo.Add(gotHi.Sub(gotLo) / 2).Sub(wantLo.Add(wantHi.Sub(wantLo) / 2))
	if gap.Abs() > rep.maxTTLGap {
		rep.maxTTLGap = gap.Abs().Round(time.Millisecond)
	}
	// The backfill counts a TTL down from the moment it asked for the source's page, since
	// it cannot know when the node counted it: its copy never outlives the source, and
	// expires early by as much as that page took to come back, plus a second of rounding.
	// A page takes at most the copy's run time (slack), the same allowance as the late side.
	if early := wantLo.Sub(gotHi); early > slack+time.Second {
		return fmt.Sprintf("ttl(%s) expires at least %s before the source's (allowed %s)", col, early.Round(time.Millisecond), slack+time.Second)
	}
	if late := gotLo.Sub(wantHi); late > slack+time.Second {
		return fmt.Sprintf("ttl(%s) expires at least %s after the source's (allowed %s)", col, late.Round(time.Millisecond), slack+time.Second)
	}
	return ""
}
