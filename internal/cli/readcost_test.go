package cli

import (
	"encoding/json"
	"math"
	"testing"
)

// TestEstimateReadCost: estimate --queries prices the hashtag query on an hour × 2 shards
// table (codes/testdata/reads: 1M tags, Zipf 1.1, 10 rows a day a tag on average, three
// years, LIMIT 50 at 1,000/s). The median tag's walk is worked out here with a plain Zipf
// sum: ⌈50 / (r × 1h)⌉ hours on both shards.
func TestEstimateReadCost(t *testing.T) {
	dir := "../../codes/testdata/reads/"
	code, out, errOut := run(t, "estimate", "--schema", dir+"schema.cql", "--workload", dir+"workload.yaml", "--queries", dir+"queries.cql", "--format", "json")
	if code != ExitOK && code != ExitFindings {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Tables []struct {
			Reads []struct {
				Query             string
				PartitionsPerRead struct{ P50, P99, Max float64 } `json:"partitions_per_read"`
				PartitionReads    float64                         `json:"partition_reads_per_second"`
			}
			Findings []struct{ Code string }
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Tables) != 1 || len(rep.Tables[0].Reads) != 1 {
		t.Fatalf("json: %v\n%s", err, out)
	}
	var h float64
	for i := 1_000_000; i >= 1; i-- {
		h += math.Pow(float64(i), -1.1)
	}
	rate := 10.0 / 86400 * 1e6 // rows a second into the table
	median := rate * math.Pow(500_000, -1.1) / h
	want := 2 * math.Ceil(50/(median*3600))
	rd := rep.Tables[0].Reads[0]
	if rd.Query != "hashtag_posts" || rd.PartitionsPerRead.P50 != want || rd.PartitionReads != 1000*want {
		t.Errorf("read %+v, want %v partitions at p50 and %v partition reads a second", rd, want, 1000*want)
	}
	codes := map[string]bool{}
	for _, f := range rep.Tables[0].Findings {
		codes[f.Code] = true
	}
	for _, c := range []string{"RC001", "RC002", "RC003"} {
		if !codes[c] {
			t.Errorf("no %s among %v", c, codes)
		}
	}
}
