package cql_test

import (
	"strings"
	"testing"
)

// TestStringFormsOfValues: a string that no parser of the node reads as a date, a time, a
// timestamp or an address is refused with the node's words, and every form the node reads
// (or may read: other layouts, host names, leap days) passes. The verdicts are those a
// 5.0.9 node gave (the wide corpus, insert.cql and literals.cql, and Cassandra's own
// parsers: yyyy-MM-dd, hh:mm:ss[.fffffffff], a day count, "now").
func TestStringFormsOfValues(t *testing.T) {
	for _, tc := range []struct {
		col, value, want string // want: a piece of the refusal, "" when the node applies it
	}{
		{"dt", "'2024-02-29'", ""},
		{"dt", "'2023-02-29'", ""}, // not a leap year: the node's to judge
		{"dt", "'2024-1-5'", ""},
		{"dt", "'2147483648'", ""}, // a day count, epoch at 2^31
		{"dt", "'4294967295'", ""},
		{"dt", "'4294967296'", "Unable to make unsigned int (for date) from: '4294967296'"},
		{"dt", "'-1'", "Unable to make unsigned int"},
		{"dt", "'2024-13-01'", "Unable to coerce '2024-13-01' to a formatted date (long)"},
		{"dt", "'2024-04-31'", "to a formatted date"},
		{"dt", "'2024-01-00'", "to a formatted date"},
		{"dt", "'-5877641-06-23'", ""},
		{"dt", "'-5877642-12-31'", "is less than min supported date"},
		{"dt", "'5881581-01-01'", "is greater than max supported date"},
		{"dt", "'next tuesday'", ""}, // no layout we judge: the node's
		{"tm", "'23:59:59.999999999'", ""},
		{"tm", "'00:00:00'", ""},
		{"tm", "'24:00:00'", "(TimeType) Unable to coerce '24:00:00' to a formatted time (long)"},
		{"tm", "'12:60:00'", "to a formatted time"},
		{"tm", "'12:00:60'", "to a formatted time"},
		{"ts", "'2024-01-02 03:04:05+0000'", ""},
		{"ts", "'now'", ""},
		{"ts", "'NOW'", ""},
		{"ts", "''", ""}, // an empty value, which a timestamp and an inet take, a date and a time not
		{"ip", "''", ""},
		{"ts", "' '", "Unable to parse a date/time from ' '"},
		{"dt", "''", "Unable to coerce '' to a formatted date (long)"},
		{"tm", "' '", "(TimeType) Unable to coerce ' ' to a formatted time (long)"},
		{"ts", "'1700000000000'", ""},
		{"ts", "'tomorrow'", "Unable to parse a date/time from 'tomorrow'"},
		{"ip", "'10.0.0.255'", ""},
		{"ip", "'::1'", ""},
		{"ip", "'localhost'", ""}, // a host name the node looks up
		{"ip", "'10.0.0.256'", "Unable to make inet address from '10.0.0.256'"},
		{"du", "1h30m", ""},
		{"du", "1mo2d3ms", ""},
		{"du", "-2d", ""},
		{"du", "P1DT2H", ""},
		{"du", "1h2h", "Invalid duration. The hours are specified multiple times"},
		{"du", "1ms5ms", "The milliseconds are specified multiple times"},
		{"du", "1m1mo", ""}, // minutes and months are two units
	} {
		model := newOptionsModel(t, "lit")
		if err := model.ApplyFile("t.cql", []byte("CREATE TABLE v (k int PRIMARY KEY, dt date, tm time, ts timestamp, ip inet, du duration);")); err != nil {
			t.Fatal(err)
		}
		stmt := "INSERT INTO v (k, " + tc.col + ") VALUES (1, " + tc.value + ");"
		err := model.ApplyFile("i.cql", []byte(stmt))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: refused (%v), the node applies it", stmt, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: got %v, want a refusal with %q", stmt, err, tc.want)
		}
	}
}

// TestReplicationValues: CREATE KEYSPACE reads its factors as the node does. A negative or
// unreadable factor, an option SimpleStrategy does not take and a NetworkTopologyStrategy
// that places no replica anywhere are refused; a SimpleStrategy without a factor (the node's
// default_keyspace_rf) and a data center at 0 beside one that holds replicas pass. The
// verdicts are those of a 5.0.9 node (the wide corpus, keyspace.cql).
func TestReplicationValues(t *testing.T) {
	for repl, want := range map[string]string{
		"{'class': 'SimpleStrategy'}":                                    "",
		"{'class': 'SimpleStrategy', 'replication_factor': 0}":           "",
		"{'class': 'SimpleStrategy', 'replication_factor': '2'}":         "",
		"{'class': 'SimpleStrategy', 'replication_factor': -2}":          "not a replica count",
		"{'class': 'SimpleStrategy', 'replication_factor': 'two'}":       "not a replica count",
		"{'class': 'SimpleStrategy', 'replication_factor': 1, 'dc1': 1}": "SimpleStrategy takes replication_factor only",
		"{'class': 'NetworkTopologyStrategy', 'dc1': 3, 'dc2': 0}":       "",
		"{'class': 'NetworkTopologyStrategy', 'replication_factor': 3}":  "",
		"{'class': 'NetworkTopologyStrategy', 'dc1': 0}":                 "Configuration for at least one datacenter must be present",
		"{'class': 'NetworkTopologyStrategy', 'dc1': 0, 'dc2': '0'}":     "Configuration for at least one datacenter must be present",
	} {
		stmt := "CREATE KEYSPACE r WITH replication = " + repl + ";"
		err := newOptionsModel(t, "lit").ApplyFile("k.cql", []byte(stmt))
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: refused (%v), the node applies it", stmt, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: got %v, want a refusal with %q", stmt, err, want)
		}
	}
}
