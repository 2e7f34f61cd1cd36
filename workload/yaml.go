package workload

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/cqlsize/cqlsize/cql"
)

// Load reads a workload file (YAML; see testdata/workload-example.yaml for every
// field). Errors name the file, line and column of the field at fault; every problem in the
// file is reported, not just the first.
func Load(path string) (*Workload, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read workload: %w", err)
	}
	return Parse(path, data)
}

// Parse reads a workload from YAML text; file names it in errors.
func Parse(file string, data []byte) (*Workload, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, ErrorList{yamlError(file, data, err)}
	}
	p := &parser{file: file}
	w := &Workload{File: file}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, ErrorList{cql.Errorf(cql.Pos{File: file, Line: 1, Col: 1}, "workload is empty: want a `tables:` mapping")}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, ErrorList{p.errorf(root, "workload: want a mapping with `tables:`, got %s", kindName(root))}
	}
	var defaults, tables *yaml.Node
	p.fields(root, "", func(key string, k, v *yaml.Node) {
		switch key {
		case "version":
			if v.Value != "1" {
				p.add(v, "version: this cqlsize reads workload version 1, got %q", v.Value)
			}
		case "defaults":
			defaults = v
		case "tables":
			tables = v
		default:
			p.add(k, "unknown field %q at the top of the workload (want version, defaults, tables)", key)
		}
	})
	if defaults != nil && defaults.Kind != yaml.MappingNode {
		p.add(defaults, "defaults: want a mapping of table fields, got %s", kindName(defaults))
		defaults = nil
	}
	switch {
	case tables == nil:
		if len(p.errs) == 0 {
			p.add(root, "workload has no `tables:` mapping")
		}
	case tables.Kind != yaml.MappingNode:
		p.add(tables, "tables: want a mapping from table name to its workload, got %s", kindName(tables))
	default:
		tmpl := &TableWorkload{Fields: map[string]cql.Pos{}}
		if defaults != nil {
			p.table(tmpl, defaults, "defaults.")
		}
		p.fields(tables, "tables", func(name string, k, v *yaml.Node) {
			t := tmpl.Clone()
			t.Name, t.Pos = name, p.pos(k)
			if strings.TrimSpace(name) == "" {
				p.add(k, "tables: empty table name")
			}
			if v.Kind != yaml.MappingNode {
				p.add(v, "table %s: want a mapping of fields, got %s", name, kindName(v))
			} else {
				p.table(t, v, "")
			}
			p.check(t)
			w.Tables = append(w.Tables, t)
		})
	}
	if err := p.errs.err(); err != nil {
		return nil, err
	}
	return w, nil
}

// yamlError turns a yaml.v3 syntax error ("yaml: line 3: ...") into a positioned error.
func yamlError(file string, data []byte, err error) *cql.Error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 1
	if strings.HasPrefix(msg, "line ") {
		rest := msg[len("line "):]
		if i := strings.IndexByte(rest, ':'); i > 0 {
			if n, e := strconv.Atoi(rest[:i]); e == nil {
				line, msg = n, strings.TrimSpace(rest[i+1:])
			}
		}
	}
	if bad, col := misindented(data, line); bad > 0 {
		return cql.Errorf(cql.Pos{File: file, Line: bad, Col: col},
			"read workload YAML: this line's indentation matches no enclosing key (yaml: line %d: %s)", line, msg)
	}
	return cql.Errorf(cql.Pos{File: file, Line: line, Col: 1}, "read workload YAML: %s", msg)
}

