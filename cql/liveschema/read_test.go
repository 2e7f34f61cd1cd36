package liveschema_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/liveschema"
)

// TestReadRealCluster creates one of everything on the real node and checks that Read
// brings back each detail the sizer and Diff depend on.
func TestReadRealCluster(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	cassandratest.DDL(t, s, ks,
		`CREATE TYPE addr (street text, zip int, tags frozen<set<text>>)`,
		`CREATE TABLE events (
			tenant uuid, day date, at timeuuid, seq int,
			payload blob, attrs map<text, int>, home frozen<addr>, homes list<frozen<addr>>,
			emb vector<float, 3>, pair tuple<int, text>, owner text static, "Label" varchar,
			PRIMARY KEY ((tenant, day), at, seq))
			WITH CLUSTERING ORDER BY (at DESC, seq ASC)
			AND default_time_to_live = 604800 AND gc_grace_seconds = 3600
			AND compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'DAYS', 'compaction_window_size': 1}
			AND comment = 'one of everything'`,
		`CREATE TABLE counters (k text PRIMARY KEY, hits counter)`,
		`CREATE INDEX ON events (attrs)`,
		`CREATE INDEX events_attr_keys ON events (KEYS(attrs))`,
		`CREATE INDEX events_label_sai ON events ("Label") USING 'sai'`,
		`CREATE CUSTOM INDEX events_owner_sai ON events (owner) USING 'StorageAttachedIndex'`,
		`CREATE MATERIALIZED VIEW events_by_label AS SELECT tenant, day, at, seq, "Label" FROM events
			WHERE tenant IS NOT NULL AND day IS NOT NULL AND at IS NOT NULL AND seq IS NOT NULL AND "Label" IS NOT NULL
			PRIMARY KEY (("Label"), tenant, day, at, seq)`,
	)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	got, err := liveschema.Read(ctx, s, ks, "no_such_keyspace")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got.Keyspaces["no_such_keyspace"]; ok || len(got.Keyspaces) != 1 {
		t.Fatalf("keyspaces read: %d; a missing keyspace must be absent", len(got.Keyspaces))
	}
	k := got.Keyspaces[ks]
	if c := k.Replication["class"]; !strings.HasSuffix(c, "SimpleStrategy") {
		t.Errorf("replication class %q", c)
	}

	ev := got.Table(ks, "events")
	if ev == nil {
		t.Fatal("table events not read")
	}
	var pk, ck []string
	for _, c := range ev.PartitionKey {
		pk = append(pk, c.Name)
	}
	for _, c := range ev.Clustering {
		ck = append(ck, c.Name+" "+c.Order.String())
	}
	if strings.Join(pk, ",") != "tenant,day" || strings.Join(ck, ",") != "at desc,seq asc" {
		t.Errorf("key: partition %v clustering %v", pk, ck)
	}
	wantTypes := map[string]string{
		"tenant": "uuid", "day": "date", "at": "timeuuid", "seq": "int", "payload": "blob",
		"attrs": "map<text, int>", "home": "frozen<addr>", "homes": "list<addr>", "emb": "vector<float, 3>",
		"pair": "tuple<int, text>", "owner": "text", "Label": "text",
	}
	for name, want := range wantTypes {
		c := ev.Column(name)
		if c == nil {
			t.Errorf("column %s missing", name)
			continue
		}
		if got := liveschema.TypeString(c.Type); got != want {
			t.Errorf("column %s: type %s, want %s", name, got, want)
		}
	}
	if c := ev.Column("owner"); c == nil || c.Kind != cql.Static {
		t.Errorf("owner is not static: %+v", c)
	}
	if c := ev.Column("home"); c == nil || c.Type.Keyspace != ks {
		t.Errorf("user type column not qualified with its keyspace: %+v", c)
	}
	o := ev.Options
	if o.DefaultTTL != 604800 || o.GCGraceSeconds != 3600 || o.CompactionClass() != "TimeWindowCompactionStrategy" ||
		o.Comment != "one of everything" || o.Compaction["compaction_window_unit"] != "DAYS" {
		t.Errorf("options: ttl %d gc %d compaction %v comment %q", o.DefaultTTL, o.GCGraceSeconds, o.Compaction, o.Comment)
	}
	if got.Table(ks, "counters").Column("hits").Type.Name != "counter" {
		t.Error("counter column type lost")
	}

	ut := k.Types["addr"]
	if ut == nil || len(ut.Fields) != 3 || ut.Fields[2].Name != "tags" || liveschema.TypeString(ut.Fields[2].Type) != "frozen<set<text>>" {
		t.Errorf("user type addr: %+v", ut)
	}

	wantIdx := map[string]string{
		"events_attrs_idx": "values(attrs) legacy", "events_attr_keys": "keys(attrs) legacy",
		"events_label_sai": `"Label" sai`, "events_owner_sai": "owner sai",
	}
	for name, want := range wantIdx {
		ix := k.Indexes[name]
		if ix == nil {
			t.Errorf("index %s missing (have %d indexes)", name, len(k.Indexes))
			continue
		}
		kind := "legacy"
		if ix.Custom {
			kind = ix.Class
		}
		if got := ix.Target + " " + kind; got != want || ix.Table != "events" {
			t.Errorf("index %s: %q on %s, want %q on events", name, got, ix.Table, want)
		}
	}

	v := k.Views["events_by_label"]
	if v == nil || v.BaseTable != "events" || len(v.Table.PartitionKey) != 1 || v.Table.PartitionKey[0].Name != "Label" ||
		len(v.Table.Clustering) != 4 {
		t.Fatalf("view: %+v", v)
	}
	// A view's clustering column keeps the base table's order when the view does not say.
	if at := v.Table.Column("at"); at.Order != cql.Desc {
		t.Errorf("view column at: order %s, want desc (inherited)", at.Order)
	}
	if _, isTable := k.Tables["events_by_label"]; isTable {
		t.Error("the view was also read as a table")
	}

	// Reading all keyspaces includes this one and no system keyspace.
	all, err := liveschema.Read(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if all.Keyspaces[ks] == nil {
		t.Errorf("Read with no keyspace named did not include %s", ks)
	}
	for name := range all.Keyspaces {
		if liveschema.IsSystem(name) {
			t.Errorf("Read returned system keyspace %s", name)
		}
	}
	// The schema read back agrees with itself and differs from an empty one.
	if d := liveschema.Diff(got, got); len(d) != 0 {
		t.Errorf("Diff(read, read) = %q", d)
	}
	if d := liveschema.Diff(cql.NewSchema(), got); len(d) != 1 {
		t.Errorf("Diff(empty, read) = %q, want one line for the keyspace", d)
	}
}
