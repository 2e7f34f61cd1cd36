package denorm

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql"
)

// TestMapStructOnCassandra writes a post to its three tables with MapStruct mappings, reads
// it back with Load (scanned straight into the struct), and deletes every copy from what
// was read.
func TestMapStructOnCassandra(t *testing.T) {
	s, schema, _ := postsKeyspace(t)
	ctx := context.Background()
	m, err := New(s, schema, Options{}, postStructMappings()...)
	if err != nil {
		t.Fatal(err)
	}
	p := newPost("cassandra", "go") // in the order a set reads back
	if _, err := m.Insert(ctx, p); err != nil {
		t.Fatal(err)
	}
	if id, user, tags := copies(t, s, p, p.Hashtags); id != 1 || user != 1 || tags != 2 {
		t.Fatalf("after insert: %d, %d, %d rows in posts_by_id, posts_by_user, posts_by_hashtag; want 1, 1, 2", id, user, tags)
	}
	got, err := m.Load(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	got.Created = got.Created.UTC()
	if !reflect.DeepEqual(got, p) {
		t.Errorf("loaded %+v (content %q), want %+v (content %q)", got, deref(got.Content), p, *p.Content)
	}

	// No content and no hashtags: nothing is written for them (no null, no tombstone),
	// and Load gives back a nil pointer and a nil slice.
	bare := newPost()
	bare.Content, bare.Hashtags = nil, nil
	if _, err := m.Insert(ctx, bare); err != nil {
		t.Fatal(err)
	}
	got, err = m.Load(ctx, bare.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Content != nil || got.Hashtags != nil || got.UserID != bare.UserID {
		t.Errorf("loaded %+v, want no content and no hashtags", got)
	}

	if _, err := m.DeleteByKey(ctx, []any{p.ID}); err != nil {
		t.Fatal(err)
	}
	if id, user, tags := copies(t, s, p, p.Hashtags); id+user+tags != 0 {
		t.Errorf("after delete: %d, %d, %d rows left", id, user, tags)
	}
	if _, err := m.Load(ctx, p.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("load after delete: %v, want ErrNotFound", err)
	}
}

// TestMapStructUDTOnCassandra round-trips gocqlx-style user type fields through the node.
func TestMapStructUDTOnCassandra(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	stmts, err := cql.SplitStatements("customers.cql", []byte(customersCQL))
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range stmts {
		cassandratest.DDL(t, s, ks, st.Text)
	}
	m, err := New(s, schemaOf(ks, customersCQL), Options{}, MapStruct[customer]("customers", AsSource()))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c := &customer{ID: gocql.TimeUUID(), Home: address{Street: "Main St", ZipCode: 1234}}
	if _, err := m.Insert(ctx, c); err != nil {
		t.Fatal(err)
	}
	got, err := m.Load(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, c) {
		t.Errorf("loaded %+v, want %+v", got, c)
	}
	var zip int
	if err := s.Query("SELECT home.zip_code FROM customers WHERE id = ?", c.ID).Scan(&zip); err != nil || zip != 1234 {
		t.Errorf("home.zip_code on the node: %d, %v", zip, err)
	}
	c.Work = &address{Street: "Dock Rd", ZipCode: 99}
	if _, err := m.Insert(ctx, c); err != nil {
		t.Fatal(err)
	}
	if got, err = m.Load(ctx, c.ID); err != nil || got.Work == nil || *got.Work != *c.Work {
		t.Errorf("loaded %+v, %v; want work %+v", got, err, c.Work)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
