package migrations_test

import (
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/migrations"
)

// TestUseSwitchesTheFilesKeyspace: histories written for cqlsh say `USE app;`; the driver
// refuses USE, so the runner sends nothing for it and qualifies the file's later names
// with its keyspace, and the next file starts again in the target keyspace.
func TestUseSwitchesTheFilesKeyspace(t *testing.T) {
	migs := load(t, map[string]string{
		"0001_a.cql": "CREATE KEYSPACE IF NOT EXISTS other WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\n" +
			"USE other;\nCREATE TABLE t (k int PRIMARY KEY);\nINSERT INTO t (k) VALUES (1);\n",
		"0002_b.cql": "CREATE TABLE u (k int PRIMARY KEY);\n",
	})
	a := migs[0]
	for i, want := range []struct {
		text string
		sent bool
	}{
		{"CREATE KEYSPACE IF NOT EXISTS other WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", true},
		{"USE other", false},
		{"CREATE TABLE other.t (k int PRIMARY KEY)", true},
		{"INSERT INTO other.t (k) VALUES (1)", true},
	} {
		text, sent, err := a.SentText(i + 1)
		if err != nil {
			t.Fatal(err)
		}
		if text != want.text || sent != want.sent {
			t.Errorf("statement %d: sent=%v %q, want sent=%v %q", i+1, sent, text, want.sent, want.text)
		}
	}
	if text, _, _ := migs[1].SentText(1); text != "CREATE TABLE u (k int PRIMARY KEY)" {
		t.Errorf("the USE leaked into the next file: %q", text)
	}
	sch, err := migrations.SchemaOf(migs, "app")
	if err != nil {
		t.Fatal(err)
	}
	if sch.Table("other", "t") == nil || sch.Table("app", "u") == nil {
		t.Errorf("want other.t and app.u in the model, have %v", sch.Keyspaces)
	}
	if sch.Table("other", "u") != nil {
		t.Errorf("file 2 resolved u in the keyspace file 1 switched to")
	}
}

// TestUseOfAKeyspaceNothingCreates is refused where it stands, as the node would refuse it.
func TestUseOfAKeyspaceNothingCreates(t *testing.T) {
	migs := load(t, map[string]string{"0001_a.cql": "USE nowhere;\nCREATE TABLE t (k int PRIMARY KEY);\n"})
	_, err := migrations.SchemaOf(migs, "app")
	if err == nil || !strings.Contains(err.Error(), "0001_a.cql:1:5") || !strings.Contains(err.Error(), "nowhere") {
		t.Fatalf("want a refusal of USE nowhere at 1:5, got %v", err)
	}
}
