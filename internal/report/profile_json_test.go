package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/internal/report"
	"github.com/cqlsize/cqlsize/profile"
)

// The contract tests hold `cqlsize profile --format json` to docs/profile-json.md both ways:
// every key the JSON has is documented in the section of the object it sits in, with the
// type the document gives and, unless the document marks it optional, in every such object;
// and every key the document describes appears in some rendered profile.

// profileSection names the document's section describing the JSON object at path (array
// elements as [], a column's UDT fields as fields.*), or "" when none should.
func profileSection(path string) string {
	switch path {
	case "":
		return "Top level"
	case "tables[]":
		return "Table"
	case "tables[].columns[]":
		return "Column"
	case "tables[].skew":
		return "skew"
	case "tables[].keys":
		return "keys"
	case "tables[].tombstones":
		return "tombstones"
	case "tables[].ttls[]":
		return "A TTL population"
	case "tables[].disk":
		return "disk"
	case "tables[].growth":
		return "growth"
	case "tables[].growth.partitions[]":
		return "A growth partition"
	case "tables[].growth.partitions[].crossings[]":
		return "A crossing"
	case "tables[].growth.partitions[].at_bucket_end":
		return "at_bucket_end"
	}
	for _, d := range []string{"tables[].rows_per_partition", "tables[].partition_value_bytes", "tables[].row_value_bytes",
		"tables[].ttl_seconds", "tables[].write_spread_seconds", "tables[].columns[].size", "tables[].columns[].items",
		"tables[].columns[].item_size", "tables[].columns[].key_size", "tables[].columns[].fields.*",
		"tables[].disk.partition_uncompressed_bytes", "tables[].disk.partition_compressed_bytes", "tables[].keys.closed_rows_per_partition"} {
		if path == d {
			return "A distribution"
		}
	}
	return ""
}

// docKey is one row of a section's table: the type (its first word: string, integer, number,
// boolean, array or object) and whether the key may be absent.
type docKey struct {
	typ      string
	optional bool
}

var (
	docHeading = regexp.MustCompile(`^#{2,3} (.+)$`)
	docTick    = regexp.MustCompile("`([^`]+)`")
)

// profileDoc reads docs/profile-json.md into its sections' keys.
func profileDoc(t *testing.T) map[string]map[string]docKey {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "profile-json.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := map[string]map[string]docKey{}
	section := ""
	for i, line := range strings.Split(string(b), "\n") {
		if m := docHeading.FindStringSubmatch(line); m != nil {
			section = strings.Trim(m[1], "` ")
			continue
		}
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) < 4 {
			t.Fatalf("docs/profile-json.md:%d: a key row needs key, type and meaning: %q", i+1, line)
		}
		typ := strings.Fields(strings.TrimSpace(cells[2]))
		if len(typ) == 0 {
			t.Fatalf("docs/profile-json.md:%d: no type: %q", i+1, line)
		}
		k := docKey{typ: strings.TrimRight(typ[0], ","), optional: strings.Contains(cells[2], "optional")}
		if doc[section] == nil {
			doc[section] = map[string]docKey{}
		}
		for _, m := range docTick.FindAllStringSubmatch(cells[1], -1) {
			doc[section][m[1]] = k
		}
	}
	return doc
}

// checkProfileJSON renders r and checks it against doc; seen collects, per section, the keys
// the JSON had.
func checkProfileJSON(t *testing.T, doc map[string]map[string]docKey, r *profile.Result, seen map[string]map[string]bool) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := report.WriteProfileJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(b.Bytes(), &v); err != nil {
		t.Fatalf("the JSON does not parse: %v\n%s", err, b.String())
	}
	if v["version"] != float64(report.ProfileVersion) || v["kind"] != "profile" {
		t.Errorf("version %v, kind %v: want %d and profile", v["version"], v["kind"], report.ProfileVersion)
	}
	if bytes.Contains(b.Bytes(), []byte(": null")) {
		t.Errorf("the JSON has a null; lists are [] when empty and optional fields are left out")
	}
	if bytes.Contains(b.Bytes(), []byte("0001-01-01")) {
		t.Errorf("the JSON has a zero time; a time not known is left out")
	}
	var problems []string
	walkProfileJSON(v, "", doc, seen, &problems)
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
	return b.Bytes()
}

// namedMaps are the objects keyed by name rather than by documented keys: a column's UDT
// fields, each a distribution.
var namedMaps = map[string]bool{"tables[].columns[].fields": true}

