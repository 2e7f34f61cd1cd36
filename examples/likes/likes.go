package likes

import (
	"context"
	"embed"
	"fmt"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/bucket"
	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/denorm"
	"github.com/cqlsize/cqlsize/workload"
)

// Migrations holds the schema as numbered .cql files, so a service carries it in its binary.
//
//go:embed migrations/*.cql
var Migrations embed.FS

// Schema is the model of the migrations deployed to keyspace: denorm plans its writes from it.
func Schema(keyspace string) (*cql.Schema, error) {
	return cql.LoadSchemaFSIn(Migrations, "migrations", keyspace)
}

// ErrNotFound is a like that does not exist (or no longer does).
var ErrNotFound = denorm.ErrNotFound

// Like is one user liking one item.
type Like struct {
	UserID, ItemID      gocql.UUID
	LikedAt             time.Time
	UserName, ItemTitle string // copied into the like rows so each list is one read; not needed to delete them
}

// Months is the bucket scheme of users_by_item: calendar months, UTC. A popular item's
// likers grow without bound, so each month of them is a partition of its own.
func Months() bucket.Scheme {
	s, _ := bucket.New(bucket.Month()) // a month is always a valid width
	return s
}

// Mappings say how a like becomes a row of each table. likes_by_user_item is also the
// like's source: an unlike reads liked_at back from it, the clustering column without
// which the rows of the other two tables cannot be found.
func Mappings() []denorm.Mapping[Like] {
	months := Months()
	return []denorm.Mapping[Like]{
		denorm.Map("likes_by_user_item", func(l *Like, out *denorm.Rows) error {
			out.Add().Set("user_id", l.UserID).Set("item_id", l.ItemID).Set("liked_at", l.LikedAt)
			return nil
		}).Source(func(v denorm.Values) (*Like, error) {
			l := &Like{}
			l.UserID, _ = v["user_id"].(gocql.UUID)
			l.ItemID, _ = v["item_id"].(gocql.UUID)
			l.LikedAt, _ = v["liked_at"].(time.Time)
			return l, nil
		}),
		denorm.Map("items_by_user", func(l *Like, out *denorm.Rows) error {
			out.Add().Set("user_id", l.UserID).Set("liked_at", l.LikedAt).Set("item_id", l.ItemID).Set("item_title", l.ItemTitle)
			return nil
		}),
		denorm.Map("users_by_item", func(l *Like, out *denorm.Rows) error {
			out.Add().Set("item_id", l.ItemID).Set("month", months.For(l.LikedAt).String()).Set("liked_at", l.LikedAt).
				Set("user_id", l.UserID).Set("user_name", l.UserName)
			return nil
		}),
	}
}

// Store writes likes to their three tables and reads them back.
type Store struct {
	// Model writes a like to likes_by_user_item, items_by_user and users_by_item in one
	// logged batch, and deletes every copy.
	Model *denorm.Model[Like]
	// Likers reads who liked an item, newest first, month after month (Key: the item id).
	Likers *denorm.Timeline

	session  *gocql.Session
	keyspace string
}

// NewStore builds a store over the like tables in keyspace. secret signs the likers
// timeline's page tokens.
func NewStore(session *gocql.Session, keyspace string, secret []byte) (*Store, error) {
	schema, err := Schema(keyspace)
	if err != nil {
		return nil, fmt.Errorf("likes schema: %w", err)
	}
	m, err := denorm.New(session, schema, denorm.Options{Keyspace: keyspace}, Mappings()...)
	if err != nil {
		return nil, fmt.Errorf("likes model: %w", err)
	}
	ks := cql.QuoteName(keyspace)
	return &Store{
		Model: m,
		Likers: &denorm.Timeline{
			Session:   session,
			Query:     "SELECT user_id, user_name, liked_at FROM " + ks + ".users_by_item WHERE item_id = ? AND month = ?",
			Scheme:    Months(),
			Retention: 365 * 24 * time.Hour,                        // a year of likers at most: older likes are not listed
			KeyRate:   workload.Rate{Count: 10, Per: workload.Day}, // workload.yaml's users_by_item
			Secret:    secret,
		},
		session:  session,
		keyspace: ks,
	}, nil
}

// Like writes a like to its three tables at once.
func (s *Store) Like(ctx context.Context, l *Like) error {
	if _, err := s.Model.Insert(ctx, l); err != nil {
		return fmt.Errorf("like %s by %s: %w", l.ItemID, l.UserID, err)
	}
	return nil
}

// Unlike deletes a like from its three tables, starting from the stored like: the caller
// knows the user and the item, not when the like was made. A like that does not exist is
// ErrNotFound.
func (s *Store) Unlike(ctx context.Context, user, item gocql.UUID) error {
	if _, err := s.Model.DeleteByKey(ctx, []any{user, item}); err != nil {
		return fmt.Errorf("unlike %s by %s: %w", item, user, err)
	}
	return nil
}

// LikedAt answers does_user_like: when user liked item, or ErrNotFound.
func (s *Store) LikedAt(ctx context.Context, user, item gocql.UUID) (time.Time, error) {
	var at time.Time
	err := s.session.Query("SELECT liked_at FROM "+s.keyspace+".likes_by_user_item WHERE user_id = ? AND item_id = ?", user, item).
		WithContext(ctx).Scan(&at)
	if err == gocql.ErrNotFound {
		return time.Time{}, fmt.Errorf("like of %s by %s: %w", item, user, ErrNotFound)
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("like of %s by %s: %w", item, user, err)
	}
	return at, nil
}

// LikedItem is one row of a user's liked items.
type LikedItem struct {
	ItemID  gocql.UUID
	Title   string
	LikedAt time.Time
}

// ItemsLikedBy answers items_liked_by_user: a user's liked items with their titles, newest
// first, at most limit of them.
func (s *Store) ItemsLikedBy(ctx context.Context, user gocql.UUID, limit int) ([]LikedItem, error) {
	iter := s.session.Query("SELECT item_id, item_title, liked_at FROM "+s.keyspace+".items_by_user WHERE user_id = ? LIMIT ?", user, limit).
		WithContext(ctx).Iter()
	var out []LikedItem
	var it LikedItem
	for iter.Scan(&it.ItemID, &it.Title, &it.LikedAt) {
		out = append(out, it)
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("items liked by %s: %w", user, err)
	}
	return out, nil
}
