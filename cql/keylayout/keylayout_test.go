package keylayout

import (
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
)

const schemaText = `
CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
CREATE TABLE app.posts (post_id timeuuid PRIMARY KEY, user_id uuid, title text, created_at timestamp,
    tags set<text>, addresses list<text>, news set<text>, prefs map<text, int>, tag text);
CREATE TABLE app.readings (sensor_id uuid, day date, ts timestamp, value double, PRIMARY KEY ((sensor_id, day), ts))
    WITH CLUSTERING ORDER BY (ts DESC);
CREATE TABLE app.posts_by_user (user_id uuid, post_id timeuuid, title text, PRIMARY KEY (user_id, post_id));
`

func schema(t *testing.T) *cql.Schema {
	t.Helper()
	s := cql.NewSchema()
	if err := s.ApplyFile("schema.cql", []byte(schemaText)); err != nil {
		t.Fatal(err)
	}
	return s
}

func keyText(l *Layout) string {
	var pk, ck []string
	for _, c := range l.PartitionKey {
		pk = append(pk, c.Name+" "+c.Type.String())
	}
	for _, c := range l.Clustering {
		ck = append(ck, c.Name+" "+c.Order.String())
	}
	return "(" + strings.Join(pk, ", ") + ") " + strings.Join(ck, ", ")
}

// TestOf holds the layouts to keys written by hand from the rules the package comment
// states: equality columns then the element in the partition key; IN, range and ORDER BY
// columns then the source's key as clustering columns.
func TestOf(t *testing.T) {
	s := schema(t)
	posts, readings, byUser := s.Table("app", "posts"), s.Table("app", "readings"), s.Table("app", "posts_by_user")
	for _, c := range []struct {
		name   string
		p      Pattern
		key    string
		table  string
		bucket string
	}{
		{"contains on a set names the element in the singular", Pattern{Source: posts, Contains: &Contains{Column: "tags"}},
			// the source has a column tag, so the element is tag_value
			"(tag_value text) post_id asc", "posts_by_tag_value", ""},
		{"a set of addresses gives address", Pattern{Source: posts, Eq: []string{"user_id"}, Contains: &Contains{Column: "addresses"}},
			"(user_id uuid, address text) post_id asc", "posts_by_user_id_address", ""},
		{"a word with no plural gets _value", Pattern{Source: posts, Contains: &Contains{Column: "news"}},
			"(news_value text) post_id asc", "posts_by_news_value", ""},
		{"map keys and values", Pattern{Source: posts, Contains: &Contains{Column: "prefs", Keys: true}},
			"(prefs_key text) post_id asc", "posts_by_prefs_key", ""},
		{"equality and a time range ordered newest first", Pattern{Source: posts, Eq: []string{"user_id"}, Range: "created_at", Order: []Order{{Column: "created_at", Desc: true}}},
			"(user_id uuid) created_at desc, post_id asc", "posts_by_user_id", ""},
		{"equality on two columns, in the order written", Pattern{Source: posts, Eq: []string{"title", "user_id"}},
			"(title text, user_id uuid) post_id asc", "posts_by_title_user_id", ""},
		{"IN is a clustering column", Pattern{Source: posts, Eq: []string{"user_id"}, In: []string{"title"}},
			"(user_id uuid) title asc, post_id asc", "posts_by_user_id", ""},
		{"a source named for its key gives its base", Pattern{Source: byUser, Eq: []string{"title"}},
			// a time series nothing bounds: the time (post_id names a post, an event) leads
			"(title text) post_id asc, user_id asc", "posts_by_title", ""},
		{"the source's day bucket moves into the partition key", Pattern{Source: readings, Eq: []string{"sensor_id"}, Range: "ts"},
			"(sensor_id uuid, day date) ts desc", "readings_by_sensor_id_day", "day"},
		{"sized: the caller picks the bucket", Pattern{Source: readings, Eq: []string{"sensor_id"}, Range: "ts", Sized: true},
			"(sensor_id uuid) ts desc, day asc", "readings_by_sensor_id", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			l, err := Of(c.p)
			if err != nil {
				t.Fatal(err)
			}
			if got := keyText(l); got != c.key {
				t.Errorf("key %s, want %s", got, c.key)
			}
			if got := l.Name(); got != c.table {
				t.Errorf("name %s, want %s", got, c.table)
			}
			got := ""
			if l.Bucket != nil {
				got = l.Bucket.Name
			}
			if got != c.bucket {
				t.Errorf("bucket %q, want %q", got, c.bucket)
			}
		})
	}
}

// TestOfRefuses: the patterns no key serves are errors.
func TestOfRefuses(t *testing.T) {
	s := schema(t)
	posts := s.Table("app", "posts")
	for name, p := range map[string]Pattern{
		"nothing by equality": {Source: posts, Range: "created_at"},
		"IN with ORDER BY":    {Source: posts, Eq: []string{"user_id"}, In: []string{"title"}, Order: []Order{{Column: "created_at"}}},
		"order off the range": {Source: posts, Eq: []string{"user_id"}, Range: "created_at", Order: []Order{{Column: "title"}}},
		"whole collection":    {Source: posts, Eq: []string{"tags"}},
		"no such column":      {Source: posts, Eq: []string{"nope"}},
		"contains on text":    {Source: posts, Contains: &Contains{Column: "title"}},
	} {
		if _, err := Of(p); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestTable: the regular columns are the ones read, collections frozen, the source's TTL
// kept; the rendered statement is valid CQL.
func TestTable(t *testing.T) {
	s := schema(t)
	l, err := Of(Pattern{Source: s.Table("app", "posts"), Contains: &Contains{Column: "addresses"}, Want: []string{"title", "tags"}})
	if err != nil {
		t.Fatal(err)
	}
	got := l.Table(l.Name(), map[string]bool{"title": true, "tags": true}, false).CreateStatement(true)
	want := `CREATE TABLE IF NOT EXISTS app.posts_by_address (
    address text,
    post_id timeuuid,
    title text,
    tags frozen<set<text>>,
    PRIMARY KEY ((address), post_id)
)`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