func walkProfileJSON(v any, path string, doc map[string]map[string]docKey, seen map[string]map[string]bool, problems *[]string) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			walkProfileJSON(e, path+"[]", doc, seen, problems)
		}
	case map[string]any:
		if namedMaps[path] {
			for _, e := range x {
				walkProfileJSON(e, path+".*", doc, seen, problems)
			}
			return
		}
		sec := profileSection(path)
		keys := doc[sec]
		if sec == "" || keys == nil {
			*problems = append(*problems, fmt.Sprintf("docs/profile-json.md has no section for the object at %q (section %q)", path, sec))
			return
		}
		if seen[sec] == nil {
			seen[sec] = map[string]bool{}
		}
		for k, dk := range keys {
			if _, ok := x[k]; !ok && !dk.optional {
				*problems = append(*problems, fmt.Sprintf("%s: key %q is missing but the section %q does not mark it optional", path, k, sec))
			}
		}
		for k, e := range x {
			dk, ok := keys[k]
			if !ok {
				*problems = append(*problems, fmt.Sprintf("%s: key %q is not documented in section %q of docs/profile-json.md", path, k, sec))
				continue
			}
			seen[sec][k] = true
			if !typeMatches(dk.typ, e) {
				*problems = append(*problems, fmt.Sprintf("%s.%s = %v (%T): the document says %s", path, k, e, e, dk.typ))
			}
			child := path + "." + k
			if path == "" {
				child = k
			}
			walkProfileJSON(e, child, doc, seen, problems)
		}
	}
}

func typeMatches(typ string, v any) bool {
	switch typ {
	case "string":
		_, ok := v.(string)
		return ok
	case "integer":
		f, ok := v.(float64)
		return ok && f == math.Trunc(f)
	case "number":
		_, ok := v.(float64)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "object", "distribution":
		_, ok := v.(map[string]any)
		return ok
	}
	return false
}

