package trending

import (
	"embed"
	"fmt"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/bucket"
	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/denorm"
	"github.com/cqlsize/cqlsize/workload"
)

// Migrations holds the schema as numbered .cql files.
//
//go:embed migrations/*.cql
var Migrations embed.FS

// Shards is how many write shards each day of a hashtag is spread over: what SZ102 says for
// workload.yaml (TestWorkload keeps the two equal).
const Shards = 5

// Post is one post under one hashtag.
type Post struct {
	ID      gocql.UUID // a timeuuid: its time picks the day, its bytes the shard
	UserID  gocql.UUID
	Hashtag string
	Content string
}

// Days is the bucket scheme of posts_by_hashtag: calendar days, UTC.
func Days() bucket.Scheme {
	s, _ := bucket.New(bucket.Day()) // a day is always a valid width
	return s
}

// Placement returns the day label and the shard of a post id: the day of the time in the
// timeuuid, and bucket.Shard over its 16 bytes. Every writer and reader must hash the
// same bytes.
func Placement(id gocql.UUID) (day string, shard int, err error) {
	t, err := bucket.UUIDTime(id)
	if err != nil {
		return "", 0, fmt.Errorf("post id %s: %w", id, err)
	}
	shard, err = bucket.Shard(id[:], Shards)
	return Days().For(t).String(), shard, err
}

// Schema is the model of the migrations deployed to keyspace.
func Schema(keyspace string) (*cql.Schema, error) {
	return cql.LoadSchemaFSIn(Migrations, "migrations", keyspace)
}

// NewModel writes posts to posts_by_hashtag in keyspace, each to its day and shard.
func NewModel(session *gocql.Session, keyspace string) (*denorm.Model[Post], error) {
	schema, err := Schema(keyspace)
	if err != nil {
		return nil, err
	}
	return denorm.New(session, schema, denorm.Options{Keyspace: keyspace},
		denorm.Map("posts_by_hashtag", func(p *Post, out *denorm.Rows) error {
			day, shard, err := Placement(p.ID)
			if err != nil {
				return err
			}
			out.Add().Set("hashtag", p.Hashtag).Set("day", day).Set("shard", shard).Set("post_id", p.ID).
				Set("user_id", p.UserID).Set("content", p.Content)
			return nil
		}))
}

// TypicalRate is the median hashtag's rate in workload.yaml: 100k hashtags at 20 posts a
// day on average, Zipf 1.0, give the hashtag of rank 50,000 a share 1 / (50,000 × H) of the
// 2M posts a day, H = 12.09 (the harmonic number of 100k): 3.3 posts a day. A page of 10
// then needs 4 days, and the timeline reads at most 8 a page (denorm.Timeline.Budget).
var TypicalRate = workload.Rate{Count: 3.3, Per: workload.Day}

// NewTimeline reads a hashtag's posts newest first across its days and shards, 30 days
// back at most; a page reads at most twice the days the median hashtag needs, and says
// when it stopped early. secret signs its page tokens.
func NewTimeline(session *gocql.Session, keyspace string, secret []byte) *denorm.Timeline {
	return &denorm.Timeline{
		Session:   session,
		Query:     "SELECT post_id, user_id, content FROM " + cql.QuoteName(keyspace) + ".posts_by_hashtag WHERE hashtag = ? AND day = ? AND shard = ?",
		Scheme:    Days(),
		Shards:    Shards,
		Retention: 30 * 24 * time.Hour,
		KeyRate:   TypicalRate,
		Secret:    secret,
	}
}
