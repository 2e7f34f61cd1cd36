package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTargetLimitsText holds design's and estimate's output under --target scylladb to
// ScyllaDB's partition limits: every sentence that says what a partition is kept under names
// 100,000 rows and 1,000 MB, and none Cassandra's 100,000 values or 100 MB. Under the
// default target the same sentences name Cassandra's.
func TestTargetLimitsText(t *testing.T) {
	dir := filepath.Join(designCases, "sensors")
	for _, tc := range []struct {
		target      string
		want        string
		notWant     []string
		estimateHas string
	}{
		{"scylladb", "under 100,000 rows and 1,000 MB", []string{"100,000 values", "100 MB"}, "a partition under 100,000 rows and 1,000 MB;"},
		{"cassandra-5.0", "under 100,000 values and 100 MB", []string{"100,000 rows", "1,000 MB"}, "a partition under 100,000 values and 100 MB;"},
	} {
		t.Run(tc.target, func(t *testing.T) {
			out := t.TempDir()
			code, stdout, stderr := runIn(t, "", "design", "-k", "app", "--schema", filepath.Join(dir, "entities.cql"), "--queries", filepath.Join(dir, "queries.cql"),
				"--workload", filepath.Join(dir, "workload.yaml"), "--out", out, "--target", tc.target)
			if code != ExitOK {
				t.Fatalf("design: exit %d\n%s%s", code, stdout, stderr)
			}
			mig, err := os.ReadFile(filepath.Join(out, "migrations", "0001_design.cql"))
			if err != nil {
				t.Fatal(err)
			}
			// The migration's comments wrap lines: compare with the line breaks folded.
			folded := strings.Join(strings.Fields(strings.ReplaceAll(string(mig), "--", "")), " ")
			for name, text := range map[string]string{"design's output": stdout, "the migration": folded} {
				if !strings.Contains(text, tc.want) {
					t.Errorf("%s lacks %q:\n%s", name, tc.want, text)
				}
				for _, bad := range tc.notWant {
					if strings.Contains(text, bad) {
						t.Errorf("%s names %q:\n%s", name, bad, text)
					}
				}
			}
			code, stdout, stderr = runIn(t, "", "estimate", "-k", "app", "--schema", filepath.Join(out, "migrations"),
				"--workload", filepath.Join(out, "workload.yaml"), "--target", tc.target)
			if code != ExitOK {
				t.Fatalf("estimate: exit %d\n%s%s", code, stdout, stderr)
			}
			if !strings.Contains(stdout, tc.estimateHas) {
				t.Errorf("estimate's output lacks %q:\n%s", tc.estimateHas, stdout)
			}
			for _, bad := range tc.notWant {
				if strings.Contains(stdout, bad) {
					t.Errorf("estimate's output names %q:\n%s", bad, stdout)
				}
			}
		})
	}
}
