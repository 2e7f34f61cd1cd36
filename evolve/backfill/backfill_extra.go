package backfill

import (
	"context"
	"fmt"
	"strings"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/derive"
	"github.com/cqlsize/cqlsize/internal/tokenscan"
)

// extraReader walks the target table's keys and finds the rows no source row maps to: it
// reads each one's source row by the source key the target row carries, derives that
// row's target rows and looks for the target row's key among them.
type extraReader struct {
	stmt     string   // the target's key columns, WHERE token(pk) > ? AND token(pk) <= ?
	keyCols  []string // the target's key columns, in the builder's key order
	keyTypes []cql.Type
	srcFrom  []string // for each source key column (reader.keyCols), the target key column holding it
}

// newExtraReader needs every source key column copied as it is into a target key column;
// otherwise a target row does not say which source row it came from, and the reason is
// returned.
func newExtraReader(b *rowBuilder, r *sourceReader) (*extraReader, string) {
	dst := b.p.TargetTable()
	e := &extraReader{}
	byCopy := map[string]string{}
	for _, k := range b.keys {
		c := b.cols[k]
		e.keyCols = append(e.keyCols, c.Column)
		e.keyTypes = append(e.keyTypes, c.Type)
		if c.Expr.Func == derive.Copy {
			byCopy[c.Expr.Column] = c.Column
		}
	}
	for _, c := range r.keyCols {
		t, ok := byCopy[c.Name]
		if !ok {
			return nil, fmt.Sprintf("the source key column %s is not a key column of the target copied as it is, so a target row does not name its source row", c.Name)
		}
		e.srcFrom = append(e.srcFrom, t)
	}
	var pk, sel []string
	for _, c := range dst.PartitionKey {
		pk = append(pk, cql.QuoteName(c.Name))
	}
	tok := "token(" + strings.Join(pk, ", ") + ")"
	for _, k := range e.keyCols {
		sel = append(sel, cql.QuoteName(k))
	}
	e.stmt = "SELECT " + strings.Join(sel, ", ") + " FROM " + cql.QuoteName(dst.Keyspace) + "." + cql.QuoteName(dst.Name) +
		" WHERE " + tok + " > ? AND " + tok + " <= ?"
	return e, ""
}

// extraPart walks the target rows of one range, at most quota of them (0: all), a page at a
// time: memory holds one page, and a page whose answer is an error is asked for again
// (v.again) from the same paging state.
func (v *verifier) extraPart(ctx context.Context, part tokenscan.Range, quota int) error {
	n := 0
	var chunk []map[string]any
	var state []byte
	for {
		iter := sendPage(func() *gocql.Iter {
			return v.s.Query(v.extra.stmt, part.Lo, part.Hi).WithContext(ctx).Consistency(v.o.Consistency).
				PageSize(500).PageState(state).Idempotent(true).Iter()
		}, v.again(ctx))
		if _, err := iter.RowData(); err != nil {
			iter.Close()
			return fmt.Errorf("verify: read the target: %w", err)
		}
		next := iter.PageState()
		done := false
		for !done {
			m := map[string]any{}
			if !iter.MapScan(m) {
				break
			}
			if err := v.limiter.Take(ctx, 1); err != nil {
				iter.Close()
				return err
			}
			n++
			chunk = append(chunk, m)
			if len(chunk) >= verifyChunk {
				err := v.checkExtras(ctx, chunk)
				chunk = nil
				if err != nil {
					iter.Close()
					return err
				}
			}
			done = quota > 0 && n >= quota
		}
		if err := iter.Close(); err != nil {
			return fmt.Errorf("verify: read the target: %w", err)
		}
		if done || len(next) == 0 {
			break
		}
		state = next
	}
	if len(chunk) > 0 {
		return v.checkExtras(ctx, chunk)
	}
	return nil
}

// checkExtra counts the target row with key values m as extra when no source row maps to
// it, read twice (the service may have deleted both rows, or written both, in between).
func (v *verifier) checkExtra(ctx context.Context, m map[string]any) error {
	v.mu.Lock()
	v.res.TargetRowsScanned++
	v.mu.Unlock()
	for attempt := 0; attempt < 2; attempt++ {
		mapped, err := v.mapsToSource(ctx, m)
		if err != nil || mapped {
			return err
		}
	}
	var key []any
	for _, k := range v.extra.keyCols {
		key = append(key, m[k])
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.res.Extra++
	if len(v.res.Examples) < v.o.Examples {
		v.res.Examples = append(v.res.Examples, fmt.Sprintf("extra %s: no source row gives it", keyText(key, v.extra.keyTypes)))
	}
	return nil
}

// mapsToSource reads the source row the target row names and reports whether it derives a
// target row of that key (or the target row is gone).
func (v *verifier) mapsToSource(ctx context.Context, m map[string]any) (bool, error) {
	src := sourceRow{vals: map[string]any{}}
	for i, c := range v.reader.keyCols {
		src.vals[c.Name] = m[v.extra.srcFrom[i]]
	}
	row, found, err := v.reread(ctx, &src)
	if err != nil || !found {
		return false, err
	}
	return v.derives(&row, m)
}

// derives reports whether source row row derives a target row with the key values m.
func (v *verifier) derives(row *sourceRow, m map[string]any) (bool, error) {
	mapped := false
	err := v.b.build(row, func(tr *targetRow) error {
		same := len(tr.key) == len(v.extra.keyCols)
		for i := 0; same && i < len(tr.key); i++ {
			same = sameValue(m[v.extra.keyCols[i]], tr.key[i])
		}
		mapped = mapped || same
		return nil
	})
	return mapped, err
}
