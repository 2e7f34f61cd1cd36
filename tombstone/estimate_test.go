package tombstone_test

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/tombstone"

	goldenfile "github.com/cqlsize/cqlsize/internal/golden"
)

// table is the shape most tests use: one clustering column, two regular columns, the
// default gc_grace_seconds (10 days), STCS.
var table = tombstone.Table{Name: "app.events", ClusteringColumns: 1, RegularColumns: 2, GCGraceSeconds: cql.DefaultGCGraceSeconds}

func TestAtCounts(t *testing.T) {
	const perDay = 86400.0 // a rate of n per second, written as per day
	tests := []struct {
		name     string
		in       tombstone.Input
		age      time.Duration
		perRead  float64
		readRows float64
		onDisk   float64
	}{
		{
			name:    "no tombstones",
			in:      tombstone.Input{Table: table, Writes: tombstone.Writes{RowsPerDay: 1000}},
			age:     24 * time.Hour,
			perRead: 0, readRows: 1000, onDisk: 0,
		},
		{
			name: "half the rows deleted, whole read",
			in: tombstone.Input{Table: table, Writes: tombstone.Writes{RowsPerDay: 1000},
				Deletes: []tombstone.Delete{{Kind: tombstone.RowDelete, PerDay: 500}}},
			age:     24 * time.Hour,
			perRead: 500, readRows: 500, onDisk: 500,
		},
		{
			name: "scattered deletes, LIMIT 100 reads a share",
			in: tombstone.Input{Table: table, Writes: tombstone.Writes{RowsPerDay: 1000},
				Deletes: []tombstone.Delete{{Kind: tombstone.RowDelete, PerDay: 500}}, Read: tombstone.Read{Limit: 100}},
			age:     24 * time.Hour,
			perRead: 100, readRows: 100, onDisk: 500,
		},
		{
			name: "deletes older than gc_grace_seconds are not counted",
			in: tombstone.Input{Table: table, Writes: tombstone.Writes{RowsPerDay: 1000},
				Deletes: []tombstone.Delete{{Kind: tombstone.RowDelete, PerDay: 100}}},
			age: 20 * 24 * time.Hour,
			// 10 days held (1000), 11 on disk (+1 day linger); a page of 5000 of the 18000
			// live rows meets 5000/18000 of them.
			perRead: 1000 * 5000.0 / 18000, readRows: 18000, onDisk: 1100,
		},
		{
			name: "queue: head deletes scanned before the first live row",
			in: tombstone.Input{Table: table, Writes: tombstone.Writes{RowsPerDay: 1000},
				Deletes: []tombstone.Delete{{Kind: tombstone.RowDelete, PerDay: 900, At: tombstone.Head}},
				Read:    tombstone.Read{Limit: 10, Order: tombstone.OldestFirst}},
			age:     2 * 24 * time.Hour,
			perRead: 1800, readRows: 10, onDisk: 1800,
		},
		{
			name: "tail deletes never reached by a LIMIT",
			in: tombstone.Input{Table: table, Writes: tombstone.Writes{RowsPerDay: 1000},
				Deletes: []tombstone.Delete{{Kind: tombstone.RowDelete, PerDay: 900, At: tombstone.Tail}},
				Read:    tombstone.Read{Limit: 10, Order: tombstone.NewestFirst}},
			age:     2 * 24 * time.Hour,
			perRead: 0, readRows: 10, onDisk: 1800,
		},
		{
			name: "range deletes: two markers each",
			in: tombstone.Input{Table: table, Writes: tombstone.Writes{RowsPerDay: 1000},
				Deletes: []tombstone.Delete{{Kind: tombstone.RangeDelete, PerDay: 10, Rows: 20}}},
			age:     24 * time.Hour,
			perRead: 20, readRows: 800, onDisk: 20,
		},
		{
			name:    "nulls: half of two columns, LIMIT 50",
			in:      tombstone.Input{Table: table, Writes: tombstone.Writes{RowsPerDay: 1000, NullFraction: 0.5}, Read: tombstone.Read{Limit: 50}},
			age:     24 * time.Hour,
			perRead: 50, readRows: 50, onDisk: 1000,
		},
		{
			name: "partition deletions are never counted",
			in: tombstone.Input{Table: table, Writes: tombstone.Writes{RowsPerDay: 1000},
				Deletes: []tombstone.Delete{{Kind: tombstone.PartitionDelete, PerDay: 1}}},
			age:     24 * time.Hour,
			perRead: 0, readRows: 1000, onDisk: 0,
		},
		{
			name: "whole collections: complex deletions on disk only",
			in: tombstone.Input{Table: tombstone.Table{ClusteringColumns: 1, RegularColumns: 1, CollectionColumns: 2, GCGraceSeconds: 864000},
				Writes: tombstone.Writes{RowsPerDay: 100, CollectionsWhole: true, ElementsPerCollection: 3}},
			age:     24 * time.Hour,
			perRead: 0, readRows: 100, onDisk: 200,
		},
		{
			name: "TTL under gc_grace: expired cells counted for gc_grace after the write",
			in: tombstone.Input{Table: table,
				Writes: tombstone.Writes{RowsPerDay: 1 * perDay, Bucket: 100 * time.Second, TTLSeconds: 10}},
			age:     150 * time.Second,
			perRead: 100 * 2, readRows: 0, onDisk: 100,
		},
		{
			// Cells expired 2h after the write are purgeable at once (dated from the write,
			// over an hour ago); the row marker is dated from the expiry, so each row expired
			// in the last hour still counts once.
			name: "TTL over gc_grace: expired cells purgeable at once, rows count for gc_grace",
			in: tombstone.Input{Table: tombstone.Table{ClusteringColumns: 1, RegularColumns: 2, GCGraceSeconds: 3600},
				Writes: tombstone.Writes{RowsPerDay: 1000, TTLSeconds: 7200}},
			age:     24 * time.Hour,
			perRead: 1000.0 / 24, readRows: 1000.0 * 2 / 24, onDisk: 1000.0 * 22 / 24,
		},
		{
			name: "key-only rows: an expired row counts once",
			in: tombstone.Input{Table: tombstone.Table{ClusteringColumns: 1, GCGraceSeconds: 864000},
				Writes: tombstone.Writes{RowsPerDay: 1 * perDay, Bucket: 10 * time.Second, TTLSeconds: 5}},
			age:     20 * time.Second,
			perRead: 10, readRows: 0, onDisk: 10,
		},
		{
			name: "UPDATE-written rows: expired cells only, nothing once purgeable",
			in: tombstone.Input{Table: tombstone.Table{ClusteringColumns: 1, RegularColumns: 2, GCGraceSeconds: 10},
				Writes: tombstone.Writes{RowsPerDay: 1 * perDay, Bucket: 10 * time.Second, TTLSeconds: 5, ByUpdate: true}},
			age:     30 * time.Second,
			perRead: 0, readRows: 0, onDisk: 20,
		},
		{
			name: "no LIMIT: the worst page of 5000 counts",
			in: tombstone.Input{Table: table, Writes: tombstone.Writes{RowsPerDay: 20000},
				Deletes: []tombstone.Delete{{Kind: tombstone.RowDelete, PerDay: 3000, At: tombstone.Head}}},
			age:     24 * time.Hour,
			perRead: 3000, readRows: 17000, onDisk: 3000,
		},
		{
			name: "a clustering range covers a share, never the tail",
			in: tombstone.Input{Table: table, Writes: tombstone.Writes{RowsPerDay: 1000},
				Deletes: []tombstone.Delete{{Kind: tombstone.RowDelete, PerDay: 100}, {Kind: tombstone.RowDelete, PerDay: 100, At: tombstone.Tail}},
				Read:    tombstone.Read{Fraction: 0.25}},
			age:     24 * time.Hour,
			perRead: 25, readRows: 200, onDisk: 200,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := tombstone.At(tc.in, tc.age)
			if err != nil {
				t.Fatal(err)
			}
			check := func(what string, got, want float64) {
				if math.Abs(got-want) > 1e-6*math.Max(1, want) {
					t.Errorf("%s = %.4f, want %.4f (%+v)", what, got, want, s.Sources)
				}
			}
			check("PerRead", s.PerRead, tc.perRead)
			check("ReadRows", s.ReadRows, tc.readRows)
			check("OnDisk", s.OnDisk, tc.onDisk)
		})
	}
}

