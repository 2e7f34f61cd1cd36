package tombstone_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/tombstone"
)

// testSchema is app.inbox (a mailbox: user_id, msg_id clustering, a set and a map) and
// app.threads (two clustering columns), built by hand so the test needs only the parser.
func testSchema() *cql.Schema { return testSchemaIn("app") }

// inboxDDL is app.inbox as CQL, for the cluster test.
const inboxDDL = "(user_id int, msg_id int, subject text, body text, labels set<text>, flags map<text, boolean>, PRIMARY KEY (user_id, msg_id))"

func testSchemaIn(keyspace string) *cql.Schema {
	s := cql.NewSchema()
	ks := cql.NewKeyspace(keyspace)
	s.Keyspaces[keyspace] = ks
	text := cql.Type{Name: "text"}
	mk := func(name string, cols ...*cql.Column) *cql.Table {
		t := &cql.Table{Keyspace: keyspace, Name: name, Columns: cols}
		for _, c := range cols {
			switch c.Kind {
			case cql.PartitionKey:
				t.PartitionKey = append(t.PartitionKey, c)
			case cql.Clustering:
				t.Clustering = append(t.Clustering, c)
			}
		}
		ks.Tables[name] = t
		return t
	}
	mk("inbox",
		&cql.Column{Name: "user_id", Kind: cql.PartitionKey, Type: cql.Type{Name: "uuid"}},
		&cql.Column{Name: "msg_id", Kind: cql.Clustering, Type: cql.Type{Name: "timeuuid"}},
		&cql.Column{Name: "subject", Kind: cql.Regular, Type: text},
		&cql.Column{Name: "body", Kind: cql.Regular, Type: text},
		&cql.Column{Name: "labels", Kind: cql.Regular, Type: cql.Type{Kind: cql.Set, Params: []cql.Type{text}}},
		&cql.Column{Name: "flags", Kind: cql.Regular, Type: cql.Type{Kind: cql.Map, Params: []cql.Type{text, {Name: "boolean"}}}},
	)
	mk("threads",
		&cql.Column{Name: "thread_id", Kind: cql.PartitionKey, Type: cql.Type{Name: "uuid"}},
		&cql.Column{Name: "day", Kind: cql.Clustering, Type: cql.Type{Name: "date"}},
		&cql.Column{Name: "seq", Kind: cql.Clustering, Type: cql.Type{Name: "int"}},
		&cql.Column{Name: "body", Kind: cql.Regular, Type: text},
	)
	return s
}

func TestStatementFindingsGolden(t *testing.T) {
	path := filepath.Join("testdata", "statements.cql")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	stmts, err := cql.ParseFile(path, src)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, f := range tombstone.StatementFindings(testSchema(), stmts) {
		b.WriteString(f.String() + "\n")
	}
	golden(t, filepath.Join("testdata", "statements.golden"), b.String())
}

func TestDeletionKinds(t *testing.T) {
	tests := []struct {
		stmt string
		want tombstone.EffectKind
	}{
		{"DELETE FROM app.inbox WHERE user_id = ?", tombstone.PartitionDeletion},
		{"DELETE FROM app.inbox WHERE user_id IN (?, ?)", tombstone.PartitionDeletion},
		{"DELETE FROM app.inbox WHERE user_id = ? AND msg_id = ?", tombstone.RowDeletion},
		{"DELETE FROM app.inbox WHERE user_id = ? AND msg_id IN ?", tombstone.RowDeletion},
		{"DELETE FROM app.inbox WHERE user_id = ? AND msg_id > ?", tombstone.RangeDeletion},
		{"DELETE FROM app.threads WHERE thread_id = ? AND day = ?", tombstone.RangeDeletion},
		{"DELETE FROM app.threads WHERE thread_id = ? AND day = ? AND seq = ?", tombstone.RowDeletion},
		{"DELETE FROM app.threads WHERE thread_id = ? AND (day, seq) = (?, ?)", tombstone.RowDeletion},
		{"DELETE FROM app.threads WHERE thread_id = ? AND (day, seq) < (?, ?)", tombstone.RangeDeletion},
		{"DELETE FROM app.threads WHERE thread_id = ? AND day = ? AND seq >= ?", tombstone.RangeDeletion},
	}
	for _, tc := range tests {
		st, err := cql.Parse("t.cql", []byte(tc.stmt))
		if err != nil {
			t.Fatalf("%s: %v", tc.stmt, err)
		}
		effects := tombstone.Effects(testSchema(), []cql.Statement{st})
		if len(effects) != 1 || effects[0].Kind != tc.want {
			t.Errorf("%s: effects %+v, want one %s", tc.stmt, effects, tc.want.Code())
		}
	}
}

func TestEffectsWithoutSchema(t *testing.T) {
	src := "INSERT INTO t (a, b) VALUES (1, NULL); DELETE FROM t WHERE a = 1; UPDATE t USING TTL 5 SET b = ? WHERE a = 1;"
	stmts, err := cql.ParseFile("t.cql", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	for _, e := range tombstone.Effects(nil, stmts) {
		codes = append(codes, fmt.Sprintf("%s@%d", e.Kind.Code(), e.Pos.Col))
	}
	// Without a schema the DELETE's kind is unknown; the NULL, the TTL and the marker are not.
	want := fmt.Sprintf("TS101@%d TS110@%d TS102@%d", strings.Index(src, "NULL")+1, strings.Index(src, "TTL 5")+5, strings.Index(src, "b = ?")+5)
	if got := strings.Join(codes, " "); got != want {
		t.Errorf("effects without a schema: %s, want %s", got, want)
	}
}
