package cql_test

import (
	"fmt"

	"github.com/cqlsize/cqlsize/cql"
)

func ExampleSplitStatements() {
	src := []byte(`
-- query: latest readings
SELECT * FROM readings WHERE sensor = ? AND day = ?; -- not split by the ';' in 'a;b' below
INSERT INTO notes (id, body) VALUES (1, 'a;b');
CREATE FUNCTION f(x int) CALLED ON NULL INPUT RETURNS int LANGUAGE java AS $$ return x; $$;
`)
	stmts, err := cql.SplitStatements("queries.cql", src)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range stmts {
		fmt.Printf("%s %q\n", s.Pos, s.Text)
		if s.Doc != "" {
			fmt.Printf("  doc %q\n", s.Doc)
		}
	}
	// Output:
	// queries.cql:3:1 "SELECT * FROM readings WHERE sensor = ? AND day = ?"
	//   doc "-- query: latest readings"
	// queries.cql:4:1 "INSERT INTO notes (id, body) VALUES (1, 'a;b')"
	// queries.cql:5:1 "CREATE FUNCTION f(x int) CALLED ON NULL INPUT RETURNS int LANGUAGE java AS $$ return x; $$"
}

func ExampleLoadSchema() {
	// A folder of migrations is applied in version order: 0001_init.cql, V2__tags.cql,
	// then 10_drop.cql.
	s, err := cql.LoadSchema("testdata/migrations/ok")
	if err != nil {
		fmt.Println(err)
		return
	}
	t := s.Table("app", "events")
	for _, c := range t.Columns {
		fmt.Println(c.Name, c.Type, c.Kind)
	}
	// A broken migration stops the load at its file:line:col.
	_, err = cql.LoadSchema("testdata/migrations/bad")
	fmt.Println(err)
	// Output:
	// id uuid partition_key
	// body text regular
	// tags set<text> regular
	// testdata/migrations/bad/0002_broken.cql:3:28: column v already exists in table app.events
}

func ExampleParse() {
	st, err := cql.Parse("q.cql", []byte("SELECT * FROM ks.events WHERE tenant = ? AND day IN (?, ?) AND ts > ? LIMIT 100"))
	if err != nil {
		fmt.Println(err)
		return
	}
	sel := st.(*cql.Select)
	fmt.Println("table:", sel.Table)
	for _, r := range sel.Where {
		fmt.Printf("%s %s %s in=%d bound=%v\n", r.Pos, r.Column().Name, r.Op, r.InCount(), r.Bound())
	}
	fmt.Println("limit:", sel.Limit.Value)
	// Output:
	// table: ks.events
	// q.cql:1:31 tenant = in=0 bound=true
	// q.cql:1:46 day IN in=2 bound=true
	// q.cql:1:64 ts > in=0 bound=true
	// limit: 100
}

func ExampleSchema_Apply() {
	s := cql.NewSchema()
	err := s.ApplyFile("schema.cql", []byte(`
CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
USE ks;
CREATE TABLE t (k int, c int, s int STATIC, v tuple<int, list<int>>, PRIMARY KEY (k, c))
    WITH CLUSTERING ORDER BY (c DESC);
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range s.Table("ks", "t").Columns {
		fmt.Println(c.Name, c.Type, c.Kind, c.Order)
	}
	// Cassandra rejects a static column in a table without clustering columns, and so does Apply.
	err = s.ApplyFile("bad.cql", []byte("CREATE TABLE ks.u (k int PRIMARY KEY, s int STATIC);"))
	fmt.Println(err)
	// Output:
	// k int partition_key asc
	// c int clustering desc
	// s int static asc
	// v frozen<tuple<int, frozen<list<int>>>> regular asc
	// bad.cql:1:39: static column s is only allowed in a table with clustering columns
}
