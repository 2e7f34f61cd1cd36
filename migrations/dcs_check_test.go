package migrations

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// The replica arithmetic is recomputed by hand here: 2+2 replicas, SERIAL needs a majority
// of 4 (3); LOCAL_SERIAL a majority of the local DC's 2 (2).
func TestCheckReplicas(t *testing.T) {
	repl := map[string]int{"dc1": 2, "dc2": 2}
	whole := []DCHealth{{DC: "dc1", Nodes: 2}, {DC: "dc2", Nodes: 2}}
	dc2Gone := []DCHealth{{DC: "dc1", Nodes: 2}, {DC: "dc2", Nodes: 2, Down: []string{"127.0.6.1:7000", "127.0.6.2:7000"}}}
	oneDown := []DCHealth{{DC: "dc1", Nodes: 2, Down: []string{"127.0.5.2:7000"}}, {DC: "dc2", Nodes: 2}}
	for _, tc := range []struct {
		name        string
		dcs         []DCHealth
		repl        map[string]int
		local       bool
		wantErr     bool
		need, have  int
		wantInError []string
	}{
		{name: "whole cluster, SERIAL", dcs: whole, repl: repl},
		{name: "one node of dc1 down, SERIAL: 3 of 4 up", dcs: oneDown, repl: repl},
		{name: "dc2 gone, SERIAL: 2 of 4 up, 3 needed", dcs: dc2Gone, repl: repl, wantErr: true, need: 3, have: 2,
			wantInError: []string{"dc2 short of replicas", "dc2: 0 of 2 nodes up (127.0.6.1:7000, 127.0.6.2:7000 down)", "SERIAL needs 3 of 4 replicas and at most 2 are up", "Nothing was run", "--serial local --local-dc DC", "twice"}},
		{name: "dc2 gone, LOCAL_SERIAL in dc1: 2 of 2", dcs: dc2Gone, repl: repl, local: true},
		{name: "one node of dc1 down, LOCAL_SERIAL in dc1: 1 of 2, 2 needed", dcs: oneDown, repl: repl, local: true, wantErr: true, need: 2, have: 1,
			wantInError: []string{"dc1 short of replicas", "LOCAL_SERIAL needs 2 of 2"}},
		{name: "RF 3 on 2 nodes: 2 copies a range, one down leaves 1 of 2 in dc1 + 2 in dc2 = 3 of 6, 4 needed",
			dcs: oneDown, repl: map[string]int{"dc1": 3, "dc2": 3}, wantErr: true, need: 4, have: 3},
		{name: "keyspace not in the local DC: nothing to count", dcs: dc2Gone, repl: map[string]int{"dc2": 2}, local: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkReplicas("app", tc.repl, tc.dcs, tc.local, "dc1")
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if err == nil {
				return
			}
			if !errors.Is(err, ErrReplicasDown) {
				t.Errorf("%v is not ErrReplicasDown", err)
			}
			var e *ReplicasDownError
			if !errors.As(err, &e) || e.Need != tc.need || e.Have != tc.have {
				t.Errorf("need %d have %d, want %d and %d", e.Need, e.Have, tc.need, tc.have)
			}
			for _, w := range tc.wantInError {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%s", w, err)
				}
			}
		})
	}
}

func TestLocalSerialNeedsLocalDC(t *testing.T) {
	err := Options{Keyspace: "app", LocalSerial: true}.Validate()
	if err == nil || !strings.Contains(err.Error(), "LocalDC") {
		t.Fatalf("Validate = %v, want an error naming LocalDC", err)
	}
	o, err := Options{Keyspace: "app", LocalSerial: true, LocalDC: "dc1"}.withDefaults()
	if err != nil || o.Consistency.String() != "LOCAL_QUORUM" {
		t.Fatalf("withDefaults = %v, %v; want LOCAL_QUORUM bookkeeping", o.Consistency, err)
	}
	o, _ = Options{Keyspace: "app"}.withDefaults()
	if o.Consistency.String() != "QUORUM" {
		t.Fatalf("default bookkeeping consistency %v, want QUORUM", o.Consistency)
	}
}

// A lagging node is named with its DC, and so is a down one.
func TestDisagreementNamesTheDC(t *testing.T) {
	last := []nodeView{
		{Addr: "127.0.5.1:7000", DC: "dc1", Version: "v2", Status: "NORMAL"},
		{Addr: "127.0.5.2:7000", DC: "dc1", Version: "v2", Status: "NORMAL"},
		{Addr: "127.0.6.1:7000", DC: "dc2", Version: "v2", Status: "NORMAL"},
		{Addr: "127.0.6.2:7000", DC: "dc2", Version: "v1", Status: "NORMAL"},
	}
	err := disagreement("0002_items.cql:1:1", agreement{timeout: time.Second}, last, nil, nil).Error()
	if !strings.Contains(err, "127.0.6.2:7000 in dc2 has v1 (the others have v2)") {
		t.Errorf("disagreement does not name the lagging node with its DC:\n%s", err)
	}
	down := disagreement("0002_items.cql:1:1", agreement{timeout: time.Second}, last, last[2:], nil).Error()
	if !strings.Contains(down, "127.0.6.1:7000 in dc2, 127.0.6.2:7000 in dc2 down and not counted") {
		t.Errorf("disagreement does not name the down nodes with their DC:\n%s", down)
	}
	if w := describeDown(nodeView{Addr: "127.0.6.1:7000", DC: "dc2", Status: "shutdown"}); w != "127.0.6.1:7000 in dc2 (shut down)" {
		t.Errorf("describeDown = %q", w)
	}
}