// profileFixtures are the results the pure test renders, together carrying every field the
// JSON can have: a partial run with a --rate; a skewed unbucketed table with a map, a set, a
// UDT and a TTL whose largest partition crosses both limits on dated days; a daily-bucketed
// table with no write rate measured; a table that failed part-way, with no disk prediction.
func profileFixtures(t *testing.T) []*profile.Result {
	now := time.Date(2026, 11, 23, 17, 0, 0, 0, time.UTC)
	dist := func(n int, mean, p50, p99, max float64) profile.Dist {
		return profile.Dist{N: n, Mean: mean, Std: mean / 2, Min: 1, P50: p50, P99: p99, Max: max}
	}
	d := func(n int, mean float64) *profile.Dist { x := dist(n, mean, mean, 2*mean, 3*mean); return &x }
	inbox := &profile.Table{Keyspace: "app", Name: "inbox",
		PartitionsSeen: 1000, RowsSeen: 41200,
		RowsPerPartition: dist(1000, 41.2, 12, 610, 3100), PartitionBytes: dist(1000, 9800, 2900, 145000, 737000),
		RowBytes: dist(41200, 237.5, 230, 410, 900),
		Columns: []*profile.Column{
			{Name: "user", Type: "uuid", Kind: "partition_key", Rows: 1000, Size: dist(1000, 16, 16, 16, 16)},
			{Name: "at", Type: "timeuuid", Kind: "clustering", Rows: 41200, Size: dist(41200, 16, 16, 16, 16)},
			{Name: "body", Type: "text", Kind: "regular", Rows: 41200, NullFraction: 0.02, Size: dist(40376, 180, 170, 390, 880), TTLRead: true},
			{Name: "tags", Type: "set<text>", Kind: "regular", Rows: 41200, NullFraction: 0.4, Size: dist(24720, 14, 12, 40, 80),
				Items: d(24720, 2.1), ItemSize: d(51912, 6.5)},
			{Name: "attrs", Type: "map<text, text>", Kind: "regular", Rows: 41200, NullFraction: 0.9, Size: dist(4120, 30, 28, 70, 120),
				Items: d(4120, 1.5), ItemSize: d(6180, 11), KeySize: d(6180, 6), ElementsChecked: 4120, ElementsApart: 0.85, ElementsOnlyApart: 0.8, ElementShareApart: 0.9},
			{Name: "sender", Type: "address", Kind: "regular", Rows: 41200, Size: dist(41200, 25, 25, 31, 40),
				Fields: map[string]profile.Dist{"street": dist(41200, 17, 17, 22, 30), "zip": dist(41200, 5, 5, 5, 5)}},
		},
		Partitions: 2.41e6, PartitionsSource: "extrapolated: 1000 partitions in 0.0415% of the token ring; system.size_estimates says 2380000",
		SizeEstimates: 2.38e6, SizeEstimatesNodes: 3, Extrapolated: 2.41e6, RingFraction: 0.000415,
		Skew:     profile.SkewFit{Kind: "zipf", S: 1.08, Fitted: 1.08, R2: 0.982, Points: 640, Note: "fitted on the 640 partitions of 2 rows or more"},
		MeanRows: 38.7, MeanRowsSource: "from the Zipf fit: the busiest of 2410000 keys 1.9e+05 rows × H(N,s)/N (the sample's own mean: 41.2)",
		TTL: dist(40376, 7.776e6, 7.776e6, 7.776e6, 7.776e6), TTLFraction: 0.98,
		TTLs:        []profile.TTLShare{{Seconds: 7776000, Cells: 39568, Share: 0.98}, {Seconds: 0, Cells: 808, Share: 0.02}},
		WriteSpread: dist(640, 5.2e6, 4.1e6, 2.9e7, 3.1e7), WriteRate: 2.3e-5,
		WriteRateSource: "WRITETIME over 640 partitions: rows after the first / the span of their write times",
		FirstWrite:      now.Add(-400 * 24 * time.Hour), LastWrite: now.Add(-time.Minute),
		Tombstones: profile.Tombstones{Warnings: []string{"Read 20 live rows and 1500 tombstone cells for query SELECT * FROM app.inbox ..."},
			WarnResponses: 3, Max: 1500, TracedReads: 8, TracedTombstones: 1800, TracedMax: 1500},
		Disk: profile.Disk{Predicted: true, Compressor: "LZ4Compressor", ChunkKB: 16, Ratio: 0.41, SamplePartitions: 1000,
			UncompressedPerPartition: 11400, PerPartition: 4674,
			PartitionUncompressed: dist(1000, 11400, 3400, 168000, 860000), PartitionCompressed: dist(1000, 4674, 1400, 69000, 350000),
			Uncompressed: 2.75e10, DataBytes: 1.13e10, Total: 1.19e10,
			Note: "scaled to 2.41e+06 partitions of 38.7 rows (the sample's partitions average 41.2 rows)"},
		Growth: profile.Growth{RowsPerSecond: 2.3e-5, BytesPerRow: 237.5, ValuesPerRow: 4,
			Partitions: []profile.GrowthPartition{
				{Which: "typical", Rows: 12, Bytes: 2866, Values: 48, RowsPerSecond: 7.1e-6, Crossings: []profile.GrowthCrossing{
					{Limit: "100 MB", Never: true}, {Limit: "100,000 values", Never: true}}},
				{Which: "p99", Rows: 610, Bytes: 144900, Values: 2440, RowsPerSecond: 3.6e-4, Crossings: []profile.GrowthCrossing{
					{Limit: "100 MB", Never: true},
					{Limit: "100,000 values", Seconds: 6.77e7, At: now.Add(time.Duration(6.77e7 * float64(time.Second)))}}},
				{Which: "largest", Rows: 3100, Bytes: 736300, Values: 12400, RowsPerSecond: 1.84e-3, Crossings: []profile.GrowthCrossing{
					{Limit: "100 MB", Seconds: 2.27e8, At: now.Add(time.Duration(2.27e8 * float64(time.Second)))},
					{Limit: "100,000 values", Seconds: 1.19e7, At: now.Add(time.Duration(1.19e7 * float64(time.Second)))}}},
			},
			Note: "no bucket bounds these partitions: they grow at the measured rate until deleted or expired; cells carry a TTL (median 2160h0m0s), so a partition levels off at about its rate × TTL"},
		Elapsed: 41.5,
	}
	readings := &profile.Table{Keyspace: "app", Name: "readings_by_day",
		PartitionsSeen: 300, RowsSeen: 432000, RowsPerPartition: dist(300, 1440, 1440, 1440, 1440),
		PartitionBytes: dist(300, 11532, 11532, 11532, 11532), RowBytes: dist(432000, 8, 8, 8, 8),
		Columns: []*profile.Column{
			{Name: "sensor", Type: "int", Kind: "partition_key", Rows: 300, Size: dist(300, 4, 4, 4, 4)},
			{Name: "day", Type: "date", Kind: "partition_key", Rows: 300, Size: dist(300, 4, 4, 4, 4)},
			{Name: "at", Type: "time", Kind: "clustering", Rows: 432000, Size: dist(432000, 8, 8, 8, 8)},
			{Name: "unit", Type: "text", Kind: "static", Rows: 300, NullFraction: 1, TTLRead: true},
			{Name: "v", Type: "double", Kind: "regular", Rows: 432000, Size: dist(432000, 8, 8, 8, 8), TTLRead: true},
		},
		Partitions: 300, PartitionsSource: "every partition read", SizeEstimates: 256, SizeEstimatesNodes: 1,
		Extrapolated: 300, RingFraction: 1, BucketsSeen: 30,
		Keys: &profile.KeyFit{Column: "day", Seen: 10, Keys: 10, Buckets: 30, PerBucket: 10, RowsPerKeyBucket: 1440,
			RowsSource:       "432000 rows over 10 keys × 30 day buckets, every partition read",
			ClosedPartitions: 290, ClosedRows: dist(290, 1440, 1440, 1440, 1440),
			Head: 1440, HeadSource: "the busiest key's share of the rows on the fit over keys (uniform keys: the average key's); a key's buckets vary around its rate, and the largest partition read holds 1440"},
		Skew:     profile.SkewFit{Kind: "uniform", Points: 10, Note: "over keys: every sampled partition holds the same rows"},
		MeanRows: 1440, MeanRowsSource: "mean of 300 partitions read whole",
		WriteRateSource: "unknown: no sampled partition has rows written at two different times",
		FirstWrite:      now.Add(-30 * 24 * time.Hour), LastWrite: now.Add(-30 * 24 * time.Hour),
		Tombstones: profile.Tombstones{Warnings: []string{}},
		Disk: profile.Disk{Predicted: true, Compressor: "NoopCompressor", Ratio: 1, SamplePartitions: 300, UncompressedPerPartition: 34600,
			PerPartition: 34600, PartitionUncompressed: dist(300, 34600, 34600, 34600, 34600),
			PartitionCompressed: dist(300, 34600, 34600, 34600, 34600), Uncompressed: 1.04e7, DataBytes: 1.04e7, Total: 1.06e7},
		Growth: profile.Growth{Bucket: "day", BucketSource: "partition key column day", BytesPerRow: 8, ValuesPerRow: 1,
			Partitions: []profile.GrowthPartition{
				{Which: "typical", Rows: 1440, Bytes: 11532, Values: 1441, AtBucketEnd: &profile.GrowthSize{Rows: 1440, Bytes: 11532, Values: 1441}},
				{Which: "p99", Rows: 1440, Bytes: 11532, Values: 1441, AtBucketEnd: &profile.GrowthSize{Rows: 1440, Bytes: 11532, Values: 1441}},
				{Which: "largest", Rows: 1440, Bytes: 11532, Values: 1441, AtBucketEnd: &profile.GrowthSize{Rows: 1440, Bytes: 11532, Values: 1441}},
			},
			Note: "no write rate measured: unknown: no sampled partition has rows written at two different times"},
		Elapsed: 3.2,
	}
	broken := &profile.Table{Keyspace: "app", Name: "audit",
		Columns:          []*profile.Column{{Name: "id", Type: "bigint", Kind: "partition_key"}, {Name: "what", Type: "blob", Kind: "regular"}},
		PartitionsSource: "none read",
		Skew:             profile.SkewFit{Kind: "uniform", Note: "too few partitions (0) to fit a skew"},
		MeanRowsSource:   "mean of 0 partitions read whole",
		WriteRateSource:  "unknown: no sampled partition has rows written at two different times",
		Tombstones:       profile.Tombstones{Warnings: []string{}, TraceProblem: "read system_traces.sessions: Operation timed out"},
		Disk:             profile.Disk{Note: "not predicted: no partition sampled"},
		Growth: profile.Growth{Partitions: []profile.GrowthPartition{
			{Which: "typical", Crossings: []profile.GrowthCrossing{{Limit: "100 MB", Never: true}, {Limit: "100,000 values", Never: true}}},
			{Which: "p99", Crossings: []profile.GrowthCrossing{{Limit: "100 MB", Never: true}, {Limit: "100,000 values", Never: true}}},
			{Which: "largest", Crossings: []profile.GrowthCrossing{{Limit: "100 MB", Already: true}, {Limit: "100,000 values", Unknown: true}}},
		}, Note: "no write rate measured: unknown: no sampled partition has rows written at two different times"},
		Elapsed: 30.1, Partial: true,
		Problem: "gave up after 4 slices failed in 2m0s: Operation timed out for app.audit - received only 0 responses from 1 CL=LOCAL_ONE.",
	}
	partial := &profile.Result{Keyspace: "app", Tables: []*profile.Table{inbox, readings, broken}, Partial: true,
		Problems: []string{"app.audit: read 0 partitions (0% of the token ring); gave up after 4 slices failed in 2m0s: Operation timed out",
			"size estimates from 127.0.1.3: connect: no route to host"},
		Started: now, Elapsed: 75, Rows: 473200, RateSet: 10000, RateAchieved: 6309, Consistency: "LOCAL_ONE", LocalDC: "dc1"}
	empty := &profile.Result{Keyspace: "empty", Tables: []*profile.Table{}, Problems: []string{}, Started: now, Consistency: "ONE"}
	return []*profile.Result{partial, empty}
}

