package liveschema

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
)

func native(n string) cql.Type { return cql.Type{Kind: cql.Native, Name: n} }

// sample is keyspace app with a time-bucketed table, a user type, an index and a view.
func sample() *cql.Schema {
	s := cql.NewSchema()
	ks := cql.NewKeyspace("app")
	ks.Replication = map[string]string{"class": "SimpleStrategy", "replication_factor": "1"}
	posts := &cql.Table{Keyspace: "app", Name: "posts", Options: cql.TableOptions{GCGraceSeconds: cql.DefaultGCGraceSeconds}}
	add := func(t *cql.Table, name string, typ cql.Type, kind cql.ColumnKind, pos int, order cql.Order) {
		c := &cql.Column{Name: name, Type: typ, Kind: kind, Position: pos, Order: order}
		t.Columns = append(t.Columns, c)
		switch kind {
		case cql.PartitionKey:
			t.PartitionKey = append(t.PartitionKey, c)
		case cql.Clustering:
			t.Clustering = append(t.Clustering, c)
		}
	}
	add(posts, "user_id", native("uuid"), cql.PartitionKey, 0, cql.Asc)
	add(posts, "month", native("text"), cql.PartitionKey, 1, cql.Asc)
	add(posts, "post_id", native("timeuuid"), cql.Clustering, 0, cql.Desc)
	add(posts, "tags", cql.Type{Kind: cql.Set, Params: []cql.Type{native("text")}}, cql.Regular, -1, cql.Asc)
	add(posts, "body", native("text"), cql.Regular, -1, cql.Asc)
	ks.Tables["posts"] = posts
	ks.Types["addr"] = &cql.UserType{Keyspace: "app", Name: "addr", Fields: []cql.Field{{Name: "street", Type: native("text")}, {Name: "zip", Type: native("int")}}}
	ks.Indexes["posts_tags_idx"] = &cql.Index{Keyspace: "app", Name: "posts_tags_idx", Table: "posts", Target: "tags"}
	view := &cql.Table{Keyspace: "app", Name: "posts_by_body"}
	add(view, "body", native("text"), cql.PartitionKey, 0, cql.Asc)
	add(view, "user_id", native("uuid"), cql.Clustering, 0, cql.Asc)
	add(view, "month", native("text"), cql.Clustering, 1, cql.Asc)
	add(view, "post_id", native("timeuuid"), cql.Clustering, 2, cql.Desc)
	ks.Views["posts_by_body"] = &cql.View{Keyspace: "app", Name: "posts_by_body", BaseTable: "posts", Table: view}
	s.Keyspaces["app"] = ks
	return s
}

func TestDiffEqual(t *testing.T) {
	if d := Diff(sample(), sample()); len(d) != 0 {
		t.Fatalf("Diff of equal schemas: %q", d)
	}
	// What Cassandra stores for the same schema: long class names, values(col), varchar = text.
	got := sample()
	ks := got.Keyspaces["app"]
	ks.Replication["class"] = "org.apache.cassandra.locator.SimpleStrategy"
	ks.Indexes["posts_tags_idx"].Target = "values(tags)"
	ks.Tables["posts"].Columns[4].Type = native("varchar")
	if d := Diff(sample(), got); len(d) != 0 {
		t.Fatalf("Diff after Cassandra's normalizations: %q", d)
	}
}

