package lint_test

import (
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/lint"
)

// bk101 lints one file in keyspace app and returns its BK101 diagnostics.
func bk101(t *testing.T, src string, w *lint.Workload) []lint.Diagnostic {
	t.Helper()
	stmts, err := cql.ParseFile("s.cql", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := lint.Run(lint.Input{Keyspace: "app", Workload: w,
		Files: []lint.File{{Name: "s.cql", Source: []byte(src), Statements: stmts}}}, lint.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var out []lint.Diagnostic
	for _, d := range rep.Diagnostics {
		if d.Code == "BK101" {
			out = append(out, d)
		}
	}
	return out
}

const readings = "CREATE TABLE IF NOT EXISTS readings (sensor_id uuid, at timestamp, v double, PRIMARY KEY (sensor_id, at));\n"

func TestBK101(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		w    *lint.Workload
		want string // a substring of the one BK101 message, "" for none
	}{
		{"unbounded: a warning naming the reason", readings, nil,
			"clustered by event time at (timestamp) and nothing bounds partition (sensor_id): no time bucket, no count column, no TTL"},
		{"a workload that sizes the table decides (WL1xx)", readings,
			&lint.Workload{Sizes: []lint.TableSize{{Table: "app.readings"}}}, ""},
		{"a workload that sizes another table leaves it to BK101", readings,
			&lint.Workload{Sizes: []lint.TableSize{{Table: "app.other"}}}, "nothing bounds partition (sensor_id)"},
		{"a TTL set by a later ALTER bounds it",
			readings + "ALTER TABLE readings WITH default_time_to_live = 86400;\n", nil, ""},
		{"a later ALTER that adds a column does not",
			readings + "ALTER TABLE readings ADD unit text;\n", nil, "nothing bounds"},
		{"bigint time",
			"CREATE TABLE IF NOT EXISTS spans (svc text, start_time bigint, id blob, PRIMARY KEY (svc, start_time));\n", nil,
			"start_time (bigint; named like a time)"},
		{"entity-id timeuuid",
			"CREATE TABLE IF NOT EXISTS segs (run_id timeuuid, segment_id timeuuid, s int, PRIMARY KEY (run_id, segment_id));\n", nil, ""},
		{"count bucket",
			"CREATE TABLE IF NOT EXISTS journal (pid text, partition_nr bigint, at timeuuid, e blob, PRIMARY KEY ((pid, partition_nr), at));\n", nil, ""},
		{"a view keyed by event time with nothing to bound it",
			"CREATE TABLE IF NOT EXISTS posts (user_id uuid, month text, post_id timeuuid, body text, PRIMARY KEY ((user_id, month), post_id));\n" +
				"CREATE MATERIALIZED VIEW IF NOT EXISTS posts_by_body AS SELECT * FROM posts WHERE body IS NOT NULL AND user_id IS NOT NULL AND month IS NOT NULL AND post_id IS NOT NULL PRIMARY KEY (body, post_id, user_id, month);\n",
			nil, "clustered by event time post_id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := bk101(t, tc.src, tc.w)
			switch {
			case tc.want == "" && len(ds) != 0:
				t.Errorf("BK101 fired: %v", ds)
			case tc.want != "" && len(ds) != 1:
				t.Errorf("want one BK101, got %v", ds)
			case tc.want != "" && !strings.Contains(ds[0].Message, tc.want):
				t.Errorf("message %q lacks %q", ds[0].Message, tc.want)
			case tc.want != "" && ds[0].Severity != lint.Warning:
				t.Errorf("BK101 is a %s: without a workload it is a heuristic, a warning", ds[0].Severity)
			}
		})
	}
	if a := lint.Lookup("BK101"); a.Severity != lint.Warning || a.NeedsWorkload {
		t.Errorf("BK101 registered as %s (needs workload %v), want a warning that runs without one", a.Severity, a.NeedsWorkload)
	}
}

