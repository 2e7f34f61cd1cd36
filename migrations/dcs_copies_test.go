package migrations

import (
	"fmt"
	"testing"
)

// markLacks against histories written out by hand: what one DC records and another does
// not, or records with another state or checksum, is what the other lacks; a DC that could
// not be read is judged by nobody and judges nobody.
func TestMarkLacks(t *testing.T) {
	full := map[int64]string{1: "applied a", 2: "applied b", 3: "applied c"}
	for _, tc := range []struct {
		name        string
		dcs         []DCCopy
		lacks, lags []string // per DC, as fmt prints them
	}{
		{"both whole", []DCCopy{
			{DC: "dc1", Records: full, Schema: map[string]string{"n1": "v", "n2": "v"}},
			{DC: "dc2", Records: full, Schema: map[string]string{"n3": "v", "n4": "v"}},
		}, []string{"[]", "[]"}, []string{"[]", "[]"}},
		{"dc2 missed the outage", []DCCopy{
			{DC: "dc1", Records: full, Schema: map[string]string{"n1": "v", "n2": "v"}},
			{DC: "dc2", Records: map[int64]string{}, Schema: map[string]string{"n3": "v", "n4": "v"}},
		}, []string{"[]", "[1 2 3]"}, []string{"[]", "[]"}},
		{"dc2 holds version 2 as failed, and a node on another schema", []DCCopy{
			{DC: "dc1", Records: full, Schema: map[string]string{"n1": "v", "n2": "v"}},
			{DC: "dc2", Records: map[int64]string{1: "applied a", 2: "failed b", 3: "applied c"}, Schema: map[string]string{"n3": "v", "n4": "old"}},
		}, []string{"[2]", "[2]"}, []string{"[]", "[n4]"}},
		{"dc2 unreadable", []DCCopy{
			{DC: "dc1", Records: full, Schema: map[string]string{"n1": "v", "n2": "v"}},
			{DC: "dc2", ReadErr: fmt.Errorf("down"), Schema: map[string]string{"n3": "", "n4": ""}},
		}, []string{"[]", "[]"}, []string{"[]", "[n3 n4]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			markLacks(tc.dcs)
			for i, c := range tc.dcs {
				if got := fmt.Sprint(c.Lacks); got != tc.lacks[i] {
					t.Errorf("%s lacks %s, want %s", c.DC, got, tc.lacks[i])
				}
				if got := fmt.Sprint(c.SchemaLags); got != tc.lags[i] {
					t.Errorf("%s schema lags %s, want %s", c.DC, got, tc.lags[i])
				}
			}
		})
	}
}

// The repair names each keyspace the run wrote to, once: bookkeeping first.
func TestRepairCommands(t *testing.T) {
	for _, tc := range []struct {
		opt  Options
		want string
	}{
		{Options{Keyspace: "app", BookkeepingKeyspace: "deploys"}, "[nodetool repair -full deploys nodetool repair -full app]"},
		{Options{Keyspace: "app", BookkeepingKeyspace: "app"}, "[nodetool repair -full app]"},
	} {
		if got := fmt.Sprint((&Migrator{opt: tc.opt}).RepairCommands()); got != tc.want {
			t.Errorf("%+v: %s, want %s", tc.opt, got, tc.want)
		}
	}
}

// A keyspace with a replica on every node of the DC is repaired on one of its nodes; one
// with fewer replicas than the DC has nodes on each node named; the bookkeeping first.
func TestRepairPlan(t *testing.T) {
	hosts := []string{"127.0.6.1:7000", "127.0.6.2:7000", "127.0.6.3:7000"}
	for _, tc := range []struct {
		name      string
		keyspaces []string
		rf        map[string]int
		nodes     int
		hosts     []string
		want      string
	}{
		{"every node a replica", []string{"app"}, map[string]int{"app": 2}, 2, hosts[:2],
			"[{127.0.6.1 nodetool repair -full app}]"},
		{"more replicas than nodes", []string{"app"}, map[string]int{"app": 3}, 2, hosts[:2],
			"[{127.0.6.1 nodetool repair -full app}]"},
		{"fewer replicas than nodes", []string{"app"}, map[string]int{"app": 2}, 3, hosts[:2],
			"[{127.0.6.1 nodetool repair -full app} {127.0.6.2 nodetool repair -full app}]"},
		{"replication unknown", []string{"app"}, map[string]int{}, 2, hosts[:2],
			"[{127.0.6.1 nodetool repair -full app} {127.0.6.2 nodetool repair -full app}]"},
		{"two keyspaces, one on every node", []string{"deploys", "app"}, map[string]int{"deploys": 3, "app": 1}, 3, hosts,
			"[{127.0.6.1 nodetool repair -full deploys} {127.0.6.1 nodetool repair -full app} {127.0.6.2 nodetool repair -full app} {127.0.6.3 nodetool repair -full app}]"},
		{"one node down", []string{"app"}, map[string]int{"app": 1}, 3, hosts[2:],
			"[{127.0.6.3 nodetool repair -full app}]"},
	} {
		if got := fmt.Sprint(repairPlan(tc.keyspaces, tc.rf, tc.nodes, tc.hosts)); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}
