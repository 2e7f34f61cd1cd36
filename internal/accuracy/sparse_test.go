package accuracy

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/internal/ddl"
	"github.com/cqlsize/cqlsize/sizing"
	"github.com/cqlsize/cqlsize/workload"
)

// TestSparseBucketsMatchCassandra loads an hour-bucketed table whose keys write 3 rows a day
// at random times (a Poisson process each) over 10 days, and counts the partitions the node
// holds with SELECT DISTINCT: the estimate's count of key × hour slots a row reached, not
// 200 keys × 240 hours, within 5% (the count's own spread is about 1.3%).
func TestSparseBucketsMatchCassandra(t *testing.T) {
	if testing.Short() {
		t.Skip("writes to Cassandra; skipped with -short")
	}
	const keys, perDay, days = 200, 3.0, 10
	s, ks := cassandratest.Keyspace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	tbl := ddl.Table{Scope: "accuracy", Keyspace: ks, Name: "ratings",
		Columns: "driver_id int, hour int, rated_at timestamp, stars int, PRIMARY KEY ((driver_id, hour), rated_at)"}
	// Sent again after a timeout on a busy node, with the same id.
	if err := ddl.CreateTable(ctx, s, tbl, ddl.Options{}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(25, 6))
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var rows int
	for k := 0; k < keys; k++ {
		for at := rng.ExpFloat64() / perDay; at < days; at += rng.ExpFloat64() / perDay {
			ts := base.Add(time.Duration(at * float64(24*time.Hour)))
			if err := s.Query(`INSERT INTO `+ks+`.ratings (driver_id, hour, rated_at, stars) VALUES (?, ?, ?, 5)`,
				k, int(at*24), ts).WithContext(ctx).Exec(); err != nil {
				t.Fatal(err)
			}
			rows++
		}
	}
	iter := s.Query(`SELECT DISTINCT driver_id, hour FROM ` + ks + `.ratings`).WithContext(ctx).PageSize(5000).Iter()
	var k, h, got int
	for iter.Scan(&k, &h) {
		got++
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}

	schema := cql.NewSchemaIn(ks)
	if err := schema.ApplyFile("schema.cql", []byte(tbl.Statement()+";")); err != nil {
		t.Fatal(err)
	}
	w, err := workload.Parse("workload.yaml", []byte(`version: 1
tables:
  ratings:
    partitions: 200
    write_rate: 3/day
    bucket: hour
    horizon: 10d
`))
	if err != nil {
		t.Fatal(err)
	}
	ests, err := sizing.EstimateAll(schema, w, sizing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	est := ests[0]
	t.Logf("%d rows written; node: %d partitions; estimate: %.0f partitions of %.0f slots", rows, got, est.Partitions, est.Slots)
	if math.Abs(est.Partitions-float64(got)) > 0.05*float64(got) {
		t.Errorf("estimate %.0f partitions, the node holds %d (of %.0f key × hour slots)", est.Partitions, got, est.Slots)
	}
	if est.Slots != keys*days*24 {
		t.Errorf("%.0f slots, want %d keys × %d hours", est.Slots, keys, days*24)
	}
}
