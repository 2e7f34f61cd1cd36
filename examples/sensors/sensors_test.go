package sensors_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql/denorm"
	"github.com/cqlsize/cqlsize/examples/internal/extest"
	"github.com/cqlsize/cqlsize/examples/sensors"
)

func TestSensors(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	extest.Migrate(t, s, "migrations")
	schema, err := sensors.Schema(ks)
	if err != nil {
		t.Fatal(err)
	}
	st, err := sensors.NewStore(s, ks, []byte("secret"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sensor := gocql.TimeUUID()
	// A reading every 20 minutes for the three days before today, sent in random order.
	start := sensors.Days().For(time.Now().UTC()).Start().Add(-72 * time.Hour)
	var readings []sensors.Reading
	for i := 0; i < 216; i++ {
		readings = append(readings, sensors.Reading{SensorID: sensor, Time: start.Add(time.Duration(i) * 20 * time.Minute), Temperature: 20 + float64(i%10)/2, Humidity: 40 + float64(i%7)})
	}
	shuffled := slices.Clone(readings)
	rand.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for i := range shuffled {
		r := &shuffled[i]
		if err := st.Record(ctx, r); err != nil {
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
	if got, err := st.Latest(ctx, sensor); err != nil || !same(*got, newest) {
		t.Errorf("Latest = %+v (%v), want %+v", got, err, newest)
	}
	if _, err := st.Latest(ctx, gocql.TimeUUID()); !errors.Is(err, sensors.ErrNotFound) {
		t.Errorf("Latest of a silent sensor: %v, want ErrNotFound", err)
	}
	// A chart's refresh: the last hour of the newest day, newest first.
	since, err := st.Since(ctx, sensor, newest.Time.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if want := []sensors.Reading{readings[215], readings[214], readings[213], readings[212]}; !slices.EqualFunc(since, want, same) {
		t.Errorf("Since an hour before the newest: %+v, want %+v", since, want)
	}

	today := sensors.Days().For(newest.Time).Start()
	rows := extest.RunQueries(t, s, schema, "queries.cql", map[string]any{
		"sensor_id": sensor, "day": today, "reading_time": newest.Time.Add(-time.Hour),
	})
	if rows["latest_readings_of_day"] != min(10, rows["readings_of_day"]) || rows["readings_since"] != 4 {
		t.Errorf("rows per query: %v", rows)
	}

	// Every reading, newest first, day by day, with the bucket bound as a date.
	got := extest.Timeline[time.Time](t, ctx, st.History, denorm.PageRequest{Key: []any{sensor}, Newest: newest.Time, Limit: 50}, "reading_time")
	if len(got) != len(readings) {
		t.Fatalf("read %d readings, want %d", len(got), len(readings))
	}
	for i, g := range got {
		if !g.Equal(readings[len(readings)-1-i].Time) {
			t.Fatalf("reading %d: %s, want %s", i, g, readings[len(readings)-1-i].Time)
		}
	}
}

// same says whether two readings are the same measurement: the same instant, whatever
// location or monotonic clock reading their times carry.
func same(a, b sensors.Reading) bool {
	return a.SensorID == b.SensorID && a.Time.Equal(b.Time) && a.Temperature == b.Temperature && a.Humidity == b.Humidity
}