// misindented finds, from line from on, the first line that dedents to a column no enclosing
// line starts at: the usual cause of yaml.v3's "did not find expected key", which yaml.v3
// reports at the line of the mapping it was reading (often `tables:`), far from the bad line.
// It returns 0 when every line's indentation matches an enclosing one, so the caller keeps
// yaml.v3's position.
func misindented(data []byte, from int) (line, col int) {
	var levels []int
	for i, text := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimLeft(text, " ")
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		indent := len(text) - len(trimmed)
		popped := false
		for len(levels) > 0 && indent < levels[len(levels)-1] {
			levels, popped = levels[:len(levels)-1], true
		}
		if popped && (len(levels) == 0 || indent != levels[len(levels)-1]) && i+1 >= from {
			return i + 1, indent + 1
		}
		if len(levels) == 0 || indent > levels[len(levels)-1] {
			levels = append(levels, indent)
		}
	}
	return 0, 0
}

type parser struct {
	file string
	errs ErrorList
}

func (p *parser) pos(n *yaml.Node) cql.Pos {
	return cql.Pos{File: p.file, Line: n.Line, Col: n.Column}
}

func (p *parser) errorf(n *yaml.Node, format string, args ...any) *cql.Error {
	return cql.Errorf(p.pos(n), format, args...)
}

func (p *parser) add(n *yaml.Node, format string, args ...any) {
	p.errs = append(p.errs, p.errorf(n, format, args...))
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Value == "" {
			return "nothing"
		}
		return fmt.Sprintf("%q", n.Value)
	case yaml.AliasNode:
		return "an alias"
	}
	return "nothing"
}

// fields walks a mapping's keys in order, rejecting duplicate and non-scalar keys.
func (p *parser) fields(m *yaml.Node, where string, fn func(key string, k, v *yaml.Node)) {
	seen := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		if k.Kind != yaml.ScalarNode {
			p.add(k, "%s: want a name as the key, got %s", orTop(where), kindName(k))
			continue
		}
		if line, dup := seen[k.Value]; dup {
			p.add(k, "%s: %q is given twice (first at line %d)", orTop(where), k.Value, line)
			continue
		}
		seen[k.Value] = k.Line
		fn(k.Value, k, v)
	}
}

func orTop(where string) string {
	if where == "" {
		return "workload"
	}
	return where
}

// scalar returns v's text, or records an error when v is not a single value.
func (p *parser) scalar(v *yaml.Node, field string) (string, bool) {
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		p.add(v, "%s: want a single value, got %s", field, kindName(v))
		return "", false
	}
	return v.Value, true
}

func (p *parser) count(v *yaml.Node, field string) (float64, bool) {
	s, ok := p.scalar(v, field)
	if !ok {
		return 0, false
	}
	n, err := ParseCount(s)
	if err != nil {
		p.add(v, "%s: %v", field, err)
		return 0, false
	}
	return n, true
}

func (p *parser) fraction(v *yaml.Node, field string) (float64, bool) {
	s, ok := p.scalar(v, field)
	if !ok {
		return 0, false
	}
	f, err := ParseFraction(s)
	if err != nil {
		p.add(v, "%s: %v", field, err)
		return 0, false
	}
	return f, true
}

func (p *parser) duration(v *yaml.Node, field string) (time.Duration, bool) {
	s, ok := p.scalar(v, field)
	if !ok {
		return 0, false
	}
	d, err := ParseDuration(s)
	if err != nil {
		p.add(v, "%s: %v", field, err)
		return 0, false
	}
	return d, true
}

func (p *parser) rate(v *yaml.Node, field string) (Rate, bool) {
	s, ok := p.scalar(v, field)
	if !ok {
		return Rate{}, false
	}
	r, err := ParseRate(s)
	if err != nil {
		p.add(v, "%s: %v", field, err)
		return Rate{}, false
	}
	return r, true
}

// tableFields are the fields of a table entry, for the unknown-field message.
var tableFields = []string{
	"partitions", "rows_per_partition", "rows", "retention", "columns", "write_rate", "bucket", "shards", "horizon", "avg", "items", "nulls",
	"nulls_as", "ttl", "ttl_mix", "deletes", "overwrites", "element_writes", "skew", "write_spread", "writes", "compression_ratio",
	"expired_rows", "expired_ttl",
}

