package check

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/cql"
)

func TestParseQueries(t *testing.T) {
	src := `-- queries of the timeline service

-- query: user_timeline  rate=500/s  p99=20ms
-- the 20 newest posts of a user in one month
-- (shown on the profile page)
SELECT * FROM posts WHERE user_id = ? AND month = ? LIMIT 20;

SELECT * FROM posts WHERE user_id = ?; -- query: not_a_header (trails the statement above)

// query: hourly rate=120/min
// cqlsize:nolint QF002, qf003
SELECT count(*) FROM posts;

-- query: rare  rate=36/h range=7d
-- cqlsize:nolint all
SELECT * FROM posts
  WHERE user_id = ?;
`
	qs, err := ParseQueries("q.cql", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name, desc string
		rate       float64
		p99        time.Duration
		pos        string
		header     string
		nolint     string
	}{
		{"user_timeline", "the 20 newest posts of a user in one month\n(shown on the profile page)", 500, 20 * time.Millisecond, "q.cql:6:1", "q.cql:3:1", ""},
		{"q2", "", 0, 0, "q.cql:8:1", "", ""},
		{"hourly", "", 2, 0, "q.cql:12:1", "q.cql:10:1", "QF002,QF003"},
		{"rare", "", 0.01, 0, "q.cql:16:1", "q.cql:14:1", "ALL"},
	}
	if len(qs) != len(want) {
		t.Fatalf("%d queries, want %d: %+v", len(qs), len(want), qs)
	}
	for i, w := range want {
		q := qs[i]
		if q.Name != w.name || q.Description != w.desc || q.Rate != w.rate || q.P99 != w.p99 ||
			q.Pos.String() != w.pos || strings.Join(q.NoLint, ",") != w.nolint {
			t.Errorf("query %d = {%q %q %v %v %s nolint %v}, want %+v", i, q.Name, q.Description, q.Rate, q.P99, q.Pos, q.NoLint, w)
		}
		if (w.header == "") == q.HeaderPos.IsValid() || w.header != "" && q.HeaderPos.String() != w.header {
			t.Errorf("query %s: header at %s, want %q", q.Name, q.HeaderPos, w.header)
		}
		if q.stmt == nil {
			t.Errorf("query %s: not parsed", q.Name)
		}
	}
	if qs[3].Range != 7*24*time.Hour || qs[0].Range != 0 {
		t.Errorf("ranges %v and %v, want 168h (range=7d) and none", qs[3].Range, qs[0].Range)
	}
	if got := qs[3].Text; got != "SELECT * FROM posts\n  WHERE user_id = ?" {
		t.Errorf("text = %q", got)
	}
}

func TestParseQueriesErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"bad rate", "-- query: a rate=fast\nSELECT * FROM t;", "q.cql:1:1: query a: rate=fast: expected a number of requests such as 500/s"},
		{"bad rate unit", "-- query: a rate=5/day\nSELECT * FROM t;", `q.cql:1:1: query a: rate=5/day: unknown unit "day": expected /s, /min or /h`},
		{"bad p99", "-- query: a p99=soon\nSELECT * FROM t;", "q.cql:1:1: query a: p99=soon: expected a positive duration such as 20ms"},
		{"unknown setting", "-- query: a p95=3ms\nSELECT * FROM t;", `q.cql:1:1: query a: unknown setting "p95": expected rate=N/s, p99=DURATION or range=SPAN`},
		{"bad range", "-- query: a range=lots\nSELECT * FROM t;", "q.cql:1:1: query a: range=lots: expected a positive span of time such as 7d or 12h"},
		{"zero range", "-- query: a range=0d\nSELECT * FROM t;", "q.cql:1:1: query a: range=0d: expected a positive span of time such as 7d or 12h"},
		{"not key=value", "-- query: a fast\nSELECT * FROM t;", `q.cql:1:1: query a: expected key=value (rate=500/s, p99=20ms, range=7d), found "fast"`},
		{"no name", "-- query:\nSELECT * FROM t;", `q.cql:1:1: expected a query name after "query:", found end of line`},
		{"bad name", "-- query: a/b\nSELECT * FROM t;", `q.cql:1:1: expected a query name (letters, digits, _ . -), found "a/b"`},
		{"two headers", "-- query: a\n-- query: b\nSELECT * FROM t;", `q.cql:2:1: expected a SELECT statement after the header of query "a", found another header`},
		{"header at end", "SELECT * FROM t;\n  -- query: lost\n", `q.cql:2:3: expected a SELECT statement after the header of query "lost", found end of file`},
		{"not a select", "-- query: w\nINSERT INTO t (a) VALUES (1);", "q.cql:2:1: expected SELECT, found INSERT (a queries file holds SELECT statements only)"},
		{"syntax", "SELECT * FROM t WHERE a = 1 OR b = 2;", "q.cql:1:29: expected"},
		{"unterminated string", "SELECT * FROM t WHERE a = 'x;", "q.cql:1:27:"},
		{"unknown nolint code", "-- query: a\n  -- cqlsize:nolint QF002, QF999\nSELECT * FROM t;", "q.cql:2:3: cqlsize:nolint QF999: no such check code"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseQueries("q.cql", []byte(tc.src))
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			var ce *cql.Error
			if !errors.As(err, &ce) {
				t.Errorf("error %T is not a *cql.Error", err)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error %q, want it to start with %q", err, tc.want)
			}
		})
	}
}

func TestParseQueriesEmpty(t *testing.T) {
	qs, err := ParseQueries("q.cql", []byte("-- nothing here\n\n"))
	if err != nil || len(qs) != 0 {
		t.Fatalf("got %v, %v; want no queries and no error", qs, err)
	}
}

// TestDuplicateNameIsThatQuerysError: a name used twice is a failure of the second query
// (QF016, at its header), and every query of the file is still checked.
func TestDuplicateNameIsThatQuerysError(t *testing.T) {
	schema, err := cql.LoadSchemaIn("testdata/cli/schema.cql", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ src, at, first string }{
		{"-- query: a\nSELECT * FROM app.users WHERE user_id = ?;\n-- query: a\nSELECT name FROM app.users WHERE user_id = ?;\n-- query: b\nSELECT * FROM app.users WHERE user_id = ?;", "q.cql:3:1", "q.cql:2:1"},
		{"SELECT * FROM app.users WHERE user_id = ?;\n-- query: q1\nSELECT * FROM app.users WHERE user_id = ?;", "q.cql:2:1", "q.cql:1:1"},
	} {
		qs, err := ParseQueries("q.cql", []byte(tc.src))
		if err != nil {
			t.Fatalf("%q: the file is refused whole: %v", tc.src, err)
		}
		res, err := Check(schema, qs, Options{})
		if err != nil {
			t.Fatal(err)
		}
		dups := 0
		for i, r := range res {
			for _, f := range r.Findings {
				if f.Code != CodeDuplicateName {
					continue
				}
				dups++
				if i != 1 || f.Severity != Fail || f.Pos.String() != tc.at || !strings.Contains(f.Message, "already defined at "+tc.first) {
					t.Errorf("query %d: %s %s at %s: %s", i+1, f.Code, f.Severity, f.Pos, f.Message)
				}
			}
			if r.Table != "app.users" {
				t.Errorf("query %d was not checked: table %q", i+1, r.Table)
			}
		}
		if dups != 1 {
			t.Errorf("%q: %d QF016 findings, want 1", tc.src, dups)
		}
	}
}
