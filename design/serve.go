package design

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/sizing"
	"github.com/cqlsize/cqlsize/workload"
)

// serve rewrites one access pattern for the table that serves it: the same selection, its
// equality relations, the element of the collection it searched as a key, its IN and
// range relations, and the bucket and shard as parameters.
func serve(a *access, t *Table) *Served {
	s := a.q.Stmt
	var where []string
	for _, r := range a.eq {
		where = append(where, r.Text)
	}
	if e := a.elem; e != nil {
		where = append(where, cql.QuoteName(e.name)+" = "+e.rel.Value.Text)
	}
	moved := t.BucketColumn != "" && t.Entity.Column(t.BucketColumn) != nil // a bucket the entity has
	named := false
	for _, r := range append(append([]*cql.Relation{}, a.ins...), a.rng...) {
		switch {
		case moved && r.Column().Name == t.BucketColumn && !named:
			// The query names the bucket: = ? replaces an IN or a range on it.
			where, named = append(where, cql.QuoteName(t.BucketColumn)+" = ?"), true
		case moved && r.Column().Name == t.BucketColumn:
		default:
			where = append(where, r.Text)
		}
	}
	var reads []string
	if moved {
		if !named {
			where = append(where, cql.QuoteName(t.BucketColumn)+" = ?")
		}
		reads = append(reads, fmt.Sprintf("one %s per call: walk back %s by %s for older rows", t.BucketColumn, t.BucketColumn, t.BucketColumn))
	} else if t.BucketColumn != "" {
		where = append(where, cql.QuoteName(t.BucketColumn)+" = ?")
		if len(a.rng) > 0 {
			reads = append(reads, fmt.Sprintf("one query per %s bucket the range covers (bucket.Scheme.Between)", t.Bucket))
		} else {
			reads = append(reads, fmt.Sprintf("newest %s bucket first, walking back until the rows are enough (bucket.Scheme.Newest)", t.Bucket))
		}
	}
	if t.ShardColumn != "" && t.Tiers != nil {
		where = append(where, cql.QuoteName(t.ShardColumn)+" = ?")
		reads = []string{fmt.Sprintf("by the key's tier (%s, cached): each period with the bucket width and shards it had, the default tier %s, the hot tier %s; newest bucket first, every shard of each bucket, walking back until the rows are enough",
			t.Tiers.Table, t.Tiers.Default, t.Tiers.Hot)}
	} else if t.ShardColumn != "" {
		where = append(where, cql.QuoteName(t.ShardColumn)+" = ?")
		if t.BucketColumn != "" {
			reads = append(reads, fmt.Sprintf("every shard 0 to %d of each bucket, merged in clustering order (bucket.Scheme.Partitions)", t.Shards-1))
		} else {
			reads = append(reads, fmt.Sprintf("every shard 0 to %d, merged in clustering order", t.Shards-1))
		}
	}
	text := s.Rewrite(qualified(t.Table), where)
	sv := &Served{Name: a.q.Name, Table: t.Table.QualifiedName(), Bucket: t.Bucket, Shards: t.Shards,
		Text: text, Rate: a.q.Rate, Pos: s.Pos, Reads: strings.Join(reads, "; ")}
	if a.q.P99 > 0 {
		sv.P99 = a.q.P99.String()
	}
	for _, c := range t.Table.PartitionKey {
		sv.PartitionKey = append(sv.PartitionKey, c.Name)
	}
	return sv
}

// qualified is the table's name as the output writes it: with its keyspace when the
// entities name one.
func qualified(t *cql.Table) string {
	if t.Keyspace == "" {
		return cql.QuoteName(t.Name)
	}
	return cql.QuoteName(t.Keyspace) + "." + cql.QuoteName(t.Name)
}

