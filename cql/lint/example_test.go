package lint_test

import (
	"fmt"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/lint"
)

func ExampleRun() {
	// What exists before the file runs (for `migrate up`: the live schema). The
	// destructive lints (DS1xx) report only drops of what exists there: a table or column
	// the same run created holds no data yet.
	before := cql.NewSchemaIn("app")
	if err := before.ApplyFile("live", []byte(`CREATE TABLE readings (
    sensor_id uuid, at timestamp, value double, PRIMARY KEY (sensor_id, at));`)); err != nil {
		fmt.Println(err)
		return
	}
	src := []byte(`CREATE TABLE IF NOT EXISTS readings (
    sensor_id uuid, at timestamp, value double,
    PRIMARY KEY (sensor_id, at));

-- cqlsize:nolint DS103 -- nobody reads it since v41
ALTER TABLE readings DROP value;
SELECT * FROM readings WHERE value > 3 ALLOW FILTERING;
`)
	stmts, err := cql.ParseFile("0007_readings.cql", src)
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := lint.Run(lint.Input{
		Files:    []lint.File{{Name: "0007_readings.cql", Source: src, Statements: stmts}},
		Schema:   before,
		Keyspace: "app",
	}, lint.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range rep.Diagnostics {
		if d.Silenced {
			fmt.Println(d, "(silenced)")
			continue
		}
		fmt.Println(d)
	}
	fmt.Println(rep.Errors(), "errors")
	// Output:
	// 0007_readings.cql:1:1: BK101 warning: clustered by event time at (timestamp) and nothing bounds partition (sensor_id): no time bucket, no count column, no TTL; each partition grows for as long as its key is written
	// 0007_readings.cql:6:27: DS103 error: ALTER TABLE readings DROP value deletes the column's data (silenced)
	// 0007_readings.cql:7:1: AF101 error: SELECT from readings with ALLOW FILTERING scans rows across partitions
	// 1 errors
}
