package profile_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/internal/accuracy"
	"github.com/cqlsize/cqlsize/internal/figures"
	"github.com/cqlsize/cqlsize/profile"
)

// TestRunGrowthMatchesTheNode profiles a table written at one row an hour per partition
// (client timestamps an hour apart), every other row with a 400-byte body, and holds each
// partition's crossing dates to a truth the profile does not compute:
//
//   - 100 MB: the node's own sizes. After a flush and compaction, sstablepartitions gives
//     every partition's bytes and rows; a least-squares fit of bytes = a + b·(rows with a
//     body) + c·(rows without) says what each row costs on disk, and so at how many rows the
//     partition reaches 100 MB.
//   - 100,000 values: by hand. Row r writes title and body when r is even and title only when
//     odd, so n rows store n + ⌈n/2⌉ values, and 100,000 are reached at row 66,667.
//
// Each partition grows at the rate the profile projects for it; the figure is the error of
// the time left until the crossing, held to internal/figures' "growth-bytes" and
// "growth-values" bounds (the measured worst over the recorded runs plus a margin). CQLSIZE_RECORD_FIGURES=1 records the run.
func TestRunGrowthMatchesTheNode(t *testing.T) {
	if testing.Short() {
		t.Skip("writes data into Cassandra; skipped with -short")
	}
	s, ks := cassandratest.Keyspace(t)
	files := cassandratest.LocalNode(t, s)
	bounds := map[string]float64{"100 MB": figures.Bound(t, "growth-bytes"), "100,000 values": figures.Bound(t, "growth-values")}
	started := time.Now()
	cassandratest.DDL(t, s, ks, `CREATE TABLE feed (user int, at timestamp, title text, body text, PRIMARY KEY (user, at))`)
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
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	perRow := nodeBytesPerRow(t, ctx, s, &accuracy.Node{Script: files.Script, DataDir: files.DataDirs}, ks)

	now := time.Now().UTC()
	r, err := profile.Run(ctx, s, profile.Options{Keyspace: ks, Tables: []string{"feed"}, Full: true, NoTrace: true, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	tb := r.Tables[0]
	if math.Abs(tb.WriteRate*3600-1) > 0.01 || len(tb.Growth.Partitions) != 3 {
		t.Fatalf("write rate %g rows/h (want 1: the rows are an hour apart), growth %+v", tb.WriteRate*3600, tb.Growth)
	}
	held := map[string]float64{}
	for _, p := range tb.Growth.Partitions {
		n := math.Round(p.Rows)
		truth := map[string]float64{
			// n + ⌈n/2⌉ values after n rows: the first row count with 100,000.
			"100,000 values": math.Ceil(2 * float64(profile.LimitValues) / 3),
			"100 MB":         perRow.rowsAt(profile.LimitBytes),
		}
		for _, c := range p.Crossings {
			want, ok := truth[c.Limit]
			if !ok || c.At.IsZero() || c.Already || c.Never {
				t.Errorf("%s %s: crossing %+v", p.Which, c.Limit, c)
				continue
			}
			left := (want - n) / p.RowsPerSecond // seconds until the truth's crossing
			e := (c.At.Sub(now).Seconds() - left) / left
			held["growth/"+p.Which+"/"+c.Limit] = e
			t.Logf("%-8s %4.0f rows at %.3g rows/h: %-15s profile %s, truth %s (row %.0f): %+.2f%%",
				p.Which, n, p.RowsPerSecond*3600, c.Limit, c.At.Format("2006-01-02"),
				now.Add(time.Duration(left*float64(time.Second))).Format("2006-01-02"), want, 100*e)
			if bound := bounds[c.Limit]; math.Abs(e) > bound {
				t.Errorf("%s reaches %s on %s, the node's sizes say %s: %+.2f%% of the time left, over %.1f%%", p.Which, c.Limit,
					c.At.Format("2006-01-02"), now.Add(time.Duration(left*float64(time.Second))).Format("2006-01-02"), 100*e, 100*bound)
			}
		}
		if len(p.Crossings) != 2 {
			t.Errorf("%s: %d crossings, want 100 MB and 100,000 values", p.Which, len(p.Crossings))
		}
	}
	figures.Record(t, started, held, nil, nil)
}

// rowCost is what the node's sstablepartitions says a feed partition costs: a fixed part and
// a row with a body and one without.
type rowCost struct{ fixed, withBody, without float64 }

// rowsAt is the rows at which a partition reaches bytes, the rows alternating with and
// without a body.
func (c rowCost) rowsAt(bytes float64) float64 {
	return 2 * (bytes - c.fixed) / (c.withBody + c.without)
}

// nodeBytesPerRow flushes and compacts keyspace, reads every feed partition's bytes and rows
// with sstablepartitions and fits bytes = fixed + withBody·⌈rows/2⌉ + without·⌊rows/2⌋ by
// least squares (the normal equations, solved by Cramer's rule).
func nodeBytesPerRow(t *testing.T, ctx context.Context, s *gocql.Session, node *accuracy.Node, ks string) rowCost {
	t.Helper()
	if err := node.FlushAndCompact(ctx, ks); err != nil {
		t.Fatal(err)
	}
	dir, err := node.TableDir(ctx, s, ks, "feed")
	if err != nil {
		t.Fatal(err)
	}
	parts, err := node.SSTablePartitions(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 100 {
		t.Fatalf("sstablepartitions: %d partitions, want the 100 written", len(parts))
	}
	var m [3][3]float64
	var v [3]float64
	for _, p := range parts {
		x := [3]float64{1, math.Ceil(float64(p.Rows) / 2), math.Floor(float64(p.Rows) / 2)}
		for i := range x {
			for j := range x {
				m[i][j] += x[i] * x[j]
			}
			v[i] += x[i] * float64(p.Size)
		}
	}
	det := func(a [3][3]float64) float64 {
		return a[0][0]*(a[1][1]*a[2][2]-a[1][2]*a[2][1]) - a[0][1]*(a[1][0]*a[2][2]-a[1][2]*a[2][0]) + a[0][2]*(a[1][0]*a[2][1]-a[1][1]*a[2][0])
	}
	d := det(m)
	var sol [3]float64
	for k := range sol {
		a := m
		for i := range a {
			a[i][k] = v[i]
		}
		sol[k] = det(a) / d
	}
	c := rowCost{fixed: sol[0], withBody: sol[1], without: sol[2]}
	var worst float64
	for _, p := range parts {
		fit := c.fixed + c.withBody*math.Ceil(float64(p.Rows)/2) + c.without*math.Floor(float64(p.Rows)/2)
		worst = math.Max(worst, math.Abs(fit-float64(p.Size)))
	}
	t.Logf("the node: a feed partition is %.1f bytes + %.2f a row with a body + %.2f a row without (fit within %.0f bytes of all 100)",
		c.fixed, c.withBody, c.without, worst)
	if worst > 64 {
		t.Fatalf("the fit misses a partition by %.0f bytes: the rows do not cost what the fit says", worst)
	}
	return c
}
