package sizing_test

import (
	"fmt"
	"time"

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
	w := &sizing.TableWorkload{
		Name:        "posts_by_user",
		Partitions:  1e6,
		WriteRate:   sizing.Rate{Count: 50, Per: sizing.Day},
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
	w := &sizing.TableWorkload{Name: "posts_by_user", RowsPerPartition: 1, Avg: map[string]float64{"content": 2000}}
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

// A chat application's rate limiter: no conversation gets more than 10 messages a second,
// whatever the skew. The busiest of a million conversations would get 24.8M messages a day
// at 200/day on average; capped, 864,000 (10/s), and the unbucketed table is sized for that.
func ExampleSkew_maxRate() {
	w, err := sizing.ParseWorkload("workload.yaml", []byte(`
tables:
  messages:
    partitions: 1M
    write_rate: 200/day
    bucket: day
    skew: {zipf: 1.1, max_rate: 10/s}
`))
	if err != nil {
		panic(err)
	}
	t := w.Table("messages")
	free := t.Skew
	free.MaxRate = sizing.Rate{}
	head := free.Activity(t.Partitions, 1) * t.WriteRate.Over(sizing.Day)
	fmt.Printf("%s: uncapped head %.3g a day, cap %.0f a day\n", t.Skew, head, t.Skew.MaxRate.Over(sizing.Day))
	// Output:
	// zipf 1.1, at most 10/s a key: uncapped head 2.48e+07 a day, cap 864000 a day
}