func TestPagesWithoutLimit(t *testing.T) {
	in := tombstone.Input{Table: table, Writes: tombstone.Writes{RowsPerDay: 12000, NullFraction: 0.5}}
	s, err := tombstone.At(in, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if s.Pages != 3 || s.PerRead != 5000 || s.ReadRows != 12000 {
		t.Errorf("12000 rows, 1 null each, no LIMIT: pages %d, worst page %.0f, rows %.0f; want 3, 5000, 12000", s.Pages, s.PerRead, s.ReadRows)
	}
	in.Read.PageSize = 100
	in.Read.Limit = 250
	s, _ = tombstone.At(in, 24*time.Hour)
	if s.Pages != 3 || s.PerRead != 100 || s.ReadRows != 250 {
		t.Errorf("LIMIT 250, page 100: pages %d, worst page %.0f, rows %.0f; want 3, 100, 250", s.Pages, s.PerRead, s.ReadRows)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name  string
		mod   func(*tombstone.Input)
		field string
	}{
		{"negative rows", func(in *tombstone.Input) { in.Writes.RowsPerDay = -1 }, "Writes.RowsPerDay"},
		{"NaN rows", func(in *tombstone.Input) { in.Writes.RowsPerDay = math.NaN() }, "Writes.RowsPerDay"},
		{"null fraction over 1", func(in *tombstone.Input) { in.Writes.NullFraction = 1.5 }, "Writes.NullFraction"},
		{"negative unset fraction", func(in *tombstone.Input) { in.Writes.UnsetFraction = -0.1 }, "Writes.UnsetFraction"},
		{"null and unset over every column", func(in *tombstone.Input) { in.Writes.NullFraction, in.Writes.UnsetFraction = 0.5, 0.75 }, "Writes.UnsetFraction"},
		{"read fraction over 1", func(in *tombstone.Input) { in.Read.Fraction = 2 }, "Read.Fraction"},
		{"negative limit", func(in *tombstone.Input) { in.Read.Limit = -5 }, "Read.Limit"},
		{"negative gc_grace", func(in *tombstone.Input) { in.Table.GCGraceSeconds = -1 }, "Table.GCGraceSeconds"},
		{"negative delete rate", func(in *tombstone.Input) {
			in.Deletes = []tombstone.Delete{{Kind: tombstone.RowDelete}, {Kind: tombstone.RowDelete, PerDay: -3}}
		}, "Deletes[1].PerDay"},
		{"unknown kind", func(in *tombstone.Input) { in.Deletes = []tombstone.Delete{{Kind: 42}} }, "Deletes[0].Kind"},
		{"range delete without clustering", func(in *tombstone.Input) {
			in.Table.ClusteringColumns = 0
			in.Deletes = []tombstone.Delete{{Kind: tombstone.RangeDelete, PerDay: 1}}
		}, "Deletes[0].Kind"},
		{"element delete without a collection", func(in *tombstone.Input) {
			in.Deletes = []tombstone.Delete{{Kind: tombstone.ElementDelete, PerDay: 1}}
		}, "Deletes[0].Kind"},
		{"warn over fail", func(in *tombstone.Input) { in.Thresholds = tombstone.Thresholds{Warn: 10, Fail: 5} }, "Thresholds.Warn"},
		{"unknown order", func(in *tombstone.Input) { in.Read.Order = 9 }, "Read.Order"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := tombstone.Input{Table: table, Writes: tombstone.Writes{RowsPerDay: 10}}
			tc.mod(&in)
			_, err := tombstone.Estimate(in)
			var fe *tombstone.FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("Estimate: err = %v, want a *FieldError", err)
			}
			if fe.Field != tc.field {
				t.Errorf("field %q, want %q (%v)", fe.Field, tc.field, err)
			}
		})
	}
	if _, err := tombstone.At(tombstone.Input{Table: table}, -time.Second); err == nil {
		t.Error("At with a negative age: no error")
	}
}

