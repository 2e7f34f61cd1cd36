package nodesettings

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql"
)

// TestCheckAgreesWithTheNode holds Check to the test node: each statement is judged with
// the settings the node shows, then sent to the node, and Check must refuse exactly the
// ones the node refuses. The development node enables MVs and UDFs and leaves SASI and
// masking at their defaults (off), so both sides of the rule are exercised; a node set
// otherwise is judged by the same rule.
func TestCheckAgreesWithTheNode(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	settings := Settings{}
	iter := s.Query("SELECT name, value FROM system_views.settings").Iter()
	var name string
	var value *string
	for iter.Scan(&name, &value) {
		if value != nil {
			settings[name] = *value
		}
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	cassandratest.DDL(t, s, ks, fmt.Sprintf("CREATE TABLE %s.base (k int PRIMARY KEY, v text, w text, n int)", ks))
	corpus := []string{
		"CREATE TABLE %s.masked (k int PRIMARY KEY, v text MASKED WITH mask_default())",
		"ALTER TABLE %s.base ADD x text MASKED WITH mask_null()",
		"ALTER TABLE %s.base ALTER v MASKED WITH mask_inner(1, null)",
		"ALTER TABLE %s.base ALTER w DROP MASKED",
		"CREATE CUSTOM INDEX ON %s.base (v) USING 'org.apache.cassandra.index.sasi.SASIIndex'",
		"CREATE CUSTOM INDEX ON %s.base (w) USING 'StorageAttachedIndex'",
		"CREATE INDEX ON %s.base (n)",
		"CREATE FUNCTION %s.twice (x int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS 'return x * 2;'",
		"CREATE MATERIALIZED VIEW %s.by_n AS SELECT k, n FROM %[1]s.base WHERE n IS NOT NULL AND k IS NOT NULL PRIMARY KEY (n, k)",
	}
	refusedSome, acceptedSome := false, false
	for _, f := range corpus {
		text := fmt.Sprintf(f, ks)
		stmts, err := cql.ParseFile("corpus.cql", []byte(text))
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		predicted := Check(Input{Settings: settings, Statements: stmts})
		nodeErr := execRetrying(t, s, text)
		switch {
		case nodeErr != nil && len(predicted) == 0:
			t.Errorf("the node refuses %s (%v); Check let it pass", text, nodeErr)
		case nodeErr == nil && len(predicted) > 0:
			t.Errorf("the node accepts %s; Check refused it: %v", text, predicted[0])
		case nodeErr != nil:
			refusedSome = true
			t.Logf("both refuse %s\n  node: %v\n  check: %v", text, nodeErr, predicted[0])
		default:
			acceptedSome = true
		}
	}
	if !refusedSome || !acceptedSome {
		t.Errorf("the corpus should hold statements this node refuses and ones it accepts (refused some: %v, accepted some: %v)", refusedSome, acceptedSome)
	}
}

// execRetrying sends a schema change, again when the driver gave up waiting (a loaded node
// can apply it and miss the client's timeout: then the second try finds it done). It returns
// the node's refusal, or nil when the node applied it.
func execRetrying(t *testing.T, s *gocql.Session, text string) error {
	t.Helper()
	var err error
	for attempt := 1; attempt <= 3; attempt++ {
		err = s.Query(text).Exec()
		var rerr gocql.RequestError
		if err == nil || (errors.As(err, &rerr) && rerr.Code() != gocql.ErrCodeWriteTimeout && rerr.Code() != gocql.ErrCodeReadTimeout) {
			if err != nil && attempt > 1 && (strings.Contains(err.Error(), "already exists") || strings.Contains(err.Error(), "conflicts with an existing column")) {
				return nil
			}
			return err
		}
		t.Logf("%s: attempt %d: %v; sending it again", text, attempt, err)
	}
	t.Fatalf("%s: no answer after 3 tries: %v", text, err)
	return err
}
