package design

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/bound"
	"github.com/cqlsize/cqlsize/cql/keylayout"
	"github.com/cqlsize/cqlsize/sizing"
	"github.com/cqlsize/cqlsize/sizing/readcost"
	"github.com/cqlsize/cqlsize/workload"
)

// Input is what a design starts from.
type Input struct {
	Schema  *cql.Schema // the entities: one table per entity, keyed by its identity
	Queries []Query
	// Volumes are the entities' volumes; nil designs the keys without sizing them: no
	// bucket is invented, and each table says which volume would decide one.
	Volumes *Volumes
	Target  sizing.Target
	// Replication, when given, is how every keyspace of the design is replicated: the
	// migration creates its keyspaces with it (NetworkTopologyStrategy with the DCs it
	// names), over the entities' own CREATE KEYSPACE. Nodes is each DC's node count
	// (key "" for the whole cluster), when known, for each node's share.
	Replication *cql.Replication
	Nodes       map[string]int
}

// Design is the result: the query tables, every query rewritten for its table, and the
// write plan.
type Design struct {
	Tables  []*Table
	Queries []*Served
	Target  sizing.Target
	// Replication is what Input.Replication gave: the migration's keyspaces take it.
	Replication *cql.Replication
}

// Table is one query table and why it is the way it is.
type Table struct {
	Table  *cql.Table
	Entity *cql.Table
	// Bucket is the width of the time bucket in the partition key ("" for none), cut from
	// TimeColumn into BucketColumn; Shards the write shards (0 for none).
	Bucket, BucketColumn, TimeColumn string
	Shards                           int
	ShardColumn                      string
	Derive                           []Derive // how each column is written from an entity row
	Workload                         *workload.TableWorkload
	Estimate                         *sizing.Estimate
	Reasons                          []string // the choices, with the numbers behind them
	Notes                            []string // what the design costs the writers
	Queries                          []string // the access patterns it serves
	// NoLint is the reason a time series with no bucket is bounded after all (BK101), or
	// why its bucket is left open; empty when the lint has nothing to say.
	NoLint string
	// Home says the table holds every row of its entity once, keyed by the entity's primary
	// key: the write plan marks it as the source (see home.go).
	Home bool
	// Tiers puts the keys on two schemes when no single one both holds the busiest key and
	// serves the typical read in a few partitions; nil for one scheme.
	Tiers *Tiers
	// Replicas is the table's bytes (Estimate.TotalBytes, one replica) on every copy its
	// keyspace keeps, per DC and for the whole cluster; nil when not sized or when no
	// replication is known.
	Replicas *sizing.Replicas

	reads []readcost.Cost // each served pattern's read cost, in Queries' order (sized only)
}

// Served is one access pattern as the design serves it.
type Served struct {
	Name         string
	Table        string // keyspace.table
	PartitionKey []string
	Bucket       string // width, "" for none
	Shards       int
	Text         string // the query rewritten for the table
	Rate         float64
	P99          string
	Pos          cql.Pos
	// Reads says how a reader gets more than one bucket or shard, when it must.
	Reads string
	// Cost is what one read costs: the partitions it visits and the rows it passes, for
	// the typical, the p99 and the busiest key (nil when the design is not sized).
	Cost *readcost.Cost
}

// group is the access patterns one table serves.
type group struct {
	sh      *shape
	acc     []*access
	want    map[string]bool
	star    bool
	ordered bool // the clustering order is one a pattern asked for
	widened bool // star because the table is keyed as its entity is: it becomes the home
}

// Run designs the tables for in. Bad input (a query on a column no entity has, a volume for
// a column that does not exist, a query no table can serve) is an error naming the file,
// line and column, every problem at once. Besides the query tables, every entity gets its
// home (home.go).
func Run(in Input) (*Design, error) { return run(in, true) }

