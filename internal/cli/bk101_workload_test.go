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
