package denorm

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql/derive"
)

func TestMapValuesPlansDerivedRows(t *testing.T) {
	schema := schemaOf("app", `CREATE TABLE posts (post_id timeuuid PRIMARY KEY, user_id uuid, content text, hashtags frozen<set<text>>, created_at timestamp)`,
		postsCQL)
	p, err := Derive(schema, "app.posts", "app.posts_by_hashtag", "hashtag=each(hashtags)", "month=month(created_at)")
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(nil, schema, Options{}, MapValues(p))
	if err != nil {
		t.Fatal(err)
	}
	id := gocql.TimeUUID()
	row := Values{"post_id": id, "user_id": gocql.TimeUUID(), "content": "hi", "hashtags": []string{"a", "b"},
		"created_at": time.Date(2024, 2, 29, 23, 0, 0, 0, time.UTC)}
	plan, err := m.PlanInsert(&row, At(1000))
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Statements) != 2 {
		t.Fatalf("%d statements, want one per hashtag", len(plan.Statements))
	}
	for i, tag := range []string{"a", "b"} {
		st := plan.Statements[i]
		// Columns in table order: hashtag, month, post_id, user_id, content.
		if fmt.Sprint(st.Args[0]) != tag || fmt.Sprint(st.Args[1]) != "2024-02" {
			t.Errorf("statement %d: %v %v, want %s 2024-02", i, st.Args[0], st.Args[1], tag)
		}
	}
	// A null content is left unset, not written as a null.
	delete(row, "content")
	plan, err = m.PlanInsert(&row, At(1000))
	if err != nil {
		t.Fatal(err)
	}
	if plan.Statements[0].Args[4] != gocql.UnsetValue {
		t.Errorf("content %v, want unset", plan.Statements[0].Args[4])
	}
}

func TestDeriveErrors(t *testing.T) {
	schema := schemaOf("app", `CREATE TABLE posts (post_id timeuuid PRIMARY KEY, user_id uuid, content text, hashtags frozen<set<text>>, created_at timestamp)`,
		postsCQL)
	for _, tc := range []struct {
		src, dst string
		rules    []string
		want     string
	}{
		{"posts", "nope", nil, "nope"},
		{"posts", "posts_by_hashtag", []string{"month=month(content)"}, `rule "month=month(content)": col 7: month() needs a timestamp, date or timeuuid column; content is text`},
		{"posts", "posts_by_hashtag", []string{"hashtag=each(hashtags)", "month=mnth(created_at)"}, `rule "month=mnth(created_at)": col 7: unknown function mnth`},
		{"posts", "posts_by_hashtag", []string{"month=month(created_at)"}, "derive posts_by_hashtag from posts: target key column hashtag is not a column of app.posts and no rule derives it"},
	} {
		_, err := Derive(schema, tc.src, tc.dst, tc.rules...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want %s", tc.rules, err, tc.want)
		}
		var de *derive.Error
		if len(tc.rules) > 0 && !errors.As(err, &de) {
			t.Errorf("%v: %v is not a *derive.Error", tc.rules, err)
		}
	}
}
