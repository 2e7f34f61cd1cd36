package backfillcheck

import (
	"context"
	"fmt"
	"time"

	"github.com/gocql/gocql"
)

// Tables names the three tables of one experiment. Several experiments may share a keyspace
// with different names (the split test copies one source into three month targets).
type Tables struct {
	Source string // posts: ((user_id), created_at, post_id), content, likes, hashtags
	Month  string // ((user_id, month), created_at, post_id), content, likes, hashtags; month text
	TagDay string // ((hashtag, day), created_at, user_id, post_id), content; day date
}

// DefaultTables are the names the tests and the benchmark use.
var DefaultTables = Tables{Source: "posts", Month: "posts_by_month", TagDay: "posts_by_tag_day"}

// SourceDDL is the source table: unbounded partitions per user, the design being replaced.
// hashtags is a non-frozen set so that its elements carry write times and TTLs of their own.
func SourceDDL(table string) string {
	return fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s (
  user_id    uuid,
  created_at timestamp,
  post_id    timeuuid,
  content    text,
  likes      int,
  hashtags   set<text>,
  PRIMARY KEY ((user_id), created_at, post_id))`, table)
}

// MonthDDL is the re-keyed target: the same rows, partitioned by user and month (the label
// YYYY-MM of created_at in UTC).
func MonthDDL(table string) string {
	return fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s (
  user_id    uuid,
  month      text,
  created_at timestamp,
  post_id    timeuuid,
  content    text,
  likes      int,
  hashtags   set<text>,
  PRIMARY KEY ((user_id, month), created_at, post_id))`, table)
}

// TagDayDDL is the fan-out target: one row per element of a post's hashtags, partitioned by
// hashtag and day (the UTC date of created_at). It copies one regular column, content.
func TagDayDDL(table string) string {
	return fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s (
  hashtag    text,
  day        date,
  created_at timestamp,
  user_id    uuid,
  post_id    timeuuid,
  content    text,
  PRIMARY KEY ((hashtag, day), created_at, user_id, post_id))`, table)
}

// Create creates the tables of t that are named (an empty name is skipped) and waits for
// schema agreement, so that another process (the backfill) finds them at once.
func (t Tables) Create(ctx context.Context, s *gocql.Session) error {
	for _, stmt := range []struct{ name, ddl string }{
		{t.Source, SourceDDL(t.Source)}, {t.Month, MonthDDL(t.Month)}, {t.TagDay, TagDayDDL(t.TagDay)},
	} {
		if stmt.name == "" {
			continue
		}
		if err := s.Query(stmt.ddl).WithContext(ctx).Exec(); err != nil {
			return fmt.Errorf("create table %s: %w", stmt.name, err)
		}
	}
	actx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := s.AwaitSchemaAgreement(actx); err != nil {
		return fmt.Errorf("schema agreement after creating the tables: %w", err)
	}
	return nil
}

// Month is the month bucket label of t: YYYY-MM in UTC.
func Month(t time.Time) string {
	u := t.UTC()
	return fmt.Sprintf("%04d-%02d", u.Year(), int(u.Month()))
}

// Day is the day bucket of t: midnight UTC of its date, as a Cassandra date reads back.
func Day(t time.Time) time.Time {
	u := t.UTC()
	return time.Date(u.Year(), u.Month(), u.Day(), 0, 0, 0, 0, time.UTC)
}
