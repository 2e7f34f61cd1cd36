package sensors

import (
	"testing"

	"github.com/cqlsize/cqlsize/examples/internal/extest"
)

// TestWorkload sizes the example's tables under workload.yaml: no partition may cross a
// limit at the declared workload. It needs no cluster.
func TestWorkload(t *testing.T) {
	schema, err := Schema("app")
	if err != nil {
		t.Fatal(err)
	}
	extest.Estimate(t, schema, ".")
}
