package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/migrations"
)

func TestMigrateResolveUsage(t *testing.T) {
	dir := migDir(t, goodSet)
	for _, args := range [][]string{
		{"migrate", "resolve", "1", "1", "--keyspace", "k", "--dir", dir},
		{"migrate", "resolve", "1", "1", "--applied", "--rerun", "--keyspace", "k", "--dir", dir},
		{"migrate", "resolve", "1", "first", "--applied", "--keyspace", "k", "--dir", dir},
		{"migrate", "resolve", "1", "--applied", "--keyspace", "k", "--dir", dir},
	} {
		if code, _, errOut := run(t, args...); code != ExitBadInput || errOut == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 with a message", args, code, errOut)
		}
	}
}

// The exit statuses of migrate's own failure paths, each produced for real on the node:
// a statement the node refuses 2, a lock wait that timed out 3, a statement in doubt 4
// (up and status), resolve then up 0. A lease lost (3) and in doubt (4) from a paused
// holder are produced by real processes in migrations' TestPausedHolderNeverAppliesTwice.
func TestMigrateExitStatusesOnCluster(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	env := clusterEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	// 2: the node refuses a statement (the model check is skipped so the node sees it).
	refused := migDir(t, map[string]string{"0001_bad.cql": "CREATE TABLE a (k int PRIMARY KEY);\nALTER TABLE no_such_table ADD x int;\n"})
	code, _, errOut := runEnv(t, env, "migrate", "up", "--dir", refused, "--keyspace", ks, "--skip-model-check")
	if code != ExitBadInput || !strings.Contains(errOut, "statement 2 of 2 failed") {
		t.Fatalf("refused statement: exit %d, stderr %s; want 2", code, errOut)
	}
	_, ks2 := cassandratest.Keyspace(t)

	// 3: another process holds the lock longer than --lock-timeout.
	files := map[string]string{
		"0001_hits.cql":  "CREATE TABLE IF NOT EXISTS hits (k text PRIMARY KEY, n counter);\n",
		"0002_count.cql": "UPDATE hits SET n = n + 1 WHERE k = 'a';\nUPDATE hits SET n = n + 1 WHERE k = 'b';\n",
	}
	dir := migDir(t, files)
	migs, err := migrations.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	holding, release := make(chan struct{}), make(chan struct{})
	held := make(chan error, 1)
	hs := cassandratest.Session(t)
	go func() {
		m, err := migrations.New(hs, migs, migrations.Options{Keyspace: ks2, LockTTL: 5 * time.Second,
			BeforeApply: func(context.Context, []migrations.Step) error { close(holding); <-release; return context.Canceled }})
		if err != nil {
			held <- err
			return
		}
		_, err = m.Up(ctx)
		held <- err
	}()
	select {
	case <-holding:
	case err := <-held:
		t.Fatalf("the holder did not take the lock: %v", err)
	}
	code, _, errOut = runEnv(t, env, "migrate", "up", "--dir", dir, "--keyspace", ks2, "--lock-timeout", "2s")
	close(release)
	<-held
	if code != ExitRetry || !strings.Contains(errOut, "migration lock held by") {
		t.Fatalf("lock wait timed out: exit %d, stderr %s; want 3", code, errOut)
	}

	// 4: a run that died while sending a counter update leaves it in doubt.
	if code, out, errOut := runEnv(t, env, "migrate", "up", "--dir", dir, "--keyspace", ks2, "--to", "1"); code != ExitOK {
		t.Fatalf("up --to 1: exit %d\n%s%s", code, out, errOut)
	}
	two := migs[1]
	if err := s.Query(`UPDATE `+ks2+`.cqlsize_migrations SET lock_owner = ? WHERE target = ?`, gocql.TimeUUID(), ks2).Exec(); err != nil {
		t.Fatal(err)
	}
	if err := s.Query(`INSERT INTO `+ks2+`.cqlsize_migrations (target, version, name, checksum, state, statements, applied, running, applied_by, pid)
		VALUES (?, 2, '0002_count.cql', ?, 'running', 2, 0, 1, 'dead-host', 4242)`, ks2, two.Checksum).Exec(); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runEnv(t, env, "migrate", "up", "--dir", dir, "--keyspace", ks2, "--lock-ttl", "5s")
	if code != ExitInDoubt || !strings.Contains(errOut, "0002_count.cql:1:1: statement 1 of 2 (UPDATE) is in doubt") ||
		!strings.Contains(errOut, "cqlsize migrate resolve 2 1 --applied") {
		t.Fatalf("up with a statement in doubt: exit %d, stderr %s; want 4 with the resolve command", code, errOut)
	}
	code, out, _ := runEnv(t, env, "migrate", "status", "--dir", dir, "--keyspace", ks2)
	if code != ExitInDoubt || !strings.Contains(out, "in-doubt") || !strings.Contains(out, "resolve 2 1 --applied|--rerun") {
		t.Fatalf("status with a statement in doubt: exit %d\n%s", code, out)
	}
	code, out, errOut = runEnv(t, env, "migrate", "resolve", "2", "1", "--rerun", "--dir", dir, "--keyspace", ks2, "--lock-ttl", "5s")
	if code != ExitOK || !strings.Contains(out, "statement 1 recorded as not run") {
		t.Fatalf("resolve: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runEnv(t, env, "migrate", "up", "--dir", dir, "--keyspace", ks2, "--lock-ttl", "5s"); code != ExitOK {
		t.Fatalf("up after resolve: exit %d\n%s%s", code, out, errOut)
	}
	var a int64
	if err := s.Query(`SELECT n FROM ` + ks2 + `.hits WHERE k = 'a'`).Scan(&a); err != nil || a != 1 {
		t.Fatalf("counter a = %d (%v) after --rerun, want 1", a, err)
	}
	if code, out, _ := runEnv(t, env, "migrate", "status", "--dir", dir, "--keyspace", ks2); code != ExitOK {
		t.Fatalf("status at the end: exit %d\n%s", code, out)
	}
}
