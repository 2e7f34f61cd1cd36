package cql

import "testing"

// TestCreateStatement renders tables and reads each statement back: it is valid CQL, its
// names are quoted where CQL needs it, and the table read back has the same key.
func TestCreateStatement(t *testing.T) {
	for _, c := range []struct {
		name, ddl, want string
	}{
		{"simple", "CREATE TABLE ks.t (a int, b text, c text, PRIMARY KEY (a, b))",
			"CREATE TABLE IF NOT EXISTS ks.t (\n    a int,\n    b text,\n    c text,\n    PRIMARY KEY ((a), b)\n)"},
		{"quoted and desc", `CREATE TABLE ks."Posts" ("userId" int, "order" timestamp, v set<text>, s int STATIC, PRIMARY KEY (("userId"), "order")) WITH CLUSTERING ORDER BY ("order" DESC) AND default_time_to_live = 60`,
			"CREATE TABLE IF NOT EXISTS ks.\"Posts\" (\n    \"userId\" int,\n    \"order\" timestamp,\n    v set<text>,\n    s int STATIC,\n    PRIMARY KEY ((\"userId\"), \"order\")\n) WITH CLUSTERING ORDER BY (\"order\" DESC)\n    AND default_time_to_live = 60"},
		{"composite", "CREATE TABLE ks.t (a int, b int, c int, PRIMARY KEY ((a, b)))",
			"CREATE TABLE IF NOT EXISTS ks.t (\n    a int,\n    b int,\n    c int,\n    PRIMARY KEY ((a, b))\n)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := NewSchema()
			if err := s.ApplyFile("t.cql", []byte("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};"+c.ddl)); err != nil {
				t.Fatal(err)
			}
			tb := s.Tables()[0]
			got := tb.CreateStatement(true)
			if got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
			back := NewSchema()
			if err := back.ApplyFile("t.cql", []byte("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};"+got)); err != nil {
				t.Fatalf("the statement does not read back: %v\n%s", err, got)
			}
			bt := back.Tables()[0]
			if bt.CreateStatement(true) != got {
				t.Errorf("read back, it renders as\n%s", bt.CreateStatement(true))
			}
		})
	}
}
