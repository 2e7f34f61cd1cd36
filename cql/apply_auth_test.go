package cql_test

import (
	"strings"
	"testing"
)

// TestRoleStatements: the role statements of a history are judged as a node with
// authentication on judges them (the wide corpus's role.cql holds its verdicts): what its
// grammar refuses whatever the cluster holds, and what the history's own roles decide. A
// role the history never created is unknown, never missing (the cluster may have it), so
// ALTER, GRANT and DROP of one pass.
func TestRoleStatements(t *testing.T) {
	for _, tc := range []struct {
		history string // statements before the last one
		stmt    string
		want    string // a piece of the refusal; "" when the node applies it
	}{
		{"", "CREATE ROLE r WITH PASSWORD = 'p' AND LOGIN = true AND SUPERUSER = false", ""},
		{"", "CREATE ROLE r WITH HASHED PASSWORD = '$2a$10$x' AND LOGIN = true", ""},
		{"", "CREATE ROLE r WITH ACCESS TO DATACENTERS {'dc1'} AND LOGIN = true", ""},
		{"", "CREATE USER u WITH PASSWORD 'p' NOSUPERUSER", ""},
		{"", "ALTER ROLE elsewhere WITH LOGIN = false", ""},
		{"", "DROP ROLE elsewhere", ""},
		{"", "GRANT elsewhere TO other", ""},
		{"", "GRANT SELECT ON ALL KEYSPACES TO elsewhere", ""},
		{"", "GRANT SELECT PERMISSION ON KEYSPACE lit TO r", ""},
		{"", "GRANT ALL PERMISSIONS ON TABLE t TO r", ""},
		{"", "GRANT EXECUTE ON ALL FUNCTIONS TO r", ""},
		{"", "GRANT DESCRIBE ON ALL ROLES TO r", ""},
		{"", "GRANT unmask TO r", ""}, // a role named unmask (an unreserved word)
		{"", "LIST ROLES OF elsewhere", ""},
		{"", `CREATE ROLE ""`, "no viable alternative at input '\"\"'"},
		{"", "CREATE ROLE r WITH COLOUR = 'red'", "no viable alternative at input 'COLOUR'"},
		{"", "CREATE ROLE r WITH LOGIN = 'yes'", "mismatched input ''yes'' expecting BOOLEAN"},
		{"", "CREATE ROLE r WITH LOGIN = true AND LOGIN = false", "Multiple definition for property 'LOGIN'"},
		{"", "CREATE ROLE r WITH PASSWORD = 'x' AND HASHED PASSWORD = 'y'", "mutually exclusive"},
		{"", "ALTER ROLE r WITH SUPERUSER = 1", "expecting BOOLEAN"},
		{"", "GRANT FLY ON ALL KEYSPACES TO r", "mismatched input 'ON' expecting K_TO"},
		{"", "REVOKE FLY ON ALL KEYSPACES FROM r", "mismatched input 'ON' expecting K_FROM"},
		{"", "GRANT SELECT TO r", "mismatched input 'TO' expecting K_ON"},
		{"", "GRANT EXECUTE ON TABLE t TO r", "Resource type DataResource does not support any of the requested permissions"},
		{"", "GRANT r TO r", "r is a member of r"},
		{"", "GRANT MODIFY ON TABLE t TO r", ""},
		{"", "GRANT MODIFY ON lit.t TO r", ""},
		{"", "GRANT MODIFY ON TABLE elsewhere.x TO r", ""}, // a keyspace the model does not hold
		{"", "GRANT MODIFY ON TABLE nosuch TO r", "Resource <table lit.nosuch> doesn't exist"},
		{"", "REVOKE SELECT ON nosuch FROM r", "Resource <table lit.nosuch> doesn't exist"},
		{"CREATE ROLE r;", "CREATE ROLE r", "r already exists"},
		{"CREATE ROLE r;", "CREATE ROLE IF NOT EXISTS r", ""},
		{"CREATE ROLE r; DROP ROLE r;", "CREATE ROLE r", ""},
		{"CREATE ROLE r; DROP ROLE r;", "DROP ROLE r", "r doesn't exist"},
		{"DROP ROLE IF EXISTS r;", "DROP ROLE r", "r doesn't exist"},
		{"CREATE ROLE r; DROP ROLE r;", "DROP ROLE IF EXISTS r", ""},
		{"CREATE USER u; DROP USER u;", "ALTER USER u SUPERUSER", "doesn't exist"},
		{"CREATE ROLE r; DROP ROLE r;", "LIST ROLES OF r", "<role r> doesn't exist"},
		{"CREATE ROLE a; CREATE ROLE b; GRANT a TO b;", "GRANT b TO a", "a is a member of b"},
		{"CREATE ROLE a; CREATE ROLE b; CREATE ROLE c; GRANT a TO b; GRANT b TO c;", "GRANT c TO a", "a is a member of c"},
		{"CREATE ROLE a; CREATE ROLE b; GRANT a TO b; REVOKE a FROM b;", "GRANT b TO a", ""},
		{`CREATE ROLE "Mixed";`, "CREATE ROLE mixed", ""}, // two roles: quoted names keep their case
	} {
		model := newOptionsModel(t, "lit")
		if err := model.ApplyFile("h.cql", []byte("CREATE TABLE t (k int PRIMARY KEY);"+tc.history)); err != nil {
			t.Fatalf("%s: %v", tc.history, err)
		}
		err := model.ApplyFile("s.cql", []byte(tc.stmt+";"))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s then %s: refused (%v), the node applies it", tc.history, tc.stmt, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s then %s: got %v, want a refusal with %q", tc.history, tc.stmt, err, tc.want)
		}
	}
}
