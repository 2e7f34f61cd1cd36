package profile

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/cassandratest"
)

// TestRunEmptyTable: a table with no row says no row was read, not that it lacks a column
// WRITETIME can be read from, and its growth says no rate was measured.
func TestRunEmptyTable(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	cassandratest.DDL(t, s, ks, `CREATE TABLE nothing (id int, seq int, body text, PRIMARY KEY (id, seq))`)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := Run(ctx, s, Options{Keyspace: ks, Tables: []string{"nothing"}, Sample: 10, NoTrace: true})
	if err != nil {
		t.Fatal(err)
	}
	tb := r.Tables[0]
	if tb.RowsSeen != 0 || tb.WriteRateSource != "unknown: no rows were read" {
		t.Errorf("%d rows, write_rate_source %q", tb.RowsSeen, tb.WriteRateSource)
	}
	if !strings.Contains(tb.Growth.Note, "no rows were read") || len(tb.Growth.Partitions) != 3 {
		t.Errorf("growth: %+v", tb.Growth)
	}
}
