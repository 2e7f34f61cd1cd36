package cql

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestParseReplication(t *testing.T) {
	for _, c := range []struct {
		src     string
		want    Replication
		total   int
		totalOK bool
		text    string
	}{
		{"{'class': 'NetworkTopologyStrategy', 'dc1': 3, 'dc2': 3}",
			Replication{Class: NetworkTopologyStrategy, DCs: map[string]int{"dc1": 3, "dc2": 3}}, 6, true,
			"{'class': 'NetworkTopologyStrategy', 'dc1': '3', 'dc2': '3'}"},
		// the form DESCRIBE KEYSPACE writes: values as text, the class's full name
		{"{'class': 'org.apache.cassandra.locator.NetworkTopologyStrategy', 'dc1': '2', 'dc2': '1'}",
			Replication{Class: NetworkTopologyStrategy, DCs: map[string]int{"dc1": 2, "dc2": 1}}, 3, true,
			"{'class': 'NetworkTopologyStrategy', 'dc1': '2', 'dc2': '1'}"},
		{"{ 'class' : 'SimpleStrategy' , 'replication_factor' : 1 }",
			Replication{Class: SimpleStrategy, Factor: 1}, 1, true,
			"{'class': 'SimpleStrategy', 'replication_factor': '1'}"},
		// transient replication: the full replicas count
		{"{'class': 'NetworkTopologyStrategy', 'dc1': '3/1'}",
			Replication{Class: NetworkTopologyStrategy, DCs: map[string]int{"dc1": 3}}, 3, true,
			"{'class': 'NetworkTopologyStrategy', 'dc1': '3'}"},
		// a default for every DC: which DCs it reaches is the cluster's
		{"{'class': 'NetworkTopologyStrategy', 'replication_factor': 3}",
			Replication{Class: NetworkTopologyStrategy, Factor: 3}, 0, false,
			"{'class': 'NetworkTopologyStrategy', 'replication_factor': '3'}"},
		{"{'class': 'EverywhereStrategy'}", Replication{Class: "EverywhereStrategy"}, 0, false, "{'class': 'EverywhereStrategy'}"},
		// a DC named with a quote in it is written back as CQL escapes it
		{"{'class': 'NetworkTopologyStrategy', 'it''s': 1}",
			Replication{Class: NetworkTopologyStrategy, DCs: map[string]int{"it's": 1}}, 1, true,
			"{'class': 'NetworkTopologyStrategy', 'it''s': '1'}"},
	} {
		got, err := ParseReplication("", c.src)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %+v, want %+v", c.src, got, c.want)
		}
		if n, ok := got.Total(); n != c.total || ok != c.totalOK {
			t.Errorf("%s: Total() = %d, %v; want %d, %v", c.src, n, ok, c.total, c.totalOK)
		}
		if s := got.String(); s != c.text {
			t.Errorf("%s: String() = %s, want %s", c.src, s, c.text)
		}
		// What String writes reads back the same.
		again, err := ParseReplication("", got.String())
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Errorf("%s: String() %s reads back as %+v, %v", c.src, got.String(), again, err)
		}
	}
}

func TestParseReplicationErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"", "1:1: expected a replication map"},
		{"NetworkTopologyStrategy", "1:1: expected a replication map"},
		{"{'dc1': 3}", "1:1: missing replication strategy class"},
		{"{'class': 'Nope', 'dc1': 3}", "1:11: unknown replication strategy class \"Nope\""},
		{"{'class': 'NetworkTopologyStrategy', 'dc1': 'three'}", "1:45: replication \"dc1\": \"three\" is not a replica count"},
		{"{'class': 'NetworkTopologyStrategy', 'dc1': -1}", "1:45: replication \"dc1\": \"-1\" is not a replica count"},
		{"{'class': 'SimpleStrategy'}", "1:1: SimpleStrategy requires a replication_factor"},
		{"{'class': 'SimpleStrategy', 'dc1': 3}", "1:36: SimpleStrategy takes replication_factor only"},
		{"{'class': 'NetworkTopologyStrategy', 'dc1': 3", "expected '}'"},
		{"{'class': 'NetworkTopologyStrategy', 'dc1': 3} x", "1:48: expected the end of the replication map"},
		{"{'class': 'NetworkTopologyStrategy', 'dc1': 3, 'dc1': 2}", "multiple definition for property dc1"},
	} {
		_, err := ParseReplication("", c.src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want an error containing %q", c.src, err, c.want)
		}
	}
}

// TestReplicationOf reads the map<text, text> system_schema.keyspaces returns.
func TestReplicationOf(t *testing.T) {
	for _, c := range []struct {
		in   map[string]string
		want Replication
		err  string
	}{
		{map[string]string{"class": "org.apache.cassandra.locator.NetworkTopologyStrategy", "dc1": "2", "dc2": "1"},
			Replication{Class: NetworkTopologyStrategy, DCs: map[string]int{"dc1": 2, "dc2": 1}}, ""},
		{map[string]string{"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "1"},
			Replication{Class: SimpleStrategy, Factor: 1}, ""},
		{map[string]string{"class": "org.apache.cassandra.locator.LocalStrategy"}, Replication{Class: "LocalStrategy"}, ""},
		{nil, Replication{}, ""},
		{map[string]string{"class": "org.apache.cassandra.locator.NetworkTopologyStrategy", "dc1": "x"}, Replication{},
			"replication {'class': 'NetworkTopologyStrategy', 'dc1': 'x'}: replication \"dc1\": \"x\" is not a replica count (a whole number, 0 or more)"},
	} {
		got, err := ReplicationOf(c.in)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%v: got %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v: got %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	// The node's map and the literal a migration writes are one replication.
	lit, err := ParseReplication("", "{'class': 'NetworkTopologyStrategy', 'dc1': 2, 'dc2': 1}")
	if err != nil {
		t.Fatal(err)
	}
	node, err := ReplicationOf(lit.Map())
	if err != nil || !reflect.DeepEqual(node, lit) {
		t.Errorf("Map() reads back as %+v, %v; want %+v", node, err, lit)
	}
	if got := lit.Map()["class"]; got != "org.apache.cassandra.locator.NetworkTopologyStrategy" {
		t.Errorf("Map()[class] = %q, want the full name system_schema keeps", got)
	}
}

func ExampleParseReplication() {
	r, err := ParseReplication("", "{'class': 'NetworkTopologyStrategy', 'dc1': 3, 'dc2': 2}")
	if err != nil {
		fmt.Println(err)
		return
	}
	total, _ := r.Total()
	for _, dc := range r.DCNames() {
		fmt.Printf("%s: %d copies\n", dc, r.DCs[dc])
	}
	fmt.Println("cluster:", total, "copies of each row")
	// Output:
	// dc1: 3 copies
	// dc2: 2 copies
	// cluster: 5 copies of each row
}
