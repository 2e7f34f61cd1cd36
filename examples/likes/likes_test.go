package likes_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql/denorm"
	"github.com/cqlsize/cqlsize/examples/internal/extest"
	"github.com/cqlsize/cqlsize/examples/likes"
)

func TestLikes(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	extest.Migrate(t, s, "migrations")
	schema, err := likes.Schema(ks)
	if err != nil {
		t.Fatal(err)
	}
	st, err := likes.NewStore(s, ks, []byte("secret"))
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
	var liked []likes.Like
	for i := 0; i < 30; i++ {
		l := likes.Like{UserID: gocql.TimeUUID(), ItemID: item, LikedAt: start.Add(time.Duration(i) * 72 * time.Hour), UserName: fmt.Sprintf("user%d", i), ItemTitle: "mac pro"}
		if i == 29 {
			l.UserID, l.UserName = alice, "jerrylou"
		}
		if err := st.Like(ctx, &l); err != nil {
			t.Fatal(err)
		}
		liked = append(liked, l)
	}
	last := liked[29]
	rows := extest.RunQueries(t, s, schema, "queries.cql", map[string]any{
		"user_id": alice, "item_id": item, "month": likes.Months().For(last.LikedAt).String(),
	})
	if rows["items_liked_by_user"] != 1 || rows["does_user_like"] != 1 {
		t.Errorf("rows per query: %v", rows)
	}

	// The store's own reads find alice's like as the node holds it.
	if at, err := st.LikedAt(ctx, alice, item); err != nil || !at.Equal(last.LikedAt) {
		t.Errorf("LikedAt: %s (%v), want %s", at, err, last.LikedAt)
	}
	items, err := st.ItemsLikedBy(ctx, alice, 50)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 || items[0].ItemID != item || items[0].Title != "mac pro" || !items[0].LikedAt.Equal(last.LikedAt) {
		t.Errorf("ItemsLikedBy: %+v, want the one like of mac pro", items)
	}

	// Who liked the item, newest first, across the months, 7 at a time.
	got := extest.Timeline[gocql.UUID](t, ctx, st.Likers, denorm.PageRequest{Key: []any{item}, Newest: last.LikedAt, Limit: 7}, "user_id")
	var want []gocql.UUID
	for i := len(liked) - 1; i >= 0; i-- {
		want = append(want, liked[i].UserID)
	}
	if !slices.Equal(got, want) {
		t.Errorf("users_by_item timeline gave %d users, want the 30 likers newest first", len(got))
	}

	// Unlike: from the stored like, every copy goes (the caller does not know liked_at).
	if err := st.Unlike(ctx, alice, item); err != nil {
		t.Fatal(err)
	}
	for q, args := range map[string][]any{
		"SELECT * FROM likes_by_user_item WHERE user_id = ? AND item_id = ?":           {alice, item},
		"SELECT * FROM items_by_user WHERE user_id = ?":                                {alice},
		"SELECT * FROM users_by_item WHERE item_id = ? AND month = ? AND liked_at = ?": {item, likes.Months().For(last.LikedAt).String(), last.LikedAt},
	} {
		iter := s.Query(q, args...).Iter()
		if n := iter.NumRows(); n != 0 {
			t.Errorf("after the unlike %s finds %d rows", q, n)
		}
		if err := iter.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Unlike(ctx, alice, item); !errors.Is(err, likes.ErrNotFound) {
		t.Errorf("a second unlike: %v, want ErrNotFound", err)
	}
	if _, err := st.LikedAt(ctx, alice, item); !errors.Is(err, likes.ErrNotFound) {
		t.Errorf("does_user_like after the unlike: %v, want ErrNotFound", err)
	}
}