// table reads the fields of one table entry (or of defaults, with prefix "defaults.") into t.
func (p *parser) table(t *TableWorkload, m *yaml.Node, prefix string) {
	name := t.Name
	if prefix != "" {
		name = "defaults"
	}
	p.fields(m, name, func(key string, k, v *yaml.Node) {
		field := name + "." + key
		t.Fields[key] = p.pos(v)
		if p.designField(t, key, v, field) {
			return
		}
		switch key {
		case "partitions":
			if n, ok := p.count(v, field); ok {
				t.Partitions = n
			}
		case "rows_per_partition", "rows":
			if n, ok := p.count(v, field); ok {
				t.RowsPerPartition = n
				t.Fields["rows_per_partition"] = p.pos(v)
			}
		case "write_rate":
			if r, ok := p.rate(v, field); ok {
				t.WriteRate = r
			}
		case "bucket":
			p.bucket(t, v, field)
		case "horizon":
			if d, ok := p.duration(v, field); ok {
				t.Horizon = d
			}
		case "avg":
			t.Avg = p.columnNumbers(t, v, field, "avg", t.Avg, func(v *yaml.Node, f string) (float64, bool) { return p.count(v, f) })
		case "nulls":
			p.nulls(t, v, field)
		case "nulls_as":
			p.nullsAs(t, v, field)
		case "items":
			p.items(t, v, field)
		case "ttl":
			if d, ok := p.duration(v, field); ok {
				t.TTL = &d
			}
		case "ttl_mix":
			t.TTLMix = p.ttlMix(v, field)
		case "deletes":
			t.Deletes = p.deletes(t, v, field)
		case "overwrites":
			p.overwrites(t, v, field)
		case "element_writes":
			p.elementWrites(t, v, field)
		case "skew":
			p.skew(t, v, field)
		case "compression_ratio":
			if n, ok := p.count(v, field); ok {
				if !(n > 0) || n > 2 {
					p.add(v, "%s: want compressed over uncompressed bytes, above 0 and at most 2, got %s", field, v.Value)
				} else {
					t.CompressionRatio = n
				}
			}
		case "expired_rows":
			if n, ok := p.count(v, field); ok {
				t.ExpiredRows = n
			}
		case "expired_ttl":
			if d, ok := p.duration(v, field); ok {
				t.ExpiredTTL = d
			}
		case "write_spread":
			if d, ok := p.duration(v, field); ok {
				t.WriteSpread = d
			}
		case "writes":
			if s, ok := p.scalar(v, field); ok {
				switch strings.ToLower(s) {
				case "insert":
					t.Writes = Insert
				case "update":
					t.Writes = Update
				default:
					p.add(v, "%s: want insert or update, got %q", field, s)
				}
			}
		default:
			p.add(k, "%s: unknown field %q (want one of %s)", name, key, strings.Join(tableFields, ", "))
		}
	})
}

// nulls reads nulls: one fraction for every column, or a mapping from column to fraction.
func (p *parser) nulls(t *TableWorkload, v *yaml.Node, field string) {
	if v.Kind == yaml.ScalarNode {
		if f, ok := p.fraction(v, field); ok {
			if t.Nulls == nil {
				t.Nulls = map[string]float64{}
			}
			t.Nulls["*"] = f
			t.Fields["nulls.*"] = p.pos(v)
		}
		return
	}
	t.Nulls = p.columnNumbers(t, v, field, "nulls", t.Nulls, p.fraction)
}

// nullsAs reads how the application writes a missing value: bound as null (a tombstone) or unset.
func (p *parser) nullsAs(t *TableWorkload, v *yaml.Node, field string) {
	if v.Kind != yaml.ScalarNode {
		p.add(v, "%s: want null or unset, got %s", field, kindName(v))
		return
	}
	switch s := v.Value; strings.ToLower(s) {
	case "null", "~", "tombstone":
		t.NullsAs = NullTombstone
	case "unset":
		t.NullsAs = NullUnset
	default:
		p.add(v, "%s: want null (bound as null: a tombstone) or unset (nothing written), got %q", field, s)
	}
}

