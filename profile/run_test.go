package profile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/sizing"
	"github.com/cqlsize/cqlsize/workload"
)

// loadEvents creates events in ks (s's keyspace) and writes `keys` partitions whose key k
// holds rowsOf(k) rows, with a text body of bodyLen bytes, a sparse column set on every
// fourth row, a set<text> of 3 elements of 5 bytes and a TTL of one day, all in unlogged
// batches per partition.
func loadEvents(t *testing.T, s *gocql.Session, ks string, keys int, rowsOf func(k int) int, bodyLen int) {
	t.Helper()
	cassandratest.DDL(t, s, ks,
		`CREATE TABLE events (id int, seq int, body text, sparse text, tags set<text>, info tuple<int, text>, PRIMARY KEY (id, seq))`,
	)
	body := string(bytes.Repeat([]byte("b"), bodyLen))
	for k := 1; k <= keys; k++ {
		b := s.NewBatch(gocql.UnloggedBatch)
		for r := 0; r < rowsOf(k); r++ {
			if r%4 == 0 {
				b.Query(`INSERT INTO events (id, seq, body, sparse, tags, info) VALUES (?, ?, ?, 'xx', {'aaaaa','bbbbb','ccccc'}, (1, 'abc')) USING TTL 86400`, k, r, body)
			} else {
				b.Query(`INSERT INTO events (id, seq, body, tags, info) VALUES (?, ?, ?, {'aaaaa','bbbbb','ccccc'}, (1, 'abc')) USING TTL 86400`, k, r, body)
			}
			if len(b.Entries) >= 50 {
				if err := s.ExecuteBatch(b); err != nil {
					t.Fatal(err)
				}
				b = s.NewBatch(gocql.UnloggedBatch)
			}
		}
		if len(b.Entries) > 0 {
			if err := s.ExecuteBatch(b); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestRunMeasuresTable(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	rowsOf := func(k int) int { return 1 + k%7 } // 1..7 rows, mean 4
	loadEvents(t, s, ks, 300, rowsOf, 40)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var progress int
	res, err := Run(ctx, s, Options{Keyspace: ks, Full: true, Progress: func(string, int, int) { progress++ }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Partial || len(res.Tables) != 1 {
		t.Fatalf("partial %v, %d tables, problems %v", res.Partial, len(res.Tables), res.Problems)
	}
	tb := res.Tables[0]
	want, sparse := 0, 0
	for k := 1; k <= 300; k++ {
		want += rowsOf(k)
		sparse += (rowsOf(k) + 3) / 4 // rows 0, 4, ... set it
	}
	if tb.PartitionsSeen != 300 || tb.RowsSeen != int64(want) || tb.RowsPerPartition.Max != 7 || tb.RowsPerPartition.Min != 1 {
		t.Errorf("full scan: %d partitions, %d rows, rows per partition %+v; want 300, %d, 1..7", tb.PartitionsSeen, tb.RowsSeen, tb.RowsPerPartition, want)
	}
	if tb.Partitions != 300 || tb.PartitionsSource != "every partition read" {
		t.Errorf("partitions %v from %q", tb.Partitions, tb.PartitionsSource)
	}
	if progress != 300 {
		t.Errorf("progress called %d times, want 300", progress)
	}
	col := map[string]*Column{}
	for _, c := range tb.Columns {
		col[c.Name] = c
	}
	if c := col["body"]; c.Size.Mean != 40 || c.NullFraction != 0 {
		t.Errorf("body: %+v, want 40 bytes, never null", c.Size)
	}
	if c := col["sparse"]; math.Abs(c.NullFraction-float64(want-sparse)/float64(want)) > 1e-9 || c.Size.Mean != 2 || c.Size.N != sparse {
		t.Errorf("sparse: null fraction %.3f size %+v, want %d of %d rows null and 2 bytes", c.NullFraction, c.Size, want-sparse, want)
	}
	if c := col["tags"]; c.Items == nil || c.Items.Mean != 3 || c.ItemSize.Mean != 5 || c.TTLRead {
		t.Errorf("tags: items %+v, item size %+v, ttl read %v; want 3 of 5 bytes, no TTL()", c.Items, c.ItemSize, c.TTLRead)
	}
	if c := col["info"]; c.Size.Mean != 4+4+4+3 {
		t.Errorf("info tuple: %+v, want 15 bytes", c.Size)
	}
	if math.Abs(tb.TTL.P50-86400) > 120 || tb.TTLFraction < 0.99 {
		t.Errorf("ttl %+v fraction %.3f, want 86400 on every cell", tb.TTL, tb.TTLFraction)
	}
	var w bytes.Buffer
	if err := res.WriteWorkload(&w); err != nil {
		t.Fatal(err)
	}
	t.Logf("workload:\n%s", w.String())
	wl, err := workload.Parse("profile.yaml", w.Bytes())
	if err != nil {
		t.Fatalf("the workload written does not parse: %v\n%s", err, w.String())
	}
	tw := wl.Table(ks + ".events")
	if tw == nil || tw.Partitions != 300 || math.Abs(tw.RowsPerPartition-float64(want)/300) > 0.01 || tw.Avg["body"] != 40 {
		t.Errorf("workload table: %+v", tw)
	}
}

func TestRunSampleExtrapolates(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	loadEvents(t, s, ks, 2000, func(int) int { return 1 }, 10)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := Run(ctx, s, Options{Keyspace: ks, Sample: 400, Seed: 42})
	if err != nil {
		t.Fatal(err)
	}
	tb := res.Tables[0]
	t.Logf("seen %d of 2000 in %.3f of the ring; extrapolated %.0f; size_estimates %.0f; chose %.0f (%s)",
		tb.PartitionsSeen, tb.RingFraction, tb.Extrapolated, tb.SizeEstimates, tb.Partitions, tb.PartitionsSource)
	if tb.PartitionsSeen < 400 || tb.PartitionsSeen > 420 {
		t.Errorf("sampled %d partitions, want about 400", tb.PartitionsSeen)
	}
	// 400 partitions: the extrapolation's error is about 1/√400 = 5%; allow 4 of those.
	if math.Abs(tb.Extrapolated-2000)/2000 > 0.2 {
		t.Errorf("extrapolated %.0f partitions, want 2000 ± 20%%", tb.Extrapolated)
	}
}

func TestRunMissingTable(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	cassandratest.DDL(t, s, ks, `CREATE TABLE present (k int PRIMARY KEY)`)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Keyspace: ks, Tables: []string{"absent"}}, fmt.Sprintf("table %s.absent does not exist (the keyspace has present)", ks)},
		{Options{Keyspace: ks + "_nope"}, fmt.Sprintf("keyspace %s_nope does not exist", ks)},
	} {
		_, err := Run(ctx, s, tc.o)
		var nf *NotFoundError
		if !errors.As(err, &nf) || err.Error() != tc.want {
			t.Errorf("got %v, want a NotFoundError %q", err, tc.want)
		}
	}
}

// TestRunRate checks --rate on the node: a full scan of 2,000 rows at 500 rows a second must
// take at least about 4 s, and the node must have served the scans (system_views.local_scan_latency
// counts the range reads it ran for the table). The figures are printed for docs/profile.md.
func TestRunRate(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	loadEvents(t, s, ks, 200, func(int) int { return 10 }, 20)
	scans := func() int64 {
		var n int64
		err := s.Query(`SELECT count FROM system_views.local_scan_latency WHERE keyspace_name = ? AND table_name = ?`, ks, "events").Scan(&n)
		if err != nil && err != gocql.ErrNotFound {
			t.Fatal(err)
		}
		return n
	}
	before := scans()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const rate = 500
	res, err := Run(ctx, s, Options{Keyspace: ks, Full: true, Rate: rate})
	if err != nil {
		t.Fatal(err)
	}
	after := scans()
	rows := res.Tables[0].RowsSeen
	got := float64(rows) / float64(res.Elapsed)
	t.Logf("--rate %d: %d rows in %.2f s = %.1f rows/s (%.1f%% of the setting); the node ran %d range reads for the table (pages of at most %d rows)",
		rate, rows, float64(res.Elapsed), got, 100*got/rate, after-before, rate)
	if rows != 2000 {
		t.Fatalf("read %d rows, want 2000", rows)
	}
	// Only the upper bound is the limiter's: how far below the setting a run falls depends on
	// the machine and the node, so no lower bound is held here.
	if got > rate*1.05 {
		t.Errorf("achieved %.1f rows/s, want at most %d (+5%%)", got, rate)
	}
	if after-before < 2000/rate {
		t.Errorf("the node counted %d range reads, want at least %d (one a page)", after-before, 2000/rate)
	}
}

// TestRunSeesTombstones reads a partition of 10 live rows and 1,500 deleted ones, past
// tombstone_warn_threshold (1,000): the node's warning and the traced reads must both report
// the 1,500 row tombstones.
func TestRunSeesTombstones(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	cassandratest.DDL(t, s, ks, `CREATE TABLE q (k int, c int, v text, PRIMARY KEY (k, c))`)
	for c := 0; c < 1510; c++ {
		if err := s.Query(`INSERT INTO q (k, c, v) VALUES (1, ?, 'x')`, c).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	for c := 10; c < 1510; c++ {
		if err := s.Query(`DELETE FROM q WHERE k = 1 AND c = ?`, c).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := Run(ctx, s, Options{Keyspace: ks, Sample: 10}) // one slice: the whole ring, traced
	if err != nil {
		t.Fatal(err)
	}
	tb := res.Tables[0].Tombstones
	t.Logf("tombstones: %+v", tb)
	if tb.WarnResponses == 0 || tb.Max != 1500 {
		t.Errorf("warnings: %d responses, most %d tombstones; want a warning naming 1500", tb.WarnResponses, tb.Max)
	}
	if tb.TracedReads == 0 || tb.TracedMax != 1500 || tb.TraceProblem != "" {
		t.Errorf("traces: %d reads, most %d tombstones (%s); want 1500", tb.TracedReads, tb.TracedMax, tb.TraceProblem)
	}
	if r := res.Tables[0]; r.RowsSeen != 10 || r.PartitionsSeen != 1 {
		t.Errorf("read %d rows in %d partitions, want 10 in 1", r.RowsSeen, r.PartitionsSeen)
	}
	// The workload carries them: estimate sizes the partition with its 1,500 tombstones and
	// counts them in what a read passes.
	if tb.TracedLiveRows != 10 || tb.PerPartition != 1500 {
		t.Errorf("traced %d live rows, %g tombstones a partition; want 10 and 1500", tb.TracedLiveRows, tb.PerPartition)
	}
	var buf bytes.Buffer
	if err := res.WriteWorkload(&buf); err != nil {
		t.Fatal(err)
	}
	w, err := workload.Parse("profile", buf.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	est, err := sizing.EstimateTable(res.Tables[0].Schema, w.Tables[0], sizing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := est.Largest.Tombstones.Rows; got != 1500 || est.Largest.Rows != 10 {
		t.Errorf("estimate from the profile's workload: %g rows, %g row tombstones; want 10 and 1500:\n%s", est.Largest.Rows, got, buf.String())
	}
}

// TestRunMeasuresUDTs: a non-frozen UDT is measured field by field (the workload's avg
// column.field), a frozen one whole (each field's int32 length and bytes), a map's keys and
// values apart, and a static column once a partition.
func TestRunMeasuresUDTs(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	cassandratest.DDL(t, s, ks,
		`CREATE TYPE addr (street text, zip int)`,
		`CREATE TABLE u (k int, c int, s text STATIC, a addr, f frozen<addr>, m map<int, text>, PRIMARY KEY (k, c))`,
	)
	for k := 0; k < 10; k++ {
		for c := 0; c < 3; c++ {
			if err := s.Query(`INSERT INTO u (k, c, s, a, f, m) VALUES (?, ?, 'static', {street: 'main st', zip: 12345}, {street: 'elm', zip: 1}, {1: 'one', 2: 'two!'})`, k, c).Exec(); err != nil {
				t.Fatal(err)
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := Run(ctx, s, Options{Keyspace: ks, Full: true})
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]*Column{}
	for _, c := range res.Tables[0].Columns {
		col[c.Name] = c
	}
	if a := col["a"]; a.Fields["street"].Mean != 7 || a.Fields["zip"].Mean != 4 || a.Size.Mean != 11 || a.TTLRead {
		t.Errorf("non-frozen UDT: fields %+v, size %+v, TTL read %v; want street 7, zip 4, 11 bytes, no TTL()", a.Fields, a.Size, a.TTLRead)
	}
	if f := col["f"]; f.Size.Mean != 4+3+4+4 || !f.TTLRead {
		t.Errorf("frozen UDT: %+v, TTL read %v; want 15 bytes and TTL()", f.Size, f.TTLRead)
	}
	if m := col["m"]; m.Items.Mean != 2 || m.KeySize.Mean != 4 || m.ItemSize.Mean != 3.5 {
		t.Errorf("map: items %+v keys %+v values %+v", m.Items, m.KeySize, m.ItemSize)
	}
	if st := col["s"]; st.Rows != 10 || st.Size.Mean != 6 {
		t.Errorf("static: %d values of %+v, want 10 (one a partition) of 6 bytes", st.Rows, st.Size)
	}
	var w bytes.Buffer
	if err := res.WriteWorkload(&w); err != nil {
		t.Fatal(err)
	}
	wl, err := workload.Parse("w.yaml", w.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, w.String())
	}
	if tw := wl.Table(ks + ".u"); tw.Avg["a.street"] != 7 || tw.Avg["f"] != 15 || tw.Items["m"].KeySize != 4 {
		t.Errorf("workload: avg %v items %v\n%s", tw.Avg, tw.Items, w.String())
	}
}
