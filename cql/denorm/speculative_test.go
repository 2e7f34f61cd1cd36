package denorm

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
)

// attemptCounter counts the attempts a session sends, speculative ones included (gocql
// observes every attempt that reached a host).
type attemptCounter struct{ n atomic.Int64 }

func (c *attemptCounter) ObserveQuery(context.Context, gocql.ObservedQuery) { c.n.Add(1) }

// observedSession opens a session on keyspace ks, configured by ConfigureCluster, whose
// attempts c counts.
func observedSession(t *testing.T, ks string, c *attemptCounter) *gocql.Session {
	t.Helper()
	cfg := cassandratest.Config(t)
	cfg.Keyspace = ks
	cc, err := cfg.ClusterConfig()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ConfigureCluster(cc, ClusterOptions{}); err != nil {
		t.Fatal(err)
	}
	cc.QueryObserver = c
	s, err := cc.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// TestTimelineSpeculativeReads pages through a timeline on the dev node with speculative
// reads off, with a 1 µs delay (every read speculates) and with 20 ms: each must return the
// posts in order. On one node the speculative attempt has no other host: gocql answers it
// with ErrNoConnections and, without readIter's second send, fails the read. The 1 µs run
// must also have sent more attempts than partition reads, or the option did nothing.
func TestTimelineSpeculativeReads(t *testing.T) {
	s0, user, newest, want := timelineFixture(t)
	var c attemptCounter
	s := observedSession(t, s0.Query("").Keyspace(), &c)
	for _, tc := range []struct {
		delay time.Duration
		extra bool // every read speculates: more attempts than reads
	}{{0, false}, {time.Microsecond, true}, {20 * time.Millisecond, false}} {
		tl := &Timeline{Session: s, Query: "SELECT post_id, content FROM posts_by_user WHERE user_id = ? AND month = ?",
			Scheme: months, Retention: fixtureRetention, SpeculativeReadAfter: tc.delay}
		before := c.n.Load()
		got, pages, visits := scroll(t, tl, PageRequest{Key: []any{user}, Newest: newest, Limit: 5})
		if !slices.Equal(got, want) {
			t.Fatalf("delay %s: %d rows in %d pages, want the %d posts newest first", tc.delay, len(got), pages, len(want))
		}
		// A cancelled first attempt is observed when it returns, maybe after the page.
		var attempts int64
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if attempts = c.n.Load() - before; !tc.extra || attempts > int64(visits) || time.Now().After(deadline) {
				break
			}
		}
		switch {
		case tc.delay == 0 && attempts != int64(visits):
			t.Errorf("no speculation: %d attempts for %d reads", attempts, visits)
		case tc.extra && (attempts <= int64(visits) || attempts > 2*int64(visits)):
			t.Errorf("delay %s: %d attempts for %d reads: want more than one a read (speculation), at most two", tc.delay, attempts, visits)
		}
		t.Logf("delay %s: %d pages, %d reads, %d attempts", tc.delay, pages, visits, attempts)
	}
}

// TestLoadSpeculativeReadsOnOneNode: Load with a delay every read outlasts still finds the
// post on the one-node dev cluster (it failed every time before readIter), and still says
// ErrNotFound for a post that is not there.
func TestLoadSpeculativeReadsOnOneNode(t *testing.T) {
	_, schema, ks := postsKeyspace(t)
	var c attemptCounter
	s := observedSession(t, ks, &c)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	m := newPostModel(t, s, schema, Options{Mode: Concurrent, SpeculativeReadAfter: time.Microsecond})
	p := newPost("go")
	if _, err := m.Insert(ctx, p); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		back, err := m.Load(ctx, p.ID)
		if err != nil || *back.Content != *p.Content {
			t.Fatalf("load %d: %v %v", i, back, err)
		}
	}
	if _, err := m.Load(ctx, gocql.TimeUUID()); !errors.Is(err, ErrNotFound) {
		t.Errorf("load of a missing post: %v, want ErrNotFound", err)
	}
}

// TestDriverCancelled: a cancellation is the driver's only while the read's own context is
// live; the caller's own cancellation, and other errors, are not sent again.
func TestDriverCancelled(t *testing.T) {
	live := context.Background()
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		err  error
		want bool
	}{
		{"no error", live, nil, false},
		{"driver's cancellation", live, context.Canceled, true},
		{"wrapped", live, fmt.Errorf("read: %w", context.Canceled), true},
		{"caller's cancellation", gone, context.Canceled, false},
		{"deadline", live, context.DeadlineExceeded, false},
		{"other error", live, gocql.ErrNoConnections, false},
	} {
		if got := driverCancelled(tc.ctx, tc.err); got != tc.want {
			t.Errorf("%s: driverCancelled = %v, want %v", tc.name, got, tc.want)
		}
	}
}
