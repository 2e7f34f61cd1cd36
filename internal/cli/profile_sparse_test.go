package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/internal/ddl"
	"github.com/cqlsize/cqlsize/internal/retry"
	"github.com/cqlsize/cqlsize/workload"
)

// sparseTruth is what loadSparse wrote, counted from its own writes.
type sparseTruth struct {
	keys, buckets, rows int
	partitions          int     // (key, hour) pairs holding a row
	perKeyBucket        float64 // rows / (keys × buckets): a key's rows in an hour, empty hours counted
	mean, median, max   float64 // rows of the partitions written
	busiest             float64 // the busiest key's rows / buckets
}

// loadSparse writes an hour-bucketed table the way a device fleet fills one: key k of keys
// writes round(top·buckets·k^-s) rows (Zipf s, so the key of rank k writes exactly its share),
// each row in an hour drawn uniformly from buckets hours back from now, written with that
// hour's time as its timestamp. Most hours of a quiet key hold no row, or one or two.
func loadSparse(t *testing.T, s *gocql.Session, ks string, keys, buckets int, top, skew float64) sparseTruth {
	t.Helper()
	ctx := context.Background()
	// A node shared with other runs can time out a schema change: the change is checked and
	// sent again, as cqlsize's own tables are.
	if err := ddl.CreateTable(ctx, s, ddl.Table{Scope: "test", Keyspace: ks, Name: "events",
		Columns: "device int, hour timestamp, at timestamp, seq int, body text, PRIMARY KEY ((device, hour), at, seq)"}, ddl.Options{}); err != nil {
		t.Fatal(err)
	}
	// Each write carries its own timestamp, so sending it again writes the same cell.
	again := retry.Policy{Backoff: retry.Backoff{Min: 100 * time.Millisecond, Max: 2 * time.Second, Jitter: retry.UpperHalf},
		Attempts: 6, Retry: connect.Transient}
	type row struct {
		device, hour, seq int
		at                time.Time
	}
	first := time.Now().UTC().Truncate(time.Hour).Add(-time.Duration(buckets-1) * time.Hour)
	rng := rand.New(rand.NewSource(7))
	var rows []row
	counts := map[[2]int]int{}
	for k := 1; k <= keys; k++ {
		n := int(math.Round(top * float64(buckets) * math.Pow(float64(k), -skew)))
		for i := 0; i < n; i++ {
			h := rng.Intn(buckets)
			at := first.Add(time.Duration(h)*time.Hour + time.Duration(rng.Intn(3600_000))*time.Millisecond)
			rows = append(rows, row{k, h, len(rows), at})
			counts[[2]int{k, h}]++
		}
	}
	ins := `INSERT INTO events (device, hour, at, seq, body) VALUES (?, ?, ?, ?, ?) USING TIMESTAMP ?`
	work := make(chan row)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for w := 0; w < 32; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range work {
				hour := first.Add(time.Duration(r.hour) * time.Hour)
				body := strings.Repeat("x", 20+r.seq%40)
				_, err := retry.Do(ctx, again, func() error {
					return s.Query(ins, r.device, hour, r.at, r.seq, body, r.at.UnixMicro()).Exec()
				})
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for _, r := range rows {
		work <- r
	}
	close(work)
	wg.Wait()
	if firstErr != nil {
		t.Fatalf("load: %v", firstErr)
	}

	tr := sparseTruth{keys: keys, buckets: buckets, rows: len(rows), partitions: len(counts)}
	sizes := make([]float64, 0, len(counts))
	for _, c := range counts {
		sizes = append(sizes, float64(c))
	}
	sort.Float64s(sizes)
	tr.mean = float64(len(rows)) / float64(len(sizes))
	tr.median = sizes[len(sizes)/2]
	tr.max = sizes[len(sizes)-1]
	tr.perKeyBucket = float64(len(rows)) / float64(keys*buckets)
	tr.busiest = math.Round(top*float64(buckets)) / float64(buckets)
	t.Logf("loaded %d rows: %d keys × %d hours, %d partitions (%.1f%% of key-hours), rows a partition mean %.3g, median %g, max %g; %.4g rows a key an hour; the busiest key %.4g an hour",
		tr.rows, keys, buckets, tr.partitions, 100*float64(tr.partitions)/float64(keys*buckets), tr.mean, tr.median, tr.max, tr.perKeyBucket, tr.busiest)
	return tr
}

// TestProfileSparseBuckets: an hour-bucketed table over 30 days, 300 keys by Zipf 1.1, the
// busiest writing 10 rows an hour and most keys 0 to 2 in an hour (most of their hours hold
// no row, so no partition). Profiled whole and sampled, the workload declares the key skew
// and the rows a key writes in an hour (write_rate:) within 10% of the loader's own figures, and
// `estimate --live` on it sizes the typical partition at the median the loader wrote and the
// largest at the busiest key's rows an hour (a key's hours vary around its rate: the largest
// single partition the loader wrote is logged beside it, not held).
func TestProfileSparseBuckets(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a table into Cassandra; skipped with -short")
	}
	s, ks := cassandratest.Keyspace(t)
	hosts := strings.Join(cassandratest.Hosts(t), ",")
	const keys, buckets, top, zipf = 300, 30 * 24, 10.0, 1.1
	truth := loadSparse(t, s, ks, keys, buckets, top, zipf)
	getenv := func(k string) string {
		if k == connect.EnvHosts {
			return hosts
		}
		return ""
	}
	run := func(args ...string) (string, string, int) {
		var out, errOut bytes.Buffer
		code := DoContext(context.Background(), args, strings.NewReader(""), &out, &errOut, getenv)
		return out.String(), errOut.String(), code
	}
	near := func(what string, got, want, tol float64) {
		t.Helper()
		e := got/want - 1
		t.Logf("%s: %.4g, loader %.4g (%+.1f%%)", what, got, want, 100*e)
		if math.Abs(e) > tol {
			t.Errorf("%s: %.4g, the loader's %.4g: %+.1f%%, over %.0f%%", what, got, want, 100*e, 100*tol)
		}
	}
	for _, mode := range [][]string{{"--full"}, {"--sample", "4000"}} {
		t.Run(strings.TrimPrefix(mode[0], "--"), func(t *testing.T) {
			args := append([]string{"profile", "-k", ks, "--table", "events", "--seed", "1"}, mode...)
			wl, stderr, code := run(args...)
			if code != ExitOK {
				t.Fatalf("profile: exit %d: %s", code, stderr)
			}
			w, err := workload.Parse("profile", []byte(wl))
			if err != nil || len(w.Tables) != 1 {
				t.Fatalf("the profile's workload (%v):\n%s", err, wl)
			}
			tw := w.Tables[0]
			if tw.Skew.Kind != workload.Zipf {
				t.Fatalf("skew %+v, want zipf:\n%s", tw.Skew, wl)
			}
			near("keys (partitions:)", tw.Partitions, keys, 0.10)
			near("skew", tw.Skew.S, zipf, 0.10)
			if tw.WriteRate.Per != time.Hour {
				t.Errorf("write_rate %v, want rows a key writes in an hour", tw.WriteRate)
			}
			near("rows a key an hour (write_rate:)", tw.WriteRate.Count, truth.perKeyBucket, 0.10)

			js, stderr, code := run(append(args, "--format", "json")...)
			if code != ExitOK {
				t.Fatalf("profile --format json: exit %d: %s", code, stderr)
			}
			var p struct {
				Tables []struct {
					MeanRows float64 `json:"mean_rows"`
					Keys     struct {
						Buckets float64 `json:"buckets"`
					} `json:"keys"`
				} `json:"tables"`
			}
			if err := json.Unmarshal([]byte(js), &p); err != nil || len(p.Tables) != 1 {
				t.Fatalf("profile JSON (%v):\n%s", err, js)
			}
			near("rows a partition (mean_rows)", p.Tables[0].MeanRows, truth.mean, 0.10)
			near("hour buckets", p.Tables[0].Keys.Buckets, buckets, 0.10)

			path := filepath.Join(t.TempDir(), "workload.yaml")
			if err := os.WriteFile(path, []byte(wl), 0o644); err != nil {
				t.Fatal(err)
			}
			out, stderr, code := run("estimate", "--live", "-k", ks, "--workload", path, "--format", "json")
			if code != ExitOK {
				t.Errorf("estimate --live: exit %d: %s\n%s", code, stderr, out)
			}
			var r struct {
				Tables []struct {
					Typical, Largest struct {
						Rows float64 `json:"rows"`
					}
				} `json:"tables"`
			}
			if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Tables) != 1 {
				t.Fatalf("estimate JSON (%v):\n%s", err, out)
			}
			near("estimate's typical partition rows (the median)", r.Tables[0].Typical.Rows, truth.median, 0.10)
			near("estimate's largest partition rows (the busiest key's hour)", r.Tables[0].Largest.Rows, truth.busiest, 0.10)
			t.Log(fmt.Sprintf("the largest single partition written holds %g rows (not held: a key's hours vary around its rate)", truth.max))
		})
	}
	if bin := os.Getenv("CQLSIZE_PROFILE_BEFORE"); bin != "" {
		// Another build of cqlsize (an older one, for the figures docs/profile.md compares) run
		// on the same table as a process: its workload and estimate are logged, not held.
		env := append(os.Environ(), connect.EnvHosts+"="+hosts)
		cmd := exec.Command(bin, "profile", "-k", ks, "--table", "events", "--seed", "1", "--sample", "4000")
		cmd.Env = env
		wl, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s profile: %v", bin, err)
		}
		path := filepath.Join(t.TempDir(), "before.yaml")
		if err := os.WriteFile(path, wl, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd = exec.Command(bin, "estimate", "--live", "-k", ks, "--workload", path)
		cmd.Env = env
		est, _ := cmd.CombinedOutput() // its exit status says what it found; the text is what is logged
		t.Logf("%s, --sample 4000:\n%s\n%s", bin, wl, est)
	}
}
