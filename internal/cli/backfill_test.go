package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/evolve/backfill"
)

// Flags that cannot be right fail with exit 2 before any cluster is asked.
func TestBackfillBadFlagsExitTwo(t *testing.T) {
	noCluster := map[string]string{}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--from", "posts", "--to", "posts", "-k", "app"}, "--from and --to are the same table app.posts"},
		{[]string{"--from", "app.posts", "--to", "posts", "-k", "app"}, "--from and --to are the same table app.posts"},
		{[]string{"--from", "posts", "--to", "by_month"}, "--from posts: name its keyspace with --keyspace or as keyspace.table"},
		{[]string{"--to", "by_month", "-k", "app"}, "--from is required"},
		{[]string{"--from", "posts", "--to", "m", "-k", "app", "--derive", "month=montth(ts)"}, `--derive "month=montth(ts)": col 7: unknown function montth`},
		{[]string{"--from", "posts", "--to", "m", "-k", "app", "--derive", "s=shard(id, 0)"}, `--derive "s=shard(id, 0)": col 13: want a shard count of at least 1`},
		{[]string{"--from", "posts", "--to", "m", "-k", "app", "--split", "0/3"}, `--split "0/3": want I/N`},
		{[]string{"--from", "posts", "--to", "m", "-k", "app", "--split", "4/3"}, `--split "4/3": want I/N`},
		{[]string{"--from", "posts", "--to", "m", "-k", "app", "--split", "x"}, `--split "x": want I/N`},
		{[]string{"--from", "posts", "--to", "m", "-k", "app", "--split", "3/300", "--ranges", "256"}, "--split 3/300: more shares than --ranges 256"},
		{[]string{"--from", "posts", "--to", "m", "-k", "app", "--consistency", "ANY"}, `--consistency "ANY": backfill reads the source at one of`},
		{[]string{"--from", "posts", "--to", "m", "-k", "app", "--consistency", "SERIAL"}, `--consistency "SERIAL"`},
		{[]string{"--from", "posts", "--to", "m", "-k", "app", "--rate", "fast"}, "--rate fast"},
		{[]string{"--from", "posts", "--to", "m", "-k", "app", "--full"}, "--full goes with --verify"},
		{[]string{"--from", "posts", "--to", "m", "-k", "app", "--verify-dc", "dc2"}, "--verify-dc goes with --verify"},
		{[]string{"--from", "posts", "--to", "m", "-k", "app", "--format", "yaml"}, `--format "yaml"`},
		{[]string{"--from", "posts", "--to", "m", "-k", "app", "--ranges", "0"}, "--ranges 0: want at least 1"},
		{[]string{"--from", "posts", "--to", "m", "-k", "app", "--workers", "-3"}, "--workers -3: want at least 1"},
		{[]string{"--from", "posts", "--to", "m", "-k", "app", "--verify", "--sample", "0"}, "--sample 0: want at least 1"},
		{[]string{"--from", "posts", "--to", "m", "-k", "app", "--ranges", "999999999"}, "--ranges 999999999: want at most 65536"},
		{[]string{"--from", "posts", "--to", "m", "-k", "app", "--timeout", "0s"}, "--timeout 0s: want a duration above zero"},
		{[]string{"--from", "posts", "--to", "m", "-k", "app"}, "no cluster: pass --hosts or set $CASSANDRA_HOSTS"},
	} {
		code, out, errOut := runEnv(t, noCluster, append([]string{"backfill"}, tc.args...)...)
		if code != ExitBadInput || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("backfill %v: exit %d\nstdout: %s\nstderr: %s\nwant exit 2 and %q", tc.args, code, out, errOut, tc.want)
		}
	}
}

