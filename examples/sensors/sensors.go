package sensors

import (
	"context"
	"embed"
	"fmt"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/bucket"
	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/denorm"
	"github.com/cqlsize/cqlsize/workload"
)

// Migrations holds the schema as numbered .cql files, so a service carries it in its binary.
//
//go:embed migrations/*.cql
var Migrations embed.FS

// Schema is the model of the migrations deployed to keyspace: denorm plans its writes from it.
func Schema(keyspace string) (*cql.Schema, error) {
	return cql.LoadSchemaFSIn(Migrations, "migrations", keyspace)
}

// ErrNotFound is a sensor that has sent no reading (or none in the last 90 days).
var ErrNotFound = denorm.ErrNotFound

// Reading is one measurement of one sensor.
type Reading struct {
	SensorID              gocql.UUID
	Time                  time.Time
	Temperature, Humidity float64
}

// Days is the bucket scheme of readings_by_sensor_day: calendar days, UTC. A sensor's day
// is a partition of 1,440 rows at one reading a minute.
func Days() bucket.Scheme {
	s, _ := bucket.New(bucket.Day()) // a day is always a valid width
	return s
}

// Mappings say how a reading becomes a row of each table. The day column is a date, bound
// as the bucket's start.
func Mappings() []denorm.Mapping[Reading] {
	days := Days()
	return []denorm.Mapping[Reading]{
		denorm.Map("readings_by_sensor_day", func(r *Reading, out *denorm.Rows) error {
			out.Add().Set("sensor_id", r.SensorID).Set("day", days.For(r.Time).Start()).Set("reading_time", r.Time).
				Set("temperature", r.Temperature).Set("humidity", r.Humidity)
			return nil
		}),
		denorm.Map("latest_reading_by_sensor", func(r *Reading, out *denorm.Rows) error {
			out.Add().Set("sensor_id", r.SensorID).Set("reading_time", r.Time).
				Set("temperature", r.Temperature).Set("humidity", r.Humidity)
			return nil
		}),
	}
}

// Store writes readings to both tables and reads them back.
type Store struct {
	// Model writes a reading to readings_by_sensor_day and latest_reading_by_sensor as two
	// concurrent idempotent writes, without the logged batch's batchlog: at thousands of
	// readings a second its round trips are not worth it, and a reading lost from one
	// table is made good by the next.
	Model *denorm.Model[Reading]
	// History reads a sensor's readings newest first, day after day, a week back at most
	// (Key: the sensor id).
	History *denorm.Timeline

	session  *gocql.Session
	keyspace string
}

// NewStore builds a store over the reading tables in keyspace. secret signs the history
// timeline's page tokens.
func NewStore(session *gocql.Session, keyspace string, secret []byte) (*Store, error) {
	schema, err := Schema(keyspace)
	if err != nil {
		return nil, fmt.Errorf("sensors schema: %w", err)
	}
	m, err := denorm.New(session, schema, denorm.Options{Keyspace: keyspace, Mode: denorm.Concurrent}, Mappings()...)
	if err != nil {
		return nil, fmt.Errorf("sensors model: %w", err)
	}
	ks := cql.QuoteName(keyspace)
	return &Store{
		Model: m,
		History: &denorm.Timeline{
			Session:     session,
			Query:       "SELECT reading_time, temperature, humidity FROM " + ks + ".readings_by_sensor_day WHERE sensor_id = ? AND day = ?",
			Scheme:      Days(),
			BucketValue: func(b bucket.Bucket) any { return b.Start() }, // day is a date, not a label
			Retention:   90 * 24 * time.Hour,                            // the table's default TTL (7776000 s)
			KeyRate:     workload.Rate{Count: 1, Per: time.Minute},      // workload.yaml: a reading a minute, 1,440 a day
			Secret:      secret,
		},
		session:  session,
		keyspace: ks,
	}, nil
}

// Record writes a reading with its own time as the write timestamp (denorm.At), so a
// reading that arrives late or is sent again never overwrites a newer one in
// latest_reading_by_sensor.
func (s *Store) Record(ctx context.Context, r *Reading) error {
	if _, err := s.Model.Insert(ctx, r, denorm.At(r.Time.UnixMicro())); err != nil {
		return fmt.Errorf("reading of %s at %s: %w", r.SensorID, r.Time.Format(time.RFC3339), err)
	}
	return nil
}

// Latest answers latest_reading (a dashboard tile): a sensor's newest reading, or
// ErrNotFound.
func (s *Store) Latest(ctx context.Context, sensor gocql.UUID) (*Reading, error) {
	r := &Reading{SensorID: sensor}
	err := s.session.Query("SELECT reading_time, temperature, humidity FROM "+s.keyspace+".latest_reading_by_sensor WHERE sensor_id = ?", sensor).
		WithContext(ctx).Scan(&r.Time, &r.Temperature, &r.Humidity)
	if err == gocql.ErrNotFound {
		return nil, fmt.Errorf("latest reading of %s: %w", sensor, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("latest reading of %s: %w", sensor, err)
	}
	return r, nil
}

// Since answers readings_since (a chart's refresh): a sensor's readings of the day of
// since, from since on, newest first.
func (s *Store) Since(ctx context.Context, sensor gocql.UUID, since time.Time) ([]Reading, error) {
	iter := s.session.Query("SELECT reading_time, temperature, humidity FROM "+s.keyspace+".readings_by_sensor_day WHERE sensor_id = ? AND day = ? AND reading_time >= ?",
		sensor, Days().For(since).Start(), since).WithContext(ctx).Iter()
	var out []Reading
	r := Reading{SensorID: sensor}
	for iter.Scan(&r.Time, &r.Temperature, &r.Humidity) {
		out = append(out, r)
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("readings of %s since %s: %w", sensor, since.Format(time.RFC3339), err)
	}
	return out, nil
}
