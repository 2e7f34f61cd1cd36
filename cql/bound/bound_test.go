package bound_test

import (
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/bound"
)

// table builds the model of one CREATE TABLE (and whatever ALTERs follow it) in keyspace ks.
func table(t *testing.T, src string) *cql.Table {
	t.Helper()
	s := cql.NewSchemaIn("ks")
	if err := s.ApplyFile("t.cql", []byte(src)); err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	tables := s.Keyspaces["ks"].Tables
	if len(tables) != 1 {
		t.Fatalf("want one table, got %d", len(tables))
	}
	for _, tb := range tables {
		return tb
	}
	return nil
}

func TestJudge(t *testing.T) {
	for _, tc := range []struct {
		name      string
		src       string
		unbounded bool
		series    string // the event-time column, "" when not a time series
		bounds    []bound.Kind
		reason    []string // substrings of the reason
	}{
		{"timestamp, nothing bounds it",
			"CREATE TABLE r (sensor_id uuid, at timestamp, v double, PRIMARY KEY (sensor_id, at))",
			true, "at", nil, []string{"clustered by event time at (timestamp)", "nothing bounds partition (sensor_id)", "no time bucket, no count column, no TTL"}},
		{"bigint named like a time",
			"CREATE TABLE r (svc text, start_time bigint, v blob, PRIMARY KEY (svc, start_time))",
			true, "start_time", nil, []string{"bigint; named like a time"}},
		{"bigint microseconds suffix",
			"CREATE TABLE r (svc text, began_us bigint, v blob, PRIMARY KEY (svc, began_us))",
			true, "began_us", nil, nil},
		{"bigint duration is not a time",
			"CREATE TABLE r (svc text, took_us bigint, v blob, PRIMARY KEY (svc, took_us))",
			false, "", nil, []string{"not a time series: clustered by took_us, none of them a time"}},
		{"int created",
			"CREATE TABLE r (k text, created int, v blob, PRIMARY KEY (k, created))",
			true, "created", nil, nil},
		{"bigint id is not a time",
			"CREATE TABLE r (k text, node_id bigint, v blob, PRIMARY KEY (k, node_id))",
			false, "", nil, nil},
		{"entity-id timeuuid",
			"CREATE TABLE r (run_id timeuuid, segment_id timeuuid, s int, PRIMARY KEY (run_id, segment_id))",
			false, "", nil, []string{"segment_id is the id of a segment, a timeuuid that names a thing, not a moment"}},
		{"bare id names the table's rows",
			"CREATE TABLE schedules (ks text, id timeuuid, s int, PRIMARY KEY (ks, id))",
			false, "", nil, []string{"id is the id of a row of schedules"}},
		{"bare id of an events table is an event",
			"CREATE TABLE device_events (dev uuid, id timeuuid, s int, PRIMARY KEY (dev, id))",
			true, "id", nil, nil},
		{"event-id timeuuid",
			"CREATE TABLE r (video_id uuid, comment_id timeuuid, body text, PRIMARY KEY (video_id, comment_id))",
			true, "comment_id", nil, []string{"the id of a comment, an event"}},
		{"glued event id",
			"CREATE TABLE r (videoid uuid, commentid timeuuid, body text, PRIMARY KEY (videoid, commentid))",
			true, "commentid", nil, nil},
		{"timeuuid not named an id is a moment",
			"CREATE TABLE r (k text, written_at timeuuid, body text, PRIMARY KEY (k, written_at))",
			true, "written_at", nil, nil},
		{"day bucket by type",
			"CREATE TABLE r (s uuid, d date, at timestamp, PRIMARY KEY ((s, d), at))",
			false, "at", []bound.Kind{bound.TimeBucket}, []string{"d (date) in the partition key is a day bucket"}},
		{"unknown-width bucket",
			"CREATE TABLE r (s uuid, ts_bucket timestamp, at timestamp, PRIMARY KEY ((s, ts_bucket), at))",
			false, "at", []bound.Kind{bound.TimeBucket}, []string{"ts_bucket (timestamp) in the partition key looks like a time bucket of unknown width"}},
		{"partition bigint",
			"CREATE TABLE r (e uuid, partition bigint, ts bigint, PRIMARY KEY ((e, partition), ts))",
			false, "ts", []bound.Kind{bound.TimeBucket}, nil},
		{"count bucket",
			"CREATE TABLE r (pid text, partition_nr bigint, seq bigint, at timeuuid, PRIMARY KEY ((pid, partition_nr), at))",
			false, "at", []bound.Kind{bound.CountBucket}, []string{"partition_nr numbers fixed-size pieces"}},
		{"ttl",
			"CREATE TABLE r (u uuid, at timestamp, PRIMARY KEY (u, at)) WITH default_time_to_live = 604800",
			false, "at", []bound.Kind{bound.TTL}, []string{"default_time_to_live 7d"}},
		{"ttl from a later alter",
			"CREATE TABLE r (u uuid, at timestamp, PRIMARY KEY (u, at)); ALTER TABLE r WITH default_time_to_live = 3600;",
			false, "at", []bound.Kind{bound.TTL}, []string{"1h"}},
		{"short-lived key",
			"CREATE TABLE r (order_id uuid, at timestamp, status text, PRIMARY KEY (order_id, at))",
			false, "at", []bound.Kind{bound.ShortLived}, []string{"the partition is one order (order_id)"}},
		{"shard bounds nothing",
			"CREATE TABLE r (u uuid, shard int, at timestamp, PRIMARY KEY ((u, shard), at))",
			true, "at", nil, []string{"the shard column shard spreads a key over a fixed number of partitions, but bounds none of them"}},
		{"time deep after ids",
			"CREATE TABLE r (sh int, kind int, ns uuid, wf text, run_id uuid, fire_at timestamp, t bigint, PRIMARY KEY (sh, kind, ns, run_id, wf, fire_at, t))",
			false, "", nil, []string{"time (fire_at) comes after the ids ns, run_id"}},
		{"time after one id still a series",
			"CREATE TABLE r (sender uuid, conversation_id uuid, day date, message_id timeuuid, PRIMARY KEY (sender, conversation_id, day, message_id))",
			true, "day", nil, nil},
		{"time after a category",
			"CREATE TABLE r (a uuid, category text, booked_at timestamp, PRIMARY KEY (a, category, booked_at))",
			true, "booked_at", nil, nil},
		{"sequence first",
			"CREATE TABLE r (a uuid, sequence_nr bigint, at timeuuid, PRIMARY KEY (a, sequence_nr, at))",
			false, "", nil, []string{"ordered by sequence_nr, a sequence number"}},
		{"date last is one row a day",
			"CREATE TABLE r (st text, day date, t float, PRIMARY KEY (st, day))",
			false, "", nil, []string{"one row a day"}},
		{"latest time is re-keyed",
			"CREATE TABLE r (u uuid, last_activity timestamp, c uuid, PRIMARY KEY (u, last_activity, c))",
			false, "", nil, []string{"holds the latest time"}},
		{"no clustering",
			"CREATE TABLE r (u uuid PRIMARY KEY, at timestamp)",
			false, "", nil, []string{"no clustering column"}},
		{"time column in a text bucket's table",
			"CREATE TABLE r (u uuid, month text, post_id timeuuid, PRIMARY KEY ((u, month), post_id))",
			false, "post_id", []bound.Kind{bound.TimeBucket}, []string{"month (text) in the partition key is a month bucket"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := bound.Judge(table(t, tc.src))
			if v.Unbounded() != tc.unbounded {
				t.Errorf("unbounded %v, want %v: %s", v.Unbounded(), tc.unbounded, v.Reason)
			}
			got := ""
			if v.Time != nil {
				got = v.Time.Name
			}
			if got != tc.series || v.TimeSeries != (tc.series != "") {
				t.Errorf("series %q (%v), want %q: %s", got, v.TimeSeries, tc.series, v.Reason)
			}
			var kinds []bound.Kind
			for _, b := range v.Bounds {
				kinds = append(kinds, b.Kind)
			}
			if tc.series != "" && len(kinds) != len(tc.bounds) {
				t.Errorf("bounds %v, want %v: %s", kinds, tc.bounds, v.Reason)
			}
			for i := range tc.bounds {
				if i < len(kinds) && kinds[i] != tc.bounds[i] {
					t.Errorf("bound %d is %v, want %v", i, kinds[i], tc.bounds[i])
				}
			}
			for _, want := range tc.reason {
				if !strings.Contains(v.Reason, want) {
					t.Errorf("reason %q lacks %q", v.Reason, want)
				}
			}
		})
	}
}

