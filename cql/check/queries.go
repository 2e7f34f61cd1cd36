package check

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/workload"
)

// Query is one named query of a queries file: a SELECT with the name, rate and latency
// target its `-- query:` header gives it.
type Query struct {
	Name string        // from the header, or q<N> for the N-th statement without one
	Rate float64       // requests per second (rate=500/s), 0 when not given
	P99  time.Duration // latency target (p99=20ms), 0 when not given
	// Range is the width of the time range the query usually asks for (range=7d), 0 when
	// not given: a range read's cost is the buckets that width covers, not a LIMIT's walk.
	Range       time.Duration
	Description string  // the comment lines after the header, joined with newlines
	Text        string  // the statement as written, without the trailing ';'
	Pos         cql.Pos // where the statement starts (its SELECT keyword)
	HeaderPos   cql.Pos // where the `-- query:` header is; invalid when there is none
	// NoLint lists the finding codes a `-- cqlsize:nolint CODE[,CODE]` line above the
	// query silences ("all" silences every code).
	NoLint []string

	stmt  *cql.Select // the parsed statement, when the query comes from ParseQueries
	dupOf cql.Pos     // where a query of the same name was defined first; invalid when none
}

func (q *Query) nolinted(code string) bool {
	for _, c := range q.NoLint {
		if strings.EqualFold(c, code) || strings.EqualFold(c, "all") {
			return true
		}
	}
	return false
}

// LoadQueries reads a queries file (see ParseQueries).
func LoadQueries(path string) ([]Query, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read queries: %w", err)
	}
	return ParseQueries(path, src)
}

// ParseQueries reads the named queries of a queries file: CQL statements separated by ';',
// each preceded by an optional comment line that names it and may give a rate and a
// latency target and the width of the range it usually reads (range=7d, for a query that
// slices a time range), followed by free-text description lines:
//
//	-- query: user_timeline  rate=500/s  p99=20ms
//	-- the 20 newest posts of a user in one month
//	SELECT * FROM posts_by_user WHERE user_id = ? AND month = ? LIMIT 20;
//
// A statement without a header is named q<N> by its position (1-based). Names must be
// unique. Errors are *cql.Error with the file:line:col of the problem.
func ParseQueries(file string, src []byte) ([]Query, error) {
	return parseQueries(file, src, func(Query, cql.Statement) bool { return false })
}

// ParseQueriesSkippingWrites is ParseQueries that leaves out the writes (INSERT, UPDATE,
// DELETE, BATCH) a queries file copied from a service's statements often holds, and says
// so, one note each ("q.cql:4:1: add is an INSERT: a write; only reads are checked"),
// instead of refusing the whole file. Any other statement is still refused.
func ParseQueriesSkippingWrites(file string, src []byte) ([]Query, []string, error) {
	var notes []string
	out, err := parseQueries(file, src, func(q Query, st cql.Statement) bool {
		switch st.(type) {
		case *cql.Insert, *cql.Update, *cql.Delete, *cql.Batch:
			name := q.Name
			if name == "" {
				name = "the statement"
			}
			notes = append(notes, fmt.Sprintf("%s: %s is %s: a write; check judges reads, so it is skipped", q.Pos, name, article(firstWord(q.Text))))
			return true
		}
		return false
	})
	return out, notes, err
}

func article(w string) string {
	if strings.HasPrefix(w, "I") || strings.HasPrefix(w, "U") {
		return "an " + w
	}
	return "a " + w
}

func parseQueries(file string, src []byte, skip func(Query, cql.Statement) bool) ([]Query, error) {
	stmts, err := cql.ParseFile(file, src)
	if err != nil {
		return nil, err
	}
	lines := newLineIndex(file, src)
	var out []Query
	seen := map[string]cql.Pos{}
	prevEnd := 0
	for _, st := range stmts {
		info := st.Info()
		// The header and description are the comment lines between the previous
		// statement and this one. The region starts at the previous statement's end, so
		// a comment trailing that statement on its line is not mistaken for a header.
		from := min(prevEnd, info.Pos.Offset)
		q := Query{Text: info.Text, Pos: info.Pos}
		if err := parseHeader(lines, from, string(src[from:info.Pos.Offset]), &q); err != nil {
			return nil, err
		}
		sel, ok := st.(*cql.Select)
		if !ok && skip(q, st) {
			prevEnd = info.End.Offset
			continue
		}
		if !ok {
			return nil, cql.Errorf(q.Pos, "expected SELECT, found %s (a queries file holds SELECT statements only)", firstWord(q.Text))
		}
		q.stmt = sel
		if q.Name == "" {
			q.Name = "q" + strconv.Itoa(len(out)+1)
		}
		if p, dup := seen[q.Name]; dup {
			// An error for this query only (QF016, at check): the file's other queries
			// are still judged, as a typo in one name should not hide them all.
			q.dupOf = p
		} else {
			seen[q.Name] = q.Pos
		}
		out = append(out, q)
		prevEnd = info.End.Offset
	}
	// A header after the last statement names nothing: say so rather than drop it.
	if tail := string(src[min(prevEnd, len(src)):]); strings.Contains(tail, "query:") {
		var q Query
		if err := parseHeader(lines, prevEnd, tail, &q); err != nil {
			return nil, err
		}
		if q.HeaderPos.IsValid() {
			return nil, cql.Errorf(q.HeaderPos, "expected a SELECT statement after the header of query %q, found end of file", q.Name)
		}
	}
	return out, nil
}

