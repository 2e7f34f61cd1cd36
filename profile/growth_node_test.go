package profile

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/sizing"
	"github.com/cqlsize/cqlsize/workload"
)

// TestRunGrowthAgreesWithEstimate profiles a table written at one row an hour per partition
// (client timestamps an hour apart) and holds each partition's crossing dates to what
// estimate says of the workload the profile wrote, with write_rate set to that partition's
// rate. It logs the dates the value bytes alone would give, for comparison.
func TestRunGrowthAgreesWithEstimate(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	if err := s.Query(`CREATE TABLE feed (user int, at timestamp, title text, body text, PRIMARY KEY (user, at))`).Exec(); err != nil {
		t.Fatal(err)
	}
	start := time.Now().Add(-60 * 24 * time.Hour)
	title, body := strings.Repeat("t", 30), strings.Repeat("b", 400)
	for k := 1; k <= 100; k++ {
		b := s.NewBatch(gocql.UnloggedBatch)
		for r := 0; r < 10+k%30; r++ {
			at := start.Add(time.Duration(r) * time.Hour)
			if r%2 == 0 {
				b.Query(`INSERT INTO feed (user, at, title, body) VALUES (?, ?, ?, ?) USING TIMESTAMP ?`, k, at, title, body, at.UnixMicro())
			} else {
				b.Query(`INSERT INTO feed (user, at, title) VALUES (?, ?, ?) USING TIMESTAMP ?`, k, at, title, at.UnixMicro())
			}
		}
		if err := s.ExecuteBatch(b); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	now := time.Now().UTC()
	r, err := Run(ctx, s, Options{Keyspace: ks, Tables: []string{"feed"}, Full: true, NoTrace: true, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	tb := r.Tables[0]
	if math.Abs(tb.WriteRate*3600-1) > 0.01 || len(tb.Growth.Partitions) != 3 {
		t.Fatalf("write rate %g rows/h (want 1), growth %+v", tb.WriteRate*3600, tb.Growth)
	}
	var wl bytes.Buffer
	if err := r.WriteWorkload(&wl); err != nil {
		t.Fatal(err)
	}
	w, err := workload.Parse("w.yaml", wl.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, wl.String())
	}
	g := tb.Growth
	t.Logf("per row: %.1f Data.db bytes (value bytes %.1f), %.2f stored values (%d regular columns)",
		g.BytesPerRow, tb.RowBytes.Mean, g.ValuesPerRow, len(tb.Schema.ColumnsOf(cql.Regular)))
	for _, p := range g.Partitions {
		tw := *w.Table(ks + ".feed")
		tw.Fields = map[string]cql.Pos{}
		tw.RowsPerPartition, tw.WriteRate = 0, workload.Rate{Count: p.RowsPerSecond * 86400, Per: workload.Day}
		est, err := sizing.EstimateTable(tb.Schema, &tw, sizing.Options{})
		if err != nil {
			t.Fatal(err)
		}
		born := now.Add(-time.Duration(p.Rows / p.RowsPerSecond * float64(time.Second)))
		for _, c := range p.Crossings {
			for _, x := range est.Crossings {
				if !strings.HasPrefix(x.Limit.Name, c.Limit) {
					continue
				}
				if c.At.IsZero() || x.TypicalNever {
					t.Errorf("%s %s: profile %+v, estimate %+v", p.Which, c.Limit, c, x)
					continue
				}
				want := born.Add(x.Typical)
				if d := c.At.Sub(want); d < -time.Minute || d > time.Minute {
					t.Errorf("%s reaches %s on %s, estimate says %s", p.Which, c.Limit, c.At, want)
				}
				// What the value bytes alone gave: rows at the limit from value bytes per row
				// (and every regular column a value), at the same rate.
				old := map[string]float64{"100 MB": (LimitBytes - p.Rows*tb.RowBytes.Mean) / tb.RowBytes.Mean,
					"100,000 values": LimitValues/float64(len(tb.Schema.ColumnsOf(cql.Regular))) - p.Rows}[c.Limit] / p.RowsPerSecond
				t.Logf("%-8s %6.0f rows, %.3g rows/h: %-15s %s (estimate %s); by value bytes %s",
					p.Which, p.Rows, p.RowsPerSecond*3600, c.Limit, c.At.Format("2006-01-02"), want.Format("2006-01-02"),
					now.Add(time.Duration(old*float64(time.Second))).Format("2006-01-02"))
			}
		}
	}
}
