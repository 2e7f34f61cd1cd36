package migrations_test

import (
	"errors"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/migrations"
)

// A file that stopped partway says which statement to fix, what ran before it, and what
// to do: change the statement when the node refused it, run again as is otherwise.
func TestPartialErrorSaysWhatToFix(t *testing.T) {
	at := func(line int) cql.Pos { return cql.Pos{File: "m/0003_x.cql", Line: line, Col: 1} }
	cases := []struct {
		name string
		e    migrations.PartialError
		want string
	}{
		{"refused after two ran",
			migrations.PartialError{File: "m/0003_x.cql", Statement: 3, Total: 4, Applied: 2, Pos: at(5), LastRan: at(3),
				Text: "CREATE INDEX ON b\n   (nosuch)", Refused: true, Err: errors.New("CREATE INDEX: Undefined column name nosuch")},
			"m/0003_x.cql:5:1: statement 3 of 4 failed (2 applied, recorded; the next run continues from statement 3): CREATE INDEX: Undefined column name nosuch\n" +
				"  the statement (5:1): CREATE INDEX ON b (nosuch)\n" +
				"  applied before it: statements 1-2 (the last at 3:1); the next run skips them. Leave them as they are: a change to a statement that ran is refused as a changed checksum\n" +
				"  to do: the node refused it, so it did not run and will fail again as written: fix statement 3 in m/0003_x.cql, then run up again; it continues from statement 3"},
		{"refused first",
			migrations.PartialError{File: "m/0003_x.cql", Statement: 1, Total: 2, Pos: at(1), Text: "DROP TABLE gone", Refused: true, Err: errors.New("DROP TABLE: table gone does not exist")},
			"m/0003_x.cql:1:1: statement 1 of 2 failed (0 applied, recorded; the next run continues from statement 1): DROP TABLE: table gone does not exist\n" +
				"  the statement (1:1): DROP TABLE gone\n" +
				"  applied before it: none of the file's statements\n" +
				"  to do: the node refused it, so it did not run and will fail again as written: fix statement 1 in m/0003_x.cql, then run up again; it continues from statement 1"},
		{"a timeout after one ran: run again as is",
			migrations.PartialError{File: "m/0003_x.cql", Statement: 2, Total: 2, Applied: 1, Pos: at(2), LastRan: at(1), Text: "ALTER TABLE a ADD c int", Err: errors.New("ALTER TABLE: timeout")},
			"m/0003_x.cql:2:1: statement 2 of 2 failed (1 applied, recorded; the next run continues from statement 2): ALTER TABLE: timeout\n" +
				"  the statement (2:1): ALTER TABLE a ADD c int\n" +
				"  applied before it: statement 1 (1:1); the next run skips it. Leave it as it is: a change to a statement that ran is refused as a changed checksum\n" +
				"  to do: run up again once the cause above is gone, with the file as it is; it continues from statement 2"},
	}
	for _, tc := range cases {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}
