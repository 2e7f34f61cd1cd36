package sizing

import (
	"fmt"
	"math"
	"os"
	"testing"
	"time"
)

// flagFields are the workload fields the estimate's flags set, through TableWorkload.Set.
var flagFields = []string{
	"rows", "rate", "bucket", "partitions", "ttl", "skew", "nulls", "nulls_as", "writes", "horizon",
	"write_spread", "avg", "items", "delete", "overwrites",
}

// FuzzFlags drives the flag parsers as `cqlsize estimate --table` does: four settings through
// TableWorkload.Set, Check, then the estimate of one of the example tables (a partition key
// bucket, a collection, a map, a single-row table). Each value also goes through every parser
// on its own. Nothing may panic or hang; whatever a parser accepts is finite and in range,
// and a workload Check accepts estimates to finite, non-negative numbers (checkEstimate).
func FuzzFlags(f *testing.F) {
	for _, s := range []struct {
		f1       uint8
		v1       string
		f2       uint8
		v2       string
		f3       uint8
		v3       string
		f4       uint8
		v4       string
		tableSel uint8
	}{
		{1, "1e15/second", 13, "row:1e15/second", 0, "", 0, "", 0},
		{1, "1e9/s", 13, "row:1e9/s", 6, "0.5", 12, "labels=2e9x2147483648", 5},
		{3, "1e15", 5, "zipf:3", 1, "1e6/second", 11, "content=200", 1},
		{0, "1e12", 13, "range:1e12:1e12", 4, "1s", 9, "290y", 5},
		{1, "1/ns", 2, "minute", 10, "1000y", 14, "emails=1e9/s", 4},
		{1, "50/day", 2, "month", 3, "2M", 11, "content=280", 0},
		{0, "2000", 13, "kind=range,rate=2/day,rows=50", 6, "title=0.3", 7, "null", 0},
		{1, "3/hour", 13, "element:labels:1/day", 12, "labels=3x8:20", 8, "update", 5},
		{0, "1", 4, "630720000", 13, "partition:0.5", 12, "prefs=3x8:20", 4},
	} {
		f.Add(s.f1, s.v1, s.f2, s.v2, s.f3, s.v3, s.f4, s.v4, s.tableSel)
	}
	schema := exampleSchema()
	tables := schema.Tables()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, f1 uint8, v1 string, f2 uint8, v2 string, f3 uint8, v3 string, f4 uint8, v4 string, tableSel uint8) {
		defer deadline(t, fmt.Sprintf("%d %q %d %q %d %q %d %q %d", f1, v1, f2, v2, f3, v3, f4, v4, tableSel))()
		tbl := tables[int(tableSel)%len(tables)]
		tw := &TableWorkload{Name: tbl.Name}
		for _, fv := range []struct {
			f uint8
			v string
		}{{f1, v1}, {f2, v2}, {f3, v3}, {f4, v4}} {
			checkParsers(t, fv.v)
			_ = tw.Set(flagFields[int(fv.f)%len(flagFields)], fv.v)
		}
		if errs := tw.Check(); len(errs) > 0 {
			return
		}
		e, err := EstimateTable(tbl, tw, Options{Now: now, Schema: schema})
		if err != nil {
			return
		}
		checkEstimate(t, e)
	})
}

// checkParsers runs s through every parser a flag uses and fails t on an accepted value out
// of range.
func checkParsers(t *testing.T, s string) {
	t.Helper()
	finite := func(what string, v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			t.Errorf("%s(%q) = %v", what, s, v)
		}
	}
	if v, err := ParseCount(s); err == nil {
		finite("ParseCount", v)
	}
	if v, err := ParseFraction(s); err == nil && !(v >= 0 && v <= 1) {
		t.Errorf("ParseFraction(%q) = %v", s, v)
	}
	if d, err := ParseDuration(s); err == nil && d < 0 {
		t.Errorf("ParseDuration(%q) = %v", s, d)
	}
	if r, err := ParseRate(s); err == nil {
		finite("ParseRate count", r.Count)
		if r.Per <= 0 {
			t.Errorf("ParseRate(%q) per %v", s, r.Per)
		}
		_ = r.String()
	}
	if w, err := ParseSpan(s); err == nil && (w.Avg <= 0 || w.Max < w.Avg) {
		t.Errorf("ParseSpan(%q) = %+v", s, w)
	}
	if _, n, err := ParseAvgFlag(s); err == nil {
		finite("ParseAvgFlag", n)
	}
	if _, it, err := ParseItemsFlag(s); err == nil {
		finite("ParseItemsFlag count", it.Count)
		finite("ParseItemsFlag size", it.Size)
		finite("ParseItemsFlag key", it.KeySize)
	}
	if _, v, err := ParseNullsFlag(s); err == nil && !(v >= 0 && v <= 1) {
		t.Errorf("ParseNullsFlag(%q) = %v", s, v)
	}
	if d, err := ParseDeleteFlag(s); err == nil {
		finite("ParseDeleteFlag rows", d.Rows)
		finite("ParseDeleteFlag per partition", d.PerPartition)
		finite("ParseDeleteFlag rate", d.Rate.Count)
		if d.Rate.Per < 0 {
			t.Errorf("ParseDeleteFlag(%q) per %v", s, d.Rate.Per)
		}
	}
}

// deadline makes a hang a failure: go test -fuzz has no limit on one input, so an input that
// never returns would only stall the run. The returned func stops the timer. On expiry the
// process exits with the input, since the stuck goroutine cannot be stopped.
func deadline(t *testing.T, input string) (stop func()) {
	timer := time.AfterFunc(10*time.Second, func() {
		fmt.Fprintf(os.Stderr, "HANG: %s did not return within 10s on %s\n", t.Name(), input)
		os.Exit(3)
	})
	return func() { timer.Stop() }
}
