package report_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/internal/report"
	"github.com/cqlsize/cqlsize/profile"
)

// TestProfileJSONRounds: the profile document rounds its numbers as estimate's does (six
// significant digits, whole from a million up), leaves the digits inside strings alone, and
// gives started in UTC whatever the machine's zone.
func TestProfileJSONRounds(t *testing.T) {
	zone := time.FixedZone("UTC+5:30", 5*3600+1800)
	r := &profile.Result{Keyspace: "ks", Problems: []string{"slice 0.30000000000000004 of the ring"}, Tables: []*profile.Table{},
		Started: time.Date(2026, 11, 23, 22, 30, 0, 0, zone), Elapsed: 143.99999999999997, Rows: 1234567,
		RateAchieved: 8573.412345678, RateSet: 0.1 + 0.2, Consistency: "LOCAL_ONE"}
	var b bytes.Buffer
	if err := report.WriteProfileJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(b.Bytes(), &v); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	for key, want := range map[string]string{
		`"elapsed_seconds": `: "144,", `"rate_achieved": `: "8573.41,", `"rate_set": `: "0.3,", `"rows_read": `: "1234567,",
		`"started": `: `"2026-11-23T17:00:00Z",`, `"version": `: "1,",
	} {
		if !strings.Contains(b.String(), key+want) {
			t.Errorf("want %s%s in\n%s", key, want, b.String())
		}
	}
	if !strings.Contains(b.String(), "slice 0.30000000000000004 of the ring") {
		t.Errorf("a number inside a string was rewritten:\n%s", b.String())
	}
	if r.Started.Location() != zone {
		t.Errorf("rendering changed the caller's result: started is now in %s", r.Started.Location())
	}
}