func TestBucket(t *testing.T) {
	for _, tc := range []struct {
		key, typ string
		ok       bool
		width    string
	}{
		{"day", "date", true, "day"},
		{"d", "date", true, "day"},
		{"trade_date", "date", true, "day"},
		{"month", "text", true, "month"},
		{"yyyymm", "int", true, "month"},
		{"ymd", "int", true, "day"},
		{"week", "int", true, "iso-week"},
		{"week_start", "timestamp", true, "iso-week"},
		{"hour_bucket", "int", true, "hour"},
		{"hourbucket", "int", true, "hour"},
		{"epoch_day", "int", true, "day"},
		{"epochday", "int", true, "day"},
		{"due_minute", "timestamp", true, "minute"},
		{"year", "smallint", true, "year"},
		{"day_hour", "text", true, "hour"},
		{"bucket", "int", true, ""},
		{"ts_bucket", "timestamp", true, ""},
		{"time_bucket", "text", true, ""},
		{"timebucket", "bigint", true, ""},
		{"partition", "bigint", true, ""},
		{"slot", "bigint", true, ""},
		{"window_start", "bigint", true, ""},
		{"hour", "timestamp", true, "hour"},
		{"created", "timestamp", true, ""},
		{"ts", "bigint", true, ""},
		{"partition_nr", "bigint", false, ""}, // a count bucket, not a time bucket
		{"bucket_nr", "int", false, ""},
		{"shard", "int", false, ""},
		{"user_id", "uuid", false, ""},
		{"day", "uuid", false, ""},
		{"region", "text", false, ""},
		{"version", "int", false, ""},
	} {
		src := "CREATE TABLE r (k text, " + tc.key + " " + tc.typ + ", v int, PRIMARY KEY ((k, " + tc.key + "), v))"
		b, ok := bound.Bucket(table(t, src))
		if ok != tc.ok || b.Width != tc.width || ok && b.Column != tc.key {
			t.Errorf("%s %s: bucket %v width %q column %q, want %v %q", tc.key, tc.typ, ok, b.Width, b.Column, tc.ok, tc.width)
		}
	}
	if _, ok := bound.Bucket(nil); ok {
		t.Error("a nil table has a bucket")
	}
	if v := bound.Judge(nil); v.TimeSeries || v.Unbounded() {
		t.Error("a nil table is a time series")
	}
}

// TestReasonsNameWhatTheyJudge: every verdict on a time series says in words which column
// orders it and, when bounded, what bounds it, so a user can check the rule's reading.
func TestReasonsNameWhatTheyJudge(t *testing.T) {
	v := bound.Judge(table(t, `CREATE TABLE r (sensor_id uuid, day date, at timestamp, PRIMARY KEY ((sensor_id, day), at))
		WITH default_time_to_live = 86400`))
	for _, want := range []string{"clustered by event time at", "bounded:", "day (date) in the partition key is a day bucket", "default_time_to_live 1d"} {
		if !strings.Contains(v.Reason, want) {
			t.Errorf("reason %q lacks %q", v.Reason, want)
		}
	}
	for _, k := range []bound.Kind{0, bound.TimeBucket, bound.CountBucket, bound.TTL, bound.ShortLived} {
		if k.String() == "" {
			t.Errorf("kind %d has no name", k)
		}
	}
}
