package accuracy

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/internal/figures"
	"github.com/cqlsize/cqlsize/profile"
)

// TestCorpusMatchesCassandra loads the shape corpus with testdata/corpus.py (the Python
// driver, no code shared with the model), flushes and compacts it, reads the truth with
// sstablepartitions and the Data.db files, profiles every table whole as `cqlsize profile
// --full` does, estimates each from the workload file the profile wrote, and holds the mean
// partition and the compressed Data.db to CorpusPartitionBound and CorpusDiskBound. Run
// with -v for the table; CQLSIZE_RECORD_FIGURES=1 records the run.
func TestCorpusMatchesCassandra(t *testing.T) {
	if testing.Short() {
		t.Skip("writes data into Cassandra; skipped with -short")
	}
	python := cassandratest.Python(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	started := time.Now()
	s, ks := cassandratest.Keyspace(t)
	files := cassandratest.LocalNode(t, s)
	node := &Node{Script: files.Script, DataDir: files.DataDirs}
	script, err := filepath.Abs("testdata/corpus.py")
	if err != nil {
		t.Fatal(err)
	}
	// CQLSIZE_CORPUS_SHAPES=sparse,counters loads only those shapes, to look at one closely.
	shapes := strings.FieldsFunc(os.Getenv("CQLSIZE_CORPUS_SHAPES"), func(r rune) bool { return r == ',' })
	wrote, log, err := LoadCorpus(ctx, python, script, cassandratest.Hosts(t), ks, 1, shapes...)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("corpus.py wrote %d tables in %s (%s)", len(wrote), time.Since(started).Round(time.Millisecond), log)
	if err := node.FlushAndCompact(ctx, ks); err != nil {
		t.Fatal(err)
	}
	var names []string
	var loaded []Loaded
	for name := range wrote {
		names = append(names, name)
		loaded = append(loaded, Loaded{Table: ProfileTable{Reference: Reference{Name: name}}})
	}
	truths, err := ReadTruths(ctx, s, node, ks, names)
	if err != nil {
		t.Fatal(err)
	}
	for name, w := range wrote {
		if tr := truths[name]; tr.Partitions != w.Partitions || tr.SSTables != 1 {
			t.Errorf("%s: Cassandra holds %d partitions in %d sstables; corpus.py wrote %d", name, tr.Partitions, tr.SSTables, w.Partitions)
		}
	}
	run, err := CheckProfile(ctx, s, ks, loaded, truths, profile.Options{Full: true, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	checks := make([]CorpusCheck, len(run.Tables))
	for i, c := range run.Tables {
		checks[i] = CorpusCheck{ProfileCheck: c, Wrote: wrote[c.Loaded.Table.Name]}
	}
	var b strings.Builder
	if err := WriteCorpusTable(&b, checks); err != nil {
		t.Fatal(err)
	}
	t.Logf("profile read %d rows in %s\n%s", run.Result.Rows, run.ProfileTook.Round(time.Millisecond), b.String())
	if run.Result.Partial {
		t.Errorf("the profile is partial: %v", run.Result.Problems)
	}
	for _, c := range checks {
		for _, f := range c.Figures() {
			if !f.OK() {
				t.Errorf("%s: %s %s, truth %.4g, got %.4g (bound %g)", c.Loaded.Table.Name, f.Name, mark(f), f.Truth, f.Got, f.Bound)
			}
		}
		// Tombstones the traced reads met must reach the workload: a table with deletes or
		// expired cells holds them, and estimate counts what a read passes from them.
		if (c.Wrote.Deleted > 0 || c.Wrote.Expired > 0) && c.Estimate.Largest.Tombstones.Total() == 0 {
			t.Errorf("%s: %d rows deleted and %d expired, but the estimate from the profile's workload counts no tombstone:\n%s",
				c.Loaded.Table.Name, c.Wrote.Deleted, c.Wrote.Expired, workloadSection(string(run.WorkloadYAML), c.Loaded.Table.Name))
		}
	}
	if testing.Verbose() {
		t.Logf("workload file:\n%s", run.WorkloadYAML)
	}
	held, shown, why := CorpusFigures(checks)
	figures.Record(t, started, held, shown, why)
}