// keyNotes names the entity columns the table makes key columns that an application may
// change (a status, a name): changing one is a delete and an insert.
func keyNotes(t *Table, sh *shape) []string {
	var out []string
	for _, c := range append(append([]*cql.Column{}, t.Table.PartitionKey...), t.Table.Clustering...) {
		ec := sh.entity.Column(c.Name)
		if ec == nil || ec.Kind == cql.PartitionKey || ec.Kind == cql.Clustering || isTime(ec) || idLike(ec.Name) {
			continue
		}
		where := "clustering"
		if c.Kind == cql.PartitionKey {
			where = "partition key"
		}
		out = append(out, fmt.Sprintf("%s is a %s column here but may change in %s: a change is a DELETE of the old row and an INSERT of the new one, and the row tombstone stays in the old partition for gc_grace_seconds (10 days), read past by every read of it. "+
			"The alternative: keep %s a regular column and filter it in the service, or keep only the rows whose %s is the one read (delete the row when it changes, a table that holds the current state only)",
			c.Name, where, sh.entity.Name, c.Name, c.Name))
	}
	return out
}

func idLike(name string) bool {
	return name == "id" || strings.HasSuffix(name, "_id") || strings.HasSuffix(name, "_uuid")
}

// checkVolumes holds the volumes to the entities: every entry names an entity, every column
// it describes exists, and no column takes more distinct values than there are rows.
func checkVolumes(schema *cql.Schema, v *Volumes) []error {
	if v == nil {
		return nil
	}
	var errs []error
	for _, ev := range v.Entities {
		ks, name, ok := strings.Cut(ev.Name, ".")
		if !ok {
			ks, name = "", ks
		}
		var t *cql.Table
		if ks != "" {
			t = schema.Table(ks, name)
		} else {
			t, _ = schema.FindTable(name)
		}
		if t == nil {
			errs = append(errs, cql.Errorf(ev.Pos, "workload: %s: no entity table of that name in the schema", ev.Name))
			continue
		}
		total := ev.Rows.PerSecond() * ev.life().Seconds()
		cols := make([]string, 0, len(ev.Columns))
		for c := range ev.Columns {
			cols = append(cols, c)
		}
		sort.Strings(cols)
		for _, col := range cols {
			c := t.Column(col)
			if c == nil {
				errs = append(errs, cql.Errorf(ev.FieldPos("columns."+col), "workload: %s: columns: no column %s in entity %s (it has %s)", ev.Name, col, t.Name, columnList(t)))
				continue
			}
			n, what := total, "rows"
			if c.Type.IsCollection() {
				if ev.Items[col].Count <= 0 {
					// Elements per row not given: nothing to weigh distinct against here; a
					// table keyed by the elements asks for items: when it is sized.
					continue
				}
				n *= ev.Items[col].Count
				what = "elements"
			}
			if d := ev.Columns[col].Distinct; total > 0 && d > n*1.0000001 {
				errs = append(errs, cql.Errorf(ev.FieldPos("columns."+col+".distinct"), "workload: %s: columns: %s: distinct %s is more than the %s %s written over %s (%s): a column cannot take more values than it is given",
					ev.Name, col, sizing.FormatCount(d), sizing.FormatCount(n), what, workload.FormatDuration(ev.life()), rateText(ev.Rows.PerSecond())))
			}
		}
		for _, m := range []map[string]float64{ev.Avg} {
			for col := range m {
				base, _, _ := strings.Cut(col, ".")
				if t.Column(base) == nil {
					errs = append(errs, cql.Errorf(ev.FieldPos("avg."+col), "workload: %s: avg: no column %s in entity %s", ev.Name, col, t.Name))
				}
			}
		}
		for col := range ev.Items {
			if t.Column(col) == nil {
				errs = append(errs, cql.Errorf(ev.FieldPos("items."+col), "workload: %s: items: no column %s in entity %s", ev.Name, col, t.Name))
			}
		}
	}
	return sortErrors(errs)
}

// sortErrors orders positioned errors by file, line and column.
func sortErrors(errs []error) []error {
	sort.SliceStable(errs, func(i, j int) bool {
		var a, b *cql.Error
		if errors.As(errs[i], &a) && errors.As(errs[j], &b) {
			if a.Pos.File != b.Pos.File {
				return a.Pos.File < b.Pos.File
			}
			if a.Pos.Line != b.Pos.Line {
				return a.Pos.Line < b.Pos.Line
			}
			return a.Pos.Col < b.Pos.Col
		}
		return false
	})
	return errs
}

func joinErrors(errs []error) error { return errors.Join(sortErrors(errs)...) }
