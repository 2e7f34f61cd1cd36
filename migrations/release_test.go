package migrations_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/migrations"
)

// TestUpReleaseFailureIsAWarning: a run that applied and recorded everything and then
// cannot release its lock (here its session is closed as the last file finishes; on a
// busy ring the release's LWT times out) succeeds with a Warning that says the lock
// expires on its own; the next run finds nothing pending and, once the lease expired,
// takes the lock.
func TestUpReleaseFailureIsAWarning(t *testing.T) {
	s0, ks := cassandratest.Keyspace(t)
	ctx := ctxT(t)
	cc, err := cassandratest.Config(t).ClusterConfig()
	if err != nil {
		t.Fatal(err)
	}
	s, err := cc.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	migs := load(t, basic)
	var warnings []string
	done := 0
	m, err := migrations.New(s, migs, migrations.Options{Keyspace: ks, LockTTL: 5 * time.Second, OnEvent: func(e migrations.Event) {
		switch e.Kind {
		case migrations.MigrationDone:
			if done++; done == len(migs) {
				s.Close()
			}
		case migrations.Warning:
			warnings = append(warnings, e.Message)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Up(ctx)
	if err != nil || len(res.Applied) != len(migs) {
		t.Fatalf("Up: %v, %d applied: want every file applied and no error", err, len(res.Applied))
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "release the migration lock (it expires on its own after 5s)") {
		t.Fatalf("warnings %q: want one saying the lock was not released and expires on its own", warnings)
	}
	more := map[string]string{"0003_more.cql": `CREATE TABLE more (k int PRIMARY KEY);`}
	for name, src := range basic {
		more[name] = src
	}
	m2, rec := newMigrator(t, s0, ks, load(t, more), migrations.Options{})
	res, err = m2.Up(ctx)
	if err != nil || len(res.Applied) != 1 || rec.count(migrations.LockAcquired) != 1 {
		t.Fatalf("next Up: %d applied, %d lock acquisitions, %v: want the new file applied once the lease expired",
			len(res.Applied), rec.count(migrations.LockAcquired), err)
	}
}
