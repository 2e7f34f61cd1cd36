package cli

import (
	"strings"
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
)

func TestSplitCQLName(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string // nil: refused
	}{
		{"app", []string{"app"}},
		{"App", []string{"app"}},
		{"  USERSWEEP_A ", []string{"usersweep_a"}},
		{`"MixedCase"`, []string{"MixedCase"}},
		{`"a""b"`, []string{`a"b`}},
		{"App.Events", []string{"app", "events"}},
		{`"My.Ks"."T"`, []string{"My.Ks", "T"}},
		{`app."T"`, []string{"app", "T"}},
		{"a.b.c", []string{"a", "b", "c"}},
		{"", nil},
		{`"open`, nil},
		{`""`, nil},
		{"app.", nil},
		{".t", nil},
		{`"a"b`, nil},
		{`a"b"`, nil},
	} {
		got, err := splitCQLName(tc.in)
		if tc.want == nil {
			if err == nil {
				t.Errorf("splitCQLName(%q) = %q, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("splitCQLName(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestProfileTargets(t *testing.T) {
	for _, tc := range []struct {
		k      string
		tables []string
		ks     string
		names  string
		err    string // "" when accepted
	}{
		{k: "App", ks: "app"},
		{k: `"App"`, tables: []string{"Events"}, ks: "App", names: "events"},
		{k: "app", tables: []string{"app.events", "users"}, ks: "app", names: "events|users"},
		{k: "APP", tables: []string{"App.Events"}, ks: "app", names: "events"},
		{tables: []string{"app.events"}, ks: "app", names: "events"},
		{tables: []string{"users", "app.events"}, ks: "app", names: "users|events"},
		{tables: []string{"events"}, err: "--keyspace is required"},
		{err: "--keyspace is required"},
		{k: "app", tables: []string{"other.events"}, err: "--table other.events is in keyspace other, but --keyspace is app"},
		{tables: []string{"a.t", "b.u"}, err: "--table a.t and --table b.u name two keyspaces"},
		{k: "app", tables: []string{"a.b.c"}, err: "--table a.b.c: want table or keyspace.table"},
		{k: `"app`, err: "--keyspace"},
		{k: "app.events", err: "--keyspace"},
	} {
		ks, names, err := profileTargets(tc.k, tc.tables)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || classify(err) != ExitBadInput {
				t.Errorf("profileTargets(%q, %q) = %v, want exit 2 with %q", tc.k, tc.tables, err, tc.err)
			}
			continue
		}
		if err != nil || ks != tc.ks || strings.Join(names, "|") != tc.names {
			t.Errorf("profileTargets(%q, %q) = %q, %q, %v; want %q, %q", tc.k, tc.tables, ks, names, err, tc.ks, tc.names)
		}
	}
}

func TestParseProfileRate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64 // -1: refused
	}{
		{"0", 0}, {"2000", 2000}, {"2k", 2000}, {"100/s", 100}, {"6000/m", 100}, {"360000/h", 100},
		{"100/min", 100.0 / 60}, {" 50/s ", 50}, {"0/s", 0},
		{"banana", -1}, {"", -1}, {"-1", -1}, {"-5/s", -1}, {"100/fortnight", -1}, {"100/", -1}, {"/s", -1}, {"NaN", -1}, {"Inf", -1},
	} {
		got, err := parseProfileRate(tc.in)
		if tc.want < 0 {
			if err == nil || !strings.Contains(err.Error(), "--rate") || classify(err) != ExitBadInput {
				t.Errorf("parseProfileRate(%q) = %g, %v; want exit 2 naming --rate", tc.in, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("parseProfileRate(%q) = %g, %v; want %g", tc.in, got, err, tc.want)
		}
	}
}

func TestParseReadConsistency(t *testing.T) {
	for in, want := range map[string]gocql.Consistency{"LOCAL_ONE": gocql.LocalOne, "one": gocql.One, " Quorum ": gocql.Quorum, "ALL": gocql.All} {
		if got, err := parseReadConsistency(in); err != nil || got != want {
			t.Errorf("parseReadConsistency(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"ANY", "any", "SERIAL", "LOCAL_SERIAL", "BANANA", ""} {
		_, err := parseReadConsistency(in)
		if err == nil || classify(err) != ExitBadInput || !strings.Contains(err.Error(), "--consistency") || !strings.Contains(err.Error(), "LOCAL_ONE") {
			t.Errorf("parseReadConsistency(%q): %v, want exit 2 naming --consistency and the read levels", in, err)
		}
	}
	if _, err := parseReadConsistency("ANY"); err == nil || !strings.Contains(err.Error(), "write-only") {
		t.Errorf("ANY: %v, want it called write-only", err)
	}
}

// -k names a keyspace as CQL does, in profile and estimate --live: unquoted it is folded to
// lower case, quoted it keeps its case.
func TestProfileKeyspaceFoldsCaseAsCQL(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the dev node")
	}
	s, ks := cassandratest.Keyspace(t)
	cassandratest.DDL(t, s, ks, "CREATE TABLE t (id int PRIMARY KEY, v text)")
	if err := s.Query("INSERT INTO t (id, v) VALUES (1, 'x')").Exec(); err != nil {
		t.Fatal(err)
	}
	upper := strings.ToUpper(ks)
	for _, args := range [][]string{
		{"profile", "-k", upper},
		{"profile", "-k", strings.ToUpper(ks[:1]) + ks[1:], "--table", "T"},
		{"profile", "--table", upper + ".t"},
		{"profile", "-k", ks, "--table", ks + ".t", "--rate", "100/s"},
		{"estimate", "--live", "-k", upper, "--table", "t", "--rows", "1"},
	} {
		code, out, errOut := sweepStep(t, args...)
		if code != ExitOK || !strings.Contains(out, ks+".t") {
			t.Errorf("%v: exit %d\nstdout: %s\nstderr: %s", args, code, clip(out), errOut)
		}
	}
	// Quoted, the case is kept: a keyspace made with quotes is found, the folded name is not it.
	quoted := "Q" + ks[1:]
	admin := cassandratest.Session(t)
	t.Cleanup(func() { _ = admin.Query(`DROP KEYSPACE IF EXISTS "` + quoted + `"`).Exec() })
	cassandratest.DDL(t, admin, quoted,
		`CREATE KEYSPACE "`+quoted+`" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
		`CREATE TABLE "`+quoted+`".t (id int PRIMARY KEY)`)
	if code, out, errOut := sweepStep(t, "profile", "-k", `"`+quoted+`"`); code != ExitOK || !strings.Contains(out, quoted+".t") {
		t.Errorf(`profile -k '"%s"': exit %d\nstdout: %s\nstderr: %s`, quoted, code, clip(out), errOut)
	}
	if code, out, errOut := sweepStep(t, "estimate", "--live", "-k", `"`+quoted+`"`, "--table", "t", "--rows", "1"); code != ExitOK || !strings.Contains(out, quoted+".t") {
		t.Errorf(`estimate --live -k '"%s"': exit %d\nstdout: %s\nstderr: %s`, quoted, code, clip(out), errOut)
	}
}

// A keyspace `cqlsize migrate` manages: a profile of every table leaves the bookkeeping
// out and says so on stderr and in the workload; --table still profiles it; a keyspace of
// only bookkeeping is refused like one with no table.
func TestProfileSkipsMigrateBookkeeping(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the dev node")
	}
	_, ks := cassandratest.Keyspace(t)
	dir := migDir(t, map[string]string{"0001_t.cql": "CREATE TABLE IF NOT EXISTS items (id int PRIMARY KEY, v text);\n"})
	if code, out, errOut := sweepStep(t, "migrate", "up", "-d", dir, "-k", ks); code != ExitOK {
		t.Fatalf("up: exit %d %s %s", code, out, errOut)
	}
	code, out, errOut := sweepStep(t, "profile", "-k", ks)
	if code != ExitOK || !strings.Contains(out, "\n  "+ks+".items:") || strings.Contains(out, "\n  "+ks+".cqlsize_migrations:") ||
		strings.Contains(out, "\n  "+ks+".cqlsize_migrations_lock:") {
		t.Errorf("profile: exit %d\nstdout: %s\nstderr: %s", code, clip(out), errOut)
	}
	for _, where := range []string{out, errOut} {
		if !strings.Contains(where, "skipped "+ks+".cqlsize_migrations, "+ks+".cqlsize_migrations_lock: cqlsize migrate's own bookkeeping") {
			t.Errorf("no note of the skipped bookkeeping in:\n%s", clip(where))
		}
	}
	code, out, errOut = sweepStep(t, "profile", "-k", ks, "--table", "cqlsize_migrations")
	if code != ExitOK || !strings.Contains(out, "\n  "+ks+".cqlsize_migrations:") || strings.Contains(errOut, "skipped") {
		t.Errorf("profile --table cqlsize_migrations: exit %d\nstdout: %s\nstderr: %s", code, clip(out), errOut)
	}

	// Only bookkeeping: a new keyspace where migrate ran a history of no table.
	_, ks2 := cassandratest.Keyspace(t)
	empty := migDir(t, map[string]string{"0001_nothing.cql": "-- nothing yet\nALTER KEYSPACE " + ks2 + " WITH durable_writes = true;\n"})
	if code, out, errOut := sweepStep(t, "migrate", "up", "-d", empty, "-k", ks2); code != ExitOK {
		t.Fatalf("up of no table: exit %d %s %s", code, out, errOut)
	}
	code, out, errOut = sweepStep(t, "profile", "-k", ks2)
	if code != ExitBadInput || out != "" || !strings.Contains(errOut, "keyspace "+ks2+" has no table but cqlsize migrate's own bookkeeping") {
		t.Errorf("profile of only bookkeeping: exit %d\nstdout: %s\nstderr: %s", code, clip(out), errOut)
	}
}
