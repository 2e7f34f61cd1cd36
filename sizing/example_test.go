package sizing_test

import (
	"fmt"
	"time"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/sizing"
	"github.com/cqlsize/cqlsize/workload"
)

// postsByUser is CREATE TABLE app.posts_by_user (user_id uuid, month text, post_id timeuuid,
// content text, PRIMARY KEY ((user_id, month), post_id)), built by hand (cql.LoadSchema reads
// it from a .cql file).
func postsByUser() *cql.Table {
	col := func(name, typ string, kind cql.ColumnKind, pos int) *cql.Column {
		return &cql.Column{Name: name, Type: cql.Type{Kind: cql.Native, Name: typ}, Kind: kind, Position: pos}
	}
	userID, month := col("user_id", "uuid", cql.PartitionKey, 0), col("month", "text", cql.PartitionKey, 1)
	postID, content := col("post_id", "timeuuid", cql.Clustering, 0), col("content", "text", cql.Regular, -1)
	return &cql.Table{
		Keyspace: "app", Name: "posts_by_user",
		Columns:      []*cql.Column{userID, month, postID, content},
		PartitionKey: []*cql.Column{userID, month},
		Clustering:   []*cql.Column{postID},
		Options:      cql.TableOptions{GCGraceSeconds: cql.DefaultGCGraceSeconds},
	}
}

func ExampleEstimateTable() {
	w := &workload.TableWorkload{
		Name:        "posts_by_user",
		Partitions:  1e6,
		WriteRate:   workload.Rate{Count: 50, Per: workload.Day},
		Avg:         map[string]float64{"content": 280},
		WriteSpread: time.Hour,
	}
	e, err := sizing.EstimateTable(postsByUser(), w, sizing.Options{})
	if err != nil {
		panic(err)
	}
	// The month bucket comes from the partition key's month column; its largest month has 31 days.
	fmt.Printf("bucket %s (%s)\n", e.Bucket, e.BucketSource)
	fmt.Printf("largest partition: %.0f rows, %s on disk (classic formula: %s)\n",
		e.Largest.Rows, sizing.FormatBytes(e.Largest.Bytes), sizing.FormatBytes(e.Largest.ClassicBytes))
	fmt.Printf("a row: %.1f bytes, of which %.2f are its timestamp\n", e.Encoding.RowBytes, e.Encoding.Timestamp)
	for _, f := range e.Findings {
		fmt.Println(f.Severity, f.Code)
	}
	fmt.Println("verdict", e.Verdict)
	// Output:
	// bucket month (table (column month))
	// largest partition: 1550 rows, 480 kB on disk (classic formula: 471 kB)
	// a row: 309.9 bytes, of which 4.92 are its timestamp
	// info SZ101
	// verdict info
}

func ExampleEstimateBatch() {
	w := &workload.TableWorkload{Name: "posts_by_user", RowsPerPartition: 1, Avg: map[string]float64{"content": 2000}}
	t := postsByUser()
	// One post written to three tables of the same shape, three partitions: Cassandra checks
	// the sum of the mutations' data sizes against batch_size_warn_threshold.
	b, err := sizing.EstimateBatch([]sizing.BatchWrite{{Table: t, Workload: w}, {Table: t, Workload: w}, {Table: t, Workload: w}}, sizing.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%.0f bytes in %d mutations\n", b.Bytes, b.Mutations)
	for _, f := range b.Findings {
		fmt.Println(f.Severity, f.Code)
	}
	// Output:
	// 6258 bytes in 3 mutations
	// warn SZ020
}

// Replicate turns one replica's bytes into what each data center and each node holds.
func ExampleReplicate() {
	r, err := cql.ParseReplication("", "{'class': 'NetworkTopologyStrategy', 'dc1': 3, 'dc2': 2}")
	if err != nil {
		fmt.Println(err)
		return
	}
	rp := sizing.Replicate(2e12, r, map[string]int{"dc1": 6, "dc2": 4})
	for _, dc := range rp.DCs {
		fmt.Printf("%s: %s, %s a node\n", dc.DC, sizing.FormatBytes(dc.Bytes), sizing.FormatBytes(dc.NodeBytes))
	}
	fmt.Println("cluster:", sizing.FormatBytes(rp.Cluster))
	// Output:
	// dc1: 6 TB, 1 TB a node
	// dc2: 4 TB, 1 TB a node
	// cluster: 10 TB
}
