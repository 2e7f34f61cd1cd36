package posts_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql/denorm"
	"github.com/cqlsize/cqlsize/examples/internal/extest"
	"github.com/cqlsize/cqlsize/examples/posts"
)

// writer writes one post one way.
type writer struct {
	name  string
	write func(context.Context, *posts.Post) error
}

// writers are the four ways compared: (a) the library's Insert (one logged batch),
// (b) the same statements in a logged batch written by hand with gocql, (c) the same
// statements sent one after another, (d) the library in Concurrent mode.
func writers(b *testing.B) []writer {
	s, ks := cassandratest.Keyspace(b)
	extest.Migrate(b, s, "migrations")
	lib, err := posts.NewStore(s, ks, denorm.Options{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	conc, err := posts.NewStore(s, ks, denorm.Options{Mode: denorm.Concurrent}, nil)
	if err != nil {
		b.Fatal(err)
	}
	// The statements the library sends, written out by hand.
	byID := "INSERT INTO " + ks + ".posts_by_id (post_id, user_id, content, hashtags, created_at) VALUES (?, ?, ?, ?, ?) USING TIMESTAMP ?"
	byUser := "INSERT INTO " + ks + ".posts_by_user (user_id, month, post_id, content, hashtags) VALUES (?, ?, ?, ?, ?) USING TIMESTAMP ?"
	byTag := "INSERT INTO " + ks + ".posts_by_hashtag (hashtag, month, post_id, user_id, content) VALUES (?, ?, ?, ?, ?) USING TIMESTAMP ?"
	entries := func(p *posts.Post) []gocql.BatchEntry {
		month, _ := posts.MonthOf(p.ID)
		ts := time.Now().UnixMicro()
		e := make([]gocql.BatchEntry, 0, 2+len(p.Hashtags))
		e = append(e,
			gocql.BatchEntry{Stmt: byID, Args: []any{p.ID, p.UserID, p.Content, p.Hashtags, p.CreatedAt, ts}, Idempotent: true},
			gocql.BatchEntry{Stmt: byUser, Args: []any{p.UserID, month, p.ID, p.Content, p.Hashtags, ts}, Idempotent: true})
		for _, tag := range p.Hashtags {
			e = append(e, gocql.BatchEntry{Stmt: byTag, Args: []any{tag, month, p.ID, p.UserID, p.Content, ts}, Idempotent: true})
		}
		return e
	}
	return []writer{
		{"library", lib.Create},
		{"handwritten", func(ctx context.Context, p *posts.Post) error {
			batch := s.NewBatch(gocql.LoggedBatch).WithContext(ctx)
			batch.SetConsistency(gocql.LocalQuorum)
			batch.Entries = entries(p)
			return s.ExecuteBatch(batch)
		}},
		{"sequential", func(ctx context.Context, p *posts.Post) error {
			for _, e := range entries(p) {
				if err := s.Query(e.Stmt, e.Args...).WithContext(ctx).Consistency(gocql.LocalQuorum).Exec(); err != nil {
					return err
				}
			}
			return nil
		}},
		{"concurrent", conc.Create},
	}
}

// benchPosts builds n posts: 3 hashtags and 200 bytes of content each, so 5 rows in 3 tables.
func benchPosts(n int) []*posts.Post {
	out := make([]*posts.Post, n)
	user := gocql.TimeUUID()
	for i := range out {
		p, err := posts.NewPost(user, strings.Repeat("x", 190)+fmt.Sprintf("%010d", i), []string{"go", "cassandra", fmt.Sprintf("tag%d", i%50)})
		if err != nil {
			panic(err)
		}
		out[i] = p
	}
	return out
}

func report(b *testing.B, prefix string, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	var total time.Duration
	for _, d := range s {
		total += d
	}
	b.ReportMetric(float64(len(s))/total.Seconds(), prefix+"posts/s")
	b.ReportMetric(float64(s[len(s)/2].Microseconds())/1000, prefix+"p50-ms")
	b.ReportMetric(float64(s[min(len(s)-1, len(s)*99/100)].Microseconds())/1000, prefix+"p99-ms")
}

// BenchmarkPosts writes posts each way on its own, one at a time, reporting posts per
// second (one writer: 1 / mean latency) and the p50 and p99 latency of a post's write.
func BenchmarkPosts(b *testing.B) {
	ctx := context.Background()
	for _, w := range writers(b) {
		b.Run(w.name, func(b *testing.B) {
			ps := benchPosts(b.N)
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				if err := w.write(ctx, ps[i]); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			report(b, "", lat)
		})
	}
}

// BenchmarkPostsSideBySide writes with all four ways interleaved (a round of each per
// iteration, in a random order drawn from a fixed seed) so that the machine's noise, and
// whatever one way leaves behind on the node, falls on all of them alike. It reports
// each one's figures, and two ratios of the library over the hand-written batch:
// lib/hand (posts per second, so 1 means as fast, over 1 faster) and lib/hand-p50 (median
// latency, hand-written over library, read the same way).
func BenchmarkPostsSideBySide(b *testing.B) {
	ctx := context.Background()
	ws := writers(b)
	ps := benchPosts(b.N * len(ws))
	lat := make([][]time.Duration, len(ws))
	// Warm up: prepare every statement and fill the connection pools.
	for _, w := range ws {
		for _, p := range benchPosts(20) {
			if err := w.write(ctx, p); err != nil {
				b.Fatal(err)
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	order := make([]int, len(ws))
	for i := range order {
		order[i] = i
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		for k, j := range order {
			start := time.Now()
			if err := ws[j].write(ctx, ps[i*len(ws)+k]); err != nil {
				b.Fatal(err)
			}
			lat[j] = append(lat[j], time.Since(start))
		}
	}
	b.StopTimer()
	for j, w := range ws {
		report(b, w.name+"-", lat[j])
	}
	mean := func(ds []time.Duration) float64 {
		var t time.Duration
		for _, d := range ds {
			t += d
		}
		return t.Seconds() / float64(len(ds))
	}
	median := func(ds []time.Duration) float64 {
		s := slices.Clone(ds)
		slices.Sort(s)
		return s[len(s)/2].Seconds()
	}
	b.ReportMetric(mean(lat[1])/mean(lat[0]), "lib/hand")
	b.ReportMetric(median(lat[1])/median(lat[0]), "lib/hand-p50")
}
