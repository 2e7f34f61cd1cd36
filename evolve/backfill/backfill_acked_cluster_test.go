package backfill

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
)

// A write the node refuses (here a partition key over 64 KiB) is not a row written: the
// result counts only the rows the node acknowledged, which are the rows the target holds,
// and the refused one apart.
func TestBackfillCountsOnlyAcknowledgedWrites(t *testing.T) {
	s, ks := backfillSetup(t)
	cassandratest.DDL(t, s, ks, "CREATE TABLE IF NOT EXISTS "+ks+".named (id int PRIMARY KEY, name text)",
		"CREATE TABLE IF NOT EXISTS "+ks+".by_name (name text, id int, PRIMARY KEY (name, id))")
	for i := 0; i < 6; i++ {
		name := fmt.Sprintf("name-%d", i)
		if i == 3 {
			name = strings.Repeat("x", 70000) // too long for a partition key: the node refuses it
		}
		if err := s.Query("INSERT INTO "+ks+".named (id, name) VALUES (?, ?)", i, name).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Run(t.Context(), s, program(t, s, ks, "named", "by_name"), Options{Ranges: 32})
	if !errorsAs[*Error](err) {
		t.Fatalf("backfill: %v, want a backfill.Error for the refused write", err)
	}
	if res.RangesFailed != 1 {
		t.Errorf("%d ranges failed, want 1: %v", res.RangesFailed, res.Failures)
	}
	held := countOf(t, s, "SELECT COUNT(*) FROM "+ks+".by_name")
	if res.TargetRows != int64(held) {
		t.Errorf("%d target rows counted as written, the target holds %d", res.TargetRows, held)
	}
	if res.RefusedRows != 1 {
		t.Errorf("%d target rows counted as refused, want 1", res.RefusedRows)
	}
}

// Elements of a non-frozen map written at different times keep each its own time, paired
// by the node's key order (a timeuuid's is by time, not by Go's order of its text).
func TestBackfillMapElementTimesFollowTheNodesKeyOrder(t *testing.T) {
	s, ks := backfillSetup(t)
	cassandratest.DDL(t, s, ks, "CREATE TABLE IF NOT EXISTS "+ks+".tm (id int PRIMARY KEY, m map<timeuuid, int>, d map<double, int>)",
		"CREATE TABLE IF NOT EXISTS "+ks+".tm_copy (id int PRIMARY KEY, m map<timeuuid, int>, d map<double, int>)")
	early, _ := gocql.ParseUUID("ffffffff-0000-1000-8000-000000000000") // earlier in time, later as text
	late, _ := gocql.ParseUUID("00000000-0001-1000-8000-000000000000")
	exec(t, s,
		fmt.Sprintf("UPDATE %s.tm USING TIMESTAMP 2000 SET m = m + {%s: 1} WHERE id = 1", ks, early),
		fmt.Sprintf("UPDATE %s.tm USING TIMESTAMP 1000 SET m = m + {%s: 2} WHERE id = 1", ks, late),
		"UPDATE "+ks+".tm USING TIMESTAMP 3000 SET d = d + {-2.5: 1} WHERE id = 1",
		"UPDATE "+ks+".tm USING TIMESTAMP 4000 SET d = d + {-10.0: 2} WHERE id = 1",
		"UPDATE "+ks+".tm USING TIMESTAMP 5000 SET d = d + {1.0: 3} WHERE id = 1")
	runBackfill(t, s, program(t, s, ks, "tm", "tm_copy"), Options{})
	for _, col := range []string{"m", "d"} {
		want, got := elementTimes(t, s, ks+".tm", col), elementTimes(t, s, ks+".tm_copy", col)
		if len(want) == 0 || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: element write times %v, the source's %v", col, got, want)
		}
	}
}

