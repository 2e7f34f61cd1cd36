package cli

import (
	"strings"
	"testing"
)

// TestCheckScansOfConfigurationTables: the corpus of configuration-table scans
// (cql/check/testdata/configscans) holds only scans that are fine for small tables. With
// no workload none is a failure, each asks for the table's size; --small makes them
// info; a workload makes one a failure only for the table it says is big.
func TestCheckScansOfConfigurationTables(t *testing.T) {
	dir := "../../cql/check/testdata/configscans/"
	base := []string{"check", "--schema", dir + "schema.cql", "--queries", dir + "queries.cql"}
	count := func(out, sev string) int { return strings.Count(out, "\n  "+sev+"  QF0") }

	code, out, _ := run(t, base...)
	if code != ExitOK || count(out, "fail") != 0 {
		t.Fatalf("without a workload: exit %d, %d failures, want 0 and 0:\n%s", code, count(out, "fail"), out)
	}
	if n := strings.Count(out, "how big is it?"); n != 7 {
		t.Errorf("%d scans ask for the table's size, want all 7:\n%s", n, out)
	}

	code, out, _ = run(t, append(base, "--small", "conf.feature_flags,conf.countries,conf.settings", "--small", "plans", "--small", "conf.tenants")...)
	if code != ExitOK || count(out, "warn") != 0 || count(out, "fail") != 0 {
		t.Errorf("with every table --small: exit %d, %d warnings, %d failures:\n%s", code, count(out, "warn"), count(out, "fail"), out)
	}

	// 2k/day kept 3 years is 2,190,000 rows: over the 5,000 a scan may read.
	code, out, _ = run(t, append(base, "--workload", dir+"big.yaml")...)
	if code != ExitFindings || count(out, "fail") != 2 || !strings.Contains(out, "2.19M rows") {
		t.Errorf("with a workload saying conf.tenants is big: exit %d, %d failures (want QF002 and QF009 of tenants_in_region):\n%s", code, count(out, "fail"), out)
	}
	// 1/day kept 5 years is 1,826 rows (5 × 365.25): one page.
	code, out, _ = run(t, append(base, "--workload", dir+"small.yaml")...)
	if code != ExitOK || count(out, "info") != 2 || !strings.Contains(out, "1826 rows") {
		t.Errorf("with a workload saying conf.tenants is small: exit %d, %d infos:\n%s", code, count(out, "info"), out)
	}

	code, _, errOut := run(t, append(base, "--small", "conf.nosuch")...)
	if code != ExitBadInput || !strings.Contains(errOut, "--small conf.nosuch") {
		t.Errorf("--small of a table the schema lacks: exit %d, %s", code, errOut)
	}
}