func TestParsers(t *testing.T) {
	for _, s := range []string{"STCS", "org.apache.cassandra.db.compaction.LeveledCompactionStrategy", "TimeWindowCompactionStrategy", "ucs"} {
		if _, err := tombstone.ParseStrategy(s); err != nil {
			t.Errorf("ParseStrategy(%q): %v", s, err)
		}
	}
	if _, err := tombstone.ParseStrategy("DateTiered"); err == nil {
		t.Error("ParseStrategy(DateTiered): no error")
	}
	for _, s := range []string{"partition", "ROW", "range", "cell", "element"} {
		if _, err := tombstone.ParseKind(s); err != nil {
			t.Errorf("ParseKind(%q): %v", s, err)
		}
	}
	if _, err := tombstone.ParseKind("column"); err == nil {
		t.Error("ParseKind(column): no error")
	}
	if p, err := tombstone.ParsePlacement("head"); err != nil || p != tombstone.Head {
		t.Errorf("ParsePlacement(head) = %v, %v", p, err)
	}
	if o, err := tombstone.ParseOrder("newest-first"); err != nil || o != tombstone.NewestFirst {
		t.Errorf("ParseOrder(newest-first) = %v, %v", o, err)
	}
}

func TestTableOf(t *testing.T) {
	tbl := &cql.Table{
		Keyspace: "app", Name: "inbox",
		Columns: []*cql.Column{
			{Name: "user_id", Kind: cql.PartitionKey, Type: cql.Type{Name: "uuid"}},
			{Name: "msg_id", Kind: cql.Clustering, Type: cql.Type{Name: "timeuuid"}},
			{Name: "owner", Kind: cql.Static, Type: cql.Type{Name: "text"}},
			{Name: "body", Kind: cql.Regular, Type: cql.Type{Name: "text"}},
			{Name: "labels", Kind: cql.Regular, Type: cql.Type{Kind: cql.Set, Params: []cql.Type{{Name: "text"}}}},
			{Name: "meta", Kind: cql.Regular, Type: cql.Type{Kind: cql.Map, Frozen: true, Params: []cql.Type{{Name: "text"}, {Name: "text"}}}},
		},
		Options: cql.TableOptions{
			DefaultTTL: 86400,
			Compaction: map[string]string{"class": "org.apache.cassandra.db.compaction.TimeWindowCompactionStrategy",
				"compaction_window_unit": "HOURS", "compaction_window_size": "6"},
		},
	}
	tbl.Clustering = []*cql.Column{tbl.Columns[1]}
	got := tombstone.TableOf(tbl)
	want := tombstone.Table{Name: "app.inbox", ClusteringColumns: 1, RegularColumns: 2, CollectionColumns: 1, StaticColumns: 1,
		DefaultTTLSeconds: 86400, GCGraceSeconds: cql.DefaultGCGraceSeconds,
		Compaction: tombstone.Compaction{Strategy: tombstone.TWCS, Window: 6 * time.Hour}}
	if got != want {
		t.Errorf("TableOf =\n %+v\nwant\n %+v", got, want)
	}
	tbl.Options.Raw = map[string]any{"gc_grace_seconds": "0"}
	if got := tombstone.TableOf(tbl); got.GCGraceSeconds != 0 {
		t.Errorf("gc_grace_seconds = 0 set explicitly: TableOf gave %d", got.GCGraceSeconds)
	}
}

