// Package workloadflag reads a table's workload from command-line settings, the compact
// syntax of `cqlsize estimate --table`'s flags (--avg content=280, --items tags=5x12,
// --delete range:2/day:50, --skew zipf:1.1). It lives beside the CLI, not in sizing: a service
// embedding sizing builds a workload.TableWorkload in code or reads a workload file
// (workload.Parse), and needs none of this syntax.
package workloadflag

import (
	"fmt"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/workload"
)

// fields are the settings Set accepts, for the unknown-field message: the workload file's
// table fields, and max_rate (skew.max_rate in a file).
var fields = []string{
	"partitions", "rows_per_partition", "write_rate", "bucket", "horizon", "avg", "items", "nulls",
	"nulls_as", "ttl", "deletes", "overwrites", "skew", "max_rate", "write_spread", "writes",
}

// deleteKinds are the kinds a --delete names, in workload.DeleteKind order.
var deleteKinds = []workload.DeleteKind{workload.DeletePartition, workload.DeleteRow, workload.DeleteRange, workload.DeleteCell, workload.DeleteElement}

// parseAvg reads an --avg value, "content=280": a column and the average bytes of its value.
func parseAvg(s string) (column string, bytes float64, err error) {
	col, val, err := splitPair(s, "column=bytes, such as content=280")
	if err != nil {
		return "", 0, err
	}
	n, err := workload.ParseCount(val)
	if err != nil {
		return "", 0, fmt.Errorf("%q: %w", s, err)
	}
	return col, n, nil
}

// parseItems reads an --items value: "tags=5" (5 elements), "tags=5x12" (5 elements of 12
// bytes) or "attrs=3x8:20" (a map of 3 entries, 8-byte keys, 20-byte values).
func parseItems(s string) (column string, items workload.Items, err error) {
	col, val, err := splitPair(s, "column=count, column=countxsize or column=countxkey:value, such as tags=5x12")
	if err != nil {
		return "", workload.Items{}, err
	}
	count, size, hasSize := strings.Cut(val, "x")
	if items.Count, err = workload.ParseCount(count); err != nil {
		return "", workload.Items{}, fmt.Errorf("%q: element count: %w", s, err)
	}
	if hasSize {
		key, value, isMap := strings.Cut(size, ":")
		if isMap {
			if items.KeySize, err = workload.ParseCount(key); err != nil {
				return "", workload.Items{}, fmt.Errorf("%q: map key size: %w", s, err)
			}
			size = value
		}
		if items.Size, err = workload.ParseCount(size); err != nil {
			return "", workload.Items{}, fmt.Errorf("%q: element size: %w", s, err)
		}
	}
	return col, items, nil
}

// parseNulls reads a --nulls value: "title=0.3" for one column, or "0.1" (column "*") for
// every regular and static column without its own entry.
func parseNulls(s string) (column string, fraction float64, err error) {
	col, val, ok := strings.Cut(s, "=")
	if !ok {
		col, val = "*", s
	}
	col = strings.TrimSpace(col)
	if col == "" {
		return "", 0, fmt.Errorf("%q: want column=fraction, such as title=0.3, or a fraction for every column", s)
	}
	f, err := workload.ParseFraction(val)
	if err != nil {
		return "", 0, fmt.Errorf("%q: %w", s, err)
	}
	return col, f, nil
}