func TestDiffFindsEachKind(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(s *cql.Schema)
		want   []string
	}{
		{"missing keyspace", func(s *cql.Schema) { delete(s.Keyspaces, "app") },
			[]string{"keyspace app: in the migrations, not in the cluster"}},
		{"extra table", func(s *cql.Schema) {
			s.Keyspaces["app"].Tables["extra"] = &cql.Table{Keyspace: "app", Name: "extra"}
		}, []string{"keyspace app: table extra: in the cluster, not in the migrations"}},
		{"clustering order", func(s *cql.Schema) { s.Table("app", "posts").Columns[2].Order = cql.Asc },
			[]string{"keyspace app: table posts: column post_id: clustering order: want desc, got asc"}},
		{"key position", func(s *cql.Schema) {
			c := s.Table("app", "posts").Columns
			c[0].Position, c[1].Position = 1, 0
		}, []string{
			"keyspace app: table posts: column month: position in the partition key: want 1, got 0",
			"keyspace app: table posts: column user_id: position in the partition key: want 0, got 1",
		}},
		{"kind", func(s *cql.Schema) { s.Table("app", "posts").Columns[4].Kind = cql.Static },
			[]string{"keyspace app: table posts: column body: kind: want regular, got static"}},
		{"type", func(s *cql.Schema) {
			s.Table("app", "posts").Columns[3].Type.Frozen = true
		}, []string{
			// The same index target means values(tags) on a set and the whole value on a frozen set.
			"keyspace app: index posts_tags_idx: target: want values(tags), got tags",
			"keyspace app: table posts: column tags: type: want set<text>, got frozen<set<text>>",
		}},
		{"ttl and gc grace", func(s *cql.Schema) {
			o := &s.Table("app", "posts").Options
			o.DefaultTTL, o.GCGraceSeconds = 86400, 3600
		}, []string{
			"keyspace app: table posts: default_time_to_live: want 0, got 86400",
			"keyspace app: table posts: gc_grace_seconds: want 864000, got 3600",
		}},
		{"index target and class", func(s *cql.Schema) {
			ix := s.Keyspaces["app"].Indexes["posts_tags_idx"]
			ix.Target, ix.Custom, ix.Class = "keys(tags)", true, "StorageAttachedIndex"
		}, []string{
			"keyspace app: index posts_tags_idx: class: want legacy secondary index, got StorageAttachedIndex",
			"keyspace app: index posts_tags_idx: target: want values(tags), got keys(tags)",
		}},
		{"view key", func(s *cql.Schema) {
			s.Keyspaces["app"].Views["posts_by_body"].Table.Columns[3].Order = cql.Asc
		}, []string{"keyspace app: view posts_by_body: column post_id: clustering order: want desc, got asc"}},
		{"type fields", func(s *cql.Schema) {
			ut := s.Keyspaces["app"].Types["addr"]
			ut.Fields = append(ut.Fields, cql.Field{Name: "city", Type: native("text")})
		}, []string{"keyspace app: type addr: fields: want (street text, zip int), got (street text, zip int, city text)"}},
		{"replication", func(s *cql.Schema) {
			s.Keyspaces["app"].Replication = map[string]string{"class": "NetworkTopologyStrategy", "dc1": "3"}
		}, []string{"keyspace app: replication: want {'class': 'SimpleStrategy', 'replication_factor': '1'}, got {'class': 'NetworkTopologyStrategy', 'dc1': '3'}"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := sample()
			tc.change(got)
			if d := Diff(sample(), got); !reflect.DeepEqual(d, tc.want) {
				t.Errorf("Diff:\n got %q\nwant %q", d, tc.want)
			}
		})
	}
}

func ExampleDiff() {
	want := cql.NewSchema()
	want.Keyspaces["app"] = cql.NewKeyspace("app")
	want.Keyspaces["app"].Tables["users"] = &cql.Table{Keyspace: "app", Name: "users",
		Columns: []*cql.Column{{Name: "id", Type: cql.Type{Name: "uuid"}, Kind: cql.PartitionKey}}}
	got := cql.NewSchema()
	got.Keyspaces["app"] = cql.NewKeyspace("app")
	got.Keyspaces["app"].Tables["users"] = &cql.Table{Keyspace: "app", Name: "users",
		Columns: []*cql.Column{{Name: "id", Type: cql.Type{Name: "timeuuid"}, Kind: cql.PartitionKey}}}
	for _, line := range Diff(want, got) {
		fmt.Println(line)
	}
	// Output:
	// keyspace app: table users: column id: type: want uuid, got timeuuid
}
