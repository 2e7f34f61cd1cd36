package migrations_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/liveschema"
	"github.com/cqlsize/cqlsize/migrations"
)

// setKeyspace is the keyspace name the files of testdata/set use; each test rewrites it to
// a fresh name so runs never share state.
const setKeyspace = "cqlsize_set"

// copySet copies testdata/set into a temporary folder with the set's keyspaces renamed
// (cqlsize_set -> ks, cqlsize_set_audit -> ks_audit) and drops them when t ends.
func copySet(t *testing.T, admin *gocql.Session) (dir string, keyspaces []string) {
	t.Helper()
	var b [4]byte
	_, _ = rand.Read(b[:])
	ks := "ms_" + hex.EncodeToString(b[:])
	dir = t.TempDir()
	files, err := filepath.Glob("testdata/set/*.cql")
	if err != nil || len(files) < 20 {
		t.Fatalf("testdata/set has %d files (%v); want at least 20", len(files), err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out := strings.ReplaceAll(string(src), setKeyspace, ks)
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	keyspaces = []string{ks, ks + "_audit"}
	t.Cleanup(func() {
		for _, k := range keyspaces {
			if err := admin.Query("DROP KEYSPACE IF EXISTS " + k).Exec(); err != nil {
				t.Logf("drop %s: %v", k, err)
			}
		}
	})
	return dir, keyspaces
}

// assertLiveMatchesFiles reads the set's keyspaces from system_schema and compares them
// with what the cql model says the same folder produces.
func assertLiveMatchesFiles(t *testing.T, s *gocql.Session, dir string, keyspaces []string) {
	t.Helper()
	want, err := cql.LoadSchema(dir)
	if err != nil {
		t.Fatalf("cql.LoadSchema(%s): %v", dir, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	got, err := liveschema.Read(ctx, s, keyspaces...)
	if err != nil {
		t.Fatal(err)
	}
	if d := liveschema.Diff(want, got); len(d) != 0 {
		t.Errorf("the cluster's schema differs from what the migrations say (%d differences):\n  %s", len(d), strings.Join(d, "\n  "))
	}
	if n := len(got.Tables()); n < 7 {
		t.Errorf("only %d tables read back; the set creates more", n)
	}
}

func TestSetFromScratchMatchesModel(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	dir, keyspaces := copySet(t, s)
	migs, err := migrations.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, rec := newMigrator(t, s, ks, migs, migrations.Options{})
	res, err := m.Up(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Applied) != len(migs) {
		t.Fatalf("applied %d of %d files", len(res.Applied), len(migs))
	}
	total := 0
	for _, mg := range migs {
		total += len(mg.Statements)
	}
	if n := rec.count(migrations.StatementDone); n != total {
		t.Errorf("%d statements done, want %d", n, total)
	}
	assertLiveMatchesFiles(t, s, dir, keyspaces)

	// The data migrations ran exactly once.
	var views int64
	if err := s.Query(`SELECT views FROM ` + keyspaces[0] + `.page_views WHERE page = '/' AND day = '2024-01-01'`).Scan(&views); err != nil || views != 1 {
		t.Errorf("page_views.views = %d, %v; want 1", views, err)
	}
	var name string
	if err := s.Query(`SELECT name FROM ` + keyspaces[0] + `.users WHERE user_id = 5b6962dd-3f90-4c93-8f61-eabfa4a803e2`).Scan(&name); err != nil ||
		name != "Ada; Countess -- of Lovelace" {
		t.Errorf("users.name = %q, %v", name, err)
	}
}

func TestSetOnTopOfBaseline(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	dir, keyspaces := copySet(t, s)
	migs, err := migrations.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	// The first ten files' schema was made before migrations were used: run their
	// statements by hand, then baseline at 10.
	const base = 10
	for _, mg := range migs {
		if mg.Version > base {
			break
		}
		for _, st := range mg.Statements {
			cassandratest.DDL(t, s, ks, st.Text)
		}
	}
	ctx := ctxT(t)
	if err := s.AwaitSchemaAgreement(ctx); err != nil {
		t.Fatal(err)
	}
	m, _ := newMigrator(t, s, ks, migs, migrations.Options{})
	done, err := m.Baseline(ctx, base)
	if err != nil || len(done) != base {
		t.Fatalf("Baseline(%d): %d files, %v", base, len(done), err)
	}
	res, err := m.Up(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Applied) != len(migs)-base || res.Applied[0].Migration.Version != base+1 {
		t.Fatalf("applied %d files starting at %d; want %d starting at %d", len(res.Applied), res.Applied[0].Migration.Version, len(migs)-base, base+1)
	}
	assertLiveMatchesFiles(t, s, dir, keyspaces)
}
