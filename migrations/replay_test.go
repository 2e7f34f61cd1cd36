package migrations

import (
	"errors"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/nodesettings"
)

// JudgeReplay gives each statement the model's verdict, the model following what the node
// applied: a table the node refused is not there for the statements after it.
func TestJudgeReplay(t *testing.T) {
	m, err := Parse("V1__a.cql", []byte("CREATE TABLE t (k int PRIMARY KEY, v text);\n"+
		"CREATE CUSTOM INDEX ON t (v) USING 'org.apache.cassandra.index.sasi.SASIIndex';\n"+
		"CREATE TABLE u (k int PRIMARY KEY, v text);\n"+
		"ALTER TABLE u ADD w int;\n"+
		"CREATE TABLE t (k int PRIMARY KEY);\n"))
	if err != nil {
		t.Fatal(err)
	}
	var vs []Verdict
	for i, st := range m.Statements {
		vs = append(vs, Verdict{Step: Step{Migration: m, Index: i + 1, Statement: st}})
	}
	refused := errors.New("refused by the node")
	vs[1].Node = refused // SASI off
	vs[2].Node = refused // say the node refused u: the model must not hold it afterwards
	base := cql.NewSchema()
	base.Keyspaces["app"] = cql.NewKeyspace("app")
	base.Current = "app"
	JudgeReplay(vs, base, nodesettings.Settings{"sasi_indexes_enabled": "false"})
	want := []struct{ model, disagree bool }{
		{false, false}, // t: both accept
		{true, false},  // SASI: the settings refuse it, as the node did
		{false, true},  // u: the model accepts what the node refused
		{true, true},   // ALTER u: u is not there (the node refused it); the node applied this one
		{true, true},   // t again: already exists in the model; the node applied it
	}
	for i, w := range want {
		if (vs[i].Model != nil) != w.model || vs[i].Disagree() != w.disagree {
			t.Errorf("statement %d: model %v, disagree %v; want model refusal %v, disagree %v", i+1, vs[i].Model, vs[i].Disagree(), w.model, w.disagree)
		}
	}
	if base.Keyspaces["app"].Tables["t"] != nil {
		t.Error("JudgeReplay changed the base schema")
	}
}