// elementTimes reads a map column's element write times by key, paired as the node lists
// them (MAP_KEYS and WRITETIME in the same order), rendered as key=time.
func elementTimes(t *testing.T, s *gocql.Session, table, col string) map[string]int64 {
	t.Helper()
	m := map[string]any{}
	if err := s.Query(fmt.Sprintf("SELECT MAP_KEYS(%s) AS k, WRITETIME(%s) AS w FROM %s WHERE id = 1", col, col, table)).MapScan(m); err != nil {
		t.Fatal(err)
	}
	keys, times := reflectSlice(m["k"]), m["w"].([]int64)
	if len(keys) != len(times) {
		t.Fatalf("%s.%s: %d keys, %d write times", table, col, len(keys), len(times))
	}
	out := map[string]int64{}
	for i, k := range keys {
		out[fmt.Sprint(k)] = times[i]
	}
	return out
}

func reflectSlice(v any) []any {
	switch x := v.(type) {
	case []gocql.UUID:
		out := make([]any, len(x))
		for i := range x {
			out[i] = x[i]
		}
		return out
	case []float64:
		out := make([]any, len(x))
		for i := range x {
			out[i] = x[i]
		}
		return out
	}
	return nil
}

// A lease taken over by another owner while its range is copied (here by hand, as a run
// whose claim won after this one's lease ran out would) stops that range's copy, and the
// loss is counted and said, not only a failed range.
func TestBackfillLostLeaseStopsTheRangeAndSaysSo(t *testing.T) {
	s, ks := backfillSetup(t)
	insertPosts(t, s, ks, 200)
	p := program(t, s, ks, "posts", "posts_by_month", "month=month(created_at)")
	id := backfillID(p.SourceTable(), p.TargetTable())
	done := make(chan struct{})
	stolen := make(chan int64, 1)
	go func() { // take over the first lease seen
		for {
			select {
			case <-done:
				return
			case <-time.After(200 * time.Millisecond):
			}
			var lo int64
			var owner string
			iter := s.Query("SELECT range_lo, owner FROM "+ks+"."+LeaseTable+" WHERE backfill = ? ALLOW FILTERING", id).Iter()
			found := iter.Scan(&lo, &owner)
			iter.Close()
			if found && owner != "thief" {
				if err := s.Query("UPDATE "+ks+"."+LeaseTable+" USING TTL 60 SET owner = 'thief' WHERE backfill = ? AND range_lo = ?", id, lo).Exec(); err == nil {
					stolen <- lo
					return
				}
			}
		}
	}()
	res, err := Run(t.Context(), s, p, Options{Ranges: 2, Workers: 1, Rate: 25, Lease: 4 * time.Second, Wait: 300 * time.Millisecond, Owner: "victim"})
	close(done)
	var lo int64
	select {
	case lo = <-stolen:
	default:
		t.Fatalf("no lease was taken over (result %+v, %v)", res, err)
	}
	if !errorsAs[*Error](err) || !errors.Is(err, ErrLeaseLost) {
		t.Errorf("backfill: %v, want a backfill.Error for the lost lease", err)
	}
	if res.LeasesLost != 1 || res.RangesCopied != 1 {
		t.Errorf("%d leases lost and %d ranges copied, want 1 and 1: %v", res.LeasesLost, res.RangesCopied, res.Failures)
	}
	if len(res.Failures) != 1 || !strings.Contains(res.Failures[0], fmt.Sprintf("range (%d,", lo)) || !strings.Contains(res.Failures[0], ErrLeaseLost.Error()) {
		t.Errorf("failures %q, want the range at %d named with its lost lease", res.Failures, lo)
	}
}

// A key-only row inserted with a TTL cannot have its TTL read (CQL shows no TTL of a key
// column, and every regular column's is null): the copy, which does not expire, is not
// silent; the result warns with the count of such rows.
func TestBackfillWarnsOfKeyOnlyRowsItCannotGiveATTL(t *testing.T) {
	s, ks := backfillSetup(t)
	exec(t, s, "INSERT INTO "+ks+".keys_only (a, b) VALUES (1, 10) USING TTL 86400",
		"INSERT INTO "+ks+".keys_only (a, b) VALUES (2, 20) USING TTL 86400")
	res := runBackfill(t, s, program(t, s, ks, "keys_only", "keys_only_copy"), Options{})
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "2 source rows have key columns only") || !strings.Contains(res.Warnings[0], "TTL") {
		t.Errorf("warnings %q, want one naming the 2 key-only rows and their TTL", res.Warnings)
	}
}

