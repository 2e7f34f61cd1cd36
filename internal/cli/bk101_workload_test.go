package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BK101 is a warning without a workload (validate exits 0); with a workload that sizes the
// table it steps aside, and the size lints decide: nothing for a slow series, WL101 (an
// error, exit 1) for one whose partitions cross the limits.
func TestBK101WarnsThenWorkloadDecides(t *testing.T) {
	dir := migDir(t, map[string]string{
		"0001_readings.cql": "CREATE TABLE IF NOT EXISTS readings (sensor_id uuid, at timestamp, v double, PRIMARY KEY (sensor_id, at));\n",
	})
	code, out, errOut := runEnv(t, nil, "migrate", "validate", "--dir", dir, "--keyspace", "app")
	if code != ExitOK || !strings.Contains(out, "BK101 warning: clustered by event time at (timestamp) and nothing bounds partition (sensor_id)") ||
		!strings.Contains(out, "lint: 0 errors, 1 warning") {
		t.Fatalf("no workload: exit %d, want 0 with a BK101 warning\n%s%s", code, out, errOut)
	}
	for _, tc := range []struct {
		rate string
		code int
		want string
	}{
		{"1/day", ExitOK, "lint: 0 errors, 0 warnings"},
		{"5000/hour", ExitFindings, "WL101 error: app.readings"},
	} {
		w := filepath.Join(t.TempDir(), "workload.yaml")
		if err := os.WriteFile(w, []byte("tables:\n  readings:\n    write_rate: "+tc.rate+"\n    partitions: 1000\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runEnv(t, nil, "migrate", "validate", "--dir", dir, "--keyspace", "app", "--workload", w)
		if code != tc.code || !strings.Contains(out, tc.want) || strings.Contains(out, ": BK101 ") {
			t.Errorf("workload %s: exit %d, want %d, %q and no BK101\n%s%s", tc.rate, code, tc.code, tc.want, out, errOut)
		}
	}
}

// A queries file copied from the service holds its writes too: an INSERT ... USING TTL ?
// into the table expires its rows, so BK101 has nothing to warn about; the same file
// without the TTL leaves the warning.
func TestBK101ReadsWriteTTLFromQueries(t *testing.T) {
	dir := migDir(t, map[string]string{
		"0001_readings.cql": "CREATE TABLE IF NOT EXISTS readings (sensor_id uuid, at timestamp, v double, PRIMARY KEY (sensor_id, at));\n",
	})
	for _, tc := range []struct {
		using string
		want  string
	}{
		{" USING TTL ?", "lint: 0 errors, 0 warnings"},
		{"", "BK101 warning: clustered by event time at (timestamp)"},
	} {
		q := filepath.Join(t.TempDir(), "queries.cql")
		src := "-- query: latest\nSELECT * FROM readings WHERE sensor_id = ? LIMIT 10;\n" +
			"INSERT INTO readings (sensor_id, at, v) VALUES (?, ?, ?)" + tc.using + ";\n"
		if err := os.WriteFile(q, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runEnv(t, nil, "migrate", "validate", "--dir", dir, "--keyspace", "app", "--queries", q)
		if code != ExitOK || !strings.Contains(out, tc.want) {
			t.Errorf("writes%q: exit %d, want 0 and %q\n%s%s", tc.using, code, tc.want, out, errOut)
		}
	}
}
