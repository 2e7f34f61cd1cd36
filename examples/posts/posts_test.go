package posts_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql/denorm"
	"github.com/cqlsize/cqlsize/examples/internal/extest"
	"github.com/cqlsize/cqlsize/examples/posts"
)

func setup(t *testing.T) (*gocql.Session, string, *posts.Store) {
	t.Helper()
	s, ks := cassandratest.Keyspace(t)
	extest.Migrate(t, s, "migrations")
	st, err := posts.NewStore(s, ks, denorm.Options{}, []byte("test secret"))
	if err != nil {
		t.Fatal(err)
	}
	return s, ks, st
}

func create(t *testing.T, st *posts.Store, user gocql.UUID, content string, tags ...string) *posts.Post {
	t.Helper()
	p, err := posts.NewPost(user, content, tags)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Create(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	return p
}

func count(t *testing.T, s *gocql.Session, q string, args ...any) int {
	t.Helper()
	iter := s.Query(q, args...).Iter()
	n := iter.NumRows()
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	return n
}

// copies counts the stored copies of p in each table.
func copies(t *testing.T, s *gocql.Session, p *posts.Post) (byID, byUser, byTag int) {
	t.Helper()
	month, err := posts.MonthOf(p.ID)
	if err != nil {
		t.Fatal(err)
	}
	byID = count(t, s, "SELECT * FROM posts_by_id WHERE post_id = ?", p.ID)
	byUser = count(t, s, "SELECT * FROM posts_by_user WHERE user_id = ? AND month = ? AND post_id = ?", p.UserID, month, p.ID)
	for _, tag := range p.Hashtags {
		byTag += count(t, s, "SELECT * FROM posts_by_hashtag WHERE hashtag = ? AND month = ? AND post_id = ?", tag, month, p.ID)
	}
	return
}

func TestTablesQueriesAndDelete(t *testing.T) {
	s, ks, st := setup(t)
	user := gocql.TimeUUID()
	older := create(t, st, user, "first", "go")
	p := create(t, st, user, "hello #Go and #Cassandra", "#Go", "cassandra", "nosql", "go")
	if !slices.Equal(p.Hashtags, []string{"cassandra", "go", "nosql"}) {
		t.Fatalf("hashtags normalized to %v", p.Hashtags)
	}
	if id, u, tags := copies(t, s, p); id != 1 || u != 1 || tags != 3 {
		t.Fatalf("rows in posts_by_id, posts_by_user, posts_by_hashtag: %d, %d, %d; want 1, 1, 3 (the fan-out)", id, u, tags)
	}

	// Every access pattern of queries.cql finds what was written, with no ALLOW FILTERING.
	month, _ := posts.MonthOf(p.ID)
	schema, err := posts.Schema(ks)
	if err != nil {
		t.Fatal(err)
	}
	rows := extest.RunQueries(t, s, schema, "queries.cql", map[string]any{
		"post_id": p.ID, "user_id": user, "month": month, "hashtag": "go",
	})
	if rows["user_timeline"] != 2 || rows["hashtag_timeline"] != 2 || rows["user_timeline_before"] != 1 {
		t.Errorf("rows per query: %v", rows)
	}

	// Delete starts from the stored post and removes every copy.
	if err := st.Delete(context.Background(), p.ID); err != nil {
		t.Fatal(err)
	}
	if id, u, tags := copies(t, s, p); id+u+tags != 0 {
		t.Errorf("after delete: %d, %d, %d rows left", id, u, tags)
	}
	if _, err := st.Get(context.Background(), p.ID); !errors.Is(err, posts.ErrNotFound) {
		t.Errorf("get after delete: %v", err)
	}
	if id, u, tags := copies(t, s, older); id != 1 || u != 1 || tags != 1 {
		t.Errorf("deleting one post touched another: %d, %d, %d", id, u, tags)
	}
	if err := st.Delete(context.Background(), p.ID); !errors.Is(err, posts.ErrNotFound) {
		t.Errorf("deleting twice: %v", err)
	}
}

// TestIndependentClientReadsBack has the DataStax Python driver read what cql/denorm wrote,
// so a value the Go side marshals wrongly but reads back the same wrong way is caught.
func TestIndependentClientReadsBack(t *testing.T) {
	python := cassandratest.Python(t)
	s, ks, st := setup(t)
	_ = s
	user := gocql.TimeUUID()
	var written []*posts.Post
	for i, tags := range [][]string{{"go"}, {"go", "cassandra"}, nil, {"ünïcode", "x"}} {
		written = append(written, create(t, st, user, fmt.Sprintf("post %d: ✓ \"quotes\" and 'apostrophes'", i), tags...))
	}
	type reqPost struct {
		ID       string   `json:"id"`
		UserID   string   `json:"user_id"`
		Month    string   `json:"month"`
		Hashtags []string `json:"hashtags"`
	}
	var req struct {
		Posts []reqPost `json:"posts"`
	}
	for _, p := range written {
		month, _ := posts.MonthOf(p.ID)
		req.Posts = append(req.Posts, reqPost{p.ID.String(), p.UserID.String(), month, p.Hashtags})
	}
	in, _ := json.Marshal(req)
	cmd := exec.Command(python, "testdata/readback.py", strings.Join(cassandratest.Hosts(t), ","), ks)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python readback: %v\n%s", err, stderr.String())
	}
	var got struct {
		ByID []struct {
			PostID    string   `json:"post_id"`
			UserID    string   `json:"user_id"`
			Content   string   `json:"content"`
			Hashtags  []string `json:"hashtags"`
			CreatedAt int64    `json:"created_at"`
		} `json:"posts_by_id"`
		ByUser []struct {
			UserID   string   `json:"user_id"`
			Month    string   `json:"month"`
			PostID   string   `json:"post_id"`
			Content  string   `json:"content"`
			Hashtags []string `json:"hashtags"`
		} `json:"posts_by_user"`
		ByHashtag []struct {
			Hashtag string `json:"hashtag"`
			Month   string `json:"month"`
			PostID  string `json:"post_id"`
			UserID  string `json:"user_id"`
			Content string `json:"content"`
		} `json:"posts_by_hashtag"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("python output %q: %v", out, err)
	}
	if len(got.ByID) != len(written) || len(got.ByUser) != len(written) || len(got.ByHashtag) != 5 {
		t.Fatalf("python read %d, %d, %d rows; want %d, %d, 5", len(got.ByID), len(got.ByUser), len(got.ByHashtag), len(written), len(written))
	}
	byID := map[string]*posts.Post{}
	for _, p := range written {
		byID[p.ID.String()] = p
	}
	for _, r := range got.ByID {
		p := byID[r.PostID]
		if p == nil || r.UserID != p.UserID.String() || r.Content != p.Content || !slices.Equal(r.Hashtags, sorted(p.Hashtags)) || r.CreatedAt != p.CreatedAt.UnixMilli() {
			t.Errorf("posts_by_id as python reads it: %+v, wrote %+v", r, p)
		}
	}
	for _, r := range got.ByUser {
		p := byID[r.PostID]
		if p == nil {
			t.Errorf("posts_by_user: python found post %s, which was not written", r.PostID)
			continue
		}
		month, _ := posts.MonthOf(p.ID)
		if r.UserID != p.UserID.String() || r.Month != month || r.Content != p.Content || !slices.Equal(r.Hashtags, sorted(p.Hashtags)) {
			t.Errorf("posts_by_user as python reads it: %+v, wrote %+v", r, p)
		}
	}
	for _, r := range got.ByHashtag {
		p := byID[r.PostID]
		if p == nil || r.UserID != p.UserID.String() || r.Content != p.Content || !slices.Contains(p.Hashtags, r.Hashtag) {
			t.Errorf("posts_by_hashtag as python reads it: %+v, wrote %+v", r, p)
		}
	}
}

func sorted(s []string) []string {
	out := append([]string{}, s...)
	sort.Strings(out)
	return out
}

func TestHTTPService(t *testing.T) {
	_, _, st := setup(t)
	srv := httptest.NewServer(posts.Handler(st, nil))
	defer srv.Close()
	do := func(method, path, body string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var v map[string]any
		_ = json.NewDecoder(res.Body).Decode(&v)
		return res.StatusCode, v
	}
	user := gocql.TimeUUID().String()
	var ids []string
	for i := 0; i < 5; i++ {
		code, v := do("POST", "/posts", fmt.Sprintf(`{"user_id":%q,"content":"post %d","hashtags":["go"]}`, user, i))
		if code != http.StatusCreated {
			t.Fatalf("create: %d %v", code, v)
		}
		ids = append(ids, v["id"].(string))
	}
	if code, v := do("GET", "/posts/"+ids[0], ""); code != 200 || v["content"] != "post 0" {
		t.Errorf("get: %d %v", code, v)
	}
	// Page through the user's timeline two posts at a time: newest first, each once.
	var seen []string
	next := ""
	for i := 0; i < 10; i++ {
		code, v := do("GET", "/users/"+user+"/posts?limit=2&page="+next, "")
		if code != 200 {
			t.Fatalf("timeline: %d %v", code, v)
		}
		for _, p := range v["posts"].([]any) {
			seen = append(seen, p.(map[string]any)["id"].(string))
		}
		n, _ := v["next"].(string)
		if n == "" {
			break
		}
		next = n
	}
	want := slices.Clone(ids)
	slices.Reverse(want)
	if !slices.Equal(seen, want) {
		t.Errorf("timeline pages gave %v, want %v", seen, want)
	}
	if code, v := do("GET", "/hashtags/GO/posts?limit=3", ""); code != 200 || len(v["posts"].([]any)) != 3 {
		t.Errorf("hashtag timeline: %d %v", code, v)
	}
	if code, _ := do("DELETE", "/posts/"+ids[0], ""); code != http.StatusNoContent {
		t.Errorf("delete: %d", code)
	}
	if code, _ := do("GET", "/posts/"+ids[0], ""); code != http.StatusNotFound {
		t.Errorf("get after delete: %d", code)
	}

	// Bad input: 400 with a message, nothing written.
	for _, tc := range []struct{ method, path, body, want string }{
		{"POST", "/posts", `{"user_id":"nope","content":"x"}`, "not a UUID"},
		{"POST", "/posts", `{"user_id":"` + user + `","content":""}`, "content"},
		{"POST", "/posts", `{"user_id":"` + user + `","content":"x","hashtags":["a","b","c","d","e","f","g","h","i","j","k"]}`, "at most 10"},
		{"POST", "/posts", `{"user_id":"` + user + `","content":"x","hashtags":[""]}`, "empty hashtag"},
		{"POST", "/posts", `{"user_id":"` + user + `","content":"x","extra":1}`, "unknown field"},
		{"GET", "/users/" + user + "/posts?limit=0", "", "limit"},
		{"GET", "/users/" + user + "/posts?page=bm90IGEgdG9rZW4", "", "page token is not valid"},
		{"GET", "/posts/12", "", "not a UUID"},
	} {
		code, v := do(tc.method, tc.path, tc.body)
		if msg, _ := v["error"].(string); code != http.StatusBadRequest || !strings.Contains(msg, tc.want) {
			t.Errorf("%s %s %s: %d %v, want 400 saying %q", tc.method, tc.path, tc.body, code, v, tc.want)
		}
	}
	if code, v := do("GET", "/users/"+user+"/posts?limit=100", ""); code != 200 || len(v["posts"].([]any)) != 4 {
		t.Errorf("bad requests wrote something: %d %v", code, v)
	}
}
