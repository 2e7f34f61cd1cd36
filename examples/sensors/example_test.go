package sensors_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/cql/denorm"
	"github.com/cqlsize/cqlsize/examples/sensors"
)

// A reading is two writes sent concurrently, not a batch, both with the reading's time as
// their write timestamp. PlanInsert shows them without a cluster.
func ExampleMappings() {
	st, err := sensors.NewStore(nil, "app", nil) // no session: plan only
	if err != nil {
		log.Fatal(err)
	}
	r := &sensors.Reading{SensorID: gocql.UUID{1}, Time: time.Date(2024, 6, 1, 23, 40, 0, 0, time.UTC), Temperature: 21.5, Humidity: 44}
	plan, err := st.Model.PlanInsert(r, denorm.At(r.Time.UnixMicro()))
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range plan.Statements {
		fmt.Println(s.CQL)
	}
	fmt.Println("concurrent:", plan.Mode == denorm.Concurrent, "timestamp:", time.UnixMicro(plan.Timestamp).UTC().Format(time.RFC3339))
	fmt.Println("day:", sensors.Days().For(r.Time).Start().Format(time.DateOnly))
	// Output:
	// INSERT INTO app.readings_by_sensor_day (sensor_id, day, reading_time, temperature, humidity) VALUES (?, ?, ?, ?, ?) USING TIMESTAMP ?
	// INSERT INTO app.latest_reading_by_sensor (sensor_id, reading_time, temperature, humidity) VALUES (?, ?, ?, ?) USING TIMESTAMP ?
	// concurrent: true timestamp: 2024-06-01T23:40:00Z
	// day: 2024-06-01
}

// A service records a reading, shows the latest and pages through the history. (Needs a
// cluster with the migrations applied: compiled, not run.)
func ExampleStore() {
	ctx := context.Background()
	session, err := connect.Open(ctx, connect.Config{Hosts: []string{"127.0.0.1"}})
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	st, err := sensors.NewStore(session, "app", []byte("from the service's configuration"))
	if err != nil {
		log.Fatal(err)
	}
	sensor := gocql.TimeUUID()
	if err := st.Record(ctx, &sensors.Reading{SensorID: sensor, Time: time.Now(), Temperature: 21.5, Humidity: 44}); err != nil {
		log.Fatal(err)
	}
	latest, err := st.Latest(ctx, sensor)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(latest.Time, latest.Temperature)
	page, err := st.History.Page(ctx, denorm.PageRequest{Key: []any{sensor}, Limit: 100})
	if err != nil {
		log.Fatal(err)
	}
	for _, row := range page.Rows {
		fmt.Println(row["reading_time"], row["temperature"], row["humidity"])
	}
}
