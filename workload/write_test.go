package workload_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/workload"
)

func mustSpan(t *testing.T, s string) workload.Span {
	t.Helper()
	w, err := workload.ParseSpan(s)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func durP(d time.Duration) *time.Duration { return &d }

// clearPositions drops what a parse records beside the values (where each was written),
// and the empty maps it starts with: an empty map and none declare the same.
func clearPositions(w *workload.Workload) {
	w.File = ""
	for _, t := range w.Tables {
		t.Pos, t.Fields = cql.Pos{}, nil
		for i := range t.Deletes {
			t.Deletes[i].Pos = cql.Pos{}
		}
		if len(t.Avg) == 0 {
			t.Avg = nil
		}
		if len(t.Items) == 0 {
			t.Items = nil
		}
		if len(t.Nulls) == 0 {
			t.Nulls = nil
		}
		if len(t.TTLMix) == 0 {
			t.TTLMix = nil
		}
		if len(t.Overwrites) == 0 {
			t.Overwrites = nil
		}
		if len(t.ElementWrites) == 0 {
			t.ElementWrites = nil
		}
		if len(t.Columns) == 0 {
			t.Columns = nil
		}
		if len(t.Deletes) == 0 {
			t.Deletes = nil
		}
	}
}

// TestWriteRoundTrip writes workloads of every shape the writers produce and reads them
// back: Parse gives the same values, with notes or without.
func TestWriteRoundTrip(t *testing.T) {
	day := workload.Day
	for _, tc := range []struct {
		name   string
		tables []*workload.TableWorkload
		notes  *workload.Notes
	}{
		{"design's bucketed TTL'd table", []*workload.TableWorkload{{
			Name: "app.readings_by_sensor_id", Partitions: 10000, WriteRate: workload.Rate{Count: 1, Per: time.Second},
			Bucket: mustSpan(t, "day"), TTL: durP(90 * day), NullsAs: workload.NullUnset,
		}}, nil},
		{"design's sharded zipf table with values and collections", []*workload.TableWorkload{{
			Name: "app.posts_by_hashtag", Partitions: 1e6, WriteRate: workload.Rate{Count: 0.011574, Per: time.Second},
			Bucket: mustSpan(t, "hour"), Shards: 8, Horizon: 2 * workload.Year,
			Skew:    workload.Skew{Kind: workload.Zipf, S: 1.2, MaxRate: workload.Rate{Count: 10, Per: time.Second}},
			NullsAs: workload.NullUnset, Avg: map[string]float64{"content": 280, "title": 31.5},
			Items: map[string]workload.Items{"hashtags": {Count: 2, Size: 12}, "prefs": {Count: 10, Size: 20, KeySize: 12}},
		}, {
			Name: "app.orders_by_customer_id", Partitions: 2e6, WriteRate: workload.Rate{Count: 3, Per: day},
			NoBucket: true, Skew: workload.Skew{MaxRate: workload.Rate{Count: 5, Per: time.Hour}}, Horizon: 5 * workload.Year,
		}}, nil},
		{"profile's measured table with notes", []*workload.TableWorkload{{
			Name: "shop.carts", Partitions: 79, RowsPerPartition: 39.97, Horizon: 14 * day,
			Skew:    workload.Skew{Kind: workload.Zipf, S: 1.05},
			Deletes: []workload.Delete{{Kind: workload.DeleteRow, PerPartition: 25.25, Rows: 1}},
			TTL:     durP(0), CompressionRatio: 0.4213, WriteSpread: 36*time.Hour + 17*time.Second,
			Avg:   map[string]float64{"note": 40.12, "home.street": 24},
			Items: map[string]workload.Items{"tags": {Count: 4.5, Size: 9.25}},
			Nulls: map[string]float64{"note": 0.3333, "title": 0}, NullsAs: workload.NullUnset,
			ElementWrites: map[string]float64{"reactions": 1, "prefs": 0.34},
		}}, &workload.Notes{
			Head: []string{"Workload measured by `cqlsize profile` on keyspace shop."},
			Tables: map[string]*workload.TableNotes{"shop.carts": {
				Head:   []string{"PARTIAL: a slice timed out"},
				Line:   map[string]string{"partitions": "partitions a day bucket holds", "skew": "fitted", "ttl": "no TTL", "avg": "average bytes", "avg.note": "mean of 20 values", "avg.home.street": "over 3 values", "nulls.note": "1 of 3 rows", "nulls.title": "0 of 3 rows"},
				Before: map[string][]string{"ttl_mix": {"TTLs written: none"}},
				After:  map[string][]string{"rows_per_partition": {"measured write rate 0.1 rows/s"}, "deletes": {"(deleted rows count one each)"}},
				Tail:   []string{"2 responses carried warnings"},
			}},
		}},
		{"profile's expired rows, TTL mix and uniform skew noted", []*workload.TableWorkload{{
			Name: "iot.events", Partitions: 20, RowsPerPartition: 21.9, ExpiredRows: 8.1, ExpiredTTL: 120 * time.Second,
			TTL: durP(3600 * time.Second), TTLMix: map[time.Duration]float64{0: 0.2, time.Hour: 0.3, day: 0.5},
			Writes: workload.Update, Overwrites: map[string]workload.Rate{"tags": {Count: 1, Per: day}},
		}}, &workload.Notes{Tables: map[string]*workload.TableNotes{"iot.events": {Line: map[string]string{"skew": "uniform: R² 0.2"}}}}},
		{"an entity entry and deletes by rate", []*workload.TableWorkload{{
			Name: "orders", TableRate: workload.Rate{Count: 50000, Per: day}, Retention: 5 * workload.Year,
			Columns: map[string]workload.ColumnVolume{"customer_id": {Distinct: 1e7}, "store_id": {Distinct: 2000, Skew: workload.Skew{Kind: workload.Zipf, S: 1.1}}},
		}, {
			Name: "app.inbox", Partitions: 1000, RowsPerPartition: 1000, Nulls: map[string]float64{"*": 0.05, "body": 0.5},
			Deletes: []workload.Delete{{Kind: workload.DeleteRange, Rate: workload.Rate{Count: 2, Per: day}, Rows: 500, At: "head"}, {Kind: workload.DeleteCell, PerPartition: 3, Rows: 1, Column: "body"}},
		}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := workload.Marshal(&workload.Workload{Tables: tc.tables}, tc.notes)
			got, err := workload.Parse("w.yaml", []byte(text))
			if err != nil {
				t.Fatalf("%v\n%s", err, text)
			}
			clearPositions(got)
			if !reflect.DeepEqual(got.Tables, tc.tables) {
				for i := range min(len(got.Tables), len(tc.tables)) {
					t.Errorf("read back:\n%+v\nwant\n%+v", *got.Tables[i], *tc.tables[i])
				}
				t.Fatalf("file:\n%s", text)
			}
			if tc.notes != nil {
				for _, tn := range tc.notes.Tables {
					for _, c := range tn.Line {
						if !strings.Contains(text, "# "+c) {
							t.Errorf("note %q not written:\n%s", c, text)
						}
					}
				}
			}
		})
	}
}

// TestWriteFormat holds the writer to the file as the docs show it.
func TestWriteFormat(t *testing.T) {
	w := &workload.Workload{Tables: []*workload.TableWorkload{{
		Name: "app.readings_by_sensor_id", Partitions: 10000, WriteRate: workload.Rate{Count: 1, Per: time.Second},
		Bucket: mustSpan(t, "day"), TTL: durP(90 * workload.Day), NullsAs: workload.NullUnset,
	}}}
	want := "# Written by a test.\nversion: 1\ntables:\n  app.readings_by_sensor_id:\n    partitions: 10000\n    write_rate: 1/s\n    bucket: day\n    ttl: 90d\n    nulls_as: unset\n"
	if got := workload.Marshal(w, &workload.Notes{Head: []string{"Written by a test."}}); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
