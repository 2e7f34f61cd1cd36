package readcost_test

import (
	"fmt"
	"time"

	"github.com/cqlsize/cqlsize/sizing/readcost"
	"github.com/cqlsize/cqlsize/workload"
)

// One bucket width for every hashtag: hour buckets with two shards hold the busiest tag,
// and the median tag's LIMIT 50 walks back through thousands of empty hours.
func ExampleOf() {
	p := readcost.Pattern{
		Keys: 1e6, Rate: 115.7, Skew: workload.Skew{Kind: workload.Zipf, S: 1.1},
		Retention: 3 * 365 * 24 * time.Hour, Bucket: time.Hour, Shards: 2,
		Limit: 50, ReadRate: 1000,
	}
	c, _ := readcost.Of(p)
	fmt.Printf("median tag: %.2f rows a day, %.0f partitions a read, %.0f%% empty\n", c.Typical.Rate*86400, c.Typical.Partitions, 100*c.Typical.EmptyShare())
	fmt.Printf("p99 tag: %.0f partitions; busiest: %.0f\n", c.P99.Partitions, c.Busiest.Partitions)
	fmt.Printf("%.1fM partition reads a second\n", c.PartitionReads/1e6)
	// Output:
	// median tag: 0.67 rows a day, 3600 partitions a read, 99% empty
	// p99 tag: 50 partitions; busiest: 2
	// 3.6M partition reads a second
}
