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
