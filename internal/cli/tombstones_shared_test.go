package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// estimate and migrate validate --workload count a read's tombstones with one model: for
// the same schema and workload they give the same figure, and neither charges a read for
// what Cassandra does not count (the complex deletion a whole collection write leaves, which
// the byte model keeps on disk).
func TestValidateAndEstimateShareTombstones(t *testing.T) {
	cases := []struct {
		name, ddl, workload string
		wantLint            string // "" when validate must report no WL103/WL104
	}{
		{
			// A TTL'd table with a collection written whole: thousands of complex deletions
			// on disk, none of them counted by a read.
			name:     "ttl_collection",
			ddl:      "CREATE TABLE IF NOT EXISTS events (stream text, id timeuuid, tags set<text>, body text, PRIMARY KEY (stream, id)) WITH default_time_to_live = 86400;\n",
			workload: "version: 1\ntables:\n  events:\n    partitions: 100\n    write_rate: 20/s\n    bucket: day\n    items:\n      tags: 3\n",
		},
		{
			// A queue deleted at its head and read from the start: every read meets them.
			name:     "queue_head",
			ddl:      "CREATE TABLE IF NOT EXISTS jobs (shard int, day date, at timeuuid, job text, PRIMARY KEY ((shard, day), at));\n",
			workload: "version: 1\ntables:\n  jobs:\n    partitions: 16\n    write_rate: 50/s\n    bucket: day\n    deletes:\n      - kind: row\n        rate: 50/s\n        at: head\n",
			wantLint: "WL104",
		},
	}
	num := regexp.MustCompile(`counts about (\d+) tombstones`)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := migDir(t, map[string]string{"0001_t.cql": c.ddl})
			wl := filepath.Join(t.TempDir(), "workload.yaml")
			if err := os.WriteFile(wl, []byte(c.workload), 0o644); err != nil {
				t.Fatal(err)
			}
			_, out, errOut := runEnv(t, nil, "estimate", "--schema", dir, "--keyspace", "app", "--workload", wl, "--format", "json", "--fail-on", "never")
			var rep struct {
				Tables []struct {
					Tombstones struct {
						PerRead        float64 `json:"per_read"`
						LargestPerRead float64 `json:"largest_per_read"`
					} `json:"tombstones"`
				} `json:"tables"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Tables) != 1 {
				t.Fatalf("estimate: %v\n%s%s", err, out, errOut)
			}
			est := rep.Tables[0].Tombstones.LargestPerRead
			_, vout, verr := runEnv(t, nil, "migrate", "validate", "--dir", dir, "--keyspace", "app", "--workload", wl)
			m := num.FindStringSubmatch(vout)
			if c.wantLint == "" {
				if strings.Contains(vout, "WL103") || strings.Contains(vout, "WL104") {
					t.Errorf("validate charges reads with tombstones estimate says they do not count (%.0f a read):\n%s%s", est, vout, verr)
				}
				if est > 1000 {
					t.Errorf("estimate: %.0f tombstones a read, want under the warn threshold", est)
				}
				return
			}
			if !strings.Contains(vout, c.wantLint) || m == nil {
				t.Fatalf("validate lacks %s with a count:\n%s%s", c.wantLint, vout, verr)
			}
			if got, _ := strconv.ParseFloat(m[1], 64); got != float64(int64(est+0.5)) {
				t.Errorf("validate says %v tombstones a read, estimate %.0f", got, est)
			}
		})
	}
}

// With --queries, validate counts the read the application makes, as estimate does: a
// queue polled after its cursor and tasks read by id pass where a read from the head fails.
func TestValidateQueriesFollowTheRead(t *testing.T) {
	dir := migDir(t, map[string]string{"0001_t.cql": "CREATE TABLE IF NOT EXISTS tasks (queue text, day date, task_id timeuuid, body text, PRIMARY KEY ((queue, day), task_id));\n"})
	tmp := t.TempDir()
	wl := filepath.Join(tmp, "workload.yaml")
	head := filepath.Join(tmp, "head.cql")
	cursor := filepath.Join(tmp, "cursor.cql")
	for path, src := range map[string]string{
		wl:     "version: 1\ntables:\n  tasks:\n    partitions: 50\n    write_rate: 50/s\n    bucket: day\n    deletes:\n      - kind: row\n        rate: 49/s\n        at: head\n",
		head:   "SELECT * FROM tasks WHERE queue = ? AND day = ? LIMIT 100;\n",
		cursor: "SELECT * FROM tasks WHERE queue = ? AND day = ? AND task_id > ? LIMIT 100;\nSELECT * FROM tasks WHERE queue = ? AND day = ? AND task_id = ?;\n",
	} {
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base := []string{"migrate", "validate", "--dir", dir, "--keyspace", "app", "--workload", wl}
	code, out, errOut := runEnv(t, nil, append(base, "--queries", head)...)
	if code != ExitFindings || !strings.Contains(out, "WL104") || !strings.Contains(out, "LIMIT 100, oldest-first") {
		t.Errorf("read from the head: exit %d, want WL104 naming the read:\n%s%s", code, out, errOut)
	}
	code, out, errOut = runEnv(t, nil, append(base, "--queries", cursor)...)
	if strings.Contains(out, "WL103") || strings.Contains(out, "WL104") {
		t.Errorf("read after the cursor and by id: exit %d, want no tombstone lint:\n%s%s", code, out, errOut)
	}
	// Without --workload the reads count no tombstones (no WL lints); the file is still
	// read, for the writes' TTLs BK101 takes (TestBK101ReadsWriteTTLFromQueries).
	code, out, errOut = runEnv(t, nil, "migrate", "validate", "--dir", dir, "--keyspace", "app", "--queries", cursor)
	if code != ExitOK || strings.Contains(out, "WL10") {
		t.Errorf("--queries without --workload: exit %d, want 0 and no WL lint:\n%s%s", code, out, errOut)
	}
}
