package profile

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/workload"
)

// A profile of one data center says so at the top of the workload file, in a comment the
// workload reader skips.
func TestWorkloadSaysLocalDC(t *testing.T) {
	r := &Result{Keyspace: "ks", Consistency: "LOCAL_ONE", LocalDC: "dc2", Tables: []*Table{{Keyspace: "ks", Name: "events",
		Schema: table(t, "CREATE TABLE ks.events (id int, seq int, PRIMARY KEY (id, seq));"), PartitionsSeen: 10, Partitions: 10,
		PartitionsSource: "counted", MeanRows: 2, MeanRowsSource: "counted"}}}
	var b bytes.Buffer
	if err := r.WriteWorkload(&b); err != nil {
		t.Fatal(err)
	}
	want := "# Sampled in data center dc2 only (--local-dc: every read routed there, at LOCAL_ONE)"
	if !strings.Contains(b.String(), want) {
		t.Errorf("workload lacks %q:\n%s", want, b.String())
	}
	if _, err := workload.Parse("w.yaml", b.Bytes()); err != nil {
		t.Errorf("the workload does not read back: %v", err)
	}
	r.LocalDC = ""
	b.Reset()
	if err := r.WriteWorkload(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "data center") {
		t.Errorf("a profile of every DC names one:\n%s", b.String())
	}
}
