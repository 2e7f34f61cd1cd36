package workloadflag

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/sizing"
	"github.com/cqlsize/cqlsize/workload"
)

// exampleCQL holds the shapes FuzzFlags estimates: a partition key bucket, a collection, a
// map, a single-row table.
const exampleCQL = `
CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
CREATE TABLE app.posts_by_user (user_id uuid, month text, post_id timeuuid, title text, content text, likes int,
	PRIMARY KEY ((user_id, month), post_id)) WITH CLUSTERING ORDER BY (post_id DESC);
CREATE TABLE app.posts_by_hashtag (hashtag text, day date, post_id timeuuid, user_id uuid, content text,
	PRIMARY KEY ((hashtag, day), post_id)) WITH CLUSTERING ORDER BY (post_id DESC);
CREATE TABLE app.posts_by_id (post_id timeuuid PRIMARY KEY, user_id uuid, content text, hashtags set<text>, created_at timestamp);
CREATE TABLE app.sensor_readings (sensor_id uuid, day date, ts timestamp, value double, unit text,
	PRIMARY KEY ((sensor_id, day), ts)) WITH CLUSTERING ORDER BY (ts DESC);
CREATE TABLE app.user_profiles (user_id uuid PRIMARY KEY, name text, emails set<text>, prefs map<text,text>);
CREATE TABLE app.inbox (user_id uuid, msg_id timeuuid, body text, labels set<text>, PRIMARY KEY (user_id, msg_id));
`