// parseDelete reads a --delete value: "row:5/day", "partition:0.01" (a fraction of
// partitions), "range:2/day:50" (each covering 50 rows), "element:tags:1/day", or the long form
// "kind=range,rate=2/day,rows=50".
func parseDelete(s string) (workload.Delete, error) {
	d := workload.Delete{Rows: 1}
	setKind := func(k string) error {
		var names []string
		for _, kind := range deleteKinds {
			if strings.EqualFold(strings.TrimSpace(k), kind.String()) {
				d.Kind = kind
				return nil
			}
			names = append(names, kind.String())
		}
		return fmt.Errorf("%q: kind %q: want one of %s", s, k, strings.Join(names, ", "))
	}
	setAmount := func(a string) error {
		if strings.Contains(a, "/") {
			r, err := workload.ParseRate(a)
			d.Rate = r
			return err
		}
		n, err := workload.ParseCount(a)
		d.PerPartition = n
		return err
	}
	if strings.Contains(s, "=") {
		hasKind, hasAmount := false, false
		for _, kv := range strings.Split(s, ",") {
			k, v, _ := strings.Cut(kv, "=")
			var err error
			switch strings.TrimSpace(k) {
			case "kind":
				err, hasKind = setKind(v), true
			case "rate", "per_partition", "per_day":
				if k == "per_day" {
					v += "/day"
				}
				err, hasAmount = setAmount(strings.TrimSpace(v)), true
			case "rows":
				d.Rows, err = workload.ParseCount(v)
			case "column":
				d.Column = strings.TrimSpace(v)
			default:
				return workload.Delete{}, fmt.Errorf("%q: unknown field %q (want kind, rate, per_partition, rows, column)", s, k)
			}
			if err != nil {
				return workload.Delete{}, fmt.Errorf("delete %q: %w", s, err)
			}
		}
		if !hasKind {
			return workload.Delete{}, fmt.Errorf("%q: want kind=partition|row|range|cell|element", s)
		}
		if !hasAmount {
			return workload.Delete{}, fmt.Errorf("%q: want rate=5/day, per_day=5 or per_partition=100", s)
		}
		return d, nil
	}
	parts := strings.Split(s, ":")
	if len(parts) < 2 {
		return workload.Delete{}, fmt.Errorf("%q: want kind:amount such as row:5/day, range:2/day:50 or element:tags:1/day", s)
	}
	if err := setKind(parts[0]); err != nil {
		return workload.Delete{}, err
	}
	rest := parts[1:]
	if d.Kind == workload.DeleteCell || d.Kind == workload.DeleteElement {
		d.Column, rest = strings.TrimSpace(rest[0]), rest[1:]
		if len(rest) == 0 {
			return workload.Delete{}, fmt.Errorf("%q: want %s:column:amount, such as %s:tags:1/day", s, d.Kind, d.Kind)
		}
	}
	if err := setAmount(strings.TrimSpace(rest[0])); err != nil {
		return workload.Delete{}, fmt.Errorf("delete %q: %w", s, err)
	}
	if len(rest) > 1 {
		if d.Kind != workload.DeleteRange || len(rest) > 2 {
			return workload.Delete{}, fmt.Errorf("%q: too many parts", s)
		}
		n, err := workload.ParseCount(rest[1])
		if err != nil {
			return workload.Delete{}, fmt.Errorf("delete %q: rows: %w", s, err)
		}
		d.Rows = n
	}
	return d, nil
}

func splitPair(s, want string) (string, string, error) {
	col, val, ok := strings.Cut(s, "=")
	col = strings.TrimSpace(col)
	if !ok || col == "" {
		return "", "", fmt.Errorf("%q: want %s", s, want)
	}
	return col, strings.TrimSpace(val), nil
}

// Set applies one setting to t as a command-line flag gives it, so every workload field is
// reachable without a file: Set(t, "rows", "50000"), Set(t, "avg", "content=280"),
// Set(t, "items", "tags=5x12"), Set(t, "nulls", "title=0.3"), Set(t, "ttl", "30d"),
// Set(t, "skew", "zipf:1.1"), Set(t, "max_rate", "10/s"), Set(t, "delete", "row:5/day"),
// Set(t, "overwrites", "tags=1/day"). Field names are those of the workload file
// (rows_per_partition may be given as rows).
func Set(t *workload.TableWorkload, field, value string) error {
	for _, set := range []func(t *workload.TableWorkload, field, value string) (bool, error){setQuantity, setPerColumn, setChoice} {
		if handled, err := set(t, field, value); handled {
			return err
		}
	}
	return fmt.Errorf("unknown workload field %q (want one of %s)", field, strings.Join(fields, ", "))
}

// setQuantity sets a field holding one quantity: a count, a rate, a span or a duration.
func setQuantity(t *workload.TableWorkload, field, value string) (bool, error) {
	wrap := func(err error) error { return fieldError(field, value, err) }
	switch field {
	case "partitions":
		n, err := workload.ParseCount(value)
		t.Partitions = n
		return true, wrap(err)
	case "rows", "rows_per_partition":
		n, err := workload.ParseCount(value)
		t.RowsPerPartition = n
		if err == nil {
			markSet(t, "rows_per_partition")
		}
		return true, wrap(err)
	case "write_rate", "rate":
		r, err := workload.ParseRate(value)
		t.WriteRate = r
		return true, wrap(err)
	case "bucket":
		w, err := workload.ParseSpan(value)
		t.Bucket = w
		return true, wrap(err)
	case "horizon":
		d, err := workload.ParseDuration(value)
		t.Horizon = d
		return true, wrap(err)
	case "ttl":
		d, err := workload.ParseDuration(value)
		if err != nil {
			return true, wrap(err)
		}
		t.TTL = &d
	case "max_rate", "skew.max_rate":
		r, err := workload.ParseRate(value)
		if err != nil {
			return true, wrap(err)
		}
		t.Skew.MaxRate = r
		markSet(t, "skew.max_rate")
	case "write_spread":
		d, err := workload.ParseDuration(value)
		t.WriteSpread = d
		return true, wrap(err)
	default:
		return false, nil
	}
	return true, nil
}

