package accuracy

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/internal/figures"
	"github.com/cqlsize/cqlsize/profile"
)

// loadProfileTables loads ProfileTables into the test's keyspace and reads their truth,
// checking that Cassandra holds exactly what the loader says it wrote: a harness whose truth
// is off would make every comparison after it meaningless.
func loadProfileTables(t *testing.T, ctx context.Context) (*gocql.Session, string, []Loaded, map[string]*Truth) {
	t.Helper()
	s, ks := cassandratest.Keyspace(t)
	files := cassandratest.LocalNode(t, s)
	node := &Node{Script: files.Script, DataDir: files.DataDirs}
	start := time.Now()
	loaded, err := LoadProfileTables(ctx, s, ks, node, ProfileTables, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	rows := 0
	for _, l := range loaded {
		names = append(names, l.Table.Name)
		rows += l.Total
	}
	t.Logf("loaded %d rows into %d tables, flushed and compacted in %s", rows, len(loaded), time.Since(start).Round(time.Millisecond))
	truths, err := ReadTruths(ctx, s, node, ks, names)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range loaded {
		tr := truths[l.Table.Name]
		if tr.Partitions != len(l.Rows) || tr.RowsP99 != l.RowsP99() || tr.RowsMax != float64(l.Rows[0]) || tr.RowsP50 != l.RowsP50() {
			t.Errorf("%s: Cassandra holds %d partitions, rows p50/p99/max %.0f/%.0f/%.0f; the loader wrote %d, %.0f/%.0f/%d",
				l.Table.Name, tr.Partitions, tr.RowsP50, tr.RowsP99, tr.RowsMax, len(l.Rows), l.RowsP50(), l.RowsP99(), l.Rows[0])
		}
		if tr.SSTables != 1 || tr.SpaceUsedLive < tr.DataDiskBytes || tr.LargestDisk <= 0 || tr.TypicalDisk <= 0 {
			t.Errorf("%s: %d sstables after compaction, Space used (live) %d, Data.db %d, on disk typical/largest %.0f/%.0f",
				l.Table.Name, tr.SSTables, tr.SpaceUsedLive, tr.DataDiskBytes, tr.TypicalDisk, tr.LargestDisk)
		}
		if l.Table.TTLFraction > 0 {
			if f := float64(l.TTLRows) / float64(l.Total); f < l.Table.TTLFraction-0.02 || f > l.Table.TTLFraction+0.02 {
				t.Errorf("%s: %.3f of rows given their own TTL, want %.2f", l.Table.Name, f, l.Table.TTLFraction)
			}
		}
	}
	return s, ks, loaded, truths
}

// TestProfileMatchesCassandra loads ProfileTables, profiles them as `cqlsize profile` does,
// estimates them from the workload file it writes as `cqlsize estimate --live --workload`
// does, and holds the result to the bounds internal/figures keeps (PartitionBound and the
// others: the measured worst over the recorded runs plus a margin): the typical and the
// largest partition against sstablepartitions, rows per partition at p99 against what was
// loaded, the Zipf exponent against the loaded one, and the predicted bytes on disk against
// Space used (live). Run with -v to see the table; CQLSIZE_RECORD_FIGURES=1 records the run.
func TestProfileMatchesCassandra(t *testing.T) {
	if testing.Short() {
		t.Skip("writes data into Cassandra; skipped with -short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	started := time.Now()
	s, ks, loaded, truths := loadProfileTables(t, ctx)
	// A sample of 500 partitions a table (half the skewed tables' keys, 2.5% of the narrow
	// table's). Then the skewed tables read whole (--full), where their heads are measured
	// rather than extrapolated (SampledZipf).
	sampled, err := CheckProfile(ctx, s, ks, loaded, truths, profile.Options{Sample: 500, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var skewed []Loaded
	for _, l := range loaded {
		if l.Table.Skew > 0 {
			skewed = append(skewed, l)
		}
	}
	full, err := CheckProfile(ctx, s, ks, skewed, truths, profile.Options{Full: true, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range []*ProfileRun{sampled, full} {
		var b strings.Builder
		if err := WriteProfileTable(&b, run); err != nil {
			t.Fatal(err)
		}
		t.Logf("\n%s", b.String())
		if run.Result.Partial {
			t.Errorf("the profile is partial: %v", run.Result.Problems)
		}
		for _, c := range run.Tables {
			for _, f := range c.Figures() {
				if !f.OK() {
					t.Errorf("%s: %s %s, truth %.4g, got %.4g (bound %g)", c.Loaded.Table.Name, f.Name, mark(f), f.Truth, f.Got, f.Bound)
				}
			}
		}
	}
	// A sampled Zipf table's sizes are shown, not held (SampledZipf): the workload file the
	// user reads must say so of that table.
	for _, c := range sampled.Tables {
		if c.Loaded.Table.Skew == 0 || c.Full {
			continue
		}
		const note = "# sampled: every size estimated from this table (typical, p99, busiest key, on disk) rests on the"
		if sec := workloadSection(string(sampled.WorkloadYAML), c.Loaded.Table.Name); !strings.Contains(sec, note) {
			t.Errorf("%s: sampled %d of %d partitions of a Zipf table, its sizes are not held to a bound, and the workload file does not say so (%q):\n%s",
				c.Loaded.Table.Name, c.Profile.PartitionsSeen, c.Truth.Partitions, note, sec)
		}
	}
	if testing.Verbose() {
		t.Logf("workload file of the sampled profile:\n%s", sampled.WorkloadYAML)
	}
	held, shown, why := ProfileFigures(sampled, full)
	figures.Record(t, started, held, shown, why)
}

// workloadSection is the entry of table in a workload file: from its key line to the next
// table's.
func workloadSection(yaml, table string) string {
	lines := strings.Split(yaml, "\n")
	for i, l := range lines {
		key := strings.TrimSpace(l)
		if !strings.HasPrefix(l, "  ") || strings.HasPrefix(l, "   ") || !strings.HasSuffix(key, "."+table+":") && key != table+":" {
			continue
		}
		end := i + 1
		for end < len(lines) && (strings.HasPrefix(lines[end], "   ") || strings.TrimSpace(lines[end]) == "") {
			end++
		}
		return strings.Join(lines[i:end], "\n")
	}
	return ""
}