// parseHeader finds the `-- query:` header and the description in the comment lines of
// region, which starts at byte offset base of src. The description is the comment lines
// that directly follow the header; a blank or other line ends it.
func parseHeader(lines *lineIndex, base int, region string, q *Query) error {
	off := 0
	inDesc := false
	var desc []string
	for _, line := range strings.SplitAfter(region, "\n") {
		lineOff := base + off
		off += len(line)
		t := strings.TrimSpace(line)
		if !strings.HasPrefix(t, "--") && !strings.HasPrefix(t, "//") {
			inDesc = false
			continue
		}
		body := strings.TrimSpace(t[2:])
		if rest, ok := cutPrefixFold(body, "cqlsize:nolint"); ok {
			for _, code := range strings.FieldsFunc(rest, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
				code = strings.ToUpper(code)
				if code != "ALL" && !knownCode(code) {
					// A silenced typo would silence nothing and leave the finding failing CI
					// with the directive right above it: say so where it is written.
					at := lines.pos(lineOff + strings.Index(line, t))
					return cql.Errorf(at, "cqlsize:nolint %s: no such check code (QF001-QF015, or all; check.Codes lists them)", code)
				}
				q.NoLint = append(q.NoLint, code)
			}
			continue
		}
		if rest, ok := cutPrefixFold(body, "query:"); ok {
			at := lines.pos(lineOff + strings.Index(line, t))
			if q.HeaderPos.IsValid() {
				return cql.Errorf(at, "expected a SELECT statement after the header of query %q, found another header", q.Name)
			}
			q.HeaderPos = at
			if err := parseHeaderFields(at, rest, q); err != nil {
				return err
			}
			inDesc, desc = true, nil
			continue
		}
		if inDesc {
			desc = append(desc, body)
		}
	}
	q.Description = strings.Join(desc, "\n")
	return nil
}

// Header reads the `-- query:` header of a statement's leading comment (cql.Select.Doc, as
// a file parsed by cql.ParseFile gives it): the name, rate, p99 and range, and ok false when
// the comment holds no header. It is the queries file's own parser, for a reader (estimate
// --queries) that keeps the file's writes too.
func Header(doc string, at cql.Pos) (q Query, ok bool, err error) {
	if err := parseHeader(&lineIndex{file: at.File, starts: []int{0}}, 0, doc, &q); err != nil {
		var ce *cql.Error
		if errors.As(err, &ce) {
			return q, false, cql.Errorf(at, "%s", ce.Msg)
		}
		return q, false, err
	}
	return q, q.HeaderPos.IsValid(), nil
}

func parseHeaderFields(at cql.Pos, rest string, q *Query) error {
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return cql.Errorf(at, "expected a query name after \"query:\", found end of line")
	}
	name := fields[0]
	if !validName(name) {
		return cql.Errorf(at, "expected a query name (letters, digits, _ . -), found %q", name)
	}
	q.Name = name
	for _, f := range fields[1:] {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return cql.Errorf(at, "query %s: expected key=value (rate=500/s, p99=20ms, range=7d), found %q", name, f)
		}
		switch strings.ToLower(k) {
		case "rate":
			r, err := parseRate(v)
			if err != nil {
				return cql.Errorf(at, "query %s: rate=%s: %v", name, v, err)
			}
			q.Rate = r
		case "p99":
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return cql.Errorf(at, "query %s: p99=%s: expected a positive duration such as 20ms", name, v)
			}
			q.P99 = d
		case "range":
			d, err := workload.ParseDuration(v)
			if err != nil || d <= 0 {
				return cql.Errorf(at, "query %s: range=%s: expected a positive span of time such as 7d or 12h", name, v)
			}
			q.Range = d
		default:
			return cql.Errorf(at, "query %s: unknown setting %q: expected rate=N/s, p99=DURATION or range=SPAN", name, k)
		}
	}
	return nil
}

// parseRate reads N/s, N/m (per minute), N/h or a bare N (per second).
func parseRate(v string) (float64, error) {
	num, unit, _ := strings.Cut(v, "/")
	r, err := strconv.ParseFloat(num, 64)
	if err != nil || r < 0 {
		return 0, fmt.Errorf("expected a number of requests such as 500/s")
	}
	switch strings.ToLower(unit) {
	case "", "s", "sec":
		return r, nil
	case "m", "min":
		return r / 60, nil
	case "h":
		return r / 3600, nil
	}
	return 0, fmt.Errorf("unknown unit %q: expected /s, /min or /h", unit)
}

func validName(s string) bool {
	for _, r := range s {
		if !(r == '_' || r == '-' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return s != ""
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

func firstWord(s string) string {
	s = strings.TrimSpace(s)
	end := strings.IndexFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '(' || r == ';' })
	if end < 0 {
		end = len(s)
	}
	if end == 0 {
		return "end of statement"
	}
	return s[:end]
}

// lineIndex turns byte offsets of a source into file:line:col positions.
type lineIndex struct {
	file   string
	starts []int // byte offset of the start of each line
}

func newLineIndex(file string, src []byte) *lineIndex {
	li := &lineIndex{file: file, starts: []int{0}}
	for i, c := range src {
		if c == '\n' {
			li.starts = append(li.starts, i+1)
		}
	}
	return li
}

// pos is the position of byte offset off (columns count bytes, as cql.Pos does).
func (li *lineIndex) pos(off int) cql.Pos {
	line := sort.Search(len(li.starts), func(i int) bool { return li.starts[i] > off }) - 1
	return cql.Pos{File: li.file, Line: line + 1, Col: off - li.starts[line] + 1, Offset: off}
}

// knownCode reports whether code is one of the checker's finding codes.
func knownCode(code string) bool {
	for _, c := range Codes() {
		if c.Code == code {
			return true
		}
	}
	return false
}
