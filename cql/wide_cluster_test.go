package cql_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/internal/authtest"
)

// TestWideCorpusAgainstCassandra runs the wide corpus on a real 5.0 node, the truth the
// offline counts are taken against: each file in a fresh keyspace, statement after
// statement, and the node must do what each statement's comment says. It first checks the
// node's settings are those the verdicts were recorded with (wideSettings).
//
// A file marked "-- node: authentication" (role.cql) runs on the node with authentication on
// instead (internal/authtest, as its superuser): its verdicts are that node's.
//
// The corpus creates keyspaces and roles of its own, named wide_*; they are dropped before
// and after the run, on both nodes.
func TestWideCorpusAgainstCassandra(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a Cassandra node")
	}
	admin := cassandratest.Session(t)
	iter := admin.Query("SELECT name, value FROM system_views.settings").Iter()
	var name string
	var value *string
	shown := map[string]string{}
	for iter.Scan(&name, &value) {
		if value != nil {
			shown[name] = *value
		}
	}
	must(t, iter.Close())
	for k, want := range wideSettings {
		if got := shown[k]; got != want {
			t.Fatalf("the node has %s = %q; the corpus's verdicts were recorded with %q (scripts/cassandra's dev node)", k, shown[k], want)
		}
	}
	corpus := readWide(t)
	var files []string
	for f := range corpus {
		files = append(files, f)
	}
	sort.Strings(files)
	dropWideObjects(t, admin)
	t.Cleanup(func() { dropWideObjects(t, admin) })
	var mu sync.Mutex
	total, refused := 0, 0
	t.Cleanup(func() { t.Logf("%d statements in %d files: the node refuses %d", total, len(files), refused) })
	for _, f := range files {
		cases := corpus[f]
		t.Run(strings.TrimSuffix(filepath.Base(f), ".cql"), func(t *testing.T) {
			// The files are independent (each in its own keyspace; the wide_* keyspaces and
			// roles each come from one file), and a loaded node answers several at once
			// sooner than one after the other.
			t.Parallel()
			var s *gocql.Session
			if cases[0].auth {
				auth := authtest.Open(t, authtest.SuperUser, authtest.SuperPassword, "")
				dropWideObjects(t, auth)
				t.Cleanup(func() { dropWideObjects(t, auth) })
				s, _ = authtest.Keyspace(t)
			} else {
				s, _ = cassandratest.Keyspace(t)
			}
			for _, c := range cases {
				err := execVerdict(t, s, freshIDs(c.raw.Text))
				record(c, err)
				if noVerdict(err) {
					t.Fatalf("%s (%s): the node gave no verdict: %v", c.raw.Pos, c.note, err)
				}
				switch {
				case c.verdict == wideSetup && err != nil:
					t.Fatalf("%s (%s): the node refuses a setup statement: %v", c.raw.Pos, c.note, err)
				case c.verdict == wideOK && err != nil:
					t.Errorf("%s (%s): the corpus says ok, the node refuses it: %v\n%s", c.raw.Pos, c.note, err, c.raw.Text)
				case c.verdict == wideRefused && err == nil:
					t.Errorf("%s (%s): the corpus says refused, the node applies it\n%s", c.raw.Pos, c.note, c.raw.Text)
				case err != nil && testing.Verbose():
					t.Logf("%s: node: %v", c.raw.Pos, err)
				}
				if c.verdict != wideSetup {
					mu.Lock()
					total++
					if err != nil {
						refused++
					}
					mu.Unlock()
				}
			}
		})
	}
}

