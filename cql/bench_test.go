package cql

import (
	"fmt"
	"strings"
	"testing"
)

// largeFile builds a schema file of n tables, each with an index, a few ALTERs and some
// queries: about 1 KB of CQL per table.
func largeFile(n int) []byte {
	var b strings.Builder
	b.WriteString("CREATE KEYSPACE bench WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3};\nUSE bench;\n")
	b.WriteString("CREATE TYPE addr (street text, city text, zip int, geo frozen<tuple<double, double>>);\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `-- table %d: readings bucketed by day
CREATE TABLE t%d (
    sensor_id uuid, day date, ts timestamp, seq int,
    value double, unit text STATIC, tags set<text>, attrs map<text, frozen<list<int>>>,
    home frozen<addr>, emb vector<float, 8>,
    PRIMARY KEY ((sensor_id, day), ts, seq)
) WITH CLUSTERING ORDER BY (ts DESC, seq ASC)
  AND default_time_to_live = 86400 AND gc_grace_seconds = 3600
  AND compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'HOURS', 'compaction_window_size': 6}
  AND comment = 'table %d; with a semicolon';
CREATE INDEX ON t%d (keys(attrs));
ALTER TABLE t%d ADD note text;
SELECT sensor_id, ts, value, writetime(value) FROM t%d WHERE sensor_id = ? AND day IN (?, ?) AND (ts, seq) > (?, ?) ORDER BY ts DESC LIMIT 100;
INSERT INTO t%d (sensor_id, day, ts, seq, value, tags) VALUES (?, ?, ?, ?, ?, {'a', 'b'}) USING TTL 3600;
UPDATE t%d SET tags = tags + {'c'}, attrs['x'] = [1, 2] WHERE sensor_id = ? AND day = ? AND ts = ? AND seq = ?;
`, i, i, i, i, i, i, i, i)
	}
	return []byte(b.String())
}

func BenchmarkSplitStatements(b *testing.B) {
	src := largeFile(1000)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := SplitStatements("bench.cql", src); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseFile(b *testing.B) {
	src := largeFile(1000)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseFile("bench.cql", src); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkApplyFile(b *testing.B) {
	src := largeFile(1000)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if err := NewSchema().ApplyFile("bench.cql", src); err != nil {
			b.Fatal(err)
		}
	}
}
