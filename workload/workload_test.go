package workload

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/cql"
)

func TestLoadExampleWorkload(t *testing.T) {
	w, err := Load("testdata/workload-example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Validate(exampleSchema(t)); err != nil {
		t.Fatalf("the example does not validate against its schema:\n%v", err)
	}
	if len(w.Tables) != 6 {
		t.Fatalf("tables: %d, want 6", len(w.Tables))
	}
	pbu := w.Table("posts_by_user")
	if pbu == nil || w.Table("app.posts_by_user") != pbu {
		t.Fatal("Table lookup by bare and qualified name failed")
	}
	if pbu.Partitions != 2e6 || pbu.WriteRate != (Rate{3, Day}) || pbu.Bucket.Name != "month" || pbu.Bucket.Max != 31*Day {
		t.Errorf("posts_by_user: partitions %v, rate %v, bucket %+v", pbu.Partitions, pbu.WriteRate, pbu.Bucket)
	}
	if pbu.Avg["content"] != 280 || pbu.Nulls["title"] != 0.3 || pbu.Nulls["*"] != 0.05 {
		t.Errorf("posts_by_user avg %v nulls %v", pbu.Avg, pbu.Nulls)
	}
	if w.Table("posts_by_hashtag").Skew != (Skew{Kind: Zipf, S: 1.1}) || pbu.Skew != (Skew{}) || pbu.WriteSpread != time.Hour || pbu.NullsAs != NullTombstone {
		t.Errorf("posts_by_user skew %v spread %v nulls_as %v (defaults must apply)", pbu.Skew, pbu.WriteSpread, pbu.NullsAs)
	}
	if p := pbu.FieldPos("avg.content"); p.Line != 29 || p.Col != 7 || p.File != "testdata/workload-example.yaml" {
		t.Errorf("avg.content written at %v, want line 29 col 7", p)
	}
	if got := w.Table("posts_by_id").Items["hashtags"]; got != (Items{Count: 3, Size: 12}) {
		t.Errorf("hashtags items %+v", got)
	}
	if ttl := w.Table("sensor_readings").TTL; ttl == nil || *ttl != 30*Day {
		t.Errorf("sensor_readings ttl %v", ttl)
	}
	up := w.Table("user_profiles")
	if up.Items["prefs"] != (Items{Count: 10, KeySize: 12, Size: 20}) || up.Items["emails"] != (Items{Count: 2, Size: 24}) || up.Overwrites["prefs"] != (Rate{1, Day}) {
		t.Errorf("user_profiles items %+v overwrites %v", up.Items, up.Overwrites)
	}
	if got := up.ElementWrites; len(got) != 1 || got["emails"] != 1 {
		t.Errorf("user_profiles element_writes %v, want emails written element by element only (1)", got)
	}
	in := w.Table("inbox")
	want := []Delete{
		{Kind: DeleteRow, Rate: Rate{5, Day}, Rows: 1},
		{Kind: DeleteRange, PerPartition: 2, Rows: 500, At: "oldest"},
		{Kind: DeleteElement, Rate: Rate{1, Day}, Rows: 1, Column: "labels"},
	}
	if len(in.Deletes) != len(want) {
		t.Fatalf("inbox deletes %+v", in.Deletes)
	}
	for i := range want {
		got := in.Deletes[i]
		got.Pos = cql.Pos{}
		if got != want[i] {
			t.Errorf("inbox delete %d = %+v, want %+v", i, got, want[i])
		}
	}
	if in.Horizon != 2*Year {
		t.Errorf("inbox horizon %v", in.Horizon)
	}
}

