package tombstone_test

import (
	"fmt"
	"time"

	"github.com/cqlsize/cqlsize/tombstone"
)

// A work queue read oldest first, whose consumed rows are deleted: every read scans all the
// deletions of the last gc_grace_seconds before it finds a live row.
func ExampleEstimate_queue() {
	r, err := tombstone.Estimate(tombstone.Input{
		Table:   tombstone.Table{Name: "app.jobs", ClusteringColumns: 1, RegularColumns: 3, GCGraceSeconds: 864000},
		Writes:  tombstone.Writes{RowsPerDay: 2000},
		Deletes: []tombstone.Delete{{Kind: tombstone.RowDelete, PerDay: 1990, At: tombstone.Head}},
		Read:    tombstone.Read{Limit: 10, Order: tombstone.OldestFirst},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("tombstones per read: %.0f (%s)\n", r.BucketEnd.PerRead, r.Verdict())
	for _, f := range r.Findings {
		fmt.Println(f.Code, f.Severity)
	}
	// Output:
	// tombstones per read: 19900 (warn)
	// TS001 warn
	// TS004 warn
	// TS011 info
}

// A daily bucket of sensor readings with a 3-day TTL, read newest first: the current
// bucket has no tombstones, but a read of a bucket whose rows just expired counts every
// expired cell, because the TTL is shorter than gc_grace_seconds.
func ExampleAt() {
	in := tombstone.Input{
		Table:  tombstone.Table{Name: "iot.readings", ClusteringColumns: 1, RegularColumns: 2, GCGraceSeconds: 864000},
		Writes: tombstone.Writes{RowsPerDay: 1440, Bucket: 24 * time.Hour, TTLSeconds: 3 * 86400},
		Read:   tombstone.Read{Limit: 60, Order: tombstone.NewestFirst},
	}
	for _, age := range []time.Duration{24 * time.Hour, 96 * time.Hour, 15 * 24 * time.Hour} {
		s, _ := tombstone.At(in, age)
		fmt.Printf("%4.0fh: %4.0f live rows, read counts %4.0f\n", age.Hours(), s.LiveRows, s.PerRead)
	}
	// Output:
	//   24h: 1440 live rows, read counts    0
	//   96h:    0 live rows, read counts 2880
	//  360h:    0 live rows, read counts    0
}
