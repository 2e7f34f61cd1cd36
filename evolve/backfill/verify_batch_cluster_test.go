package backfill

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
)

// queryCounter counts the queries a session sends (each page its own).
type queryCounter struct{ n atomic.Int64 }

func (c *queryCounter) ObserveQuery(context.Context, gocql.ObservedQuery) { c.n.Add(1) }

// Verify reads the rows of one partition together, source and target alike: with a
// source clustered by time, 3 users x 40 events over 2 days, a full verify sends far fewer
// queries than the 240 point reads of one row at a time, and still finds a target row
// removed, one changed, one under the wrong day (its source row exists) and one whose
// source row does not exist, each in a partition that holds other rows.
func TestVerifyReadsByPartition(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	cassandratest.DDL(t, s, ks,
		"CREATE TABLE IF NOT EXISTS "+ks+".events (user_id text, at timestamp, seq int, v text, PRIMARY KEY (user_id, at, seq))",
		"CREATE TABLE IF NOT EXISTS "+ks+".events_by_day (user_id text, day text, at timestamp, seq int, v text, PRIMARY KEY ((user_id, day), at, seq))")
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	const users, perUser = 3, 40
	for u := 0; u < users; u++ {
		b := s.NewBatch(gocql.UnloggedBatch)
		for i := 0; i < perUser; i++ {
			// 40 events an hour and 12 minutes apart: two days, 20 a day.
			b.Query("INSERT INTO "+ks+".events (user_id, at, seq, v) VALUES (?, ?, ?, ?)", fmt.Sprintf("u%d", u), base.Add(time.Duration(i)*72*time.Minute), i, fmt.Sprintf("v%d", i))
		}
		if err := s.ExecuteBatch(b); err != nil {
			t.Fatal(err)
		}
	}
	p := program(t, s, ks, "events", "events_by_day", "day=day(at)")
	runBackfill(t, s, p, Options{})

	counter := &queryCounter{}
	cs := cassandratest.ObservedSession(t, ks, counter)
	v, err := Verify(t.Context(), cs, p, VerifyOptions{Full: true, Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	const rows = users * perUser
	if !v.OK() || v.SourceRows != rows || v.TargetRows != rows || v.TargetRowsScanned != rows || v.Rechecked != 0 {
		t.Fatalf("after a clean backfill: %+v, want OK, %d rows each way", v, rows)
	}
	// One at a time, a row costs a target read and, walking back, a source read: 240, plus
	// the 64 ranges' scans of each table. By partition (6 target partitions, 3 source ones,
	// each well under verifyChunk rows), the reads are a few per partition and range.
	if sent := counter.n.Load(); sent >= 2*rows {
		t.Errorf("a full verify of %d rows sent %d queries; reading by partition, want fewer than %d", rows, sent, 2*rows)
	} else {
		t.Logf("a full verify of %d rows sent %d queries", rows, sent)
	}

	day := func(i int) string { return base.Add(time.Duration(i) * 72 * time.Minute).Format("2006-01-02") }
	at := func(i int) time.Time { return base.Add(time.Duration(i) * 72 * time.Minute) }
	exec(t, s,
		fmt.Sprintf("DELETE FROM %s.events_by_day WHERE user_id = 'u0' AND day = '%s' AND at = '%s' AND seq = 3", ks, day(3), at(3).Format(time.RFC3339)),
		fmt.Sprintf("UPDATE %s.events_by_day SET v = 'changed by hand' WHERE user_id = 'u1' AND day = '%s' AND at = '%s' AND seq = 5", ks, day(5), at(5).Format(time.RFC3339)),
		// Source row u2/7 exists, but its day is day(7), not day(30).
		fmt.Sprintf("INSERT INTO %s.events_by_day (user_id, day, at, seq, v) VALUES ('u2', '%s', '%s', 7, 'v7')", ks, day(30), at(7).Format(time.RFC3339)),
		// No source row has seq 99.
		fmt.Sprintf("INSERT INTO %s.events_by_day (user_id, day, at, seq, v) VALUES ('u2', '%s', '%s', 99, 'x')", ks, day(8), at(8).Format(time.RFC3339)))
	v, err = Verify(t.Context(), cs, p, VerifyOptions{Full: true, Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{
		fmt.Sprintf("missing ('u0', '%s', '%s', 3)", day(3), at(3).Format("2006-01-02 15:04:05.000Z0700")):                                false,
		fmt.Sprintf("different ('u1', '%s', '%s', 5): column v is changed by hand", day(5), at(5).Format("2006-01-02 15:04:05.000Z0700")): false,
		fmt.Sprintf("extra ('u2', '%s', '%s', 7)", day(30), at(7).Format("2006-01-02 15:04:05.000Z0700")):                                 false,
		fmt.Sprintf("extra ('u2', '%s', '%s', 99)", day(8), at(8).Format("2006-01-02 15:04:05.000Z0700")):                                 false,
	}
	for _, e := range v.Examples {
		for w := range want {
			if strings.HasPrefix(e, w) {
				want[w] = true
			}
		}
	}
	if v.Missing != 1 || v.Different != 1 || v.Extra != 2 {
		t.Errorf("after 1 row removed, 1 changed and 2 added by hand: %d missing, %d different, %d extra, want 1, 1, 2\n%s", v.Missing, v.Different, v.Extra, strings.Join(v.Examples, "\n"))
	}
	for w, seen := range want {
		if !seen {
			t.Errorf("not named: %s\n(named: %s)", w, strings.Join(v.Examples, "; "))
		}
	}
}