// tableIDOption is a table id given as an option: WITH ID = <uuid>, AND ID = <uuid>.
var tableIDOption = regexp.MustCompile(`(?i)(\bID\s*=\s*)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// freshIDs gives each table id the statement names a random one. A table id is unique in
// the whole cluster, not in a keyspace: the corpus's literal id would make two runs against
// one cluster (or a run and a keyspace a killed run left) refuse each other's CREATE TABLE.
// What the node is asked stays the same: a table with an id given.
func freshIDs(text string) string {
	return tableIDOption.ReplaceAllStringFunc(text, func(m string) string {
		id, err := gocql.RandomUUID()
		if err != nil {
			return m
		}
		return tableIDOption.ReplaceAllString(m, "${1}"+id.String())
	})
}

// execVerdict sends a statement and returns the node's verdict. A schema change can take
// longer than the client waits on a loaded node: the statement is then sent again, and a
// second answer saying the object already exists (or, for a DROP, no longer does) means the
// first send applied it.
func execVerdict(t *testing.T, s *gocql.Session, text string) error {
	err := exec(s, text)
	for attempt := 0; noVerdict(err) && attempt < 3; attempt++ {
		time.Sleep(10 * time.Second)
		again := exec(s, text)
		if again != nil && !noVerdict(again) {
			msg := again.Error()
			if strings.Contains(msg, "already exist") || strings.Contains(msg, "doesn't exist") || strings.Contains(msg, "does not exist") {
				t.Logf("%s: applied by a send the client gave up on (sent again: %v)", oneLine(text), again)
				return nil
			}
		}
		err = again
	}
	return err
}

// record appends the node's verdict on c to the file CQLSIZE_WIDE_RECORD names, when set:
// "file:line<TAB>ok|refused<TAB>the node's words", the evidence an annotation is written from.
func record(c wideCase, err error) {
	path := os.Getenv("CQLSIZE_WIDE_RECORD")
	if path == "" || noVerdict(err) {
		return
	}
	verdict, words := "ok", ""
	if err != nil {
		verdict, words = "refused", oneLine(err.Error())
	}
	recordMu.Lock()
	defer recordMu.Unlock()
	f, ferr := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if ferr != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s:%d\t%s\t%s\n", c.raw.Pos.File, c.raw.Pos.Line, verdict, words)
}

var recordMu sync.Mutex

// dropWideObjects drops the keyspaces and roles the corpus creates (wide_*).
func dropWideObjects(t *testing.T, s *gocql.Session) {
	t.Helper()
	for _, q := range []struct{ list, drop string }{
		{"SELECT keyspace_name FROM system_schema.keyspaces", "DROP KEYSPACE IF EXISTS "},
		{"SELECT role FROM system_auth.roles", "DROP ROLE IF EXISTS "},
	} {
		iter := s.Query(q.list).Iter()
		var name string
		var names []string
		for iter.Scan(&name) {
			if strings.HasPrefix(name, "wide_") {
				names = append(names, name)
			}
		}
		if err := iter.Close(); err != nil {
			t.Logf("%s: %v", q.list, err)
		}
		for _, n := range names {
			if err := exec(s, q.drop+cql.QuoteName(n)); err != nil { // quoted: "wide_Mixed" keeps its case
				t.Logf("%s%s: %v", q.drop, n, err)
			}
		}
	}
}

func TestFreshIDs(t *testing.T) {
	const id = "5a1c395e-b41f-11e5-9f22-ba0be0483c18"
	for _, stmt := range []string{
		"CREATE TABLE withid (k int PRIMARY KEY) WITH ID = " + id,
		"CREATE TABLE t (k int PRIMARY KEY) WITH comment = 'x' AND id=" + strings.ToUpper(id),
		"ALTER TABLE natives WITH ID = " + id,
	} {
		a, b := freshIDs(stmt), freshIDs(stmt)
		if a == stmt || a == b || strings.Contains(strings.ToLower(a), id) || len(a) != len(stmt) {
			t.Errorf("%s: %s, then %s; want a new id each time, the rest as written", stmt, a, b)
		}
	}
	if got := freshIDs("SELECT id FROM t WHERE id = 1"); got != "SELECT id FROM t WHERE id = 1" {
		t.Errorf("a statement without an id option changed: %s", got)
	}
}