// TestProfileJSONContract renders profiles covering every field and holds them to
// docs/profile-json.md both ways.
func TestProfileJSONContract(t *testing.T) {
	doc := profileDoc(t)
	seen := map[string]map[string]bool{}
	for _, r := range profileFixtures(t) {
		checkProfileJSON(t, doc, r, seen)
	}
	var never []string
	for sec, keys := range doc {
		for k := range keys {
			if !seen[sec][k] {
				never = append(never, fmt.Sprintf("%s: %s", sec, k))
			}
		}
	}
	sort.Strings(never)
	if len(never) > 0 {
		t.Errorf("docs/profile-json.md describes keys no rendered profile has: %v", never)
	}
}

// TestProfileJSONContractCatchesDrift: the check must be able to fail. A key the document
// leaves out, a type it gets wrong and a required key that is absent are each reported.
func TestProfileJSONContractCatchesDrift(t *testing.T) {
	doc := profileDoc(t)
	var v map[string]any
	var b bytes.Buffer
	if err := report.WriteProfileJSON(&b, profileFixtures(t)[0]); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	tbl := v["tables"].([]any)[0].(map[string]any)
	tbl["surprise"] = 1.0
	tbl["rows_seen"] = "many"
	delete(tbl["disk"].(map[string]any), "predicted")
	var problems []string
	walkProfileJSON(v, "", doc, map[string]map[string]bool{}, &problems)
	for _, want := range []string{`"surprise" is not documented`, `tables[].rows_seen = many`, `key "predicted" is missing`} {
		found := false
		for _, p := range problems {
			found = found || strings.Contains(p, want)
		}
		if !found {
			t.Errorf("no problem reported containing %q; got %q", want, problems)
		}
	}
}