// Verify walks the target too: a target row no source row gives (a key no source row has,
// or a source row's under a wrong month) is extra, and fails the check; after a clean
// backfill, with a service's dual write made after it, there is none.
func TestVerifyFindsExtraTargetRows(t *testing.T) {
	s, ks := backfillSetup(t)
	insertPosts(t, s, ks, 300)
	p := program(t, s, ks, "posts", "posts_by_month", "month=month(created_at)")
	runBackfill(t, s, p, Options{})
	// A dual write after the copy: in both tables.
	id := gocql.TimeUUID()
	exec(t, s, fmt.Sprintf("INSERT INTO %s.posts (id, user_id, created_at, title) VALUES (%s, 'late', '2024-03-05', 't') USING TIMESTAMP 5000", ks, id),
		fmt.Sprintf("INSERT INTO %s.posts_by_month (user_id, month, id, title) VALUES ('late', '2024-03', %s, 't') USING TIMESTAMP 5000", ks, id))
	v, err := Verify(t.Context(), s, p, VerifyOptions{Full: true})
	if err != nil {
		t.Fatal(err)
	}
	if !v.OK() || v.Extra != 0 || v.TargetRowsScanned != 301 || v.ExtraUnchecked != "" {
		t.Fatalf("after a clean backfill: %+v, want OK with 301 target rows walked", v)
	}
	exec(t, s, fmt.Sprintf("INSERT INTO %s.posts_by_month (user_id, month, id, title) VALUES ('nobody', '2024-01', %s, 'x')", ks, gocql.TimeUUID()),
		fmt.Sprintf("INSERT INTO %s.posts_by_month (user_id, month, id, title) VALUES ('late', '1999-12', %s, 't')", ks, id))
	v, err = Verify(t.Context(), s, p, VerifyOptions{Full: true})
	if err != nil {
		t.Fatal(err)
	}
	extra, named := 0, false
	for _, e := range v.Examples {
		if strings.HasPrefix(e, "extra ") {
			extra++
		}
		if strings.HasPrefix(e, "extra ('late', '1999-12', "+id.String()+")") {
			named = true
		}
	}
	if v.OK() || v.Extra != 2 || extra != 2 || !named || v.Missing != 0 || v.Different != 0 {
		t.Errorf("with two rows added by hand: %+v, want 2 extra, named", v)
	}
}

// Every read verify makes is sent again when its answer is lost: verify runs through a
// proxy that keeps the node's answers back for 2.5 s at a time, past the session's 2 s
// timeout, while it walks the source's pages, reads the targets, walks the target's pages
// and maps target rows back to their source rows. It must finish with every row checked
// and nothing wrong, and the proxy must have held answers that the driver gave up on.
func TestVerifyReadsAgainAfterLostAnswers(t *testing.T) {
	s, ks := backfillSetup(t)
	insertPosts(t, s, ks, 800)
	p := program(t, s, ks, "posts", "posts_by_month", "month=month(created_at)")
	runBackfill(t, s, p, Options{})
	slow, proxy := cassandratest.ProxiedSession(t, 2*time.Second)
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		defer proxy.Hold(false)
		for {
			select {
			case <-done:
				return
			case <-time.After(700 * time.Millisecond):
			}
			proxy.Hold(true)
			select {
			case <-done:
				return
			case <-time.After(2500 * time.Millisecond):
			}
			proxy.Hold(false)
		}
	}()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	v, err := Verify(ctx, slow, p, VerifyOptions{Full: true, Workers: 4, RetryFor: 2 * time.Minute})
	close(done)
	<-stopped
	if err != nil {
		t.Fatalf("verify through lost answers: %v", err)
	}
	if !v.OK() || v.SourceRows != 800 || v.TargetRowsScanned != 800 {
		t.Errorf("verify through lost answers: %+v, want OK with 800 source rows checked and 800 target rows walked", v)
	}
	if proxy.Late() == 0 {
		t.Errorf("no answer was held: the test provoked nothing")
	}
	t.Logf("answers held past the timeout: %d reads; %+v", proxy.Late(), v)
}
