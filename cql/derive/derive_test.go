package derive

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/cql"
)

const testSchema = `
CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
CREATE TABLE app.posts (id timeuuid PRIMARY KEY, user_id text, created_at timestamp, day date,
  title text, tags set<text>, langs list<text>, n int, meta map<text, text>, code ascii);
CREATE TABLE app.posts_by_month (user_id text, month text, id timeuuid, title text, PRIMARY KEY ((user_id, month), id));
CREATE TABLE app.by_start (user_id text, start timestamp, d date, y int, yb bigint, id timeuuid, PRIMARY KEY ((user_id, start), id));
CREATE TABLE app.by_tag (tag text, day text, shard int, id timeuuid, title text, PRIMARY KEY ((tag, day, shard), id));
CREATE TABLE app.by_tag_lang (tag text, lang text, id timeuuid, PRIMARY KEY ((tag, lang), id));
CREATE TABLE app.wide (user_id text, k text, small smallint, tiny tinyint, big bigint, id uuid, code text, extra text, PRIMARY KEY (user_id, k));
CREATE TABLE app.hourly (h date, id timeuuid PRIMARY KEY);
`

func testTables(t *testing.T) *cql.Schema {
	t.Helper()
	s := cql.NewSchema()
	if err := s.ApplyFile("schema.cql", []byte(testSchema)); err != nil {
		t.Fatal(err)
	}
	return s
}

func table(t *testing.T, s *cql.Schema, name string) *cql.Table {
	t.Helper()
	tb, ok := s.FindTable(name)
	if !ok {
		t.Fatalf("no table %s", name)
	}
	return tb
}

