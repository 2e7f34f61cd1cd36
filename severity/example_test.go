package severity_test

import (
	"fmt"

	"github.com/cqlsize/cqlsize/severity"
)

// A CI gate: fail the run when the worst finding reaches the level the user chose.
func Example() {
	failOn, _ := severity.Parse("warn")
	worst := severity.Fail
	fmt.Println(worst, worst >= failOn)
	// Output: fail true
}