// backfillKeyspace creates posts and two targets with rows in posts, and returns the
// keyspace and the session.
func backfillKeyspace(t *testing.T, rows int) (*gocql.Session, string) {
	t.Helper()
	s, ks := cassandratest.Keyspace(t)
	cassandratest.DDL(t, s, ks,
		"CREATE TABLE posts (id timeuuid PRIMARY KEY, user_id text, created_at timestamp, title text, tags set<text>)",
		"CREATE TABLE posts_by_month (user_id text, month text, id timeuuid, title text, PRIMARY KEY ((user_id, month), id))",
		"CREATE TABLE posts_by_tag (tag text, id timeuuid, title text, PRIMARY KEY (tag, id))",
	)
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < rows; i++ {
		at := base.Add(time.Duration(i) * 37 * time.Hour)
		if err := s.Query("INSERT INTO posts (id, user_id, created_at, title, tags) VALUES (?, ?, ?, ?, ?)",
			gocql.UUIDFromTime(at), fmt.Sprintf("u%d", i%5), at, fmt.Sprintf("t%d", i), []string{"x", fmt.Sprint("y", i%4)}).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	return s, ks
}

func bookkeepingExists(t *testing.T, s *gocql.Session, ks, table string) bool {
	t.Helper()
	var name string
	err := s.Query("SELECT table_name FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?", ks, table).Scan(&name)
	if err != nil && err != gocql.ErrNotFound {
		t.Fatal(err)
	}
	return err == nil
}

// Input the cluster shows to be wrong (an unknown table or column, a derive of the wrong
// type, a target key left unmapped) is exit 2 before anything is read or written: the
// checkpoint table is not even created.
func TestBackfillBadInputOnTheNode(t *testing.T) {
	s, ks := backfillKeyspace(t, 3)
	absent := cassandratest.KeyspaceName("absent") // a name no one has created
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--from", "nosuch", "--to", "posts_by_month"}, "--from " + ks + ".nosuch: no such table (the keyspace has posts, posts_by_month, posts_by_tag)"},
		{[]string{"--from", "posts", "--to", "nosuch"}, "--to " + ks + ".nosuch: no such table"},
		{[]string{"--from", absent + ".posts", "--to", "posts_by_month"}, "--from " + absent + ".posts: keyspace " + absent + " does not exist"},
		{[]string{"--from", "posts", "--to", "posts_by_month", "--derive", "month=month(title)"}, `--derive "month=month(title)": col 7: month() needs a timestamp, date or timeuuid column; title is text`},
		{[]string{"--from", "posts", "--to", "posts_by_month", "--derive", "month=month(creatd_at)"}, `--derive "month=month(creatd_at)": col 13: source table ` + ks + `.posts has no column creatd_at`},
		{[]string{"--from", "posts", "--to", "posts_by_month", "--derive", "mnth=month(created_at)"}, `target table ` + ks + `.posts_by_month has no column mnth`},
		{[]string{"--from", "posts", "--to", "posts_by_month"}, "target key column month is not a column of " + ks + ".posts and no rule derives it"},
		{[]string{"--from", "posts", "--to", "posts_by_tag", "--derive", "tag=each(title)"}, "each() needs a set or list column; title is text"},
		{[]string{"--from", "posts", "--to", "posts_by_tag", "--derive", "tag=tags"}, "source column tags is set<text> and target column tag is text"},
	} {
		code, out, errOut := sweepStep(t, append([]string{"backfill", "-k", ks}, tc.args...)...)
		if code != ExitBadInput || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("backfill %v: exit %d\nstdout: %s\nstderr: %s\nwant exit 2 and %q", tc.args, code, out, errOut, tc.want)
		}
	}
	if bookkeepingExists(t, s, ks, "cqlsize_backfill") || countRows(t, s, "SELECT COUNT(*) FROM "+ks+".posts_by_month") != 0 {
		t.Error("bad input wrote to the cluster")
	}
}

