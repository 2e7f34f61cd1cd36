package posts

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/bucket"
	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/denorm"
	"github.com/cqlsize/cqlsize/migrations"
	"github.com/cqlsize/cqlsize/workload"
)

// Migrations holds the schema as numbered .cql files, so a service carries it in its binary.
//
//go:embed migrations/*.cql
var Migrations embed.FS

// Limits on a post. They bound the logged batch a post is written in: content is copied to
// 2 + hashtags rows, so 1,000 bytes and 10 hashtags stay far below the 50 KiB that Cassandra
// refuses (see denorm.BatchSize).
const (
	MaxContentBytes = 1000
	MaxHashtags     = 10
	MaxHashtagBytes = 64
)

// Post is the entity: one post, stored in posts_by_id, posts_by_user and once per hashtag
// in posts_by_hashtag.
type Post struct {
	ID        gocql.UUID `json:"id"` // a timeuuid: its time picks the month bucket
	UserID    gocql.UUID `json:"user_id"`
	Content   string     `json:"content"`
	Hashtags  []string   `json:"hashtags,omitempty"`
	CreatedAt time.Time  `json:"created_at"`
}

// InputError is a post or a request that cannot be served as asked; the HTTP layer answers 400.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

// ErrNotFound is a post that does not exist (or no longer does).
var ErrNotFound = denorm.ErrNotFound

// ErrNotServed is a timeline whose table is still being filled: the service writes it (a
// transition at dual-write) but its configuration does not read it yet. The HTTP layer
// answers 503.
var ErrNotServed = errors.New("not served yet: its table is still being filled")

// HashtagTable is the table of hashtag timelines, the one a service that started without
// them adds in a transition (see NewStore).
const HashtagTable = "posts_by_hashtag"

// Store writes and reads posts.
type Store struct {
	Model     *denorm.Model[Post]
	ByUser    *denorm.Timeline
	ByHashtag *denorm.Timeline
	months    bucket.Scheme
}

// LoadMigrations parses the embedded migrations once per process: the same parse gives
// migrations.New what to apply and Schema the model denorm plans its writes from, so the
// service never runs one reading of its files and plans against another.
var LoadMigrations = sync.OnceValues(func() (*migrations.Set, error) {
	return migrations.LoadSet(Migrations, "migrations")
})

// Schema is the model of the migrations deployed to keyspace, for denorm and for checks.
func Schema(keyspace string) (*cql.Schema, error) {
	set, err := LoadMigrations()
	if err != nil {
		return nil, err
	}
	return set.Schema(keyspace)
}

// Months is the bucket scheme of posts_by_user and posts_by_hashtag: calendar months, UTC.
func Months() bucket.Scheme {
	s, _ := bucket.New(bucket.Month()) // a month is always a valid width
	return s
}

// MonthOf is the bucket label of a post id: the month of the time in its timeuuid.
func MonthOf(id gocql.UUID) (string, error) {
	t, err := bucket.UUIDTime(id)
	if err != nil {
		return "", &InputError{Msg: fmt.Sprintf("post id %s: %v", id, err)}
	}
	return Months().For(t).String(), nil
}

// Mappings say how a post becomes rows of each table.
func Mappings() []denorm.Mapping[Post] {
	return []denorm.Mapping[Post]{
		denorm.Map("posts_by_id", func(p *Post, out *denorm.Rows) error {
			out.Add().Set("post_id", p.ID).Set("user_id", p.UserID).Set("content", p.Content).
				Set("hashtags", p.Hashtags).Set("created_at", p.CreatedAt)
			return nil
		}).Source(scanPost),
		denorm.Map("posts_by_user", func(p *Post, out *denorm.Rows) error {
			month, err := MonthOf(p.ID)
			if err != nil {
				return err
			}
			out.Add().Set("user_id", p.UserID).Set("month", month).Set("post_id", p.ID).
				Set("content", p.Content).Set("hashtags", p.Hashtags)
			return nil
		}),
		denorm.Map("posts_by_hashtag", func(p *Post, out *denorm.Rows) error {
			month, err := MonthOf(p.ID)
			if err != nil {
				return err
			}
			for _, tag := range p.Hashtags {
				out.Add().Set("hashtag", tag).Set("month", month).Set("post_id", p.ID).
					Set("user_id", p.UserID).Set("content", p.Content)
			}
			return nil
		}),
	}
}

func scanPost(v denorm.Values) (*Post, error) {
	p := &Post{}
	var ok bool
	if p.ID, ok = v["post_id"].(gocql.UUID); !ok {
		return nil, errors.New("row without post_id")
	}
	p.UserID, _ = v["user_id"].(gocql.UUID)
	p.Content, _ = v["content"].(string)
	p.Hashtags, _ = v["hashtags"].([]string)
	p.CreatedAt, _ = v["created_at"].(time.Time)
	slices.Sort(p.Hashtags)
	return p, nil
}

