package magazines

import (
	"testing"

	"github.com/cqlsize/cqlsize/examples/internal/extest"
)

// TestREADME holds the code README.md shows to the package's own. It needs no cluster.
func TestREADME(t *testing.T) {
	extest.READMECode(t)
}