// Every problem names the file, line and column of the field at fault.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       []string
	}{
		{"syntax", "tables:\n  a: [1,\n", []string{"w.yaml:2:1: read workload YAML"}},
		{"empty", "", []string{"w.yaml:1:1: workload is empty"}},
		{"not a mapping", "- 1\n", []string{"w.yaml:1:1: workload: want a mapping"}},
		{"no tables", "version: 1\n", []string{"w.yaml:1:1: workload has no `tables:` mapping"}},
		{"bad version", "version: 2\ntables: {}\n", []string{"w.yaml:1:10: version: this cqlsize reads workload version 1"}},
		{"unknown top", "tabels: {}\n", []string{`w.yaml:1:1: unknown field "tabels"`}},
		{"unknown field", "tables:\n  t:\n    rows: 5\n    row_size: 100\n", []string{`w.yaml:4:5: t: unknown field "row_size"`}},
		{"negative", "tables:\n  t:\n    rows: -5\n", []string{"w.yaml:3:11: t.rows: want a number of zero or more"}},
		{"not a number", "tables:\n  t:\n    rows: many\n", []string{`w.yaml:3:11: t.rows: want a number such as 50000`}},
		{"no rows", "tables:\n  t:\n    partitions: 5\n", []string{"w.yaml:2:3: table t: declare rows_per_partition"}},
		{"rows and rate", "tables:\n  t:\n    rows: 5\n    write_rate: 5/day\n", []string{"w.yaml:4:17: table t: declare rows_per_partition or write_rate, not both"}},
		{"bad rate", "tables:\n  t:\n    write_rate: 5/fortnight\n", []string{`w.yaml:3:17: t.write_rate: want a rate such as 50/day`}},
		{"bad bucket", "tables:\n  t:\n    rows: 1\n    bucket: decade\n", []string{`w.yaml:4:13: t.bucket: bucket: invalid width "decade"`}},
		{"bad fraction", "tables:\n  t:\n    rows: 1\n    nulls: {a: 1.5}\n", []string{"w.yaml:4:16: t.nulls.a: want a fraction from 0 to 1"}},
		{"ttl_mix not a mapping", "tables:\n  t:\n    rows: 1\n    ttl_mix: 1h\n", []string{"w.yaml:4:14: t.ttl_mix: want a mapping from TTL to the share of rows"}},
		{"ttl_mix bad share", "tables:\n  t:\n    rows: 1\n    ttl_mix: {1h: 2}\n", []string{"w.yaml:4:19: t.ttl_mix.1h: want a fraction from 0 to 1"}},
		{"ttl_mix bad ttl", "tables:\n  t:\n    rows: 1\n    ttl_mix: {soon: 0.5}\n", []string{"w.yaml:4:15: t.ttl_mix: "}},
		{"duplicate", "tables:\n  t:\n    rows: 1\n    rows: 2\n", []string{`w.yaml:4:5: t: "rows" is given twice (first at line 3)`}},
		{"bad skew", "tables:\n  t:\n    rows: 1\n    skew: {zipf: -1}\n", []string{"w.yaml:4:18: t.skew: want a Zipf exponent above 0"}},
		{"bad delete kind", "tables:\n  t:\n    rows: 1\n    deletes: {kind: rows, rate: 1/day}\n", []string{`w.yaml:4:21: t.deletes[0].kind: want one of partition, row, range, cell, element, got "rows"`}},
		{"bad delete placement", "tables:\n  t:\n    rows: 1\n    deletes: {kind: row, rate: 1/day, at: front}\n", []string{`w.yaml:4:43: t.deletes[0].at: want one of spread, head, tail, oldest, newest, got "front"`}},
		{"delete without amount", "tables:\n  t:\n    rows: 1\n    deletes:\n      - kind: row\n", []string{"w.yaml:5:9: t.deletes[0]: want rate"}},
		{"element without column", "tables:\n  t:\n    rows: 1\n    deletes: [{kind: element, per_day: 1}]\n", []string{"table t: deletes[0]: a element delete needs column"}},
		{"huge ttl", "tables:\n  t:\n    rows: 1\n    ttl: 30y\n", []string{"w.yaml:4:10: table t: ttl: Cassandra's maximum TTL is 20 years"}},
		{"items without count", "tables:\n  t:\n    rows: 1\n    items: {tags: {size: 3}}\n", []string{"w.yaml:4:19: t.items.tags: want count"}},
		{"max_rate without a rate", "tables:\n  t:\n    rows: 1\n    skew: {zipf: 1.1, max_rate: 10/s}\n", []string{"w.yaml:4:33: table t: skew.max_rate caps a key's write_rate"}},
		{"bad max_rate", "tables:\n  t:\n    write_rate: 1/day\n    skew: {zipf: 1.1, max_rate: fast}\n", []string{`w.yaml:4:33: t.skew.max_rate: want a rate such as 50/day`}},
		{"zero max_rate", "tables:\n  t:\n    write_rate: 1/day\n    skew: {max_rate: 0/s}\n", []string{"w.yaml:4:22: table t: skew.max_rate: want a rate above zero"}},
		{"unknown skew field", "tables:\n  t:\n    write_rate: 1/day\n    skew: {zipf: 1.1, cap: 3}\n", []string{`w.yaml:4:23: t.skew: unknown field "cap" (want zipf, max_rate)`}},
		{"element share above 1", "tables:\n  t:\n    rows: 1\n    element_writes: {tags: 1.5}\n", []string{"w.yaml:4:28: t.element_writes.tags: want the share of its elements written element by element, above 0 and at most 1, got 1.5"}},
		{"element share zero", "tables:\n  t:\n    rows: 1\n    element_writes: {tags: 0}\n", []string{"w.yaml:4:28: t.element_writes.tags: want the share"}},
		{"element_writes scalar", "tables:\n  t:\n    rows: 1\n    element_writes: tags\n", []string{"w.yaml:4:21: t.element_writes: want a list of non-frozen collection columns ([reactions]) or each one's share"}},
		{"two problems", "tables:\n  a:\n    rows: x\n  b:\n    rows: y\n", []string{"w.yaml:3:11: a.rows", "w.yaml:5:11: b.rows"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("w.yaml", []byte(tc.yaml))
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error:\n%v\nwant it to contain %q", err, want)
				}
			}
			var ce *cql.Error
			if !errors.As(err, &ce) || !ce.Pos.IsValid() {
				t.Errorf("error %v carries no *cql.Error with a position", err)
			}
		})
	}
}