func TestParseRule(t *testing.T) {
	for _, tc := range []struct {
		in, want string // want: the rule rendered back, or the error
	}{
		{"month=month(created_at)", "month=month(created_at)"},
		{" Month = MONTH ( Created_At ) ", "month=month(created_at)"},
		{"shard=shard(id, 16)", "shard=shard(id, 16)"},
		{"shard=shard( id ,4 )", "shard=shard(id, 4)"},
		{"tag=each(tags)", "tag=each(tags)"},
		{"title=headline", "title=headline"},
		{`"Title"="Head Line"`, `"Title"="Head Line"`},
		{`a="x""y"`, `a="x""y"`},
		{"d=day(ts)", "d=day(ts)"},
		{"w=week(ts)", "w=week(ts)"},
		{"y=year(ts)", "y=year(ts)"},
		{"h=hour(ts)", "h=hour(ts)"},
		{"m=minute(ts)", "m=minute(ts)"},
		{"", `col 1: want a target column name, got the end of the text`},
		{"month", `col 6: want = after the target column month`},
		{"month=", `col 7: want a column name or a function such as month(created_at), got the end of the text`},
		{"month=montth(ts)", `col 7: unknown function montth (want year, month, week, day, hour, minute, shard or each)`},
		{"month=month(ts", `col 15: want ) to close month(`},
		{"month=month(ts) x", `col 17: unexpected "x" after the expression`},
		{"s=shard(id)", `col 11: want , and a shard count: shard(id, N)`},
		{"s=shard(id, 0)", `col 13: want a shard count of at least 1, got "0"`},
		{"s=shard(id, x)", `col 13: want a shard count of at least 1, got "x"`},
		{"s=shard(id, 99999999999999999999)", `col 13: want a shard count of at least 1, got "99999999999999999999"`},
		{`a="x`, `col 3: unterminated quoted name`},
		{`a=""`, `col 3: empty quoted name`},
		{"a=month()", `col 9: want a source column name, got ")"`},
		{"1a=b", `col 1: want a target column name, got "1a"`},
		{"a=b c", `col 5: unexpected "c" after the expression`},
	} {
		r, err := ParseRule(tc.in)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = r.String()
			if r.Text != tc.in {
				t.Errorf("ParseRule(%q).Text = %q", tc.in, r.Text)
			}
		}
		if got != tc.want {
			t.Errorf("ParseRule(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestParseRulePositions(t *testing.T) {
	r, err := ParseRule("m = month( ts )")
	if err != nil {
		t.Fatal(err)
	}
	if r.Expr.Col != 5 || r.Expr.ColCol != 12 {
		t.Errorf("Col %d ColCol %d, want 5 and 12", r.Expr.Col, r.Expr.ColCol)
	}
}

func mustRules(t *testing.T, texts ...string) []Rule {
	t.Helper()
	var out []Rule
	for _, s := range texts {
		r, err := ParseRule(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		out = append(out, r)
	}
	return out
}

func TestCompileErrors(t *testing.T) {
	s := testTables(t)
	for _, tc := range []struct {
		src, dst string
		rules    []string
		want     string // error text; empty: compiles
		rule     int
	}{
		{"posts", "posts_by_month", []string{"month=month(created_at)"}, "", 0},
		{"posts", "posts_by_month", []string{"month=month(id)"}, "", 0},
		{"posts", "posts_by_month", []string{"month=month(title)"}, "col 7: month() needs a timestamp, date or timeuuid column; title is text", 0},
		{"posts", "posts_by_month", nil, "target key column month is not a column of app.posts and no rule derives it", -1},
		{"posts", "posts_by_month", []string{"month=month(created_at)", "mnth=id"}, "col 1: target table app.posts_by_month has no column mnth", 1},
		{"posts", "posts_by_month", []string{"month=month(created_at)", "month=day(created_at)"}, "col 1: column month is derived twice (rules 1 and 2)", 1},
		{"posts", "posts_by_month", []string{"month=month(crated_at)"}, "col 13: source table app.posts has no column crated_at", 0},
		{"posts", "posts", nil, "source and target are the same table app.posts: a backfill copies one table into another", -1},
		{"posts", "by_start", []string{"start=month(created_at)", "d=day(created_at)", "y=year(created_at)", "yb=year(id)"}, "", 0},
		{"posts", "by_start", []string{"start=month(created_at)", "y=month(created_at)"}, "col 3: month() gives a label (text, ascii), a start (timestamp, date); target column y is int", 1},
		{"posts", "by_start", []string{"start=month(created_at)", "d=hour(created_at)"}, "col 3: hour() into d: a date cannot hold an hour (use text or timestamp)", 1},
		{"posts", "hourly", []string{"h=hour(day)"}, "col 3: hour() of day: a date has no hour", 0},
		{"posts", "by_tag", []string{"tag=each(tags)", "day=day(created_at)", "shard=shard(id, 8)"}, "", 0},
		{"posts", "by_tag", []string{"tag=each(tags)", "day=day(created_at)", "shard=shard(title, 8)"}, "", 0},
		{"posts", "by_tag", []string{"tag=each(meta)", "day=day(created_at)", "shard=shard(id, 8)"}, "col 5: each() needs a set or list column; meta is map<text, text>", 0},
		{"posts", "by_tag", []string{"tag=each(tags)", "day=day(created_at)", "shard=shard(created_at, 8)"}, "col 7: shard() hashes text, blob, uuid, timeuuid or integer columns; created_at is timestamp", 2},
		{"posts", "by_tag", []string{"tag=each(tags)", "day=day(created_at)", "shard=id"}, "col 7: source column id is timeuuid and target column shard is int", 2},
		{"posts", "by_tag", []string{"tag=tags", "day=day(created_at)", "shard=shard(id, 2)"}, "col 5: source column tags is set<text> and target column tag is text", 0},
		{"posts", "by_tag", []string{"tag=each(tags)", "day=day(created_at)", "shard=shard(id, 2)", "title=n"}, "col 7: source column n is int and target column title is text", 3},
		{"posts", "by_tag_lang", []string{"tag=each(tags)", "lang=each(langs)"}, "", 0},
		{"posts", "by_tag_lang", []string{"tag=each(tags)", "lang=each(n)"}, "col 6: each() needs a set or list column; n is int", 1},
		{"posts", "wide", []string{"k=title", "small=shard(id, 100)", "tiny=shard(id, 100)", "big=shard(user_id, 3)"}, "", 0},
		{"posts", "wide", []string{"k=title", "tiny=shard(id, 200)"}, "col 6: shard(id, 200) does not fit target column tiny of type tinyint", 1},
		{"posts", "wide", []string{"k=title", "id=id"}, "", 0}, // a timeuuid fits a uuid
		{"posts", "wide", []string{"k=title", "k2=title"}, "col 1: target table app.wide has no column k2", 1},
		{"posts", "wide", []string{"k=title", "code=code"}, "", 0}, // ascii into text
		{"posts", "wide", []string{"k=title", "user_id=code"}, "", 0},
		{"posts", "wide", []string{"k=title", "small=n"}, "col 7: source column n is int and target column small is smallint", 1},
	} {
		name := tc.src + "->" + tc.dst + " " + strings.Join(tc.rules, " ")
		_, err := Compile(table(t, s, tc.src), table(t, s, tc.dst), mustRules(t, tc.rules...))
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
			continue
		}
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s:\n got %v\nwant %s", name, err, tc.want)
			continue
		}
		if e := err.(*Error); e.Rule != tc.rule {
			t.Errorf("%s: rule %d, want %d", name, e.Rule, tc.rule)
		}
	}
}

func TestCompileByName(t *testing.T) {
	s := testTables(t)
	// wide.small has type smallint; posts has no such column: taken by name only when
	// present, else left unset.
	p, err := Compile(table(t, s, "posts"), table(t, s, "wide"), mustRules(t, "k=title"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.Unset(), []string{"small", "tiny", "big", "extra"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Unset = %v, want %v", got, want)
	}
	if got, want := p.Sources(), []string{"id", "user_id", "title", "code"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Sources = %v, want %v", got, want)
	}
	// A column taken by name with another type is an error that names it.
	s2 := cql.NewSchema()
	if err := s2.ApplyFile("s.cql", []byte(`CREATE KEYSPACE k WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
		CREATE TABLE k.a (id int PRIMARY KEY, v text); CREATE TABLE k.b (id int PRIMARY KEY, v int);`)); err != nil {
		t.Fatal(err)
	}
	_, err = Compile(table(t, s2, "k.a"), table(t, s2, "k.b"), nil)
	if want := "column v is taken from the source by name, but source column v is text and target column v is int"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

type uuid [16]byte // as gocql.UUID

func TestApply(t *testing.T) {
	s := testTables(t)
	// 2024-01-15 10:04:05 UTC as a version 1 uuid (from bucket's MinTimeUUID).
	id := uuid{0x00, 0x0b, 0x8a, 0x80, 0xb3, 0x8c, 0x11, 0xee, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80}
	created := time.Date(2024, 1, 15, 10, 4, 5, 0, time.UTC)
	title := "hello"
	row := map[string]any{"id": id, "user_id": "ann", "created_at": created, "title": &title,
		"tags": []string{"go", "db"}, "langs": []string{"en", "de", "fr"}, "n": 7}
	for _, tc := range []struct {
		dst   string
		rules []string
		want  []map[string]any
	}{
		{"posts_by_month", []string{"month=month(created_at)"}, []map[string]any{
			{"user_id": "ann", "month": "2024-01", "id": id, "title": "hello"}}},
		{"posts_by_month", []string{"month=week(id)"}, []map[string]any{
			{"user_id": "ann", "month": "2024-W03", "id": id, "title": "hello"}}},
		{"posts_by_month", []string{"month=hour(created_at)"}, []map[string]any{
			{"user_id": "ann", "month": "2024-01-15T10", "id": id, "title": "hello"}}},
		{"posts_by_month", []string{"month=minute(created_at)"}, []map[string]any{
			{"user_id": "ann", "month": "2024-01-15T10:04", "id": id, "title": "hello"}}},
		{"by_start", []string{"start=month(created_at)", "d=day(created_at)", "y=year(created_at)", "yb=year(created_at)"}, []map[string]any{
			{"user_id": "ann", "start": time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), "d": time.Date(2024, 1, 15, 0, 0, 0, 0, time.UTC),
				"y": 2024, "yb": int64(2024), "id": id}}},
		{"by_tag", []string{"tag=each(tags)", "day=day(created_at)", "shard=shard(user_id, 8)"}, []map[string]any{
			{"tag": "go", "day": "2024-01-15", "shard": int(shardOf(t, "ann", 8)), "id": id, "title": "hello"},
			{"tag": "db", "day": "2024-01-15", "shard": int(shardOf(t, "ann", 8)), "id": id, "title": "hello"}}},
		{"by_tag_lang", []string{"tag=each(tags)", "lang=each(langs)"}, []map[string]any{
			{"tag": "go", "lang": "en", "id": id}, {"tag": "go", "lang": "de", "id": id}, {"tag": "go", "lang": "fr", "id": id},
			{"tag": "db", "lang": "en", "id": id}, {"tag": "db", "lang": "de", "id": id}, {"tag": "db", "lang": "fr", "id": id}}},
		{"wide", []string{"k=title", "small=shard(n, 100)", "tiny=shard(id, 100)", "big=shard(user_id, 3)"}, []map[string]any{
			{"user_id": "ann", "k": "hello", "small": int16(shardOf(t, "7", 100)), "tiny": int8(shardOf(t, string(id[:]), 100)),
				"big": int64(shardOf(t, "ann", 3)), "id": id, "code": nil}}},
	} {
		p, err := Compile(table(t, s, "posts"), table(t, s, tc.dst), mustRules(t, tc.rules...))
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.Apply(row)
		if err != nil {
			t.Errorf("%s %v: %v", tc.dst, tc.rules, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %v:\n got %v\nwant %v", tc.dst, tc.rules, got, tc.want)
		}
	}
}

// shardOf is FNV-1a 64 modulo n written out again, so the test does not take its truth
// from bucket.Shard.
func shardOf(t *testing.T, key string, n uint64) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(key); i++ {
		h ^= uint64(key[i])
		h *= 1099511628211
	}
	return h % n
}

func TestApplyNullsAndEmpty(t *testing.T) {
	s := testTables(t)
	p, err := Compile(table(t, s, "posts"), table(t, s, "by_tag"), mustRules(t, "tag=each(tags)", "day=day(created_at)", "shard=shard(id, 4)"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tags := range []any{nil, []string{}, (*[]string)(nil)} {
		got, err := p.Apply(map[string]any{"id": uuid{}, "tags": tags})
		if err != nil || len(got) != 0 {
			t.Errorf("tags %#v: %v, %v: want no row", tags, got, err)
		}
	}
	got, err := p.Apply(map[string]any{"id": uuid{}, "tags": []string{"x"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []map[string]any{{"tag": "x", "day": nil, "shard": int(shardOf(t, string(make([]byte, 16)), 4)), "id": uuid{}, "title": nil}}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestApplyBadValues(t *testing.T) {
	s := testTables(t)
	for _, tc := range []struct {
		rules []string
		row   map[string]any
		want  string
	}{
		{[]string{"month=month(created_at)"}, map[string]any{"created_at": "2024-01-01"}, "column created_at: value of type string: month() wants a time.Time or a 16-byte timeuuid"},
		{[]string{"month=month(id)"}, map[string]any{"id": uuid{6: 0x40}}, "column id: bucket: not a time-based (version 1) uuid: 00000000-0000-4000-0000-000000000000 is version 4"},
	} {
		p, err := Compile(table(t, s, "posts"), table(t, s, "posts_by_month"), mustRules(t, tc.rules...))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Apply(tc.row); err == nil || err.Error() != tc.want {
			t.Errorf("%v: got %v, want %s", tc.rules, err, tc.want)
		}
	}
	p, err := Compile(table(t, s, "posts"), table(t, s, "by_tag_lang"), mustRules(t, "tag=each(tags)", "lang=each(langs)"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Apply(map[string]any{"tags": "go", "langs": []string{"en"}}); err == nil || err.Error() != "column tags: value of type string: each() wants a slice" {
		t.Errorf("got %v", err)
	}
}

func TestExpandElems(t *testing.T) {
	s := testTables(t)
	p, err := Compile(table(t, s, "posts"), table(t, s, "by_tag_lang"), mustRules(t, "tag=each(tags)", "lang=each(langs)"))
	if err != nil {
		t.Fatal(err)
	}
	var got [][]int
	err = p.Expand(map[string]any{"tags": []string{"a", "b"}, "langs": []string{"x", "y", "z"}}, func(r map[string]any, elems []int) error {
		got = append(got, append([]int(nil), elems...))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]int{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("elems %v, want %v", got, want)
	}
}
