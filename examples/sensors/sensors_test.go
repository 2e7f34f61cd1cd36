package sensors

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/bucket"
	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql/denorm"
	"github.com/cqlsize/cqlsize/examples/internal/extest"
)

type reading struct {
	SensorID              gocql.UUID
	Time                  time.Time
	Temperature, Humidity float64
}

func days() bucket.Scheme {
	s, _ := bucket.New(bucket.Day())
	return s
}

func mappings() []denorm.Mapping[reading] {
	d := days()
	return []denorm.Mapping[reading]{
		denorm.Map("readings_by_sensor_day", func(r *reading, out *denorm.Rows) error {
			out.Add().Set("sensor_id", r.SensorID).Set("day", d.For(r.Time).Start()).Set("reading_time", r.Time).
				Set("temperature", r.Temperature).Set("humidity", r.Humidity)
			return nil
		}),
		denorm.Map("latest_reading_by_sensor", func(r *reading, out *denorm.Rows) error {
			out.Add().Set("sensor_id", r.SensorID).Set("reading_time", r.Time).
				Set("temperature", r.Temperature).Set("humidity", r.Humidity)
			return nil
		}),
	}
}

func TestSensors(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	extest.Migrate(t, s, "migrations")
	schema := extest.Schema(t, "migrations", ks)
	model, err := denorm.New(s, schema, denorm.Options{Keyspace: ks, Mode: denorm.Concurrent}, mappings()...)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sensor := gocql.TimeUUID()
	// A reading every 20 minutes for the three days before today, sent in random order.
	start := days().For(time.Now().UTC()).Start().Add(-72 * time.Hour)
	var readings []reading
	for i := 0; i < 216; i++ {
		readings = append(readings, reading{SensorID: sensor, Time: start.Add(time.Duration(i) * 20 * time.Minute), Temperature: 20 + float64(i%10)/2, Humidity: 40 + float64(i%7)})
	}
	shuffled := slices.Clone(readings)
	rand.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for i := range shuffled {
		r := &shuffled[i]
		if _, err := model.Insert(ctx, r, denorm.At(r.Time.UnixMicro())); err != nil {
			t.Fatal(err)
		}
	}
	newest := readings[len(readings)-1]

	// The latest reading is the newest one, whatever order they arrived in.
	var latest time.Time
	var temp float64
	if err := s.Query("SELECT reading_time, temperature FROM latest_reading_by_sensor WHERE sensor_id = ?", sensor).Scan(&latest, &temp); err != nil {
		t.Fatal(err)
	}
	if !latest.Equal(newest.Time) || temp != newest.Temperature {
		t.Errorf("latest reading %s %.1f, want %s %.1f", latest, temp, newest.Time, newest.Temperature)
	}

	today := days().For(newest.Time).Start()
	rows := extest.RunQueries(t, s, schema, "queries.cql", map[string]any{
		"sensor_id": sensor, "day": today, "reading_time": newest.Time.Add(-time.Hour),
	})
	if rows["latest_readings_of_day"] != min(10, rows["readings_of_day"]) || rows["readings_since"] != 4 {
		t.Errorf("rows per query: %v", rows)
	}

	// Every reading, newest first, day by day, with the bucket bound as a date.
	tl := &denorm.Timeline{Session: s, Query: "SELECT reading_time FROM readings_by_sensor_day WHERE sensor_id = ? AND day = ?",
		Scheme: days(), BucketValue: func(b bucket.Bucket) any { return b.Start() }, MaxBuckets: 5}
	got := extest.Timeline[time.Time](t, ctx, tl, denorm.PageRequest{Key: []any{sensor}, Newest: newest.Time, Limit: 50}, "reading_time")
	if len(got) != len(readings) {
		t.Fatalf("read %d readings, want %d", len(got), len(readings))
	}
	for i, g := range got {
		if !g.Equal(readings[len(readings)-1-i].Time) {
			t.Fatalf("reading %d: %s, want %s", i, g, readings[len(readings)-1-i].Time)
		}
	}
}
