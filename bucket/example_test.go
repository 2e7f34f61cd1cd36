package bucket_test

import (
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/cqlsize/cqlsize/bucket"
)

// The month bucket of a post, for posts_by_user ((user_id, month), post_id): the label for
// a text column, or the start for a timestamp column.
func ExampleScheme_For() {
	months, err := bucket.New(bucket.Month())
	if err != nil {
		log.Fatal(err)
	}
	posted := time.Date(2024, 1, 15, 10, 4, 5, 0, time.UTC)
	b := months.For(posted)
	fmt.Println(b)
	fmt.Println(b.Start())
	fmt.Println(b.End())
	// Output:
	// 2024-01
	// 2024-01-01 00:00:00 +0000 UTC
	// 2024-02-01 00:00:00 +0000 UTC
}

// Day buckets on a local calendar follow local midnight, so the day clocks spring forward
// has 23 hours.
func ExampleScheme_In() {
	days, err := bucket.New(bucket.Day())
	if err != nil {
		log.Fatal(err)
	}
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		log.Fatal(err)
	}
	b, err := days.In(berlin).Parse("2024-03-31")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(b.Start(), "for", b.End().Sub(b.Start()))
	// Output: 2024-03-31 00:00:00 +0100 CET for 23h0m0s
}

// A timeline read walks the newest buckets first and stops after at most 3, however long
// ago the user signed up.
func ExampleScheme_Newest() {
	months, err := bucket.New(bucket.Month())
	if err != nil {
		log.Fatal(err)
	}
	signup := time.Date(2015, 6, 1, 0, 0, 0, 0, time.UTC)
	now := time.Date(2024, 3, 10, 12, 0, 0, 0, time.UTC)
	newest, err := months.Newest(signup, now, 3)
	if err != nil {
		log.Fatal(err)
	}
	for _, b := range newest {
		fmt.Println(b) // SELECT ... WHERE user_id = ? AND month = ? LIMIT ...
	}
	// Output:
	// 2024-03
	// 2024-02
	// 2024-01
}

// A careless range fails instead of turning into millions of queries.
func ExampleScheme_Between() {
	minutes, err := bucket.New(bucket.Minute())
	if err != nil {
		log.Fatal(err)
	}
	from := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	_, err = minutes.Between(from, from.AddDate(1, 0, 0), 10_000)
	fmt.Println(errors.Is(err, bucket.ErrTooManyBuckets))
	fmt.Println(err)
	// Output:
	// true
	// bucket: too many buckets: 2024-01-01T00:00:00Z to 2025-01-01T00:00:00Z needs 527040 minute buckets, more than the limit of 10000
}

// A hot user's posts spread over 4 shards per month, chosen from the post id so that the
// same post always lands on the same shard; a read of the range visits every shard.
func ExampleShard() {
	shard, err := bucket.Shard("c232ab00-9414-11ec-b3c8-9f6bdeced846", 4)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("write to shard", shard)

	months, err := bucket.New(bucket.Month())
	if err != nil {
		log.Fatal(err)
	}
	from := time.Date(2024, 1, 20, 0, 0, 0, 0, time.UTC)
	to := time.Date(2024, 2, 10, 0, 0, 0, 0, time.UTC)
	parts, err := months.Partitions(from, to, 4, 100)
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range parts {
		fmt.Print(p.Bucket, "/", p.Shard, " ")
	}
	fmt.Println()
	// Output:
	// write to shard 2
	// 2024-01/0 2024-01/1 2024-01/2 2024-01/3 2024-02/0 2024-02/1 2024-02/2 2024-02/3
}

// The day bucket of a row whose id is a timeuuid, without a separate timestamp column.
func ExampleParseUUIDTime() {
	postID := "c232ab00-9414-11ec-b3c8-9f6bdeced846"
	posted, err := bucket.ParseUUIDTime(postID)
	if err != nil {
		log.Fatal(err)
	}
	days, err := bucket.New(bucket.Day())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(posted)
	fmt.Println(days.For(posted))

	_, err = bucket.ParseUUIDTime("0b0c8f4e-5a2b-4c3d-9e8f-0a1b2c3d4e5f")
	fmt.Println(errors.Is(err, bucket.ErrNotTimeUUID))
	// Output:
	// 2022-02-22 19:22:22 +0000 UTC
	// 2022-02-22
	// true
}

// Bounds for the timeuuid clustering column of a read of [from, to) inside one bucket:
// id >= MinTimeUUID(from) AND id < MinTimeUUID(to). Never use them as ids.
func ExampleMinTimeUUID() {
	from := time.Date(2024, 1, 15, 10, 4, 5, 123_000_000, time.UTC)
	fmt.Printf("%x\n", bucket.MinTimeUUID(from))
	fmt.Printf("%x\n", bucket.MaxTimeUUID(from))
	// Output:
	// 6a5bdd30b38d11ee8080808080808080
	// 6a5bdd30b38d11ee7f7f7f7f7f7f7f7f
}

// Widths come from flags and config files as text.
func ExampleParseWidth() {
	for _, text := range []string{"month", "iso-week", "6h", "fortnight", "0s"} {
		w, err := bucket.ParseWidth(text)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(w)
	}
	// Output:
	// month
	// iso-week
	// 6h
	// bucket: invalid width "fortnight": want minute, hour, day, iso-week, month, year or a duration such as 6h, 15m, 2d or 3w
	// bucket: invalid width 0s: must be positive
}

// A hashtag on month buckets is promoted to hour buckets over 2 shards: the change takes
// effect at the next boundary of both, and a read walks the hour partitions back to it,
// then the month partitions before.
func ExampleTierHistory_Newest() {
	months, _ := bucket.New(bucket.Month())
	hours, _ := bucket.New(bucket.Hour())
	def := bucket.Tier{Name: "default", Scheme: months, Shards: 1}
	hot := bucket.Tier{Name: "hot", Scheme: hours, Shards: 2}

	promoted := time.Date(2024, 3, 10, 12, 34, 0, 0, time.UTC)
	since, err := bucket.PromotionBoundary(def, hot, promoted)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("hot from", since)

	h, err := bucket.NewTierHistory(def, []bucket.TierChange{{Since: since, Tier: hot}})
	if err != nil {
		log.Fatal(err)
	}
	now := time.Date(2024, 4, 1, 1, 30, 0, 0, time.UTC)
	walk, err := h.Newest(time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC), now, 12)
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range walk {
		fmt.Println(p.Bucket, p.Shard, p.Tier.Name) // SELECT ... WHERE tag = ? AND bucket = ? AND shard = ?
	}
	// Output:
	// hot from 2024-04-01 00:00:00 +0000 UTC
	// 2024-04-01T01 0 hot
	// 2024-04-01T01 1 hot
	// 2024-04-01T00 0 hot
	// 2024-04-01T00 1 hot
	// 2024-03 0 default
	// 2024-02 0 default
}
