package migrations_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/internal/dctest"
)

// The tests in this file run on the two-DC cluster (`make test-dcs`): cqlsize processes
// pinned to a DC with --local-dc, as each DC's deploys would run them.

func dcCmd(t *testing.T, ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, cqlsizeBinary(t), args...)
	cmd.Env = append(os.Environ(), "CASSANDRA_HOSTS="+strings.Join(dctest.Hosts(t), ","))
	return cmd
}

// counters reads the runs counters (one per data migration: 1 when applied once) at
// LOCAL_QUORUM in dc, retrying until want holds or a minute passes: a counter update made
// in the other DC reaches this one asynchronously.
func dcCounters(t *testing.T, dc, ks string, want map[string]int64) {
	t.Helper()
	s := dctest.Session(t, dc)
	var got map[string]int64
	deadline := time.Now().Add(time.Minute)
	for {
		got = map[string]int64{}
		iter := s.Query(`SELECT k, n FROM ` + ks + `.runs`).Consistency(gocql.LocalQuorum).Iter()
		var k string
		var n int64
		for iter.Scan(&k, &n) {
			got[k] = n
		}
		err := iter.Close()
		if err == nil && fmt.Sprint(got) == fmt.Sprint(want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: counters %v (err %v), want %v: a data migration applied other than once", dc, got, err, want)
		}
		time.Sleep(time.Second)
	}
}

// dcSchema checks that every node of dc holds, in its own system_schema, the tables and
// column the concurrent set creates.
func dcSchema(t *testing.T, dc, ks string) {
	t.Helper()
	for _, h := range dctest.HostsIn(t, dc) {
		s := dctest.NodeSession(t, h)
		var cols []string
		// A node just started may not have its connection pool ready: a few tries.
		for try := 0; ; try++ {
			cols = nil
			iter := s.Query(`SELECT table_name, column_name FROM system_schema.columns WHERE keyspace_name = ?`, ks).Iter()
			var tb, c string
			for iter.Scan(&tb, &c) {
				cols = append(cols, tb+"."+c)
			}
			err := iter.Close()
			if err == nil {
				break
			}
			if try == 30 {
				t.Fatalf("%s %s: read system_schema.columns: %v", dc, h, err)
			}
			time.Sleep(time.Second)
		}
		all := strings.Join(cols, " ")
		for _, w := range []string{"items.extra", "items_by_v.v", "runs.n", "cqlsize_migrations.version"} {
			if !strings.Contains(" "+all+" ", " "+w+" ") {
				t.Errorf("%s node %s lacks %s in its schema: %s", dc, h, w, all)
			}
		}
	}
}

// dcHistory reads the bookkeeping at LOCAL_QUORUM in dc, through one of its nodes, until
// versions 1-3 are recorded applied, or a minute passes.
func dcHistory(t *testing.T, dc, ks string) {
	t.Helper()
	s := dctest.Session(t, dc)
	deadline := time.Now().Add(time.Minute)
	for {
		applied := map[int64]string{}
		iter := s.Query(`SELECT version, state FROM `+ks+`.cqlsize_migrations WHERE target = ?`, ks).Consistency(gocql.LocalQuorum).Iter()
		var v int64
		var st string
		for iter.Scan(&v, &st) {
			applied[v] = st
		}
		err := iter.Close()
		if err == nil && applied[1] == "applied" && applied[2] == "applied" && applied[3] == "applied" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: bookkeeping at LOCAL_QUORUM holds %v (err %v), want versions 1-3 applied", dc, applied, err)
		}
		time.Sleep(time.Second)
	}
}

