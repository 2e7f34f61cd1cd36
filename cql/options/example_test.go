package options_test

import (
	"fmt"

	"github.com/cqlsize/cqlsize/cql/options"
)

// A compaction map with a window unit TWCS does not know: the refusal names the option
// (index 1), the part at fault (the value of sub-option compaction_window_unit) and why.
func ExampleCheckTable() {
	err := options.CheckTable([]options.Option{
		{Name: "gc_grace_seconds", Value: "3600"},
		{Name: "compaction", IsMap: true, Map: []options.Entry{
			{Key: "class", Value: "TimeWindowCompactionStrategy"},
			{Key: "compaction_window_unit", Value: "WEEKS"},
		}},
	}, true)
	fmt.Println(err.Option, err.Part == options.EntryValue, err.Key)
	fmt.Println(err)
	fmt.Println(options.CompactionClass("TimeWindowCompactionStrategy"))
	// Output:
	// 1 true compaction_window_unit
	// compaction sub-option compaction_window_unit: "WEEKS" is not a window unit: 5.0 accepts MINUTES, HOURS or DAYS (upper case)
	// org.apache.cassandra.db.compaction.TimeWindowCompactionStrategy
}
