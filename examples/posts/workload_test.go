package posts_test

import (
	"testing"

	"github.com/cqlsize/cqlsize/examples/internal/extest"
	"github.com/cqlsize/cqlsize/examples/posts"
)

// TestWorkload sizes the example's tables under workload.yaml: no partition may cross a
// limit at the declared workload. It needs no cluster.
func TestWorkload(t *testing.T) {
	schema, err := posts.Schema("app")
	if err != nil {
		t.Fatal(err)
	}
	extest.Estimate(t, schema, ".")
}
