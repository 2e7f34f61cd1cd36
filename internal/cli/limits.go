package cli

import "github.com/cqlsize/cqlsize/sizing"

// targetLimitsText names each target's partition limits for the help texts, as the
// verdicts and design's reasons name them: "100,000 values and 100 MB on Cassandra; ...".
func targetLimitsText() string {
	return sizing.LimitsText(sizing.Cassandra50, "and") + " a partition on Cassandra, " +
		sizing.LimitsText(sizing.ScyllaDB, "and") + " with --target scylladb"
}