// TestBK101WriteTTL: the application's writes (a queries file's INSERTs and UPDATEs) that
// carry USING TTL expire their rows, which bounds the partition as default_time_to_live
// would; writes without one, or with TTL 0, or to another table, leave BK101 to warn.
func TestBK101WriteTTL(t *testing.T) {
	view := "CREATE MATERIALIZED VIEW IF NOT EXISTS readings_by_v AS SELECT * FROM readings WHERE v IS NOT NULL AND sensor_id IS NOT NULL AND at IS NOT NULL PRIMARY KEY (v, at, sensor_id);\n"
	for _, tc := range []struct {
		name, writes string
		want         int // BK101s on readings (and its view, when the source has one)
		src          string
	}{
		{"INSERT USING TTL ?", "INSERT INTO readings (sensor_id, at, v) VALUES (?, ?, ?) USING TTL ?;", 0, readings},
		{"INSERT USING TTL literal, qualified", "INSERT INTO app.readings (sensor_id, at, v) VALUES (?, ?, ?) USING TTL 86400;", 0, readings},
		{"UPDATE USING TTL", "UPDATE readings USING TTL 3600 SET v = ? WHERE sensor_id = ? AND at = ?;", 0, readings},
		{"a batch's TTL", "BEGIN BATCH USING TTL 60 INSERT INTO readings (sensor_id, at, v) VALUES (?, ?, ?); APPLY BATCH;", 0, readings},
		{"the base's TTL expires the view's rows", "INSERT INTO readings (sensor_id, at, v) VALUES (?, ?, ?) USING TTL ?;", 0, readings + view},
		{"no TTL", "INSERT INTO readings (sensor_id, at, v) VALUES (?, ?, ?);", 1, readings},
		{"TTL 0 is none", "INSERT INTO readings (sensor_id, at, v) VALUES (?, ?, ?) USING TTL 0;", 1, readings},
		{"another table's TTL", "INSERT INTO other (k) VALUES (?) USING TTL ?;", 1, readings},
		{"another keyspace's table", "INSERT INTO elsewhere.readings (sensor_id, at, v) VALUES (?, ?, ?) USING TTL ?;", 1, readings},
	} {
		t.Run(tc.name, func(t *testing.T) {
			writes, err := cql.ParseFile("q.cql", []byte(tc.writes))
			if err != nil {
				t.Fatal(err)
			}
			stmts, err := cql.ParseFile("s.cql", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			rep, err := lint.Run(lint.Input{Keyspace: "app", Writes: writes,
				Files: []lint.File{{Name: "s.cql", Source: []byte(tc.src), Statements: stmts}}}, lint.Config{})
			if err != nil {
				t.Fatal(err)
			}
			var got []lint.Diagnostic
			for _, d := range rep.Diagnostics {
				if d.Code == "BK101" {
					got = append(got, d)
				}
			}
			if len(got) != tc.want {
				t.Errorf("want %d BK101, got %v", tc.want, got)
			}
		})
	}
}

// TestBK101CounterNamedEpoch: a counter counts, it never holds a moment, whatever its name;
// a counter table is a time series only when a time-typed clustering column orders it.
func TestBK101CounterNamedEpoch(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"CREATE TABLE IF NOT EXISTS gens (topic text, epoch counter, PRIMARY KEY (topic));\n", ""},
		{"CREATE TABLE IF NOT EXISTS gens (topic text, part int, epoch counter, PRIMARY KEY (topic, part));\n", ""},
		{"CREATE TABLE IF NOT EXISTS hits (page text, at timestamp, n counter, PRIMARY KEY (page, at));\n", "clustered by event time at (timestamp)"},
	} {
		ds := bk101(t, tc.src, nil)
		switch {
		case tc.want == "" && len(ds) != 0:
			t.Errorf("%s: BK101 fired: %v", tc.src, ds)
		case tc.want != "" && (len(ds) != 1 || !strings.Contains(ds[0].Message, tc.want)):
			t.Errorf("%s: want one BK101 with %q, got %v", tc.src, tc.want, ds)
		}
	}
}