// overwrites reads the mapping from collection column to how often it is written whole again.
func (p *parser) overwrites(t *TableWorkload, v *yaml.Node, field string) {
	if v.Kind != yaml.MappingNode {
		p.add(v, "%s: want a mapping from collection column to rate (tags: 2/day), got %s", field, kindName(v))
		return
	}
	if t.Overwrites == nil {
		t.Overwrites = map[string]Rate{}
	}
	p.fields(v, field, func(col string, ck, cv *yaml.Node) {
		t.Fields["overwrites."+col] = p.pos(ck)
		if r, ok := p.rate(cv, field+"."+col); ok {
			t.Overwrites[col] = r
		}
	})
}

// columnNumbers reads a mapping from column name to a number, merging into into.
func (p *parser) columnNumbers(t *TableWorkload, v *yaml.Node, field, path string, into map[string]float64,
	read func(*yaml.Node, string) (float64, bool)) map[string]float64 {
	if v.Kind != yaml.MappingNode {
		p.add(v, "%s: want a mapping from column name to a number, got %s", field, kindName(v))
		return into
	}
	if into == nil {
		into = map[string]float64{}
	}
	p.fields(v, field, func(col string, ck, cv *yaml.Node) {
		t.Fields[path+"."+col] = p.pos(ck)
		if n, ok := read(cv, field+"."+col); ok {
			into[col] = n
		}
	})
	return into
}

// items reads `items: {tags: 5, attrs: {count: 3, key: 8, value: 20}}`.
func (p *parser) items(t *TableWorkload, v *yaml.Node, field string) {
	if v.Kind != yaml.MappingNode {
		p.add(v, "%s: want a mapping from collection column to its element count, got %s", field, kindName(v))
		return
	}
	if t.Items == nil {
		t.Items = map[string]Items{}
	}
	p.fields(v, field, func(col string, ck, cv *yaml.Node) {
		f := field + "." + col
		t.Fields["items."+col] = p.pos(ck)
		var it Items
		if cv.Kind == yaml.ScalarNode {
			n, ok := p.count(cv, f)
			if !ok {
				return
			}
			it.Count = n
			t.Items[col] = it
			return
		}
		if cv.Kind != yaml.MappingNode {
			p.add(cv, "%s: want a count (5) or a mapping {count: 5, size: 12}, got %s", f, kindName(cv))
			return
		}
		hasCount := false
		p.fields(cv, f, func(key string, k, vv *yaml.Node) {
			n, ok := p.count(vv, f+"."+key)
			if !ok {
				return
			}
			switch key {
			case "count":
				it.Count, hasCount = n, true
			case "size", "value":
				it.Size = n
			case "key":
				it.KeySize = n
			default:
				p.add(k, "%s: unknown field %q (want count, size, key, value)", f, key)
			}
		})
		if !hasCount {
			p.add(cv, "%s: want count: how many elements a collection holds", f)
		}
		t.Items[col] = it
	})
}

// skew reads `skew: uniform`, `skew: {zipf: 1.1}`, `skew: zipf 1.1`, and the cap on the
// busiest key: `skew: {zipf: 1.1, max_rate: 10/s}` (or `{max_rate: 10/s}`, uniform).
func (p *parser) skew(t *TableWorkload, v *yaml.Node, field string) {
	zipf := func(n *yaml.Node, s string) {
		x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || !(x > 0) || x > 10 {
			p.add(n, "%s: want a Zipf exponent above 0 (1.1 is typical), got %q", field, s)
			return
		}
		t.Skew.Kind, t.Skew.S = Zipf, x
	}
	switch v.Kind {
	case yaml.ScalarNode:
		s := strings.ToLower(strings.TrimSpace(v.Value))
		switch {
		case s == "uniform":
			t.Skew = Skew{}
		case strings.HasPrefix(s, "zipf"):
			t.Skew = Skew{}
			zipf(v, strings.TrimLeft(s[4:], " :="))
		default:
			p.add(v, "%s: want uniform or {zipf: 1.1}, got %q", field, v.Value)
		}
	case yaml.MappingNode:
		t.Skew = Skew{}
		p.fields(v, field, func(key string, k, vv *yaml.Node) {
			switch key {
			case "zipf":
				if s, ok := p.scalar(vv, field+".zipf"); ok {
					zipf(vv, s)
				}
			case "max_rate":
				t.Fields["skew.max_rate"] = p.pos(vv)
				if r, ok := p.rate(vv, field+".max_rate"); ok {
					t.Skew.MaxRate = r
				}
			default:
				p.add(k, "%s: unknown field %q (want zipf, max_rate)", field, key)
			}
		})
	default:
		p.add(v, "%s: want uniform or {zipf: 1.1}, got %s", field, kindName(v))
	}
}

