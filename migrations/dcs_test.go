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
// pinned to a DC with --local-dc, as each DC's deploys would run them. The loss of a whole
// DC is tested once for migrations, writes and backfill together, in internal/dcsuite.

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