// scenarios are the patterns users ask about; their estimates and findings are golden.
var scenarios = []struct {
	name string
	in   tombstone.Input
}{
	{"messaging queue consumed from the front", tombstone.Input{
		Table:   tombstone.Table{Name: "app.jobs", ClusteringColumns: 1, RegularColumns: 3, GCGraceSeconds: 864000},
		Writes:  tombstone.Writes{RowsPerDay: 20000},
		Deletes: []tombstone.Delete{{Kind: tombstone.RowDelete, PerDay: 19900, At: tombstone.Head}},
		Read:    tombstone.Read{Limit: 100, Order: tombstone.OldestFirst},
	}},
	{"daily sensor buckets, TTL 3d, newest first", tombstone.Input{
		Table:  tombstone.Table{Name: "iot.readings", ClusteringColumns: 1, RegularColumns: 2, GCGraceSeconds: 864000},
		Writes: tombstone.Writes{RowsPerDay: 1440, Bucket: 24 * time.Hour, TTLSeconds: 3 * 86400},
		Read:   tombstone.Read{Limit: 60, Order: tombstone.NewestFirst},
	}},
	{"same on TWCS with gc_grace 1d", tombstone.Input{
		Table: tombstone.Table{Name: "iot.readings", ClusteringColumns: 1, RegularColumns: 2, GCGraceSeconds: 86400,
			Compaction: tombstone.Compaction{Strategy: tombstone.TWCS, Window: time.Hour}},
		Writes: tombstone.Writes{RowsPerDay: 1440, Bucket: 24 * time.Hour, TTLSeconds: 3 * 86400},
		Read:   tombstone.Read{Limit: 60, Order: tombstone.NewestFirst},
	}},
	{"profile with nulls and whole collections", tombstone.Input{
		Table:  tombstone.Table{Name: "app.profiles", RegularColumns: 12, CollectionColumns: 2, GCGraceSeconds: 864000},
		Writes: tombstone.Writes{RowsPerDay: 3, NullFraction: 0.25, CollectionsWhole: true, ElementsPerCollection: 4},
	}},
	{"inbox with scattered deletes, full read", tombstone.Input{
		Table:   tombstone.Table{Name: "mail.inbox", ClusteringColumns: 1, RegularColumns: 4, CollectionColumns: 1, GCGraceSeconds: 864000},
		Writes:  tombstone.Writes{RowsPerDay: 200, NullFraction: 0.1},
		Deletes: []tombstone.Delete{{Kind: tombstone.RowDelete, PerDay: 150}, {Kind: tombstone.ElementDelete, PerDay: 20}},
	}},
	{"old rows deleted by hand on TWCS", tombstone.Input{
		Table: tombstone.Table{Name: "metrics.points", ClusteringColumns: 1, RegularColumns: 1, GCGraceSeconds: 864000,
			Compaction: tombstone.Compaction{Strategy: tombstone.TWCS}},
		Writes:  tombstone.Writes{RowsPerDay: 100000, Bucket: 7 * 24 * time.Hour},
		Deletes: []tombstone.Delete{{Kind: tombstone.RangeDelete, PerDay: 24, Rows: 4000, At: tombstone.Tail}},
		Read:    tombstone.Read{Limit: 1000, Order: tombstone.NewestFirst},
	}},
	{"workflow executions read one at a time by id, finished ones deleted", tombstone.Input{
		Table:   tombstone.Table{Name: "wf.executions", ClusteringColumns: 1, RegularColumns: 6, GCGraceSeconds: 864000},
		Writes:  tombstone.Writes{RowsPerDay: 30000, NullFraction: 0.2},
		Deletes: []tombstone.Delete{{Kind: tombstone.RowDelete, PerDay: 29000, At: tombstone.Oldest}},
		Read:    tombstone.Read{Slice: tombstone.Point, Order: tombstone.OldestFirst},
	}},
	{"workflow task queue read after its cursor (task_id > ?)", tombstone.Input{
		Table:   tombstone.Table{Name: "wf.tasks", ClusteringColumns: 1, RegularColumns: 3, GCGraceSeconds: 864000},
		Writes:  tombstone.Writes{RowsPerDay: 30000},
		Deletes: []tombstone.Delete{{Kind: tombstone.RangeDelete, PerDay: 2000, Rows: 14, At: tombstone.Head}},
		Read:    tombstone.Read{Limit: 100, Slice: tombstone.AfterCursor},
	}},
	{"the same task queue read from its head", tombstone.Input{
		Table:   tombstone.Table{Name: "wf.tasks", ClusteringColumns: 1, RegularColumns: 3, GCGraceSeconds: 864000},
		Writes:  tombstone.Writes{RowsPerDay: 30000},
		Deletes: []tombstone.Delete{{Kind: tombstone.RangeDelete, PerDay: 2000, Rows: 14, At: tombstone.Head}},
		Read:    tombstone.Read{Limit: 100},
	}},
	{"gateway event poll after its cursor, TTL 1h, oldest first", tombstone.Input{
		Table:  tombstone.Table{Name: "gw.events", ClusteringColumns: 1, RegularColumns: 4, GCGraceSeconds: 864000},
		Writes: tombstone.Writes{RowsPerDay: 100000, Bucket: 24 * time.Hour, TTLSeconds: 3600},
		Read:   tombstone.Read{Limit: 500, Order: tombstone.OldestFirst, Slice: tombstone.AfterCursor},
	}},
	{"newest rows deleted, read reversed (ORDER BY ... against the clustering)", tombstone.Input{
		Table:   tombstone.Table{Name: "app.log", ClusteringColumns: 1, RegularColumns: 1, GCGraceSeconds: 864000},
		Writes:  tombstone.Writes{RowsPerDay: 5000},
		Deletes: []tombstone.Delete{{Kind: tombstone.RowDelete, PerDay: 2000, At: tombstone.Tail}},
		Read:    tombstone.Read{Limit: 50, Reversed: true},
	}},
	{"failure threshold", tombstone.Input{
		Table:   tombstone.Table{Name: "app.feed", ClusteringColumns: 1, RegularColumns: 2, GCGraceSeconds: 864000},
		Writes:  tombstone.Writes{RowsPerDay: 30000},
		Deletes: []tombstone.Delete{{Kind: tombstone.RowDelete, PerDay: 29000}},
	}},
}