// NewStore builds a store over the posts tables in keyspace. secret signs the timelines'
// page tokens. opts.Transitions say which tables are being moved to or added: with
// denorm.Transition{New: HashtagTable, Stage: stage} the store serves a service that had
// no hashtag timelines, writing posts_by_hashtag from dual-write on and serving hashtag
// timelines from read-new on; without one every table is written and read.
func NewStore(session *gocql.Session, keyspace string, opts denorm.Options, secret []byte) (*Store, error) {
	schema, err := Schema(keyspace)
	if err != nil {
		return nil, err
	}
	m, err := denorm.New(session, schema, opts, Mappings()...)
	if err != nil {
		return nil, err
	}
	months := Months()
	// Timelines show two years of posts; the key rates are workload.yaml's (2 posts a day
	// per user, 20 per hashtag), so a page reads at most two months.
	timeline := func(q string, rate workload.Rate) *denorm.Timeline {
		return &denorm.Timeline{Session: session, Query: q, Scheme: months, Retention: 2 * 365 * 24 * time.Hour,
			KeyRate: rate, Parallel: 3, Secret: secret}
	}
	ks := cql.QuoteName(keyspace)
	return &Store{
		Model:     m,
		ByUser:    timeline("SELECT post_id, user_id, content, hashtags FROM "+ks+".posts_by_user WHERE user_id = ? AND month = ?", workload.Rate{Count: 2, Per: workload.Day}),
		ByHashtag: timeline("SELECT post_id, user_id, content FROM "+ks+".posts_by_hashtag WHERE hashtag = ? AND month = ?", workload.Rate{Count: 20, Per: workload.Day}),
		months:    months,
	}, nil
}

// NormalizeHashtags lower-cases hashtags, drops a leading '#' and repeats, and checks the
// limits. Lower case makes #Go and #go one partition.
func NormalizeHashtags(tags []string) ([]string, error) {
	var out []string
	for _, t := range tags {
		t = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(t), "#"))
		if t == "" {
			return nil, &InputError{Msg: "empty hashtag"}
		}
		if len(t) > MaxHashtagBytes || !utf8.ValidString(t) || strings.ContainsAny(t, " \t\n#") {
			return nil, &InputError{Msg: fmt.Sprintf("hashtag %q: want at most %d bytes of UTF-8 without spaces", t, MaxHashtagBytes)}
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	if len(out) > MaxHashtags {
		return nil, &InputError{Msg: fmt.Sprintf("%d hashtags: at most %d (each is a copy of the post in posts_by_hashtag)", len(out), MaxHashtags)}
	}
	slices.Sort(out)
	return out, nil
}

// NewPost checks and normalizes a new post and gives it an id (a timeuuid of now).
func NewPost(user gocql.UUID, content string, hashtags []string) (*Post, error) {
	if user == (gocql.UUID{}) {
		return nil, &InputError{Msg: "user_id is missing"}
	}
	if content == "" || len(content) > MaxContentBytes || !utf8.ValidString(content) {
		return nil, &InputError{Msg: fmt.Sprintf("content: want 1 to %d bytes of UTF-8, got %d bytes", MaxContentBytes, len(content))}
	}
	tags, err := NormalizeHashtags(hashtags)
	if err != nil {
		return nil, err
	}
	id := gocql.TimeUUID()
	return &Post{ID: id, UserID: user, Content: content, Hashtags: tags, CreatedAt: id.Time().UTC().Truncate(time.Millisecond)}, nil
}

// Create writes a new post to its three tables at once.
func (st *Store) Create(ctx context.Context, p *Post) error {
	_, err := st.Model.Insert(ctx, p)
	return err
}

// Get reads a post by id.
func (st *Store) Get(ctx context.Context, id gocql.UUID) (*Post, error) {
	return st.Model.Load(ctx, id)
}

// Delete removes a post and every copy of it, found from the stored post.
func (st *Store) Delete(ctx context.Context, id gocql.UUID) error {
	_, err := st.Model.DeleteByKey(ctx, []any{id})
	return err
}

// Page is one page of a timeline.
type Page struct {
	Posts []Post `json:"posts"`
	Next  string `json:"next,omitempty"` // pass as ?page= for the next page; none: no more posts
	// StoppedEarly says the page is short because it read its share of months, not because
	// there are no more posts: Next goes on.
	StoppedEarly bool `json:"stopped_early,omitempty"`
}

// UserTimeline reads a user's newest posts, limit per page.
func (st *Store) UserTimeline(ctx context.Context, user gocql.UUID, limit int, token string) (*Page, error) {
	return st.page(ctx, st.ByUser, user, limit, token)
}

// HashtagTimeline reads a hashtag's newest posts, limit per page.
func (st *Store) HashtagTimeline(ctx context.Context, tag string, limit int, token string) (*Page, error) {
	tags, err := NormalizeHashtags([]string{tag})
	if err != nil {
		return nil, err
	}
	if !st.Model.Reads(HashtagTable) {
		return nil, fmt.Errorf("hashtag timeline: %w", ErrNotServed)
	}
	return st.page(ctx, st.ByHashtag, tags[0], limit, token)
}

func (st *Store) page(ctx context.Context, tl *denorm.Timeline, key any, limit int, token string) (*Page, error) {
	if limit < 1 || limit > 100 {
		return nil, &InputError{Msg: fmt.Sprintf("limit %d: want 1 to 100", limit)}
	}
	p, err := tl.Page(ctx, denorm.PageRequest{Key: []any{key}, Limit: limit, Token: token})
	if errors.Is(err, denorm.ErrBadToken) {
		return nil, &InputError{Msg: "page token is not valid: start again without one"}
	}
	if err != nil {
		return nil, err
	}
	out := &Page{Posts: make([]Post, 0, len(p.Rows)), Next: p.Next, StoppedEarly: p.StoppedEarly}
	for _, r := range p.Rows {
		post, err := scanPost(r)
		if err != nil {
			return nil, err
		}
		if t, err := bucket.UUIDTime(post.ID); err == nil {
			post.CreatedAt = t.Truncate(time.Millisecond)
		}
		out.Posts = append(out.Posts, *post)
	}
	return out, nil
}