// A backfill end to end: exit 0 with a JSON summary, the target holds what an independent
// count says; a second run copies nothing (every range is checkpointed), --restart copies
// all again; --verify reports 0 after it, finds a row removed and a row changed by hand
// (exit 1), and the copy is whole again once the removed row's range is copied again.
func TestBackfillCommandEndToEnd(t *testing.T) {
	const n = 120
	s, ks := backfillKeyspace(t, n)
	args := []string{"backfill", "-k", ks, "--from", "posts", "--to", "posts_by_month", "--derive", "month=month(created_at)", "--ranges", "16"}
	code, out, errOut := sweepStep(t, append(args, "--format", "json")...)
	if code != ExitOK {
		t.Fatalf("backfill: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	var res struct {
		RangesCopied int   `json:"ranges_copied"`
		Rows         int64 `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got := countRows(t, s, "SELECT COUNT(*) FROM "+ks+".posts_by_month"); got != n || res.RangesCopied != 16 {
		t.Fatalf("posts_by_month holds %d rows, want %d; %d ranges copied, want 16\n%s", got, n, res.RangesCopied, out)
	}
	// The checkpoint: every range once.
	if got := countRows(t, s, "SELECT COUNT(*) FROM "+ks+".cqlsize_backfill"); got != 16 {
		t.Errorf("checkpoint holds %d ranges, want 16", got)
	}
	code, out, errOut = sweepStep(t, args...)
	if code != ExitOK || !strings.Contains(out, ": 0 of 16 ranges copied by this run, 16 done before or by another run, 0 left") {
		t.Errorf("second run: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = sweepStep(t, append(args[:len(args)-1:len(args)-1], "8")...)
	if code != ExitBadInput || out != "" || !strings.Contains(errOut, "was made with 16 ranges") || !strings.Contains(errOut, "start over with --restart") {
		t.Errorf("a run with --ranges 8 over a checkpoint of 16: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	code, out, _ = sweepStep(t, append(args, "--restart")...)
	if code != ExitOK || !strings.Contains(out, ": 16 of 16 ranges copied by this run, 0 done before") || !strings.Contains(out, fmt.Sprintf("  %d source rows read", n)) {
		t.Errorf("--restart: exit %d\n%s", code, out)
	}

	verify := append(args, "--verify", "--full")
	code, out, errOut = sweepStep(t, verify...)
	if code != ExitOK || !strings.Contains(out, fmt.Sprintf("%d source rows, %d target rows checked: 0 missing, 0 different", n, n)) {
		t.Errorf("verify after a clean backfill: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	// Remove one target row and change another by hand.
	var user, month string
	var id gocql.UUID
	if err := s.Query("SELECT user_id, month, id FROM "+ks+".posts_by_month LIMIT 1").Scan(&user, &month, &id); err != nil {
		t.Fatal(err)
	}
	if err := s.Query("DELETE FROM "+ks+".posts_by_month WHERE user_id = ? AND month = ? AND id = ?", user, month, id).Exec(); err != nil {
		t.Fatal(err)
	}
	var user2, month2 string
	var id2 gocql.UUID
	if err := s.Query("SELECT user_id, month, id FROM "+ks+".posts_by_month WHERE token(user_id, month) > token(?, ?) LIMIT 1", user, month).Scan(&user2, &month2, &id2); err != nil {
		t.Fatal(err)
	}
	if err := s.Query("UPDATE "+ks+".posts_by_month SET title = 'changed by hand' WHERE user_id = ? AND month = ? AND id = ?", user2, month2, id2).Exec(); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = sweepStep(t, verify...)
	if code != ExitFindings || !strings.Contains(out, "1 missing, 1 different") || !strings.Contains(out, "missing ('"+user+"', '"+month+"', "+id.String()+")") ||
		!strings.Contains(out, "column title is changed by hand") {
		t.Errorf("verify after a row removed and one changed: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	code, out, _ = sweepStep(t, append(args, "--verify", "--format", "json", "--sample", "5000")...)
	if code != ExitFindings || !strings.Contains(out, `"missing": 1`) {
		t.Errorf("verify --format json of a sample larger than the table: exit %d\n%s", code, out)
	}
	// --verify-dc each in JSON: one document, an array with a result for each DC the node
	// reports, each naming its DC; a DC named alone gives one object naming it.
	var dc string
	if err := s.Query("SELECT data_center FROM system.local").Scan(&dc); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = sweepStep(t, append(args, "--verify", "--verify-dc", "each", "--format", "json", "--sample", "5000")...)
	var each []map[string]any
	if err := json.Unmarshal([]byte(out), &each); err != nil || code != ExitFindings || len(each) != 1 || each[0]["dc"] != dc || each[0]["missing"] != 1.0 {
		t.Errorf("verify --verify-dc each --format json: exit %d, %v, want one array naming %s with 1 missing\nstdout: %s\nstderr: %s", code, err, dc, out, errOut)
	}
	code, out, errOut = sweepStep(t, append(args, "--verify", "--verify-dc", dc, "--format", "json", "--sample", "5000")...)
	var one map[string]any
	if err := json.Unmarshal([]byte(out), &one); err != nil || code != ExitFindings || one["dc"] != dc || one["different"] != 1.0 {
		t.Errorf("verify --verify-dc %s --format json: exit %d, %v, want one object naming it with 1 different\nstdout: %s\nstderr: %s", dc, code, err, out, errOut)
	}
}

func TestBackfillProgressLine(t *testing.T) {
	for _, tc := range []struct {
		p    backfill.Progress
		want string
	}{
		{backfill.Progress{Ranges: 256}, "[..............................]   0%  0/256 ranges  0 rows  0 B"},
		{backfill.Progress{Ranges: 256, RangesDone: 64, Fraction: 0.25, Rows: 51234, TotalRows: 204800, Bytes: 3 << 20, TotalBytes: 12 << 20, ETA: 90 * time.Second},
			"[#######.......................]  25%  64/256 ranges  51234 rows of ~204800  3.15 MB of ~12.6 MB  ETA 1m30s"},
		{backfill.Progress{Ranges: 10, RangesDone: 10, Fraction: 1, Rows: 7, HeldByOther: 2},
			"[##############################] 100%  10/10 ranges  7 rows  0 B  (2 ranges held by another run)"},
	} {
		if got := backfillLine(tc.p); got != tc.want {
			t.Errorf("backfillLine(%+v)\n got %q\nwant %q", tc.p, got, tc.want)
		}
	}
}

// A backfill interrupted (Ctrl-C: the context Main cancels) is exit 3, says so and how many
// ranges are left, and its summary counts those ranges as left; the next run copies them.
func TestBackfillInterruptedSaysWhatIsLeft(t *testing.T) {
	const n = 400
	s, ks := backfillKeyspace(t, n)
	args := []string{"backfill", "-k", ks, "--from", "posts", "--to", "posts_by_month", "--derive", "month=month(created_at)", "--ranges", "64", "--rate", "40/s", "--workers", "1"}
	env := map[string]string{"CASSANDRA_HOSTS": strings.Join(cassandratest.Hosts(t), ",")}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// Interrupt once the copy has recorded its first range, not after a fixed time: on a
	// loaded node the bookkeeping's schema changes alone can outlast any fixed delay, and an
	// interruption before the copy starts is another case. At 40 rows a second the 400 rows
	// take about 10 s, so ranges are left when it comes.
	go func() {
		for ctx.Err() == nil {
			var done int
			// A copied range has a range_hi; the static row written at the start has none.
			if err := s.Query("SELECT count(range_hi) FROM " + ks + "." + backfill.ProgressTable).WithContext(ctx).Scan(&done); err == nil && done > 0 {
				cancel()
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	var out, errb bytes.Buffer
	code := DoContext(ctx, args, strings.NewReader(""), &out, &errb, func(k string) string { return env[k] })
	m := regexp.MustCompile(`: (\d+) of 64 ranges copied by this run, 0 done before or by another run, (\d+) left`).FindStringSubmatch(out.String())
	if code != ExitRetry || m == nil || m[2] == "0" || !strings.Contains(errb.String(), "interrupted: "+m[2]+" of 64 ranges left") {
		t.Fatalf("interrupted: exit %d\nstdout: %s\nstderr: %s", code, out.String(), errb.String())
	}
	if c, o, e := sweepStep(t, args[:len(args)-4]...); c != ExitOK || !strings.Contains(o, ", 0 left") {
		t.Errorf("the run after: exit %d\nstdout: %s\nstderr: %s", c, o, e)
	}
}
