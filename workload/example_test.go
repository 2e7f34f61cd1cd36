package workload_test

import (
	"fmt"

	"github.com/cqlsize/cqlsize/workload"
)

func ExampleParse() {
	w, err := workload.Parse("workload.yaml", []byte(`
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

	_, err = workload.Parse("workload.yaml", []byte("tables:\n  posts_by_user:\n    rows: many\n"))
	fmt.Println(err)
	// Output:
	// 1e+06 50/day 280 zipf 1.1
	// workload.yaml:3:11: posts_by_user.rows: want a number such as 50000, 2_000_000 or 2M, got "many"
}

func ExampleSkew_Activity() {
	z := workload.Skew{Kind: workload.Zipf, S: 1.1}
	// Among a billion keys, how much busier than the average key is the busiest, and the p99?
	fmt.Printf("%.3g %.3g\n", z.Activity(1e9, 1), z.Activity(1e9, 1e7))
	// Output:
	// 1.07e+08 2.14
}

// A chat application's rate limiter: no conversation gets more than 10 messages a second,
// whatever the skew. The busiest of a million conversations would get 24.8M messages a day
// at 200/day on average; capped, 864,000 (10/s), and the unbucketed table is sized for that.
func ExampleSkew_maxRate() {
	w, err := workload.Parse("workload.yaml", []byte(`
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
	free.MaxRate = workload.Rate{}
	head := free.Activity(t.Partitions, 1) * t.WriteRate.Over(workload.Day)
	fmt.Printf("%s: uncapped head %.3g a day, cap %.0f a day\n", t.Skew, head, t.Skew.MaxRate.Over(workload.Day))
	// Output:
	// zipf 1.1, at most 10/s a key: uncapped head 2.48e+07 a day, cap 864000 a day
}
