package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSecondHistories runs `migrate validate` without flags (offline, -k app) on the four
// histories written in the shapes of the second set of public projects
// (testdata/histories2, docs/research/real-schemas.md "Second set") and holds the figures
// the page tables: which pass (exit 0), the refusals (each true: the 5.0 node refuses the
// same options, as the options corpus checks on the node), and the warnings by code.
func TestSecondHistories(t *testing.T) {
	for _, tc := range []struct {
		dir, target string
		code        int
		refused     int
		warnings    map[string]int
	}{
		{"iot_jhipster", "", ExitOK, 0, map[string]int{"BK101": 1}},
		{"tracing_legacy", "", ExitBadInput, 3, nil},
		{"tracing_legacy", "cassandra-4.1", ExitOK, 0, nil},
		{"workflow_queue", "", ExitOK, 0, nil},
		{"gateway_flyway", "", ExitOK, 0, map[string]int{"IX101": 1}},
	} {
		args := []string{"migrate", "validate", "--offline", "-k", "app", filepath.Join("testdata/histories2", tc.dir)}
		if tc.target != "" {
			args = append(args, "--target", tc.target)
		}
		code, out, errOut := runEnv(t, nil, args...)
		all := out + errOut
		refused := 0
		for _, l := range strings.Split(errOut, "\n") {
			if strings.Contains(l, ".cql:") && !strings.Contains(l, " warning: ") && !strings.Contains(l, "no-op version") {
				refused++
			}
		}
		got := map[string]int{}
		for _, l := range strings.Split(all, "\n") {
			if i := strings.Index(l, " warning: "); i > 0 {
				f := strings.Fields(l[:i])
				got[f[len(f)-1]]++
			}
		}
		if code != tc.code || refused != tc.refused || len(got) != len(tc.warnings) {
			t.Errorf("%s %s: exit %d, %d refused, warnings %v; want exit %d, %d refused, warnings %v\n%s", tc.dir, tc.target, code, refused, got, tc.code, tc.refused, tc.warnings, all)
			continue
		}
		for c, n := range tc.warnings {
			if got[c] != n {
				t.Errorf("%s: %s %d times, want %d", tc.dir, c, got[c], n)
			}
		}
	}
}
