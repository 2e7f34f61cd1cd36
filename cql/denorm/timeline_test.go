package denorm

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/bucket"
	"github.com/cqlsize/cqlsize/internal/casstest"
)

// timelineFixture writes one user's posts over several months (some empty) and returns
// the user, the newest instant and every post id, newest first.
func timelineFixture(t *testing.T) (*gocql.Session, gocql.UUID, time.Time, []gocql.UUID) {
	t.Helper()
	s, schema, _ := postsKeyspace(t)
	m := newPostModel(t, s, schema, Options{Mode: Concurrent})
	user := gocql.TimeUUID()
	newest := time.Date(2024, 8, 20, 12, 0, 0, 0, time.UTC)
	// Posts per month, newest month first: 2024-08 has 7, 2024-07 none, 2024-06 has 3, ...
	perMonth := []int{7, 0, 3, 12, 1, 0, 0, 5}
	var ids []gocql.UUID
	ctx := context.Background()
	month := months.For(newest)
	for _, n := range perMonth {
		for i := 0; i < n; i++ {
			at := month.Start().Add(time.Duration(n-i) * time.Hour) // newest first within the month
			p := &post{ID: gocql.UUIDFromTime(at), UserID: user, Content: str(fmt.Sprintf("%s #%d", month, i)), Created: at}
			if _, err := m.Insert(ctx, p); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, p.ID)
		}
		month = month.Prev()
	}
	return s, user, newest, ids
}

func ids(rows []Values) []gocql.UUID {
	out := make([]gocql.UUID, len(rows))
	for i, r := range rows {
		out[i] = r["post_id"].(gocql.UUID)
	}
	return out
}

func TestTimelinePagesOnCassandra(t *testing.T) {
	s, user, newest, want := timelineFixture(t)
	ctx := context.Background()
	for _, parallel := range []int{1, 3} {
		tl := &Timeline{Session: s, Query: "SELECT post_id, content FROM posts_by_user WHERE user_id = ? AND month = ?",
			Scheme: months, MaxBuckets: 10, Parallel: parallel, Secret: []byte("k")}
		// One big read: a page larger than the whole timeline.
		all, err := tl.Page(ctx, PageRequest{Key: []any{user}, Newest: newest, Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(all.Rows); !slices.Equal(got, want) {
			t.Fatalf("parallel %d: one read gave %d rows, want the %d posts newest first", parallel, len(got), len(want))
		}
		if all.Next != "" {
			t.Errorf("parallel %d: a read of every bucket left a token", parallel)
		}
		for _, size := range []int{1, 2, 3, 5, 7, 8, 13, 27, 28} {
			var got []gocql.UUID
			token, pages := "", 0
			for {
				p, err := tl.Page(ctx, PageRequest{Key: []any{user}, Newest: newest, Limit: size, Token: token})
				if err != nil {
					t.Fatalf("parallel %d size %d page %d: %v", parallel, size, pages, err)
				}
				if len(p.Rows) > size {
					t.Fatalf("page of %d rows for limit %d", len(p.Rows), size)
				}
				got = append(got, ids(p.Rows)...)
				pages++
				if p.Next == "" {
					break
				}
				if pages > 100 {
					t.Fatal("no end")
				}
				token = p.Next
			}
			if !slices.Equal(got, want) {
				t.Errorf("parallel %d size %d: %d pages gave %d rows (duplicates or gaps), want %d in order", parallel, size, pages, len(got), len(want))
			}
		}
	}
}

func TestTimelineStopsAfterMaxBuckets(t *testing.T) {
	s, user, newest, want := timelineFixture(t)
	tl := &Timeline{Session: s, Query: "SELECT post_id FROM posts_by_user WHERE user_id = ? AND month = ?", Scheme: months, MaxBuckets: 3}
	var got []gocql.UUID
	token := ""
	for i := 0; ; i++ {
		p, err := tl.Page(context.Background(), PageRequest{Key: []any{user}, Newest: newest, Limit: 4, Token: token})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ids(p.Rows)...)
		if token = p.Next; token == "" {
			break
		}
	}
	if !slices.Equal(got, want[:10]) { // 2024-08 (7), 2024-07 (0), 2024-06 (3)
		t.Errorf("3 buckets gave %d rows, want the 10 of the 3 newest months", len(got))
	}
}

func TestTimelineRefusesBadTokens(t *testing.T) {
	s, user, newest, _ := timelineFixture(t)
	ctx := context.Background()
	tl := &Timeline{Session: s, Query: "SELECT post_id FROM posts_by_user WHERE user_id = ? AND month = ?", Scheme: months, Secret: []byte("secret")}
	p, err := tl.Page(ctx, PageRequest{Key: []any{user}, Newest: newest, Limit: 3})
	if err != nil || p.Next == "" {
		t.Fatalf("first page: %v", err)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(p.Next)
	flipped := append([]byte(nil), raw...)
	flipped[len(flipped)/2] ^= 1
	other := *tl
	other.Secret = []byte("another secret")
	for name, req := range map[string]PageRequest{
		"flipped bit":    {Key: []any{user}, Limit: 3, Token: base64.RawURLEncoding.EncodeToString(flipped)},
		"truncated":      {Key: []any{user}, Limit: 3, Token: p.Next[:len(p.Next)-4]},
		"not base64":     {Key: []any{user}, Limit: 3, Token: "!!!"},
		"other user":     {Key: []any{gocql.TimeUUID()}, Limit: 3, Token: p.Next},
		"empty payload":  {Key: []any{user}, Limit: 3, Token: "AA"},
		"another secret": {Key: []any{user}, Limit: 3, Token: p.Next},
	} {
		reader := tl
		if name == "another secret" {
			reader = &other
		}
		if _, err := reader.Page(ctx, req); !errors.Is(err, ErrBadToken) {
			t.Errorf("%s: got %v, want ErrBadToken", name, err)
		}
	}
	// The genuine token still works.
	if _, err := tl.Page(ctx, PageRequest{Key: []any{user}, Limit: 3, Token: p.Next}); err != nil {
		t.Errorf("genuine token: %v", err)
	}
}

func TestTimelineBadSettings(t *testing.T) {
	s := casstest.Session(t)
	good := Timeline{Session: s, Query: "SELECT * FROM t WHERE k = ? AND b = ?", Scheme: months}
	zeroWidth := good
	zeroWidth.Scheme = bucket.Scheme{}
	noQuery := good
	noQuery.Query = ""
	for name, tc := range map[string]struct {
		tl  Timeline
		req PageRequest
	}{
		"zero bucket width": {zeroWidth, PageRequest{Key: []any{1}, Limit: 1}},
		"no query":          {noQuery, PageRequest{Key: []any{1}, Limit: 1}},
		"zero limit":        {good, PageRequest{Key: []any{1}}},
		"huge limit":        {good, PageRequest{Key: []any{1}, Limit: MaxPageRows + 1}},
		"key too short":     {good, PageRequest{Limit: 1}},
		"key too long":      {good, PageRequest{Key: []any{1, 2}, Limit: 1}},
	} {
		if _, err := tc.tl.Page(context.Background(), tc.req); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := zeroWidth.Page(context.Background(), PageRequest{Key: []any{1}, Limit: 1}); !errors.Is(err, bucket.ErrInvalidWidth) {
		t.Errorf("zero width: %v, want bucket.ErrInvalidWidth", err)
	}
}
