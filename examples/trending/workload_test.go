package trending

import (
	"path/filepath"
	"testing"

	"github.com/cqlsize/cqlsize/examples/internal/extest"
	"github.com/cqlsize/cqlsize/sizing"
	"github.com/cqlsize/cqlsize/workload"
)

// TestWorkload sizes posts_by_hashtag under workload.yaml, whose numbers are per hashtag,
// before sharding: SZ102 must ask for exactly the shards the example uses, and with the
// hottest hashtag's day split that many ways, no partition may cross a limit. It needs no
// cluster.
func TestWorkload(t *testing.T) {
	schema, err := Schema("app")
	if err != nil {
		t.Fatal(err)
	}
	ests := extest.Estimate(t, schema, ".")
	if n := extest.ShardAdvice(t, ests, "posts_by_hashtag"); n != Shards {
		t.Fatalf("SZ102 asks for %d write shards for workload.yaml; the example uses %d", n, Shards)
	}
	// The same workload, each hashtag's posts spread over the shards: a partition (one
	// shard of one day) takes 1/Shards of its hashtag's posts. The hashtags, and how
	// skewed they are, stay as they were (sizing has no shard count of its own).
	w, err := workload.Load(filepath.Join(".", "workload.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tw := w.Table("posts_by_hashtag")
	tw.WriteRate.Count /= Shards
	sharded, err := sizing.EstimateAll(schema, w, sizing.Options{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range sharded {
		t.Logf("%s over %d shards: largest partition %s in %.0f rows", e.Table, Shards, sizing.FormatBytes(e.Largest.Bytes), e.Largest.Rows)
		for _, f := range e.Findings {
			if f.Severity >= sizing.Warn || f.Code == sizing.CodeShards {
				t.Errorf("with %d shards: %s %s", Shards, f.Code, f.Message)
			}
		}
	}
}
