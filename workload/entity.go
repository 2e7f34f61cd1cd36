package workload

import (
	"strings"

	"github.com/cqlsize/cqlsize/cql"

	"gopkg.in/yaml.v3"
)

// ColumnVolume is what an entity entry says of one column: how many distinct values it
// takes (distinct: 10M), and how the rows spread over them (skew: zipf:1.1, or the
// {zipf, max_rate} form).
type ColumnVolume struct {
	Distinct float64
	Skew     Skew
}

// IsEntity reports whether the entry describes an entity table (rows: 50k/day, retention:,
// columns:) rather than the partitions of one query table.
func (t *TableWorkload) IsEntity() bool {
	return !t.TableRate.IsZero() || t.Fields["rows_rate"].IsValid() || t.Retention > 0 || len(t.Columns) > 0
}

// designField reads the fields `cqlsize design` added to the format: an entity entry's
// rows: rate, retention: and columns:, and a query table's shards:. It reports whether key
// was one of them.
func (p *parser) designField(t *TableWorkload, key string, v *yaml.Node, field string) bool {
	switch {
	case key == "rows" && strings.Contains(v.Value, "/"):
		p.entityRows(t, v, field)
	case key == "retention":
		if d, ok := p.duration(v, field); ok {
			t.Retention = d
		}
	case key == "columns":
		p.columns(t, v, field)
	case key == "shards":
		if n, ok := p.count(v, field); ok {
			if n < 1 || n != float64(int(n)) || n > 1e6 {
				p.add(v, "%s: want a whole number of write shards from 1 to 1000000, got %s", field, v.Value)
			} else {
				t.Shards = int(n)
			}
		}
	default:
		return false
	}
	return true
}

// entityRows reads `rows: 50k/day`: inserts into the whole entity table per span of time.
func (p *parser) entityRows(t *TableWorkload, v *yaml.Node, field string) {
	t.Fields["rows"] = p.pos(v)
	t.Fields["rows_rate"] = p.pos(v)
	if r, ok := p.rate(v, field); ok {
		if !(r.PerSecond() > 0) {
			p.add(v, "%s: want a rate above zero, such as 50k/day", field)
			return
		}
		t.TableRate = r
	}
}

// columns reads `columns: {customer_id: {distinct: 10M}, store_id: {distinct: 2000, skew:
// zipf:1.1}}`.
func (p *parser) columns(t *TableWorkload, v *yaml.Node, field string) {
	if v.Kind != yaml.MappingNode {
		p.add(v, "%s: want a mapping from column name to {distinct: N, skew: ...}, got %s", field, kindName(v))
		return
	}
	if t.Columns == nil {
		t.Columns = map[string]ColumnVolume{}
	}
	t.Fields["columns"] = p.pos(v)
	p.fields(v, field, func(col string, ck, cv *yaml.Node) {
		f := field + "." + col
		t.Fields["columns."+col] = p.pos(ck)
		if cv.Kind != yaml.MappingNode {
			p.add(cv, "%s: want {distinct: N} with an optional skew, got %s", f, kindName(cv))
			return
		}
		var c ColumnVolume
		p.fields(cv, f, func(key string, k, vv *yaml.Node) {
			t.Fields["columns."+col+"."+key] = p.pos(vv)
			switch key {
			case "distinct":
				if n, ok := p.count(vv, f+".distinct"); ok {
					if n < 1 {
						p.add(vv, "%s.distinct: want at least 1 value, got %s", f, vv.Value)
					}
					c.Distinct = n
				}
			case "skew":
				// The column's own fields: a cap here bounds each value of this column
				// (max_rate: 25/day a driver), not each key of the table.
				tmp := &TableWorkload{Fields: map[string]cql.Pos{}}
				p.skew(tmp, vv, f+".skew")
				c.Skew = tmp.Skew
				if pos, ok := tmp.Fields["skew.max_rate"]; ok {
					t.Fields["columns."+col+".skew.max_rate"] = pos
					if !(c.Skew.MaxRate.PerSecond() > 0) {
						p.add(vv, "%s.skew.max_rate: want a rate above zero, such as 25/day (leave it out for no cap)", f)
					}
				}
			default:
				p.add(k, "%s: unknown field %q (want distinct, skew)", f, key)
			}
		})
		if _, ok := t.Fields["columns."+col+".distinct"]; !ok {
			p.add(ck, "%s: want distinct: how many values the column takes", f)
		}
		t.Columns[col] = c
	})
}

// checkEntity lists the problems of an entity entry: it needs its rate and how long rows
// stay, and the per-partition fields belong to query tables.
func (t *TableWorkload) checkEntity() []fieldProblem {
	var out []fieldProblem
	add := func(field, msg string) { out = append(out, fieldProblem{field, msg}) }
	if t.TableRate.IsZero() {
		add("", "an entity entry (retention:, columns:) needs rows: the rows inserted into the whole table per span of time, such as 50k/day")
	}
	if t.Retention == 0 && (t.TTL == nil || *t.TTL == 0) {
		add("", "an entity entry needs retention: (how long rows are kept, such as 5y) or ttl:")
	}
	for _, f := range []string{"partitions", "rows_per_partition", "write_rate", "bucket", "shards"} {
		if _, ok := t.Fields[f]; ok {
			add(f, f+": belongs to a query table's entry; an entity entry gives rows:, retention: and columns:, and the design derives the rest")
		}
	}
	return out
}
