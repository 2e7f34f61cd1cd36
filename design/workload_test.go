package design_test

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/cqlsize/cqlsize/design"
	"github.com/cqlsize/cqlsize/workload"
)

// TestWorkloadFileReadsBack designs every case and reads its workload file back with the
// workload package's reader: each table's declared figures are the ones it was sized with,
// to the rounding the file writes (three decimals, a rate's count six).
func TestWorkloadFileReadsBack(t *testing.T) {
	dirs, _ := filepath.Glob("testdata/cases/*/entities.cql")
	if len(dirs) < 4 {
		t.Fatalf("cases: %v", dirs)
	}
	near := func(a, b, tol float64) bool { return math.Abs(a-b) <= tol }
	for _, file := range dirs {
		dir := filepath.Dir(file)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			d := designCase(t, dir)
			w, err := workload.Parse("workload.yaml", []byte(d.WorkloadFile()))
			if err != nil {
				t.Fatalf("%v\n%s", err, d.WorkloadFile())
			}
			for _, tb := range d.Tables {
				want, got := tb.Workload, w.Table(tb.Workload.Name)
				if got == nil {
					t.Fatalf("%s missing from\n%s", want.Name, d.WorkloadFile())
				}
				ok := near(got.Partitions, want.Partitions, 5e-4) && near(got.WriteRate.Count, want.WriteRate.Count, 5e-7) && got.WriteRate.Per == want.WriteRate.Per &&
					got.Bucket == want.Bucket && got.NoBucket == want.NoBucket && got.Shards == want.Shards &&
					(got.TTL == nil) == (want.TTL == nil) && (want.TTL == nil || *got.TTL == *want.TTL) &&
					(want.TTL != nil || got.Horizon == want.Horizon) && got.Skew.Kind == want.Skew.Kind && near(got.Skew.S, want.Skew.S, 5e-4) &&
					near(got.Skew.MaxRate.Count, want.Skew.MaxRate.Count, 5e-7) && got.NullsAs == workload.NullUnset &&
					len(got.Avg) == len(want.Avg) && len(got.Items) == len(want.Items)
				for k, v := range want.Avg {
					ok = ok && near(got.Avg[k], v, 5e-4)
				}
				for k, v := range want.Items {
					g := got.Items[k]
					ok = ok && near(g.Count, v.Count, 5e-4) && near(g.Size, v.Size, 5e-4) && near(g.KeySize, v.KeySize, 5e-4)
				}
				if !ok {
					t.Errorf("%s read back as\n%+v\nsized with\n%+v", want.Name, *got, *want)
				}
			}
		})
	}
}

// designCase runs design on a case folder as the command does.
func designCase(t *testing.T, dir string) *design.Design {
	t.Helper()
	d, err := design.Run(load(t, dir, "app"))
	if err != nil {
		t.Fatal(err)
	}
	return d
}
