package check

import (
	"os"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
)

// loadTestSchema builds the schema of a .cql file. TODO(check): use cql.LoadSchema once it lands.
func loadTestSchema(t *testing.T, path string) *cql.Schema {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	stmts, err := cql.ParseFile(path, src)
	if err != nil {
		t.Fatal(err)
	}
	s := cql.NewSchema()
	ks := cql.NewKeyspace("")
	s.Keyspaces[""] = ks
	for _, st := range stmts {
		switch st := st.(type) {
		case *cql.CreateTable:
			tb := &cql.Table{Name: st.Name.Name.Name, Pos: st.Pos}
			for _, cd := range st.Columns {
				c := &cql.Column{Name: cd.Name.Name, Type: cd.Type, Kind: cql.Regular, Position: -1}
				if cd.Static {
					c.Kind = cql.Static
				}
				tb.Columns = append(tb.Columns, c)
			}
			for i, k := range st.PartitionKey {
				c := tb.Column(k.Name)
				c.Kind, c.Position = cql.PartitionKey, i
				tb.PartitionKey = append(tb.PartitionKey, c)
			}
			for i, k := range st.Clustering {
				c := tb.Column(k.Name)
				c.Kind, c.Position = cql.Clustering, i
				tb.Clustering = append(tb.Clustering, c)
			}
			for _, o := range st.ClusteringOrder {
				if o.Desc {
					tb.Column(o.Column.Name).Order = cql.Desc
				}
			}
			ks.Tables[tb.Name] = tb
		case *cql.CreateIndex:
			ix := &cql.Index{Name: st.Name.Name, Table: st.Table.Name.Name, Target: st.Targets[0].String(), Custom: st.Using != "", Class: strings.ToLower(st.Using)}
			ks.Indexes[ix.Name] = ix
		}
	}
	return s
}
