package backfill

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql"
)

// verifyChunk is how many rows verify judges at once. A source page holds a user's rows
// together (one partition after another), and their target rows fall into few target
// partitions; the rows of a chunk that share a partition are read with one query, an IN
// on the clustering columns, instead of one query each. A point read costs a LOCAL_QUORUM
// round trip to every replica of the DC (one data read, the others digests), and on a busy
// node that per-query cost, not the few bytes of the row, is what a full verify waits on:
// a full verify of a few thousand rows one by one took minutes on a busy machine. The chunk stays
// small so that a TTL read back is judged seconds, not minutes, after the source's read.
const verifyChunk = 64

// verifyInFlight is how many reads of one chunk are in flight at once: the rows of a
// chunk that share no partition (a target keyed by month holds a user's posts apart) are
// still one read each, and one worker waiting for each in turn leaves the nodes idle
// between its round trips.
const verifyInFlight = 8

// inParallel calls fn(0) ... fn(n-1), at most width at once, and returns the first error.
func inParallel(n, width int, fn func(i int) error) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	sem := make(chan struct{}, width)
	for i := 0; i < n; i++ {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := fn(i); err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return first
}

// inWhere writes the restriction of n rows of one partition: each partition key column
// equal, and the clustering columns IN the n rows' values ("(c1, c2) IN ((?, ?), ...)",
// or "c IN (?, ...)" for one column).
func inWhere(pk, ck []string, n int) string {
	var where []string
	for _, c := range pk {
		where = append(where, c+" = ?")
	}
	one := "?"
	lhs := ck[0]
	if len(ck) > 1 {
		one = "(" + strings.TrimSuffix(strings.Repeat("?, ", len(ck)), ", ") + ")"
		lhs = "(" + strings.Join(ck, ", ") + ")"
	}
	tuples := strings.TrimSuffix(strings.Repeat(one+", ", n), ", ")
	return strings.Join(where, " AND ") + " AND " + lhs + " IN (" + tuples + ")"
}

// byPartition groups keys (each a primary key, partition key first, np columns of it) by
// partition: the indexes of the keys whose partition key values are the same, in order.
func byPartition(keys [][]any, np int) [][]int {
	var groups [][]int
next:
	for i, k := range keys {
		for g, idx := range groups {
			lead := keys[idx[0]]
			same := true
			for j := 0; same && j < np; j++ {
				same = sameValue(k[j], lead[j])
			}
			if same {
				groups[g] = append(idx, i)
				continue next
			}
		}
		groups = append(groups, []int{i})
	}
	return groups
}

// sameKey reports whether the values got (read back) are the values want, one by one.
func sameKey(got, want []any) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if !sameValue(got[i], want[i]) {
			return false
		}
	}
	return true
}

// checkRows judges the target rows of rows, read by partition, and reads a source row and
// its target rows again (one by one, as check does) when one of them is wrong.
func (v *verifier) checkRows(ctx context.Context, rows []*sourceRow) error {
	var trs []*targetRow
	var owner []int
	for i, row := range rows {
		if err := v.b.build(row, func(tr *targetRow) error {
			trs = append(trs, tr)
			owner = append(owner, i)
			return nil
		}); err != nil {
			return err
		}
	}
	v.mu.Lock()
	v.res.SourceRows += int64(len(rows))
	v.res.TargetRows += int64(len(trs))
	v.mu.Unlock()
	found, err := v.target.fetch(ctx, v.s, v.o.Consistency, trs)
	if err != nil {
		return err
	}
	bad := make([]bool, len(rows))
	for i, tr := range trs {
		if v.target.judge(found[i], tr) != "" {
			bad[owner[i]] = true
		}
	}
	for i, row := range rows {
		if bad[i] {
			if err := v.recheck(ctx, row); err != nil {
				return err
			}
		}
	}
	return nil
}

