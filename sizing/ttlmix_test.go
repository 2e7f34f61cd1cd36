package sizing

import (
	"math"
	"testing"

	"github.com/cqlsize/cqlsize/workload"
)

// Rows written with TTLs of an hour, a day and a week, and some without, cost each row its
// TTL as a delta from the smallest (0: a row has none) and its expiry as a delta from the
// soonest: by hand, 0.3·vint(3600) + 0.4·vint(86400) + 0.2·vint(604800) = 0.6 + 1.2 + 0.6
// bytes of TTL and 0.4·vint(82800) + 0.2·vint(601200) (the hour's rows within a second of
// the soonest, 1 byte each) = 0.3 + 1.2 + 0.6 bytes of expiry, where one TTL of a day costs
// 1 + 1.
func TestTTLMixCostsEachTTLsDeltas(t *testing.T) {
	tbl := mustTable("app.metrics", "host text pk", "ts int ck", "value double")
	row := func(yaml string) float64 {
		t.Helper()
		w, err := workload.Parse("w.yaml", []byte("tables:\n  metrics:\n    rows_per_partition: 100\n    write_spread: 1s\n    ttl: 1d\n"+yaml))
		if err != nil {
			t.Fatal(err)
		}
		e, err := EstimateTable(tbl, w.Tables[0], Options{})
		if err != nil {
			t.Fatal(err)
		}
		return e.Typical.RowBytes
	}
	one := row("")
	mixed := row("    ttl_mix: {1h: 0.3, 1d: 0.4, 7d: 0.2, none: 0.1}\n")
	want := (0.6 + 1.2 + 0.6 + 0.3 + 1.2 + 0.6) - (1 + 1)
	if got := mixed - one; math.Abs(got-want) > 1e-9 {
		t.Errorf("a row with the mix costs %.4g bytes more than with one TTL of a day, want %.4g (%.4g and %.4g)", got, want, mixed, one)
	}
}