// setPerColumn sets a field that describes one column (col=value) or adds a delete.
func setPerColumn(t *workload.TableWorkload, field, value string) (bool, error) {
	wrap := func(err error) error { return fieldError(field, value, err) }
	switch field {
	case "avg":
		col, n, err := parseAvg(value)
		if err != nil {
			return true, err
		}
		if t.Avg == nil {
			t.Avg = map[string]float64{}
		}
		t.Avg[col] = n
	case "items":
		col, it, err := parseItems(value)
		if err != nil {
			return true, err
		}
		if t.Items == nil {
			t.Items = map[string]workload.Items{}
		}
		t.Items[col] = it
	case "nulls":
		col, f, err := parseNulls(value)
		if err != nil {
			return true, err
		}
		if t.Nulls == nil {
			t.Nulls = map[string]float64{}
		}
		t.Nulls[col] = f
	case "overwrites":
		col, val, err := splitPair(value, "column=rate, such as tags=1/day")
		if err != nil {
			return true, err
		}
		r, err := workload.ParseRate(val)
		if err != nil {
			return true, wrap(err)
		}
		if t.Overwrites == nil {
			t.Overwrites = map[string]workload.Rate{}
		}
		t.Overwrites[col] = r
	case "delete", "deletes":
		d, err := parseDelete(value)
		if err != nil {
			return true, err
		}
		t.Deletes = append(t.Deletes, d)
	default:
		return false, nil
	}
	return true, nil
}

// setChoice sets a field that picks one of a few kinds: nulls_as, skew, writes.
func setChoice(t *workload.TableWorkload, field, value string) (bool, error) {
	switch field {
	case "nulls_as":
		switch strings.ToLower(value) {
		case "null", "tombstone":
			t.NullsAs = workload.NullTombstone
		case "unset":
			t.NullsAs = workload.NullUnset
		default:
			return true, fmt.Errorf("nulls_as %q: want null or unset", value)
		}
	case "skew":
		s := strings.ToLower(strings.TrimSpace(value))
		if s == "uniform" {
			t.Skew = workload.Skew{MaxRate: t.Skew.MaxRate}
			return true, nil
		}
		if !strings.HasPrefix(s, "zipf") {
			return true, fmt.Errorf("skew %q: want uniform or zipf:1.1", value)
		}
		var x float64
		if _, err := fmt.Sscanf(strings.TrimLeft(s[4:], " :="), "%g", &x); err != nil || !(x > 0) || x > 10 {
			return true, fmt.Errorf("skew %q: want a Zipf exponent above 0, such as zipf:1.1", value)
		}
		t.Skew = workload.Skew{Kind: workload.Zipf, S: x, MaxRate: t.Skew.MaxRate}
	case "writes":
		switch strings.ToLower(value) {
		case "insert":
			t.Writes = workload.Insert
		case "update":
			t.Writes = workload.Update
		default:
			return true, fmt.Errorf("writes %q: want insert or update", value)
		}
	default:
		return false, nil
	}
	return true, nil
}

// fieldError is err naming the field and the value it refused, or nil.
func fieldError(field, value string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s %q: %w", field, value, err)
}

func markSet(t *workload.TableWorkload, field string) {
	if t.Fields == nil {
		t.Fields = map[string]cql.Pos{}
	}
	t.Fields[field] = cql.Pos{}
}

// FromPairs builds one table's workload from field=value pairs, the way flags give
// them: FromPairs("posts_by_user", "rows=50000", "avg.content=280", "items.tags=5x12",
// "nulls=0.1", "ttl=30d"). A dotted field (avg.content=280) is the same as avg=content=280.
// The result is checked like a file entry (rows or a write rate, no impossible numbers).
func FromPairs(table string, pairs ...string) (*workload.TableWorkload, error) {
	t := &workload.TableWorkload{Name: table, Fields: map[string]cql.Pos{}}
	var errs workload.ErrorList
	for _, p := range pairs {
		field, value, ok := strings.Cut(p, "=")
		if !ok {
			errs = append(errs, fmt.Errorf("%q: want field=value, such as rows=50000 or avg.content=280", p))
			continue
		}
		if f, col, dotted := strings.Cut(field, "."); dotted {
			field, value = f, col+"="+value
		}
		if err := Set(t, strings.TrimSpace(field), strings.TrimSpace(value)); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == 0 {
		errs = append(errs, t.Check()...)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return t, nil
}
