package magazines

import (
	"context"
	"embed"
	"fmt"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/denorm"
)

// Migrations holds the schema as numbered .cql files, so a service carries it in its binary.
//
//go:embed migrations/*.cql
var Migrations embed.FS

// Schema is the model of the migrations deployed to keyspace: denorm plans its writes from it.
func Schema(keyspace string) (*cql.Schema, error) {
	return cql.LoadSchemaFSIn(Migrations, "migrations", keyspace)
}

// ErrNotFound is a magazine that does not exist.
var ErrNotFound = denorm.ErrNotFound

// Magazine is the entity, stored once by id (Q1) and once under its publisher (Q2).
type Magazine struct {
	ID        int32
	Name      string
	Frequency string // publication_frequency: weekly, monthly, ...
	Publisher string
}

// Mappings say how a magazine becomes a row of each table.
func Mappings() []denorm.Mapping[Magazine] {
	return []denorm.Mapping[Magazine]{
		denorm.Map("magazines_by_id", func(m *Magazine, out *denorm.Rows) error {
			out.Add().Set("id", m.ID).Set("name", m.Name).Set("publication_frequency", m.Frequency).Set("publisher", m.Publisher)
			return nil
		}),
		denorm.Map("magazines_by_publisher", func(m *Magazine, out *denorm.Rows) error {
			out.Add().Set("publisher", m.Publisher).Set("id", m.ID).Set("name", m.Name).Set("publication_frequency", m.Frequency)
			return nil
		}),
	}
}

// Store writes magazines to both tables and reads them back.
type Store struct {
	// Model writes a magazine to magazines_by_id and magazines_by_publisher in one logged
	// batch.
	Model *denorm.Model[Magazine]

	session  *gocql.Session
	keyspace string
}

// NewStore builds a store over the magazine tables in keyspace.
func NewStore(session *gocql.Session, keyspace string) (*Store, error) {
	schema, err := Schema(keyspace)
	if err != nil {
		return nil, fmt.Errorf("magazines schema: %w", err)
	}
	m, err := denorm.New(session, schema, denorm.Options{Keyspace: keyspace}, Mappings()...)
	if err != nil {
		return nil, fmt.Errorf("magazines model: %w", err)
	}
	return &Store{Model: m, session: session, keyspace: cql.QuoteName(keyspace)}, nil
}

// Add writes a new magazine to both tables at once.
func (s *Store) Add(ctx context.Context, m *Magazine) error {
	if _, err := s.Model.Insert(ctx, m); err != nil {
		return fmt.Errorf("magazine %d: %w", m.ID, err)
	}
	return nil
}

// Update writes the changes from old to new. A change of publisher moves the magazine
// between partitions of magazines_by_publisher: its row under the old publisher is
// deleted and written under the new one in the same batch, so Q2 never shows it twice.
// The plan says what was sent.
func (s *Store) Update(ctx context.Context, old, new *Magazine) (*denorm.Plan, error) {
	plan, err := s.Model.Update(ctx, old, new)
	if err != nil {
		return nil, fmt.Errorf("magazine %d: %w", old.ID, err)
	}
	return plan, nil
}

// ByID answers Q1 (magazine_by_id): a magazine's name, publication frequency and
// publisher, or ErrNotFound.
func (s *Store) ByID(ctx context.Context, id int32) (*Magazine, error) {
	m := &Magazine{ID: id}
	err := s.session.Query("SELECT name, publication_frequency, publisher FROM "+s.keyspace+".magazines_by_id WHERE id = ?", id).
		WithContext(ctx).Scan(&m.Name, &m.Frequency, &m.Publisher)
	if err == gocql.ErrNotFound {
		return nil, fmt.Errorf("magazine %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("magazine %d: %w", id, err)
	}
	return m, nil
}

// OfPublisher answers Q2 (magazines_of_publisher): the magazines of a publisher, newest
// id first, from one partition.
func (s *Store) OfPublisher(ctx context.Context, publisher string) ([]Magazine, error) {
	iter := s.session.Query("SELECT id, name, publication_frequency FROM "+s.keyspace+".magazines_by_publisher WHERE publisher = ?", publisher).
		WithContext(ctx).Iter()
	var out []Magazine
	m := Magazine{Publisher: publisher}
	for iter.Scan(&m.ID, &m.Name, &m.Frequency) {
		out = append(out, m)
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("magazines of %s: %w", publisher, err)
	}
	return out, nil
}