// TestDCsConcurrentUp starts 8 `cqlsize migrate up` processes at once, four routed to dc1
// and four to dc2, with the default SERIAL lock: all exit 0, exactly one applies, every
// data migration is applied once (read in each DC), and both DCs hold the schema.
func TestDCsConcurrentUp(t *testing.T) {
	dctest.Lock(t)
	ks := dctest.Keyspace(t, 2)
	dir := writeFiles(t, concurrentSet)
	cqlsizeBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const procs = 8
	results := make([]procResult, procs)
	var wg sync.WaitGroup
	for i := 0; i < procs; i++ {
		dc := []string{"dc1", "dc2"}[i%2]
		cmd := dcCmd(t, ctx, "migrate", "up", "--keyspace", ks, "--dir", dir, "--local-dc", dc)
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			results[i] = runProc(cmd)
		}(i)
	}
	wg.Wait()
	checkOneApplier(t, results)
	if err := dctest.AwaitAgreement(ctx, t); err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"m1": 1, "m2": 1, "m3": 1}
	for _, dc := range []string{"dc1", "dc2"} {
		dcSchema(t, dc, ks)
		dcCounters(t, dc, ks, want)
		dcHistory(t, dc, ks)
	}
}

// TestDCsLostDC kills dc2 whole. The default (SERIAL) run refuses before anything is sent,
// exit 3, naming dc2; `--serial local --local-dc dc1` applies in dc1; once dc2 is started
// again it holds the schema, the bookkeeping and the data migrations' effects with no hand
// step, and a default run routed to dc2 finds nothing to do.
func TestDCsLostDC(t *testing.T) {
	dctest.Lock(t)
	ks := dctest.Keyspace(t, 2)
	dir := writeFiles(t, concurrentSet)
	cqlsizeBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()

	dctest.Kill(t, "dc2")
	t0 := time.Now()
	r := runProc(dcCmd(t, ctx, "migrate", "up", "--keyspace", ks, "--dir", dir, "--local-dc", "dc1"))
	if r.code != 3 || !strings.Contains(r.stderr, "dc2 short of replicas") || !strings.Contains(r.stderr, "Nothing was run") {
		t.Fatalf("default run with dc2 down: exit %d, want 3 naming dc2\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	t.Logf("default run refused after %s: %s", time.Since(t0).Round(100*time.Millisecond), strings.TrimSpace(r.stderr))
	// Nothing was sent: not even the bookkeeping table exists.
	s := dctest.Session(t, "dc1")
	var n int
	if err := s.Query(`SELECT count(*) FROM system_schema.tables WHERE keyspace_name = ?`, ks).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("the refused run left %d tables in %s; want none", n, ks)
	}

	t0 = time.Now()
	r = runProc(dcCmd(t, ctx, "migrate", "up", "--keyspace", ks, "--dir", dir, "--local-dc", "dc1", "--serial", "local"))
	t.Logf("--serial local with dc2 down: exit %d after %s", r.code, time.Since(t0).Round(100*time.Millisecond))
	if r.code != 0 || !strings.Contains(r.stdout, "now at version 3") {
		t.Fatalf("--serial local with dc2 down: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "dc2: 2 of 2 nodes down") {
		t.Errorf("--serial local did not warn that dc2 is down:\n%s", r.stderr)
	}
	dcCounters(t, "dc1", ks, map[string]int64{"m1": 1, "m2": 1, "m3": 1})

	dctest.Start(t, "dc2")
	t0 = time.Now()
	if err := dctest.AwaitAgreement(ctx, t); err != nil {
		t.Fatalf("after dc2 returned: %v", err)
	}
	dcSchema(t, "dc2", ks)
	dcHistory(t, "dc2", ks)
	dcCounters(t, "dc2", ks, map[string]int64{"m1": 1, "m2": 1, "m3": 1})
	t.Logf("dc2 back: schema agreed and history and counters complete in dc2 %s after its start returned", time.Since(t0).Round(100*time.Millisecond))
	r = runProc(dcCmd(t, ctx, "migrate", "up", "--keyspace", ks, "--dir", dir, "--local-dc", "dc2"))
	if r.code != 0 || !strings.Contains(r.stdout, "up to date, at version 3") {
		t.Fatalf("default run in dc2 after its return: exit %d, want 0 up to date\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
}
