package ddl

import (
	"context"

	"github.com/gocql/gocql"
)

// CreateTableSending is CreateTable with each attempt sent by send instead of on s: a test
// sends the first attempt on a session whose client timeout is too short for it.
func CreateTableSending(ctx context.Context, s *gocql.Session, t Table, opt Options, send func(context.Context, string) error) error {
	return createTable(ctx, s, t, opt, send)
}

// CreateKeyspaceSending is CreateKeyspace with each attempt sent by send.
func CreateKeyspaceSending(ctx context.Context, s *gocql.Session, keyspace, stmt string, opt Options, send func(context.Context, string) error) error {
	return createKeyspace(ctx, s, keyspace, stmt, opt, send)
}

// AddColumnSending is AddColumn with each attempt sent by send.
func AddColumnSending(ctx context.Context, s *gocql.Session, keyspace, table, column, def string, opt Options, send func(context.Context, string) error) error {
	return addColumn(ctx, s, keyspace, table, column, def, opt, send)
}

// ApplySending is Apply with each attempt sent by send.
func ApplySending(ctx context.Context, s *gocql.Session, scope, keyspace, stmt string, opt Options, send func(context.Context, string) error) error {
	return apply(ctx, s, scope, keyspace, stmt, opt, send)
}

// Judged is what Apply makes of stmt: what it names in errors, what it sends, and whether
// it checks the change's effect (false: sent once).
func Judged(scope, keyspace, stmt string) (what, text string, checked bool) {
	c, ok := judge(nil, scope, keyspace, stmt)
	return c.what, c.text, ok
}