// run is Run, with homes false for a suggestion of the one table that serves one query
// (Volumes.Size), which writes no write plan.
func run(in Input, homes bool) (*Design, error) {
	var errs []error
	var groups []*group
	bySig := map[string]*group{}
	for _, q := range in.Queries {
		a, err := analyze(in.Schema, q)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		sh, err := shapeOf(a, in.Volumes != nil)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		g := bySig[sh.signature()]
		if g == nil {
			g = &group{sh: sh, want: map[string]bool{}}
			bySig[sh.signature()] = g
			groups = append(groups, g)
		}
		if len(a.order) > 0 && !g.ordered {
			// The first pattern that asks for an order sets the table's.
			g.sh.ck, g.ordered = sh.ck, true
		}
		g.acc = append(g.acc, a)
		g.star = g.star || a.star
		for _, c := range a.want {
			g.want[c] = true
		}
		for _, r := range a.eq {
			g.want[r.Column().Name] = true
		}
		for _, r := range append(append([]*cql.Relation{}, a.ins...), a.rng...) {
			g.want[r.Column().Name] = true
		}
	}
	errs = append(errs, checkVolumes(in.Schema, in.Volumes)...)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	d := &Design{Target: in.Target, Replication: in.Replication}
	names := map[string]bool{}
	if homes {
		widenHomes(groups)
	}
	for _, g := range groups {
		t, err := designGroup(g, in, names)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		d.Tables = append(d.Tables, t)
		for i, a := range g.acc {
			sv := serve(a, t)
			if i < len(t.reads) {
				rc := t.reads[i]
				sv.Cost = &rc
			}
			d.Queries = append(d.Queries, sv)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if homes {
		if err := addHomes(d, in, names); err != nil {
			return nil, err
		}
	}
	if err := replicate(d, in); err != nil {
		return nil, err
	}
	// Queries in the order given.
	order := map[string]int{}
	for i, q := range in.Queries {
		order[q.Name] = i
	}
	sort.SliceStable(d.Queries, func(i, j int) bool { return order[d.Queries[i].Name] < order[d.Queries[j].Name] })
	return d, nil
}

// Size designs the table that serves one query sized by v: the table, the query rewritten
// for it, the reasons and notes, and why the bucket lint waits ("" when it has nothing to
// say). It is check's suggestion with volumes (check.Options.Size). The design must make
// one table for the query, or it is an error.
func (v *Volumes) Size(schema *cql.Schema, name string, rate float64, p99, rng time.Duration, stmt *cql.Select) (table *cql.Table, query string, notes []string, nolint string, err error) {
	d, err := run(Input{Schema: schema, Queries: []Query{{Name: name, Rate: rate, P99: p99, Range: rng, Stmt: stmt}}, Volumes: v}, false)
	if err != nil {
		return nil, "", nil, "", err
	}
	if len(d.Tables) != 1 || len(d.Queries) != 1 {
		return nil, "", nil, "", fmt.Errorf("query %s: the design has %d tables for it, not one", name, len(d.Tables))
	}
	dt := d.Tables[0]
	notes = append(append([]string{}, dt.Reasons...), dt.Notes...)
	if sv := d.Queries[0]; sv.Cost != nil {
		notes = append(notes, "read cost: "+costText(sv))
	}
	return dt.Table, d.Queries[0].Text, notes, dt.NoLint, nil
}

// tableName is keylayout's name for the table (orders_by_customer_id), numbered when the
// design has one of that name already.
func tableName(g *group, taken map[string]bool) string {
	base := g.sh.layout.Name()
	name := base
	for i := 2; taken[g.sh.entity.Keyspace+"."+name] || g.sh.entity.Name == name; i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	taken[g.sh.entity.Keyspace+"."+name] = true
	return name
}

// designTable chooses the bucket and shards of one table and explains them.
func designTable(g *group, in Input, taken map[string]bool) (*Table, error) {
	sh := g.sh
	name := tableName(g, taken)
	t := &Table{Entity: sh.entity}
	for _, a := range g.acc {
		t.Queries = append(t.Queries, a.q.Name)
	}
	if sh.timeCol != nil {
		t.TimeColumn = sh.timeCol.Name
	}
	var ev *Entity
	if in.Volumes != nil {
		ev = in.Volumes.Entity(sh.entity.Keyspace, sh.entity.Name)
		if ev == nil {
			return nil, cql.Errorf(cql.Pos{File: in.Volumes.File, Line: 1, Col: 1},
				"workload: no entry for entity %s, which query %s reads: give its rows:, retention: (or ttl:) and the distinct counts of the columns it is looked up by", sh.entity.QualifiedName(), g.acc[0].q.Name)
		}
	}
	if ev == nil {
		t.Table, t.Derive = sh.build(name, "", 0, g.want, g.star, 0)
		if b := sh.layout.Bucket; b != nil {
			// A bucket the entity has, moved into the partition key.
			t.BucketColumn = b.Name
			if bb, ok := bound.Bucket(&cql.Table{PartitionKey: []*cql.Column{b}}); ok {
				t.Bucket = bb.Width
			}
			t.Reasons = append(t.Reasons, sh.layout.BucketReason())
		}
		unsized(t, sh, in.Target)
	} else {
		if err := choose(t, g, name, ev, in); err != nil {
			return nil, err
		}
	}
	t.Notes = append(t.Notes, keyNotes(t, sh)...)
	return t, nil
}

// unsized says, for a table designed without volumes, which volume decides its bucket.
func unsized(t *Table, sh *shape, target sizing.Target) {
	if nolint, reason, ok := keylayout.Unsized(t.Table, sh.entity.Name, firstKey(sh), sizing.LimitsText(target, "and")); ok {
		t.NoLint = nolint
		t.Reasons = append(t.Reasons, reason)
	}
}

func firstKey(sh *shape) string {
	if sh.elem != nil {
		return sh.elem.collection.Name
	}
	return sh.pk[0].Name
}

func keyNames(cols []*cql.Column) string {
	var out []string
	for _, c := range cols {
		out = append(out, c.Name)
	}
	return strings.Join(out, ", ")
}

// replicate sizes each sized table's copies by the replication its keyspace will have:
// Input.Replication when given, else the entities' CREATE KEYSPACE (read by
// cql.ReplicationOf, the one reader of replication maps).
func replicate(d *Design, in Input) error {
	for _, t := range d.Tables {
		if t.Estimate == nil {
			continue
		}
		var r cql.Replication
		if in.Replication != nil {
			r = *in.Replication
		} else if k := in.Schema.Keyspaces[t.Table.Keyspace]; k != nil {
			var err error
			if r, err = cql.ReplicationOf(k.Replication); err != nil {
				return fmt.Errorf("keyspace %s: %w", t.Table.Keyspace, err)
			}
		}
		if r.Known() {
			rp := sizing.Replicate(t.Estimate.TotalBytes, r, in.Nodes)
			t.Replicas = &rp
		}
	}
	return nil
}
