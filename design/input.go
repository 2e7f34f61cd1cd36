package design

import (
	"time"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/workload"
)

// Query is one access pattern: a SELECT written against an entity table as if any column
// could be filtered, ordered or matched, with its name, rate and latency target.
type Query struct {
	Name string
	Rate float64       // requests per second, 0 when not given
	P99  time.Duration // latency target, 0 when not given
	// Range is the width of the time range the pattern usually reads (range=7d on its
	// header), 0 when not given: the read cost of a range read.
	Range time.Duration
	Stmt  *cql.Select
}

// Volumes are how much each entity holds: the workload file's entity entries.
type Volumes struct {
	File     string
	Entities []*Entity
}

// Entity is the volume of one entity table.
type Entity struct {
	Name      string        // as written: "orders" or "app.orders"
	Rows      workload.Rate // rows inserted into the whole table per span of time (50k/day)
	Retention time.Duration
	TTL       time.Duration
	Avg       map[string]float64
	Items     map[string]workload.Items
	Columns   map[string]ColumnVolume
	// NullsAs is how a missing value is written; the write plan binds unset, the default here.
	Pos    cql.Pos
	Fields map[string]cql.Pos // "rows", "columns.store_id.distinct", ... -> where written
}

// ColumnVolume is what the workload says of one column: how many values it takes, and how
// the rows spread over them.
type ColumnVolume struct {
	Distinct float64
	Skew     workload.Skew
}

// FieldPos is where a field of the entry was written, or the entry itself.
func (e *Entity) FieldPos(path string) cql.Pos {
	if p, ok := e.Fields[path]; ok {
		return p
	}
	return e.Pos
}

// Entity returns the volume of an entity table, by its name as written (qualified or not)
// and then by its bare name; nil when there is none.
func (v *Volumes) Entity(keyspace, name string) *Entity {
	if v == nil {
		return nil
	}
	for _, e := range v.Entities {
		if e.Name == keyspace+"."+name {
			return e
		}
	}
	for _, e := range v.Entities {
		if e.Name == name {
			return e
		}
	}
	return nil
}

// life is how long a row stays: its TTL, else the retention.
func (e *Entity) life() time.Duration {
	if e.TTL > 0 {
		return e.TTL
	}
	return e.Retention
}