func render(r tombstone.Result) string {
	var b strings.Builder
	snap := func(label string, s tombstone.Snapshot) {
		fmt.Fprintf(&b, "  %-10s age %-8v live %10.1f  readable %10.1f  on disk %10.1f  per read %9.1f  (%0.f rows, %d pages)\n",
			label, s.Age, s.LiveRows, s.Readable, s.OnDisk, s.PerRead, s.ReadRows, s.Pages)
		for _, c := range s.Sources {
			fmt.Fprintf(&b, "    %-24s readable %10.1f  on disk %10.1f  per read %9.1f\n", c.Source, c.Readable, c.OnDisk, c.PerRead)
		}
	}
	snap("bucket end", r.BucketEnd)
	snap("steady", r.Steady)
	snap("peak", r.Peak)
	fmt.Fprintf(&b, "  verdict: %s\n", r.Verdict())
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "  %s\n", f)
	}
	return b.String()
}

func TestScenariosGolden(t *testing.T) {
	var b strings.Builder
	for _, sc := range scenarios {
		r, err := tombstone.Estimate(sc.in)
		if err != nil {
			t.Fatalf("%s: %v", sc.name, err)
		}
		fmt.Fprintf(&b, "== %s\n%s\n", sc.name, render(r))
	}
	golden(t, filepath.Join("testdata", "scenarios.golden"), b.String())
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	goldenfile.Compare(t, path, []byte(got))
}