// TestProfileJSONContractOnNode profiles a real keyspace (an unbucketed table with
// collections, a UDT and a TTL, a daily-bucketed one, an empty one) and holds the JSON
// `cqlsize profile --format json` prints for it to the document.
func TestProfileJSONContractOnNode(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	cassandratest.DDL(t, s, ks,
		`CREATE TYPE address (street text, zip text)`,
		`CREATE TABLE inbox (user int, at int, body text, tags set<text>, attrs map<text, text>, sender address, PRIMARY KEY (user, at))`,
		`CREATE TABLE readings (sensor int, day date, at int, unit text static, v double, PRIMARY KEY ((sensor, day), at))`,
		`CREATE TABLE empty (id int PRIMARY KEY, v text)`,
	)
	for k := 0; k < 60; k++ {
		b := s.NewBatch(gocql.UnloggedBatch)
		for r := 0; r <= k%7; r++ {
			b.Query(`INSERT INTO inbox (user, at, body, tags, attrs, sender) VALUES (?, ?, 'a message body', {'x', 'yy'}, {'k': 'v'}, {street: 'Main St', zip: '12345'}) USING TTL 86400 AND TIMESTAMP ?`,
				k, r, int64(1_700_000_000_000_000+r*60_000_000))
		}
		b.Query(`INSERT INTO readings (sensor, day, at, unit, v) VALUES (?, '2026-11-23', 1, 'C', 20.5)`, k)
		b.Query(`INSERT INTO readings (sensor, day, at, v) VALUES (?, '2026-11-23', 2, 21.5)`, k)
		if err := s.ExecuteBatch(b); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := profile.Run(ctx, s, profile.Options{Keyspace: ks, Sample: 100, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	out := checkProfileJSON(t, profileDoc(t), res, map[string]map[string]bool{})
	if testing.Verbose() {
		t.Logf("%s", out)
	}
}