func (p *parser) deletes(t *TableWorkload, v *yaml.Node, field string) []Delete {
	var items []*yaml.Node
	switch v.Kind {
	case yaml.MappingNode:
		items = []*yaml.Node{v}
	case yaml.SequenceNode:
		items = v.Content
	default:
		p.add(v, "%s: want a delete ({kind: row, rate: 5/day}) or a list of them, got %s", field, kindName(v))
		return nil
	}
	var out []Delete
	for i, it := range items {
		f := fmt.Sprintf("%s[%d]", field, i)
		if it.Kind != yaml.MappingNode {
			p.add(it, "%s: want a mapping such as {kind: row, rate: 5/day}, got %s", f, kindName(it))
			continue
		}
		d := Delete{Pos: p.pos(it), Rows: 1}
		hasKind, hasAmount := false, false
		p.fields(it, f, func(key string, k, vv *yaml.Node) {
			t.Fields[fmt.Sprintf("deletes[%d].%s", i, key)] = p.pos(vv)
			switch key {
			case "kind":
				s, ok := p.scalar(vv, f+".kind")
				if !ok {
					return
				}
				for j, n := range deleteKindNames {
					if strings.EqualFold(s, n) {
						d.Kind, hasKind = DeleteKind(j), true
					}
				}
				if !hasKind {
					p.add(vv, "%s.kind: want one of %s, got %q", f, strings.Join(deleteKindNames[:], ", "), s)
					hasKind = true // reported
				}
			case "rate":
				if r, ok := p.rate(vv, f+".rate"); ok {
					d.Rate, hasAmount = r, true
				}
			case "per_day":
				if n, ok := p.count(vv, f+".per_day"); ok {
					d.Rate, hasAmount = Rate{Count: n, Per: Day}, true
				}
			case "per_partition":
				if n, ok := p.count(vv, f+".per_partition"); ok {
					d.PerPartition, hasAmount = n, true
				}
			case "rows":
				if n, ok := p.count(vv, f+".rows"); ok {
					d.Rows = n
				}
			case "column":
				if s, ok := p.scalar(vv, f+".column"); ok {
					d.Column = s
				}
			case "at":
				if s, ok := p.scalar(vv, f+".at"); ok {
					d.At = placement(s)
					if d.At == "" {
						p.add(vv, "%s.at: want one of %s, got %q", f, strings.Join(DeletePlacements, ", "), s)
					}
				}
			default:
				p.add(k, "%s: unknown field %q (want kind, rate, per_day, per_partition, rows, column, at)", f, key)
			}
		})
		if !hasKind {
			p.add(it, "%s: want kind: one of %s", f, strings.Join(deleteKindNames[:], ", "))
		}
		if !hasAmount {
			p.add(it, "%s: want rate (5/day), per_day (5) or per_partition (100)", f)
		}
		out = append(out, d)
	}
	return out
}

// check validates what one field cannot: combinations and impossible numbers.
func (p *parser) check(t *TableWorkload) {
	for _, e := range t.check() {
		p.errs = append(p.errs, errorAt(t.FieldPos(e.field), "table %s: %s", t.Name, e.msg))
	}
}

