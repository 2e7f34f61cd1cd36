package viewinghistory

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

// Retention is how long a play is kept: the tables' default TTL, so nothing is ever
// deleted by hand.
const Retention = 2 * 365 * 24 * time.Hour

// Play is one play, pause or resume of a show by a user.
type Play struct {
	UserID, ShowID gocql.UUID
	WatchedAt      time.Time
	Position       int32 // seconds into the show
	Completed      *bool // nil until the show is finished or abandoned: sent unset, never as a null
}

// Months is the bucket scheme of viewing_history: calendar months, UTC. A heavy viewer's
// history would grow for years in one partition; a month of it stays small.
func Months() bucket.Scheme {
	s, _ := bucket.New(bucket.Month()) // a month is always a valid width
	return s
}

// Mappings say how a play becomes a row of each table: a new row of the history, and an
// overwrite of the user's progress in the show.
func Mappings() []denorm.Mapping[Play] {
	months := Months()
	return []denorm.Mapping[Play]{
		denorm.Map("viewing_history", func(p *Play, out *denorm.Rows) error {
			out.Add().Set("user_id", p.UserID).Set("month", months.For(p.WatchedAt).String()).Set("watched_at", p.WatchedAt).
				Set("show_id", p.ShowID).Set("position", p.Position).Set("completed", p.Completed)
			return nil
		}),
		denorm.Map("progress_by_user", func(p *Play, out *denorm.Rows) error {
			out.Add().Set("user_id", p.UserID).Set("show_id", p.ShowID).Set("position", p.Position).
				Set("completed", p.Completed).Set("last_watched", p.WatchedAt)
			return nil
		}),
	}
}

// Store writes plays to both tables and reads them back.
type Store struct {
	// Model writes a play to viewing_history and progress_by_user in one logged batch,
	// without a TTL of its own: the tables' default (Retention) applies.
	Model *denorm.Model[Play]
	// History reads a user's plays newest first, month after month, back to the start of
	// the retention (Key: the user id).
	History *denorm.Timeline

	session  *gocql.Session
	keyspace string
}

// NewStore builds a store over the viewing tables in keyspace. secret signs the history
// timeline's page tokens.
func NewStore(session *gocql.Session, keyspace string, secret []byte) (*Store, error) {
	schema, err := Schema(keyspace)
	if err != nil {
		return nil, fmt.Errorf("viewing history schema: %w", err)
	}
	m, err := denorm.New(session, schema, denorm.Options{Keyspace: keyspace}, Mappings()...)
	if err != nil {
		return nil, fmt.Errorf("viewing history model: %w", err)
	}
	ks := cql.QuoteName(keyspace)
	return &Store{
		Model: m,
		History: &denorm.Timeline{
			Session:   session,
			Query:     "SELECT watched_at, show_id, position, completed FROM " + ks + ".viewing_history WHERE user_id = ? AND month = ?",
			Scheme:    Months(),
			Retention: Retention,                                   // the walk ends where the tables' TTL does
			KeyRate:   workload.Rate{Count: 20, Per: workload.Day}, // workload.yaml: a month bucket holds ~600 plays, so a page reads 1-2 months
			Secret:    secret,
		},
		session:  session,
		keyspace: ks,
	}, nil
}

// Record writes a play to the history and to the user's progress in the show at once.
func (s *Store) Record(ctx context.Context, p *Play) error {
	if _, err := s.Model.Insert(ctx, p); err != nil {
		return fmt.Errorf("play of %s by %s: %w", p.ShowID, p.UserID, err)
	}
	return nil
}

// Progress is where a user stopped in one show.
type Progress struct {
	ShowID      gocql.UUID
	Position    int32
	Completed   *bool // as the last play that set it left it (a play sends it unset until known); nil when none has
	LastWatched time.Time
}

// ContinueWatching answers continue_watching: where the user stopped in each show, from
// one small partition.
func (s *Store) ContinueWatching(ctx context.Context, user gocql.UUID) ([]Progress, error) {
	iter := s.session.Query("SELECT show_id, position, completed, last_watched FROM "+s.keyspace+".progress_by_user WHERE user_id = ?", user).
		WithContext(ctx).Iter()
	var out []Progress
	for {
		var p Progress
		if !iter.Scan(&p.ShowID, &p.Position, &p.Completed, &p.LastWatched) {
			break
		}
		out = append(out, p)
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("progress of %s: %w", user, err)
	}
	return out, nil
}
