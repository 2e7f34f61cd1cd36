package check

import "github.com/cqlsize/cqlsize/cql"

// Statement is the parsed SELECT of a query read by ParseQueries (nil for a Query built
// by hand), so another analysis (a design) reads the same statement with its positions.
func (q *Query) Statement() *cql.Select { return q.stmt }