func TestValidateAgainstSchema(t *testing.T) {
	schema := exampleSchema(t)
	src := `tables:
  posts_by_user:
    rows: 10
    avg: {contnet: 280, likes: 4}
    nulls: {post_id: 0.5}
  nope:
    rows: 1
  posts_by_id:
    rows: 1
    items: {content: 3}
    overwrites: {user_id: 1/day}
    deletes: {kind: row, per_partition: 1}
  inbox:
    rows: 1
    deletes: [{kind: element, column: body, per_day: 1}]
    element_writes: [body]
`
	w, err := Parse("w.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	err = w.Validate(schema)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		`w.yaml:4:11: table posts_by_user: avg.contnet: no column "contnet" in app.posts_by_user`,
		"w.yaml:4:25: table posts_by_user: avg.likes: likes is int, always 4 bytes",
		"w.yaml:5:13: table posts_by_user: nulls.post_id: post_id is part of the primary key",
		"w.yaml:6:3: table nope is not in the schema (it has app.inbox, app.posts_by_hashtag, app.posts_by_id",
		"w.yaml:10:13: table posts_by_id: items.content: content is text, not a list, set or map",
		"w.yaml:11:18: table posts_by_id: overwrites.user_id: user_id is uuid",
		"w.yaml:12:21: table posts_by_id: deletes[0]: app.posts_by_id has no clustering columns",
		"table inbox: deletes[0]: body is text; element deletes apply to non-frozen collections",
		"w.yaml:16:22: table inbox: element_writes.body: body is text; only a non-frozen collection or UDT is written element by element",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("errors:\n%v\nwant one containing %q", err, want)
		}
	}
}

func TestQuantities(t *testing.T) {
	counts := map[string]float64{"2000000": 2e6, "2_000_000": 2e6, "2M": 2e6, "1.5k": 1500, "3B": 3e9, "2e6": 2e6, "0": 0}
	for in, want := range counts {
		if got, err := ParseCount(in); err != nil || got != want {
			t.Errorf("ParseCount(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "-1", "lots", "NaN", "1e999"} {
		if _, err := ParseCount(bad); err == nil {
			t.Errorf("ParseCount(%q): no error", bad)
		}
	}
	durs := map[string]time.Duration{"90s": 90 * time.Second, "86400": Day, "30d": 30 * Day, "2w": 2 * Week, "1h30m": 90 * time.Minute, "6 months": 6 * Month, "1y": Year}
	for in, want := range durs {
		if got, err := ParseDuration(in); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "-5s", "5 fortnights", "d"} {
		if _, err := ParseDuration(bad); err == nil {
			t.Errorf("ParseDuration(%q): no error", bad)
		}
	}
	rates := map[string]Rate{"50/day": {50, Day}, "3/hour": {3, time.Hour}, "1000/s": {1000, time.Second}, "2/iso-week": {2, Week}, "10/6h": {10, 6 * time.Hour}, "1.5k/min": {1500, time.Minute}}
	for in, want := range rates {
		if got, err := ParseRate(in); err != nil || got != want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"50", "x/day", "5/fortnight", "-1/day"} {
		if _, err := ParseRate(bad); err == nil {
			t.Errorf("ParseRate(%q): no error", bad)
		}
	}
	widths := map[string]time.Duration{"day": Day, "iso-week": Week, "month": 31 * Day, "6h": 6 * time.Hour, "15m": 15 * time.Minute}
	for in, want := range widths {
		if got, err := ParseSpan(in); err != nil || got.Max != want {
			t.Errorf("ParseSpan(%q) = %+v, %v; want max %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"decade", "0h", "h", "", "1.5s"} {
		if _, err := ParseSpan(bad); err == nil {
			t.Errorf("ParseSpan(%q): no error", bad)
		}
	}
	if r := (Rate{50, Day}); r.String() != "50/day" || r.Over(Week) != 350 {
		t.Errorf("Rate: %s over a week %v", r, r.Over(Week))
	}
}

// exampleSchema is the schema testdata/workload-example.yaml describes.
func exampleSchema(t *testing.T) *cql.Schema {
	t.Helper()
	s, err := cql.LoadSchema("testdata/workload-example.cql")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestBucketNone: bucket: none says the key holds no bucket, whatever its columns are named.
func TestBucketNone(t *testing.T) {
	w, err := Parse("w.yaml", []byte("version: 1\ntables:\n  t:\n    partitions: 10\n    write_rate: 1/day\n    bucket: none\n"))
	if err != nil {
		t.Fatal(err)
	}
	if tw := w.Tables[0]; !tw.NoBucket || !tw.Bucket.IsZero() {
		t.Errorf("bucket: none read as %+v, NoBucket %v", tw.Bucket, tw.NoBucket)
	}
}