type fieldProblem struct{ field, msg string }

// check lists the problems of a table workload that need no schema.
func (t *TableWorkload) check() []fieldProblem {
	var out []fieldProblem
	add := func(field, format string, args ...any) {
		out = append(out, fieldProblem{field, fmt.Sprintf(format, args...)})
	}
	_, rowsSet := t.Fields["rows_per_partition"]
	_, rowsGiven := t.Fields["rows"] // given, maybe unreadable: already reported
	_, rateGiven := t.Fields["write_rate"]
	hasRows, hasRate := t.RowsPerPartition > 0 || rowsSet || rowsGiven, !t.WriteRate.IsZero() || rateGiven
	switch {
	case t.IsEntity():
		out = append(out, t.checkEntity()...)
	case hasRows && hasRate:
		add("write_rate", "declare rows_per_partition or write_rate, not both")
	case !hasRows && !hasRate:
		add("", "declare rows_per_partition (rows written to a partition) or write_rate (rows per partition key per day, with the bucket that bounds a partition)")
	}
	if !t.Skew.MaxRate.IsZero() && !(t.Skew.MaxRate.PerSecond() > 0) {
		add("skew.max_rate", "skew.max_rate: want a rate above zero, such as 10/s (leave it out for no cap)")
	}
	if !t.Skew.MaxRate.IsZero() && t.WriteRate.IsZero() && hasRows {
		add("skew.max_rate", "skew.max_rate caps a key's write_rate, and this table declares rows_per_partition: give write_rate (rows per key per day) instead, or leave max_rate out")
	}
	if t.Partitions > 0 && t.Partitions < 1 {
		add("partitions", "partitions: want at least 1 partition key, got %s", FormatNumber(t.Partitions))
	}
	out = append(out, t.bounds()...)
	if t.TTL != nil && *t.TTL > 0 && *t.TTL < time.Second {
		add("ttl", "ttl: under one second; Cassandra counts TTLs in whole seconds")
	}
	if t.TTL != nil && *t.TTL > 20*Year {
		add("ttl", "ttl: Cassandra's maximum TTL is 20 years (630720000 seconds), got %s", FormatDuration(*t.TTL))
	}
	for i, d := range t.Deletes {
		f := fmt.Sprintf("deletes[%d]", i)
		if d.Kind == DeletePartition && d.Rate.IsZero() && d.PerPartition > 1 {
			add(f+".per_partition", "%s: a partition is deleted at most once: per_partition is the fraction of partitions deleted (0 to 1)", f)
		}
		if (d.Kind == DeleteCell || d.Kind == DeleteElement) && d.Column == "" {
			add(f, "%s: a %s delete needs column: the column it removes", f, d.Kind)
		}
		if d.Kind != DeleteCell && d.Kind != DeleteElement && d.Column != "" {
			add(f+".column", "%s: column applies to cell and element deletes only", f)
		}
		if d.Kind != DeleteRange && d.Rows != 1 {
			add(f+".rows", "%s: rows applies to range deletes only", f)
		}
		if d.Kind == DeleteRange && d.Rows < 1 {
			add(f+".rows", "%s: a range delete covers at least 1 row", f)
		}
	}
	return out
}

// sortedKeys returns a map's keys in order, for stable messages.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Clone copies a table workload deeply, so defaults can seed every table and an estimate
// can fill in a copy without changing the caller's workload.
func (t *TableWorkload) Clone() *TableWorkload {
	c := *t
	c.Avg = cloneMap(t.Avg)
	c.Items = cloneMap(t.Items)
	c.Nulls = cloneMap(t.Nulls)
	c.Overwrites = cloneMap(t.Overwrites)
	c.ElementWrites = cloneMap(t.ElementWrites)
	c.Columns = cloneMap(t.Columns)
	c.Fields = cloneMap(t.Fields)
	if c.Fields == nil {
		c.Fields = map[string]cql.Pos{}
	}
	c.Deletes = append([]Delete(nil), t.Deletes...)
	if t.TTL != nil {
		ttl := *t.TTL
		c.TTL = &ttl
	}
	if t.TTLMix != nil {
		c.TTLMix = make(map[time.Duration]float64, len(t.TTLMix))
		for k, v := range t.TTLMix {
			c.TTLMix[k] = v
		}
	}
	return &c
}

