package cli

import (
	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/check"
	"github.com/cqlsize/cqlsize/cql/options"
	"github.com/cqlsize/cqlsize/migrations"
)

// The model check of a history has one judge for every migrate command that checks
// statements before they run: validate, plan, and up before it takes the lock and again
// under it. Beyond the schema model, a SELECT is judged as the node prepares it
// (check.Rejection): were plan or up to skip that, a file validate refuses would pass plan
// and stop up half way, at the statement validate named.

// judgedHistory is the schema a list of migrations builds, each statement judged as the
// node would (migrations.SchemaJudged with check.Rejection); its error names every refusal.
func judgedHistory(migs []*migrations.Migration, keyspace string, rel options.Release) (*cql.Schema, error) {
	return migrations.SchemaJudged(migs, keyspace, rel, check.Rejection)
}

// judging makes s judge the statements applied to it as judgedHistory does, and returns it.
func judging(s *cql.Schema) *cql.Schema {
	s.CheckSelect = check.Rejection
	return s
}