func TestFlagHelpers(t *testing.T) {
	if col, n, err := parseAvg("content=280"); err != nil || col != "content" || n != 280 {
		t.Errorf("ParseAvgFlag: %q %v %v", col, n, err)
	}
	for _, bad := range []string{"content", "=280", "content=big"} {
		if _, _, err := parseAvg(bad); err == nil {
			t.Errorf("parseAvg(%q): no error", bad)
		}
	}
	items := map[string]workload.Items{"tags=5": {Count: 5}, "tags=5x12": {Count: 5, Size: 12}, "tags=3x8:20": {Count: 3, KeySize: 8, Size: 20}}
	for in, want := range items {
		if _, got, err := parseItems(in); err != nil || got != want {
			t.Errorf("parseItems(%q) = %+v, %v", in, got, err)
		}
	}
	if col, f, err := parseNulls("0.1"); err != nil || col != "*" || f != 0.1 {
		t.Errorf("parseNulls(0.1) = %q %v %v", col, f, err)
	}
	dels := map[string]workload.Delete{
		"row:5/day":                       {Kind: workload.DeleteRow, Rate: workload.Rate{Count: 5, Per: workload.Day}, Rows: 1},
		"partition:0.01":                  {Kind: workload.DeletePartition, PerPartition: 0.01, Rows: 1},
		"range:2/day:50":                  {Kind: workload.DeleteRange, Rate: workload.Rate{Count: 2, Per: workload.Day}, Rows: 50},
		"element:tags:1/day":              {Kind: workload.DeleteElement, Column: "tags", Rate: workload.Rate{Count: 1, Per: workload.Day}, Rows: 1},
		"kind=range,rate=2/day,rows=50":   {Kind: workload.DeleteRange, Rate: workload.Rate{Count: 2, Per: workload.Day}, Rows: 50},
		"kind=cell,column=a,per_day=3":    {Kind: workload.DeleteCell, Column: "a", Rate: workload.Rate{Count: 3, Per: workload.Day}, Rows: 1},
		"kind=row,per_partition=100":      {Kind: workload.DeleteRow, PerPartition: 100, Rows: 1},
		"kind=element,column=t,rate=1/1h": {Kind: workload.DeleteElement, Column: "t", Rate: workload.Rate{Count: 1, Per: time.Hour}, Rows: 1},
	}
	for in, want := range dels {
		if got, err := parseDelete(in); err != nil || got != want {
			t.Errorf("parseDelete(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"row", "rows:5", "element:1/day", "range:1:2:3", "kind=row", "rate=1/day", "kind=row,color=red,rate=1/day"} {
		if _, err := parseDelete(bad); err == nil {
			t.Errorf("parseDelete(%q): no error", bad)
		}
	}

	w, err := FromPairs("posts_by_user", "rows=50000", "avg.content=280", "items.tags=5x12", "nulls=0.1", "nulls.title=0.5", "ttl=30d", "skew=zipf:1.1", "delete=row:1/day", "partitions=1M")
	if err != nil {
		t.Fatal(err)
	}
	if w.RowsPerPartition != 50000 || w.Avg["content"] != 280 || w.Items["tags"].Size != 12 || w.Nulls["*"] != 0.1 || w.Nulls["title"] != 0.5 ||
		*w.TTL != 30*workload.Day || w.Skew.S != 1.1 || len(w.Deletes) != 1 || w.Partitions != 1e6 {
		t.Errorf("WorkloadFromPairs: %+v", w)
	}
	if _, err := FromPairs("t", "avg.content=280"); err == nil || !strings.Contains(err.Error(), "declare rows_per_partition") {
		t.Errorf("no rows: %v", err)
	}
	if _, err := FromPairs("t", "rows=5", "colour=red", "rows"); err == nil ||
		!strings.Contains(err.Error(), `unknown workload field "colour"`) || !strings.Contains(err.Error(), `"rows": want field=value`) {
		t.Errorf("bad pairs: %v", err)
	}
	if _, err := FromPairs("t", "rows=0"); err != nil {
		t.Errorf("rows=0 (a static-only table) is valid: %v", err)
	}
}

// TestWorkloadBounds: every field past its bound is refused with a message naming the field
// and the bound, from flags (FromPairs) and from a file (ParseWorkload, with the
// line), and the bound itself is accepted.
func TestWorkloadBounds(t *testing.T) {
	for _, tc := range []struct {
		pair, want string // want: the field and the bound in the message
		yaml       string // the same in a file ("" when the pair has no one-line form)
		ok         string // a pair at the bound, accepted
	}{
		{"partitions=1.1e15", "partitions: 1.1e+15 partition keys is over the bound of 1e+15", "partitions: 1.1e15", "partitions=1e15"},
		{"rows=2e12", "rows_per_partition: 2e+12 rows is over the bound of 1e+12", "rows_per_partition: 2e12", "rows=1e12"},
		{"rate=1e15/s", "write_rate: 1e+15/s is over the bound of 1e+09 a second", "write_rate: 1e15/s", "rate=1e9/s"},
		{"rate=2000/us", "write_rate: 2000/1µs (2e+09 a second) is over the bound of 1e+09", "write_rate: 2000/us", "rate=1000/us"},
		{"delete=row:1e15/second", "deletes[0].rate: 1e+15/s is over the bound of 1e+09 deletes a second", "deletes: [{kind: row, rate: 1e15/s}]", "delete=row:1e9/s"},
		{"delete=row:2e12", "deletes[0].per_partition: 2e+12 is over the bound of 1e+12", "deletes: [{kind: row, per_partition: 2e12}]", "delete=row:1e12"},
		{"delete=range:1/day:2e12", "deletes[0].rows: 2e+12 rows is over the bound of 1e+12", "deletes: [{kind: range, rate: 1/day, rows: 2e12}]", "delete=range:1/day:1e12"},
		{"overwrites=tags=1e10/s", "overwrites.tags: 10000000000/s is over the bound of 1e+09 a second", "overwrites: {tags: 1e10/s}", "overwrites=tags=1e9/s"},
		{"avg=body=3e9", "avg.body: 3e+09 bytes is over the bound of 2 GiB", "avg: {body: 3e9}", "avg=body=2147483648"},
		{"items=tags=3e9", "items.tags: 3e+09 elements is over the bound of 2 billion", "items: {tags: 3e9}", "items=tags=2e9"},
		{"items=tags=5x3e9", "items.tags: element size 3e+09 bytes is over the bound of 2 GiB", "items: {tags: {count: 5, size: 3e9}}", "items=tags=5x2147483648"},
	} {
		base := "rows=10"
		if strings.HasPrefix(tc.pair, "rows=") || strings.HasPrefix(tc.pair, "rate=") {
			base = ""
		}
		pairs := func(p string) []string {
			if base == "" {
				return []string{p}
			}
			return []string{base, p}
		}
		_, err := FromPairs("inbox", pairs(tc.pair)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.pair, err, tc.want)
		}
		if _, err := FromPairs("inbox", pairs(tc.ok)...); err != nil {
			t.Errorf("%s, at the bound: %v", tc.ok, err)
		}
		doc := "tables:\n  inbox:\n    " + tc.yaml + "\n"
		if base != "" {
			doc += "    rows: 10\n"
		}
		_, err = workload.Parse("w.yaml", []byte(doc))
		if err == nil || !strings.Contains(err.Error(), "w.yaml:3:") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("file with %s: error %v, want w.yaml:3: and %q", tc.yaml, err, tc.want)
		}
	}
}

