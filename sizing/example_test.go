package sizing_test

import (
	"fmt"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/sizing"
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
	w, err := sizing.WorkloadFromPairs("posts_by_user", "partitions=1M", "write_rate=50/day", "avg.content=280", "write_spread=1h")
	if err != nil {
		panic(err)
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
	// Output:
	// bucket month (table (column month))
	// largest partition: 1550 rows, 480 kB on disk (classic formula: 471 kB)
	// a row: 309.9 bytes, of which 4.92 are its timestamp
	// info SZ101
}

func ExampleParseWorkload() {
	w, err := sizing.ParseWorkload("workload.yaml", []byte(`
tables:
  posts_by_user:
    partitions: 1M
    write_rate: 50/day
    avg: {content: 280}
    skew: {zipf: 1.1}
`))
	if err != nil {
		panic(err)
	}
	t := w.Table("posts_by_user")
	fmt.Println(t.Partitions, t.WriteRate, t.Avg["content"], t.Skew)

	_, err = sizing.ParseWorkload("workload.yaml", []byte("tables:\n  posts_by_user:\n    rows: many\n"))
	fmt.Println(err)
	// Output:
	// 1e+06 50/day 280 zipf 1.1
	// workload.yaml:3:11: posts_by_user.rows: want a number such as 50000, 2_000_000 or 2M, got "many"
}

func ExampleEstimateBatch() {
	w, err := sizing.WorkloadFromPairs("posts_by_user", "rows=1", "avg.content=2000")
	if err != nil {
		panic(err)
	}
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

func ExampleSkew_Activity() {
	z := sizing.Skew{Kind: sizing.Zipf, S: 1.1}
	// Among a billion keys, how much busier than the average key is the busiest, and the p99?
	fmt.Printf("%.3g %.3g\n", z.Activity(1e9, 1), z.Activity(1e9, 1e7))
	// Output:
	// 1.07e+08 2.14
}