// ttlMix reads ttl_mix: a mapping from TTL (none or 0 for rows without one) to the share of
// rows written with it; the shares are scaled to sum to 1.
func (p *parser) ttlMix(v *yaml.Node, field string) map[time.Duration]float64 {
	if v.Kind != yaml.MappingNode {
		p.add(v, "%s: want a mapping from TTL to the share of rows written with it ({1h: 0.3, 1d: 0.5, none: 0.2}), got %s", field, kindName(v))
		return nil
	}
	mix := map[time.Duration]float64{}
	sum := 0.0
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		var d time.Duration
		if k.Value != "none" {
			var ok bool
			if d, ok = p.duration(k, field); !ok {
				continue
			}
		}
		f, ok := p.fraction(val, field+"."+k.Value)
		if !ok {
			continue
		}
		mix[d] += f
		sum += f
	}
	if len(mix) == 0 || !(sum > 0) {
		if len(mix) > 0 || len(v.Content) == 0 {
			p.add(v, "%s: want at least one TTL with a share above 0", field)
		}
		return nil
	}
	for d := range mix {
		mix[d] /= sum
	}
	return mix
}

func cloneMap[V any](m map[string]V) map[string]V {
	if m == nil {
		return nil
	}
	out := make(map[string]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// bucket reads `bucket: month` (a width, as bucket.ParseWidth reads it) or `bucket: none`.
func (p *parser) bucket(t *TableWorkload, v *yaml.Node, field string) {
	s, ok := p.scalar(v, field)
	if !ok {
		return
	}
	if strings.EqualFold(strings.TrimSpace(s), "none") {
		t.NoBucket, t.Bucket = true, Span{}
		return
	}
	w, err := ParseSpan(s)
	if err != nil {
		p.add(v, "%s: %v", field, err)
		return
	}
	t.Bucket = w
}

// placement is the DeletePlacements value s names ("scattered" is spread), or "".
func placement(s string) string {
	if strings.EqualFold(s, "scattered") {
		return "spread"
	}
	for _, n := range DeletePlacements {
		if strings.EqualFold(s, n) {
			return n
		}
	}
	return ""
}

// elementWrites reads element_writes: [reactions, tags], the collections written element by
// element only, or element_writes: {prefs: 0.3, reactions: 1}, the share of each one's
// elements written element by element (1: only so).
func (p *parser) elementWrites(t *TableWorkload, v *yaml.Node, field string) {
	if t.ElementWrites == nil {
		t.ElementWrites = map[string]float64{}
	}
	switch v.Kind {
	case yaml.SequenceNode:
		for _, c := range v.Content {
			if c.Kind != yaml.ScalarNode || c.Value == "" {
				p.add(c, "%s: want a column name, got %s", field, kindName(c))
				continue
			}
			t.ElementWrites[c.Value] = 1
			t.Fields["element_writes."+c.Value] = p.pos(c)
		}
	case yaml.MappingNode:
		p.fields(v, field, func(col string, ck, cv *yaml.Node) {
			t.Fields["element_writes."+col] = p.pos(ck)
			n, ok := p.count(cv, field+"."+col)
			if !ok {
				return
			}
			if !(n > 0) || n > 1 {
				p.add(cv, "%s.%s: want the share of its elements written element by element, above 0 and at most 1, got %s", field, col, cv.Value)
				return
			}
			t.ElementWrites[col] = n
		})
	default:
		p.add(v, "%s: want a list of non-frozen collection columns ([reactions]) or each one's share of elements written element by element ({prefs: 0.3}), got %s", field, kindName(v))
	}
}