// flagFields are the workload fields the estimate's flags set, through TableWorkload.Set.
var flagFields = []string{
	"rows", "rate", "bucket", "partitions", "ttl", "skew", "nulls", "nulls_as", "writes", "horizon",
	"write_spread", "avg", "items", "delete", "overwrites", "max_rate",
}

// FuzzFlags drives the flag parsers as `cqlsize estimate --table` does: four settings through
// Set, Check, then the estimate of one of the example tables (a partition key
// bucket, a collection, a map, a single-row table). Each value also goes through every parser
// on its own. Nothing may panic or hang; whatever a parser accepts is finite and in range,
// and a workload Check accepts estimates to finite, non-negative sizes (checkFinite; sizing's
// FuzzWorkload walks every field of the estimate).
func FuzzFlags(f *testing.F) {
	for _, s := range []struct {
		f1       uint8
		v1       string
		f2       uint8
		v2       string
		f3       uint8
		v3       string
		f4       uint8
		v4       string
		tableSel uint8
	}{
		{1, "1e15/second", 13, "row:1e15/second", 0, "", 0, "", 0},
		{1, "1e9/s", 13, "row:1e9/s", 6, "0.5", 12, "labels=2e9x2147483648", 5},
		{3, "1e15", 5, "zipf:3", 1, "1e6/second", 11, "content=200", 1},
		{0, "1e12", 13, "range:1e12:1e12", 4, "1s", 9, "290y", 5},
		{1, "1/ns", 2, "minute", 10, "1000y", 14, "emails=1e9/s", 4},
		{1, "50/day", 2, "month", 3, "2M", 11, "content=280", 0},
		{0, "2000", 13, "kind=range,rate=2/day,rows=50", 6, "title=0.3", 7, "null", 0},
		{1, "3/hour", 13, "element:labels:1/day", 12, "labels=3x8:20", 8, "update", 5},
		{0, "1", 4, "630720000", 13, "partition:0.5", 12, "prefs=3x8:20", 4},
	} {
		f.Add(s.f1, s.v1, s.f2, s.v2, s.f3, s.v3, s.f4, s.v4, s.tableSel)
	}
	schema, err := cql.LoadSchemaFS(fstest.MapFS{"0001_schema.cql": {Data: []byte(exampleCQL)}}, ".")
	if err != nil {
		f.Fatal(err)
	}
	tables := schema.Tables()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, f1 uint8, v1 string, f2 uint8, v2 string, f3 uint8, v3 string, f4 uint8, v4 string, tableSel uint8) {
		defer deadline(t, fmt.Sprintf("%d %q %d %q %d %q %d %q %d", f1, v1, f2, v2, f3, v3, f4, v4, tableSel))()
		tbl := tables[int(tableSel)%len(tables)]
		tw := &workload.TableWorkload{Name: tbl.Name}
		for _, fv := range []struct {
			f uint8
			v string
		}{{f1, v1}, {f2, v2}, {f3, v3}, {f4, v4}} {
			checkParsers(t, fv.v)
			_ = Set(tw, flagFields[int(fv.f)%len(flagFields)], fv.v)
		}
		if errs := tw.Check(); len(errs) > 0 {
			return
		}
		e, err := sizing.EstimateTable(tbl, tw, sizing.Options{Now: now, Schema: schema})
		if err != nil {
			return
		}
		checkFinite(t, e)
	})
}

