package sizing

import (
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cql/bound"
	"github.com/cqlsize/cqlsize/workload"
)

// TableBucket reads buckets with the rule BK101 uses (cql/bound): a column the lint calls a
// bucket of known width is the bucket estimate sizes with, and one of unknown width is none
// (estimate asks for --bucket instead of guessing).
func TestTableBucketIsTheLintsRule(t *testing.T) {
	for _, tc := range []struct {
		col, typ string
		width    string // "" = no bucket estimate can size with
	}{
		{"day", "date", "day"},
		{"month", "text", "month"},
		{"yyyymm", "int", "month"},
		{"hour_bucket", "int", "hour"},
		{"epoch_day", "int", "day"},
		{"week_start", "timestamp", "iso-week"},
		{"due_minute", "timestamp", "minute"},
		{"bucket", "int", ""},
		{"ts_bucket", "timestamp", ""},
		{"partition", "bigint", ""},
		{"partition_nr", "bigint", ""},
		{"shard", "int", ""},
		{"region", "text", ""},
	} {
		tbl := mustTable("app.t", "k uuid pk", tc.col+" "+tc.typ+" pk", "at timestamp ck", "v text")
		w, col, ok := TableBucket(tbl)
		b, found := bound.Bucket(tbl)
		switch {
		case ok != (tc.width != ""):
			t.Errorf("%s %s: TableBucket ok %v, want a %q bucket", tc.col, tc.typ, ok, tc.width)
		case ok && (w.Name != tc.width || col != tc.col):
			t.Errorf("%s %s: TableBucket %s on %s, want %s", tc.col, tc.typ, w.Name, col, tc.width)
		case ok && (!found || b.Width != w.Name || b.Column != col):
			t.Errorf("%s %s: TableBucket %s on %s, the bound rule says %+v", tc.col, tc.typ, w.Name, col, b)
		}
	}
}

// A bucket column whose width the schema does not say makes estimate ask for --bucket in an
// assumption line, and SZ101 says which width would do, instead of "add a time bucket".
func TestUnknownWidthBucketAsksForBucket(t *testing.T) {
	tbl := mustTable("app.samples", "service text pk", "ts_bucket timestamp pk", "at timestamp ck", "body text")
	w, err := workload.Parse("w.yaml", []byte("tables:\n  samples:\n    write_rate: 50000/hour\n    partitions: 100\n    avg: {service: 10, body: 200}\n"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := EstimateTable(tbl, w.Tables[0], Options{})
	if err != nil {
		t.Fatal(err)
	}
	asked := false
	for _, a := range e.Assumptions {
		if strings.Contains(a, "ts_bucket looks like a time bucket of unknown width: pass --bucket with the span it holds (--bucket day") {
			asked = true
		}
	}
	if !asked {
		t.Errorf("no assumption asks for --bucket: %q", e.Assumptions)
	}
	sz101 := false
	for _, f := range e.Findings {
		if f.Code != CodeBucket {
			continue
		}
		if strings.Contains(f.Message, "add a time bucket") {
			t.Errorf("SZ101 advises a bucket the key already has: %s", f.Message)
		}
		if strings.Contains(f.Message, "ts_bucket looks like a time bucket of unknown width: if it holds an hour (--bucket hour)") {
			sz101 = true
		}
	}
	if !sz101 {
		t.Errorf("SZ101 does not say which width would do: %+v", e.Findings)
	}

	// Given the width, estimate sizes with it and asks nothing.
	w, err = workload.Parse("w.yaml", []byte("tables:\n  samples:\n    write_rate: 50000/hour\n    bucket: hour\n    partitions: 100\n    avg: {service: 10, body: 200}\n"))
	if err != nil {
		t.Fatal(err)
	}
	e, err = EstimateTable(tbl, w.Tables[0], Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range e.Assumptions {
		if strings.Contains(a, "unknown width") {
			t.Errorf("asks for --bucket although the workload gives it: %q", a)
		}
	}

	// A table without any bucket still gets the "add a time bucket" advice.
	flat := mustTable("app.samples", "service text pk", "at timestamp ck", "body text")
	w, err = workload.Parse("w.yaml", []byte("tables:\n  samples:\n    write_rate: 50000/hour\n    partitions: 100\n    avg: {service: 10, body: 200}\n"))
	if err != nil {
		t.Fatal(err)
	}
	e, err = EstimateTable(flat, w.Tables[0], Options{})
	if err != nil {
		t.Fatal(err)
	}
	advised := false
	for _, f := range e.Findings {
		advised = advised || f.Code == CodeBucket && strings.Contains(f.Message, "add a time bucket to the partition key")
	}
	if !advised {
		t.Errorf("an unbucketed table is not advised a bucket: %+v", e.Findings)
	}
}