// fetch reads the target rows trs name: those of one partition with one query when the
// target has clustering columns, the others one by one. Each answer is the row's columns,
// nil when the row is missing.
func (t *targetReader) fetch(ctx context.Context, s *gocql.Session, cons gocql.Consistency, trs []*targetRow) ([]map[string]any, error) {
	out := make([]map[string]any, len(trs))
	keys := make([][]any, len(trs))
	for i, tr := range trs {
		keys[i] = tr.key
	}
	var units [][]int // one read each: a partition's rows, or a row alone
	for _, g := range byPartition(keys, t.np) {
		if len(g) == 1 || len(t.ck) == 0 {
			for _, i := range g {
				units = append(units, []int{i})
			}
			continue
		}
		units = append(units, g)
	}
	err := inParallel(len(units), verifyInFlight, func(u int) error {
		g := units[u]
		if len(g) == 1 {
			m, err := t.read(ctx, s, cons, trs[g[0]])
			out[g[0]] = m
			return err
		}
		args := append([]any{}, trs[g[0]].key[:t.np]...)
		for _, i := range g {
			args = append(args, trs[i].key[t.np:]...)
		}
		return retryFor(ctx, t.retry, func() error { return t.readPartition(ctx, s, cons, trs, g, args, out) })
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// readPartition reads the target rows g of trs, all in one partition, with one query (args
// its key values), into out: each found row at its index, nil for the others.
func (t *targetReader) readPartition(ctx context.Context, s *gocql.Session, cons gocql.Consistency, trs []*targetRow, g []int, args []any, out []map[string]any) error {
	for _, i := range g {
		out[i] = nil
	}
	iter := s.Query(t.inHead+inWhere(t.pk, t.ckQuoted, len(g)), args...).WithContext(ctx).Consistency(cons).Idempotent(true).Iter()
	for {
		m := map[string]any{}
		if !iter.MapScan(m) {
			break
		}
		got := make([]any, len(t.ck))
		for j, c := range t.ck {
			got[j] = m[c]
		}
		// Every row asked for with this key: two source rows may derive the same
		// target row, which the IN names twice and the node returns once.
		for _, i := range g {
			if sameKey(got, trs[i].key[t.np:]) {
				out[i] = m
			}
		}
	}
	if err := iter.Close(); err != nil {
		return fmt.Errorf("verify: read %d target rows of the partition %s: %w", len(g), keyText(trs[g[0]].key[:t.np], t.types[:t.np]), err)
	}
	return nil
}

// checkExtras judges target rows ms (key values, as the walk of the target read them):
// the rows of one source partition are mapped back with one read of their source rows;
// a row that does not map that way goes through checkExtra, which reads it one by one,
// twice, before it counts as extra.
func (v *verifier) checkExtras(ctx context.Context, ms []map[string]any) error {
	mapped, err := v.mapManyToSource(ctx, ms)
	if err != nil {
		return err
	}
	var left []map[string]any
	for i, m := range ms {
		if mapped[i] {
			v.mu.Lock()
			v.res.TargetRowsScanned++
			v.mu.Unlock()
			continue
		}
		left = append(left, m)
	}
	return inParallel(len(left), verifyInFlight, func(i int) error { return v.checkExtra(ctx, left[i]) })
}

// mapManyToSource reads, for each source partition that two or more of ms name, their
// source rows with one query, and reports which of ms a source row derives. A row not
// read that way (alone in its partition, or a source without clustering columns) is
// reported unmapped: checkExtra reads it.
func (v *verifier) mapManyToSource(ctx context.Context, ms []map[string]any) ([]bool, error) {
	out := make([]bool, len(ms))
	src := v.reader.t
	if len(src.Clustering) == 0 {
		return out, nil
	}
	from := map[string]string{}
	for i, c := range v.reader.keyCols {
		from[c.Name] = v.extra.srcFrom[i]
	}
	var cols []*cql.Column
	cols = append(append(cols, src.PartitionKey...), src.Clustering...)
	var pk, ck []string
	for _, c := range src.PartitionKey {
		pk = append(pk, cql.QuoteName(c.Name))
	}
	for _, c := range src.Clustering {
		ck = append(ck, cql.QuoteName(c.Name))
	}
	np := len(src.PartitionKey)
	keys := make([][]any, len(ms))
	for i, m := range ms {
		for _, c := range cols {
			keys[i] = append(keys[i], m[from[c.Name]])
		}
	}
	var groups [][]int
	for _, g := range byPartition(keys, np) {
		if len(g) > 1 {
			groups = append(groups, g)
		}
	}
	err := inParallel(len(groups), verifyInFlight, func(gi int) error {
		g := groups[gi]
		args := append([]any{}, keys[g[0]][:np]...)
		for _, i := range g {
			args = append(args, keys[i][np:]...)
		}
		var rows []sourceRow
		err := v.again(ctx)(func() error {
			rows = nil
			sent := time.Now()
			iter := v.s.Query(v.reader.head+inWhere(pk, ck, len(g)), args...).WithContext(ctx).Consistency(v.o.Consistency).Idempotent(true).Iter()
			sc, err := v.reader.scanner(iter)
			if err != nil {
				iter.Close()
				return err
			}
			for iter.Scan(sc.dest...) {
				row := sc.row()
				row.readAt = sent
				rows = append(rows, row)
			}
			return iter.Close()
		})
		if err != nil {
			return fmt.Errorf("verify: read the source rows of %d target rows: %w", len(g), err)
		}
		for _, i := range g {
			for r := range rows {
				got := make([]any, len(cols))
				for j, c := range cols {
					got[j] = rows[r].vals[c.Name]
				}
				if !sameKey(got, keys[i]) {
					continue
				}
				ok, err := v.derives(&rows[r], ms[i])
				if err != nil {
					return err
				}
				out[i] = ok
				break
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
