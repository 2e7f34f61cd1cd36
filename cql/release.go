package cql

import "github.com/cqlsize/cqlsize/cql/options"

// Release is the Cassandra release whose schema rules a Schema follows.
type Release = options.Release

// Release41 and Release50 are the Cassandra releases whose schema rules Schema.Release
// selects. The zero value is 5.0.
const (
	Release50 = options.Release50
	Release41 = options.Release41
)

// checkRelease refuses what st uses that is new in 5.0 when the schema follows 4.1's
// rules: storage-attached indexes (CEP-7, 5.0), vector types (CEP-30, 5.0) and dynamic data
// masking (CEP-20, 5.0). Table options differ too (options.Release41: DTCS and the legacy
// compression keys are still read, UCS is not there yet); tableOptions checks those.
func (s *Schema) checkRelease(stmt Statement) error {
	if s.Release != Release41 {
		return nil
	}
	switch st := stmt.(type) {
	case *CreateTable:
		return columnsOn41(st.Columns)
	case *AlterTable:
		if st.Action == AlterMask && st.Mask != "" {
			return Errorf(st.Column.Pos, "MASKED WITH (dynamic data masking) is new in Cassandra 5.0; 4.1 refuses it")
		}
		return columnsOn41(st.Add)
	case *CreateType:
		for _, f := range st.Fields {
			if hasVector(f.Type) {
				return Errorf(f.TypePos, "vector types are new in Cassandra 5.0; 4.1 refuses %s", f.Type)
			}
		}
	case *AlterUserType:
		if st.Add != nil && hasVector(st.Add.Type) {
			return Errorf(st.Add.TypePos, "vector types are new in Cassandra 5.0; 4.1 refuses %s", st.Add.Type)
		}
	case *CreateIndex:
		if isSAIClass(st.Using) {
			return Errorf(st.Pos, "StorageAttachedIndex (SAI) is new in Cassandra 5.0; 4.1 has secondary indexes and SASI")
		}
	}
	return nil
}

func columnsOn41(cols []*ColumnDef) error {
	for _, c := range cols {
		if hasVector(c.Type) {
			return Errorf(c.TypePos, "vector types are new in Cassandra 5.0; 4.1 refuses %s", c.Type)
		}
		if c.Mask != "" {
			return Errorf(c.Name.Pos, "MASKED WITH (dynamic data masking) is new in Cassandra 5.0; 4.1 refuses it")
		}
	}
	return nil
}

func hasVector(t Type) bool {
	if t.Kind == Vector {
		return true
	}
	for _, p := range t.Params {
		if hasVector(p) {
			return true
		}
	}
	return false
}
