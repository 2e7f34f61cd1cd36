package lint

import (
	"strings"

	"github.com/cqlsize/cqlsize/cql"
)

// yamlAnalyzers warn about statements a node with 5.0's default cassandra.yaml refuses
// because a feature is switched off there (both settings default to false in 5.0.9's
// Config). They are warnings, not errors: a cluster that turned the setting on runs them,
// and the project's own dev node turns UDFs on.
func yamlAnalyzers() []*Analyzer {
	return []*Analyzer{
		{
			Code: "IX102", Name: "sasi-index", Severity: Warning,
			What: "CREATE CUSTOM INDEX ... USING 'org.apache.cassandra.index.sasi.SASIIndex'",
			Why:  "a default 5.0 cassandra.yaml has sasi_indexes_enabled: false, and the node refuses the index (\"SASI indexes are disabled\") after the statements before it have run; SASI is experimental and superseded by SAI",
			Fix:  "USING 'sai' (StorageAttachedIndex); or set sasi_indexes_enabled: true on every node first",
			run:  runSASIIndex,
		},
		{
			Code: "UD101", Name: "user-defined-function", Severity: Warning,
			What: "CREATE FUNCTION (a user-defined function)",
			Why:  "a default 5.0 cassandra.yaml has user_defined_functions_enabled: false, and the node refuses the function (\"User-defined functions are disabled in cassandra.yaml\") after the statements before it have run",
			Fix:  "compute it in the application; or set user_defined_functions_enabled: true on every node first",
			run:  runUserFunction,
		},
	}
}

// isSASI reports whether an index class is SASI, spelled in full or by its class name.
func isSASI(class string) bool {
	return strings.HasSuffix(strings.ToLower(class), "sasiindex")
}

func runSASIIndex(p *pass) {
	for _, st := range p.stmts {
		if s, ok := st.s.(*cql.CreateIndex); ok && s.Custom && isSASI(s.Using) {
			pos := s.UsingPos
			if pos.Line == 0 {
				pos = s.Pos
			}
			p.report(pos, "SASI index on %s: a default 5.0 cassandra.yaml disables SASI (sasi_indexes_enabled: false) and the node refuses it", s.Table)
		}
	}
}

func runUserFunction(p *pass) {
	for _, st := range p.stmts {
		if s, ok := st.s.(*cql.CreateFunction); ok {
			p.report(s.Pos, "CREATE FUNCTION %s: a default 5.0 cassandra.yaml disables user-defined functions (user_defined_functions_enabled: false) and the node refuses it", s.Name)
		}
	}
}