// checkParsers runs s through every parser a flag uses and fails t on an accepted value out
// of range.
func checkParsers(t *testing.T, s string) {
	t.Helper()
	finite := func(what string, v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			t.Errorf("%s(%q) = %v", what, s, v)
		}
	}
	if v, err := workload.ParseCount(s); err == nil {
		finite("ParseCount", v)
	}
	if v, err := workload.ParseFraction(s); err == nil && !(v >= 0 && v <= 1) {
		t.Errorf("ParseFraction(%q) = %v", s, v)
	}
	if d, err := workload.ParseDuration(s); err == nil && d < 0 {
		t.Errorf("ParseDuration(%q) = %v", s, d)
	}
	if r, err := workload.ParseRate(s); err == nil {
		finite("ParseRate count", r.Count)
		if r.Per <= 0 {
			t.Errorf("ParseRate(%q) per %v", s, r.Per)
		}
		_ = r.String()
	}
	if w, err := workload.ParseSpan(s); err == nil && (w.Avg <= 0 || w.Max < w.Avg) {
		t.Errorf("ParseSpan(%q) = %+v", s, w)
	}
	if _, n, err := parseAvg(s); err == nil {
		finite("parseAvg", n)
	}
	if _, it, err := parseItems(s); err == nil {
		finite("parseItems count", it.Count)
		finite("parseItems size", it.Size)
		finite("parseItems key", it.KeySize)
	}
	if _, v, err := parseNulls(s); err == nil && !(v >= 0 && v <= 1) {
		t.Errorf("parseNulls(%q) = %v", s, v)
	}
	if d, err := parseDelete(s); err == nil {
		finite("parseDelete rows", d.Rows)
		finite("parseDelete per partition", d.PerPartition)
		finite("parseDelete rate", d.Rate.Count)
		if d.Rate.Per < 0 {
			t.Errorf("parseDelete(%q) per %v", s, d.Rate.Per)
		}
	}
}

// checkFinite fails t when an estimate's headline sizes are not finite and non-negative.
func checkFinite(t *testing.T, e *sizing.Estimate) {
	t.Helper()
	for name, v := range map[string]float64{
		"Keys": e.Keys, "Partitions": e.Partitions, "TotalBytes": e.TotalBytes,
		"Typical.Bytes": e.Typical.Bytes, "Largest.Bytes": e.Largest.Bytes, "Largest.Rows": e.Largest.Rows,
		"Largest.StoredValues": e.Largest.StoredValues, "Largest.Cells": e.Largest.Cells,
	} {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			t.Errorf("%s: %s = %v", e.Table, name, v)
		}
	}
	for _, f := range e.Findings {
		if msg := f.String(); strings.Contains(msg, "NaN") || strings.Contains(msg, "%!") {
			t.Errorf("%s: finding %s", e.Table, msg)
		}
	}
}

// deadline makes a hang a failure: go test -fuzz has no limit on one input. On expiry the
// process exits with the input, since the stuck goroutine cannot be stopped.
func deadline(t *testing.T, input string) (stop func()) {
	timer := time.AfterFunc(10*time.Second, func() {
		fmt.Fprintf(os.Stderr, "HANG: %s did not return within 10s on %s\n", t.Name(), input)
		os.Exit(3)
	})
	return func() { timer.Stop() }
}

// TestMaxRateFlag: --max-rate sets the skew's cap whichever of --skew and --max-rate comes
// first, and a rate it cannot read is refused naming the field.
func TestMaxRateFlag(t *testing.T) {
	for _, order := range [][]string{{"skew=zipf:1.1", "max_rate=10/s"}, {"max_rate=10/s", "skew=zipf:1.1"}} {
		w, err := FromPairs("messages", append([]string{"rate=200/day", "partitions=1M"}, order...)...)
		if err != nil {
			t.Fatal(err)
		}
		if w.Skew.Kind != workload.Zipf || w.Skew.MaxRate != (workload.Rate{Count: 10, Per: time.Second}) {
			t.Errorf("%v: skew %+v", order, w.Skew)
		}
	}
	if _, err := FromPairs("messages", "rows=5", "max_rate=10/s"); err == nil || !strings.Contains(err.Error(), "skew.max_rate caps a key's write_rate") {
		t.Errorf("max_rate with rows: %v", err)
	}
	if _, err := FromPairs("messages", "rate=1/s", "max_rate=fast"); err == nil || !strings.Contains(err.Error(), `max_rate "fast"`) {
		t.Errorf("bad max_rate: %v", err)
	}
}
