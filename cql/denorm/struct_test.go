package denorm

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/scylladb/go-reflectx"
	"github.com/scylladb/gocqlx/v2"
)

// postMonth is the month bucket column, derived as postMappings derives it.
var postMonth = WithColumn("month", func(p *post) (any, error) { return monthOf(p.ID) })

// postStructMappings is postMappings written with MapStruct.
func postStructMappings() []Mapping[post] {
	return []Mapping[post]{
		MapStruct[post]("posts_by_id", AsSource()),
		MapStruct[post]("posts_by_user", postMonth),
		MapStruct[post]("posts_by_hashtag", postMonth, FanOut("hashtags", "hashtag")),
	}
}

func newModel[E any](t testing.TB, s *gocql.Session, schema string, maps ...Mapping[E]) *Model[E] {
	t.Helper()
	m, err := New(s, schemaOf("app", schema), Options{}, maps...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestMapStructPlansEqualMap: the struct mapping sends exactly what the hand-written one
// sends, statement by statement and value by value, for inserts, deletes and updates of
// posts with and without content, hashtags, repeated and moved ones.
func TestMapStructPlansEqualMap(t *testing.T) {
	byHand := newPostModel(t, nil, postsSchema("app"), Options{})
	byStruct, err := New(nil, postsSchema("app"), Options{}, postStructMappings()...)
	if err != nil {
		t.Fatal(err)
	}
	noContent := fixedPost("go")
	noContent.Content = nil
	moved := fixedPost("db", "cassandra")
	moved.ID = gocql.UUID{0x9c, 0, 0, 0, 0, 0, 0x11, 0xef, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80} // a 2024-10 timeuuid
	moved.Content = nil
	noTime := fixedPost("x")
	noTime.Created = time.Time{}
	posts := map[string]*post{
		"three tags":  fixedPost("go", "cassandra", "tag7"),
		"repeated":    fixedPost("go", "db", "go"),
		"no tags":     fixedPost(),
		"empty tags":  fixedPost([]string{}...),
		"no content":  noContent,
		"moved":       moved,
		"zero time":   noTime,
		"forty tags":  fixedPost(strings.Fields(strings.Repeat("a b c d e f g h i j ", 4))...),
		"unicode tag": fixedPost("été", "日本"),
	}
	type plan func(m *Model[post]) (*Plan, error)
	cases := map[string]plan{}
	for name, p := range posts {
		cases["insert "+name] = func(m *Model[post]) (*Plan, error) { return m.PlanInsert(p, At(ts)) }
		cases["insert ttl "+name] = func(m *Model[post]) (*Plan, error) { return m.PlanInsert(p, At(ts), WithTTL(time.Hour)) }
		cases["delete "+name] = func(m *Model[post]) (*Plan, error) { return m.PlanDelete(p, At(ts)) }
		cases["update to "+name] = func(m *Model[post]) (*Plan, error) { return m.PlanUpdate(fixedPost("go", "db"), p, At(ts)) }
		cases["update from "+name] = func(m *Model[post]) (*Plan, error) { return m.PlanUpdate(p, moved, At(ts)) }
	}
	for name, plan := range cases {
		want, err := plan(byHand)
		if err != nil {
			t.Fatalf("%s by hand: %v", name, err)
		}
		got, err := plan(byStruct)
		if err != nil {
			t.Fatalf("%s with MapStruct: %v", name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: MapStruct plans\n%s\nMap plans\n%s", name, render(got), render(want))
		}
	}

	// A bad entity fails the same way.
	bad := fixedPost("go", "")
	_, errHand := byHand.PlanInsert(bad)
	_, errStruct := byStruct.PlanInsert(bad)
	var mk1, mk2 *MissingKeyError
	if !errors.As(errHand, &mk1) || !errors.As(errStruct, &mk2) || *mk1 != *mk2 {
		t.Errorf("empty hashtag: by hand %v, MapStruct %v", errHand, errStruct)
	}
	notTime := fixedPost("go")
	notTime.ID = gocql.UUID{1} // not a timeuuid: no month
	if _, err := byStruct.PlanInsert(notTime); err == nil || !strings.Contains(err.Error(), "column month") {
		t.Errorf("a post whose month cannot be derived: %v", err)
	}
	noTags := fixedPost()
	noTags.ID = notTime.ID
	if _, err := byStruct.PlanDelete(noTags); err == nil {
		t.Error("a fan-out of no rows skipped the derived column's check")
	}
}

// TestMapStructTags checks gocqlx's naming rules as MapStruct applies them.
func TestMapStructTags(t *testing.T) {
	const schema = `CREATE TABLE users (user_id uuid, "Region" text, email text, full_name text, created_at timestamp, nick text, note text,
		PRIMARY KEY (user_id, "Region"))`
	type Base struct {
		UserID    gocql.UUID
		CreatedAt time.Time
	}
	type Extra struct {
		Note *string
	}
	type user struct {
		Base               // embedded: user_id and created_at
		*Extra             // embedded pointer: note, unset when nil
		Region    string   `db:"Region"` // a quoted column keeps its case
		Mail      string   `db:"email"`
		FullName  string   // full_name
		Nick      string   `db:"-"` // skipped: nick stays unset
		Followers int      // no such column: ignored
		secret    string   //nolint:unused // unexported: skipped
		Tags      []string // no such column: ignored
	}
	m := newModel(t, nil, schema, MapStruct[user]("users"))
	u := &user{Base: Base{UserID: gocql.UUID{1}, CreatedAt: time.UnixMilli(1e12).UTC()}, Region: "EU", Mail: "a@b.c", FullName: "Ann", Nick: "an", secret: "x"}
	p, err := m.PlanInsert(u, At(ts))
	if err != nil {
		t.Fatal(err)
	}
	want := `INSERT INTO app.users (user_id, "Region", email, full_name, created_at, nick, note) VALUES (?, ?, ?, ?, ?, ?, ?) USING TIMESTAMP ?`
	if len(p.Statements) != 1 || p.Statements[0].CQL != want {
		t.Fatalf("statements %+v, want one %s", p.Statements, want)
	}
	args := p.Statements[0].Args
	if args[5] != gocql.UnsetValue || args[6] != gocql.UnsetValue {
		t.Errorf("nick (db:\"-\") and note (nil embedded pointer) should be unset: %v, %v", args[5], args[6])
	}
	if args[0] != (gocql.UUID{1}) || args[1] != "EU" || args[2] != "a@b.c" || args[3] != "Ann" || args[4] != u.CreatedAt {
		t.Errorf("args %v", args)
	}
	u.Extra = &Extra{Note: str("hi")}
	if p, err = m.PlanInsert(u); err != nil || p.Statements[0].Args[6] == gocql.UnsetValue {
		t.Errorf("note through a set embedded pointer: %v, %v", err, p)
	}

	// A service's own mapper: json tags, names lower-cased.
	type row struct {
		ID    gocql.UUID `json:"user_id"`
		Email string
	}
	mapper := reflectx.NewMapperFunc("json", strings.ToLower)
	mj := newModel(t, nil, `CREATE TABLE users (user_id uuid PRIMARY KEY, email text)`, MapStruct[row]("users", WithMapper(mapper)))
	p, err = mj.PlanInsert(&row{ID: gocql.UUID{2}, Email: "x@y.z"})
	if err != nil {
		t.Fatal(err)
	}
	if a := p.Statements[0].Args; a[0] != (gocql.UUID{2}) || a[1] != "x@y.z" {
		t.Errorf("custom mapper: args %v", a)
	}
}

// TestMapStructSchemaErrors: a mapping that cannot work fails at New, naming the table,
// the column and the struct, never at the first write.
func TestMapStructSchemaErrors(t *testing.T) {
	type kv struct {
		K    string
		C    int32
		V    string
		List []string
		Num  int
	}
	type noC struct {
		K string
		V string
	}
	type bad struct {
		K     string
		C     int32
		Größe int
	}
	type other struct{ K string }
	const schema = `CREATE TABLE t (k text, c int, v text, PRIMARY KEY (k, c))`
	v := func(*kv) (any, error) { return "", nil }
	tests := []struct {
		name   string
		err    error
		column string
		msg    string
	}{
		{"key column without field", newErr(schema, MapStruct[noC]("t")), "c", "is in the primary key but denorm.noC has no field for it"},
		{"unknown WithColumn", newErr(schema, MapStruct[kv]("t", WithColumn("nope", v))), "", `has no column "nope"`},
		{"WithColumn of another type", newErr(schema, MapStruct[kv]("t", WithColumn("v", func(*other) (any, error) { return "", nil }))),
			"v", "want func(*denorm.kv) (any, error)"},
		{"nil WithColumn", newErr(schema, MapStruct[kv]("t", WithColumn[kv]("v", nil))), "v", "nil WithColumn function"},
		{"WithColumn twice", newErr(schema, MapStruct[kv]("t", WithColumn("v", v), WithColumn("v", v))), "v", "filled twice"},
		{"fan-out of a missing field", newErr(schema, MapStruct[kv]("t", FanOut("tags", "v"))), "", `cannot fan out over "tags": denorm.kv has no field`},
		{"fan-out of a non-slice", newErr(schema, MapStruct[kv]("t", FanOut("num", "v"))), "", "it is a int, not a slice"},
		{"fan-out into a missing column", newErr(schema, MapStruct[kv]("t", FanOut("list", "nope"))), "", `has no column "nope"`},
		{"two fan-outs", newErr(schema, MapStruct[kv]("t", FanOut("list", "v"), FanOut("list", "k"))), "", "2 FanOut options"},
		{"fan-out and WithColumn on one column", newErr(schema, MapStruct[kv]("t", WithColumn("v", v), FanOut("list", "v"))), "v", "filled twice"},
		{"fan-out source", newErr(schema, MapStruct[kv]("t", FanOut("list", "v"), AsSource())), "", "fans out"},
		{"AsSource and Source", newErr(schema, MapStruct[kv]("t", AsSource()).Source(func(Values) (*kv, error) { return nil, nil })),
			"", "both AsSource and Source"},
		{"not a struct", newErr(schema, MapStruct[string]("t")), "", "needs a struct type, not string"},
		{"field name the mapper cannot convert", newErr(schema, MapStruct[bad]("t")), "", "map the fields of denorm.bad"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var se *SchemaError
			if !errors.As(tt.err, &se) {
				t.Fatalf("got %v, want a *SchemaError", tt.err)
			}
			if se.Table != "app.t" || se.Column != tt.column || !strings.Contains(se.Msg, tt.msg) {
				t.Errorf("got table %q column %q msg %q; want app.t, %q, containing %q", se.Table, se.Column, se.Msg, tt.column, tt.msg)
			}
		})
	}
}

func newErr[E any](schema string, mp Mapping[E]) error {
	_, err := New(nil, schemaOf("app", schema), Options{}, mp)
	return err
}

// address is a user type as gocqlx models one: it embeds gocqlx.UDT, and its fields map
// to the type's fields by the same rules as a row's.
type address struct {
	gocqlx.UDT
	Street  string
	ZipCode int32
	Extra   string `db:"-"`
}

type customer struct {
	ID   gocql.UUID `db:"id"`
	Home address
	Work *address
}

const customersCQL = `
CREATE TYPE address (street text, zip_code int);
CREATE TABLE customers (id uuid PRIMARY KEY, home frozen<address>, work frozen<address>);
`

// TestMapStructUDT: a field embedding gocqlx.UDT is marshalled field by field through the
// mapper (zip_code from ZipCode), as gocqlx binds it; a nil pointer to one is unset.
func TestMapStructUDT(t *testing.T) {
	m := newModel(t, nil, customersCQL, MapStruct[customer]("customers", AsSource()))
	c := &customer{ID: gocql.UUID{7}, Home: address{Street: "Main St", ZipCode: 1234, Extra: "x"}}
	p, err := m.PlanInsert(c)
	if err != nil {
		t.Fatal(err)
	}
	info := m.tables[0].cols[1].info
	want, err := gocql.Marshal(info, map[string]any{"street": "Main St", "zip_code": 1234})
	if err != nil {
		t.Fatal(err)
	}
	args := p.Statements[0].Args
	if got, ok := args[1].(raw); !ok || string(got) != string(want) {
		t.Errorf("home marshalled to %x, want %x", args[1], want)
	}
	if args[2] != gocql.UnsetValue {
		t.Errorf("nil work address: %v, want unset", args[2])
	}
	// Read back through the same wrappers the source scan uses.
	var got customer
	dest := m.maps[0].scan.dest(reflect.ValueOf(&got).Elem())
	if err := gocql.Unmarshal(info, want, dest[1]); err != nil {
		t.Fatal(err)
	}
	if err := gocql.Unmarshal(info, want, dest[2]); err != nil {
		t.Fatal(err)
	}
	if got.Home.Street != "Main St" || got.Home.ZipCode != 1234 || got.Work == nil || *got.Work != got.Home {
		t.Errorf("unmarshalled %+v", got)
	}
	if err := gocql.Unmarshal(info, nil, dest[2]); err != nil || got.Work != nil {
		t.Errorf("a null work address: %v, %+v", err, got.Work)
	}
}

// TestMapStructAllocs guards "the reflection is done once": a MapStruct insert allocates
// no more than the hand-written one beyond a few values per row.
func TestMapStructAllocs(t *testing.T) {
	byHand := newPostModel(t, nil, postsSchema("app"), Options{})
	byStruct := newModel(t, nil, postsCQL, postStructMappings()...)
	p := fixedPost("go", "cassandra", "tag7")
	hand := testing.AllocsPerRun(100, func() { _, _ = byHand.PlanInsert(p) })
	strct := testing.AllocsPerRun(100, func() { _, _ = byStruct.PlanInsert(p) })
	if strct > hand+5 {
		t.Errorf("MapStruct PlanInsert: %.0f allocations, Map: %.0f", strct, hand)
	}
}
