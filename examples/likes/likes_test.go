package likes

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/bucket"
	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql/denorm"
	"github.com/cqlsize/cqlsize/examples/internal/extest"
)

type like struct {
	UserID, ItemID      gocql.UUID
	LikedAt             time.Time
	UserName, ItemTitle string // copied into the like rows; not needed to delete them
}

func months() bucket.Scheme {
	s, _ := bucket.New(bucket.Month())
	return s
}

func mappings() []denorm.Mapping[like] {
	m := months()
	return []denorm.Mapping[like]{
		denorm.Map("likes_by_user_item", func(l *like, out *denorm.Rows) error {
			out.Add().Set("user_id", l.UserID).Set("item_id", l.ItemID).Set("liked_at", l.LikedAt)
			return nil
		}).Source(func(v denorm.Values) (*like, error) {
			l := &like{}
			l.UserID, _ = v["user_id"].(gocql.UUID)
			l.ItemID, _ = v["item_id"].(gocql.UUID)
			l.LikedAt, _ = v["liked_at"].(time.Time)
			return l, nil
		}),
		denorm.Map("items_by_user", func(l *like, out *denorm.Rows) error {
			out.Add().Set("user_id", l.UserID).Set("liked_at", l.LikedAt).Set("item_id", l.ItemID).Set("item_title", l.ItemTitle)
			return nil
		}),
		denorm.Map("users_by_item", func(l *like, out *denorm.Rows) error {
			out.Add().Set("item_id", l.ItemID).Set("month", m.For(l.LikedAt).String()).Set("liked_at", l.LikedAt).
				Set("user_id", l.UserID).Set("user_name", l.UserName)
			return nil
		}),
	}
}

func TestLikes(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	extest.Migrate(t, s, "migrations")
	schema := extest.Schema(t, "migrations", ks)
	model, err := denorm.New(s, schema, denorm.Options{Keyspace: ks}, mappings()...)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	item := gocql.TimeUUID()
	alice := gocql.TimeUUID()
	if err := s.Query("INSERT INTO users (user_id, name, email) VALUES (?, 'jerrylou', 'jerrylou@example.com')", alice).Exec(); err != nil {
		t.Fatal(err)
	}
	if err := s.Query("INSERT INTO items (item_id, title, description) VALUES (?, 'mac pro', 'mac book')", item).Exec(); err != nil {
		t.Fatal(err)
	}
	// 30 users like the item over three months; alice likes it last.
	start := time.Date(2024, 1, 10, 0, 0, 0, 0, time.UTC)
	var likes []like
	for i := 0; i < 30; i++ {
		l := like{UserID: gocql.TimeUUID(), ItemID: item, LikedAt: start.Add(time.Duration(i) * 72 * time.Hour), UserName: fmt.Sprintf("user%d", i), ItemTitle: "mac pro"}
		if i == 29 {
			l.UserID, l.UserName = alice, "jerrylou"
		}
		if _, err := model.Insert(ctx, &l); err != nil {
			t.Fatal(err)
		}
		likes = append(likes, l)
	}
	last := likes[29]
	rows := extest.RunQueries(t, s, schema, "queries.cql", map[string]any{
		"user_id": alice, "item_id": item, "month": months().For(last.LikedAt).String(),
	})
	if rows["items_liked_by_user"] != 1 || rows["does_user_like"] != 1 {
		t.Errorf("rows per query: %v", rows)
	}

	// Who liked the item, newest first, across the months, 7 at a time.
	tl := &denorm.Timeline{Session: s, Query: "SELECT user_id, liked_at FROM users_by_item WHERE item_id = ? AND month = ?",
		Scheme: months(), MaxBuckets: 6}
	got := extest.Timeline[gocql.UUID](t, ctx, tl, denorm.PageRequest{Key: []any{item}, Newest: last.LikedAt, Limit: 7}, "user_id")
	var want []gocql.UUID
	for i := len(likes) - 1; i >= 0; i-- {
		want = append(want, likes[i].UserID)
	}
	if !slices.Equal(got, want) {
		t.Errorf("users_by_item timeline gave %d users, want the 30 likers newest first", len(got))
	}

	// Unlike: from the stored like, every copy goes (the caller does not know liked_at).
	if _, err := model.DeleteByKey(ctx, []any{alice, item}); err != nil {
		t.Fatal(err)
	}
	for q, args := range map[string][]any{
		"SELECT * FROM likes_by_user_item WHERE user_id = ? AND item_id = ?":           {alice, item},
		"SELECT * FROM items_by_user WHERE user_id = ?":                                {alice},
		"SELECT * FROM users_by_item WHERE item_id = ? AND month = ? AND liked_at = ?": {item, months().For(last.LikedAt).String(), last.LikedAt},
	} {
		iter := s.Query(q, args...).Iter()
		if n := iter.NumRows(); n != 0 {
			t.Errorf("after the unlike %s finds %d rows", q, n)
		}
		if err := iter.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := model.DeleteByKey(ctx, []any{alice, item}); !errors.Is(err, denorm.ErrNotFound) {
		t.Errorf("a second unlike: %v, want ErrNotFound", err)
	}
}
