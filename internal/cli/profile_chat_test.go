package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/connect"
)

// chatTruth is what testdata/chatload.py counts by reading its table back with the Python
// driver: the truth the profile's workload is held to.
type chatTruth struct {
	Partitions int `json:"partitions"`
	Rows       int `json:"rows"`
	Largest    int `json:"largest"`
	Days       int `json:"days"`
	Updates    int `json:"updates"`
	Deletes    int `json:"deletes"`
}

// loadChat runs the independent loader into ks.table and returns its truth.
func loadChat(t *testing.T, python, hosts, ks, table, mode string, rooms, messages int) chatTruth {
	t.Helper()
	cmd := exec.Command(python, "testdata/chatload.py", hosts, ks, table, mode,
		strconv.Itoa(rooms), strconv.Itoa(messages), "14", "11")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chatload.py %s: %v\n%s", table, err, stderr.String())
	}
	var tr chatTruth
	if err := json.Unmarshal(out.Bytes(), &tr); err != nil {
		t.Fatalf("chatload.py output %q: %v", out.String(), err)
	}
	t.Logf("%s loaded (%s): %+v", table, mode, tr)
	return tr
}

// TestProfileToEstimateChat is a user's first run on a table cqlsize did not write: a chat
// service, one partition per (room, day) over 14 days, rooms by Zipf 1.1 popularity, every
// message with a 90-day TTL, reactions added by per-element map updates, a few percent of
// messages deleted, loaded by testdata/chatload.py with the Python driver (no code shared
// with cqlsize), each write stamped with the message's time as the application would have.
// `cqlsize profile` (a sample) then `estimate --live` on the workload it writes must size
// the largest partition within 25% of the largest the loader counts, not fail the healthy
// design (exit 0, no TS003), and not take the element updates for whole-collection writes
// (no TS006). A second table loaded in seconds without client timestamps (a bulk load) must
// get no write rate and no growth: its write times tell how fast the loader ran.
func TestProfileToEstimateChat(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a table into Cassandra; skipped with -short")
	}
	_, ks := cassandratest.Keyspace(t)
	python := cassandratest.Python(t)
	hostList := cassandratest.Hosts(t)
	hosts := strings.Join(hostList, ",")
	truth := loadChat(t, python, hosts, ks, "messages", "history", 80, 6000)
	loadChat(t, python, hosts, ks, "messages_bulk", "bulk", 20, 800)
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

	wl, stderr, code := run("profile", "-k", ks, "--table", "messages", "--sample", "400", "--seed", "3")
	if code != ExitOK {
		t.Fatalf("profile: exit %d: %s", code, stderr)
	}
	if !strings.Contains(wl, "element_writes: [reactions]") {
		t.Errorf("the workload does not name reactions as written element by element:\n%s", wl)
	}
	path := filepath.Join(t.TempDir(), "workload.yaml")
	if err := os.WriteFile(path, []byte(wl), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := run("estimate", "--live", "-k", ks, "--workload", path, "--format", "json")
	if code != ExitOK {
		t.Errorf("estimate --live on the profile's workload: exit %d (a false FAIL of a healthy design): %s\n%s\nworkload:\n%s", code, stderr, out, wl)
	}
	var r struct {
		Tables []struct {
			Largest struct {
				Rows float64 `json:"rows"`
			} `json:"largest"`
			Findings []struct {
				Code, Severity, Message string
			} `json:"findings"`
		} `json:"tables"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Tables) != 1 {
		t.Fatalf("estimate JSON (%v):\n%s", err, out)
	}
	tb := r.Tables[0]
	e := tb.Largest.Rows/float64(truth.Largest) - 1
	t.Logf("largest partition: estimate %.0f rows, truth %d (%+.1f%%)", tb.Largest.Rows, truth.Largest, 100*e)
	if math.Abs(e) > 0.25 {
		t.Errorf("largest partition: estimate %.0f rows, the loader counts %d: %+.1f%%, over 25%%\nworkload:\n%s", tb.Largest.Rows, truth.Largest, 100*e, wl)
	}
	for _, f := range tb.Findings {
		if f.Code == "TS003" || f.Code == "TS006" || f.Severity == "fail" {
			t.Errorf("finding on a healthy design: %s %s %s", f.Severity, f.Code, f.Message)
		}
	}

	// The bulk load: no rate, so nothing grown and no date.
	js, stderr, code := run("profile", "-k", ks, "--table", "messages_bulk", "--format", "json", "--seed", "3")
	if code != ExitOK {
		t.Fatalf("profile of the bulk table: exit %d: %s", code, stderr)
	}
	var p struct {
		Tables []struct {
			Rate   float64 `json:"write_rate_per_second"`
			Source string  `json:"write_rate_source"`
			Growth struct {
				Partitions []struct {
					Which     string
					Rows      float64
					Crossings []struct {
						At string `json:"at"`
					}
					AtBucketEnd *struct{ Rows float64 } `json:"at_bucket_end"`
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(js), &p); err != nil || len(p.Tables) != 1 {
		t.Fatalf("profile JSON (%v):\n%s", err, js)
	}
	bt := p.Tables[0]
	if bt.Rate != 0 || !strings.Contains(bt.Source, "bulk load") {
		t.Errorf("bulk-loaded table: write rate %g/s (%s), want none: a load's write times are the loader's", bt.Rate, bt.Source)
	}
	for _, g := range bt.Growth.Partitions {
		for _, c := range g.Crossings {
			if c.At != "" {
				t.Errorf("bulk-loaded table: %s partition crosses a limit on %s, a date nothing measured", g.Which, c.At)
			}
		}
		if g.AtBucketEnd != nil && g.AtBucketEnd.Rows > g.Rows+1e-6 { // the model may take the deleted rows off, never add
			t.Errorf("bulk-loaded table: %s partition of %v rows grown to %v at the end of its bucket", g.Which, g.Rows, g.AtBucketEnd.Rows)
		}
	}
}
