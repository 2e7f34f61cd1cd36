package profile

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/gocql/gocql"
)

// traceReads is how many slices of each table are read with tracing on at least: enough to
// see tombstones the warning threshold does not reach, few enough that system_traces (a TTL'd
// table the node writes for every traced request) stays small. Slices are traced beyond it,
// up to traceSlicesMax, until traced partitions hold traceMinPartitions partitions: the
// tombstones a partition holds are estimated from these reads, and three slices of a small
// table can hold none.
const (
	traceReads         = 3
	traceSlicesMax     = 64
	traceMinPartitions = 30
)

// tracing says whether the next slice is read with tracing on, after walked slices of which
// the traced ones completed tracedParts partitions.
func tracing(walked, tracedParts int) bool {
	return walked < traceReads || walked < traceSlicesMax && tracedParts < traceMinPartitions
}

// traced records what the traced reads met: the tombstone cells a read passes per live row,
// from which the workload's tombstones a partition follow.
func (t *Tombstones) traced(tr traced, partitions int) {
	t.TracedReads, t.TracedTombstones, t.TracedMax = tr.reads, tr.tombs, tr.most
	t.TracedLiveRows, t.TracedPartitions = tr.live, partitions
}

// traceIDs collects the session ids of traced requests (gocql.Tracer).
type traceIDs struct {
	mu  sync.Mutex
	ids [][]byte
}

func (t *traceIDs) Trace(id []byte) {
	t.mu.Lock()
	t.ids = append(t.ids, append([]byte(nil), id...))
	t.mu.Unlock()
}

// traceLine is what a replica logs for each read: "Read 3 live rows and 1500 tombstone cells".
var traceLine = regexp.MustCompile(`Read (\d+) live rows and (\d+) tombstone cells`)

// traced is what the replicas logged for the traced requests.
type traced struct {
	reads, live, tombs, most int // reads logged, live rows and tombstone cells in all, most tombstones in one read
	missing                  int // sessions not written to system_traces in time
}

// readTraces reads the traced requests' events and returns how many reads they logged, the
// live rows and tombstone cells they scanned in all and the most one read scanned. The node
// writes traces asynchronously, so each session is waited for (its duration is set when it is
// complete), up to a few seconds; a session not there by then is left out and counted in
// missing.
func readTraces(ctx context.Context, s *gocql.Session, ids [][]byte) (tr traced, err error) {
	for _, id := range ids {
		uuid, uerr := gocql.UUIDFromBytes(id)
		if uerr != nil {
			tr.missing++
			continue
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			var dur int
			e := s.Query(`SELECT duration FROM system_traces.sessions WHERE session_id = ?`, uuid).
				WithContext(ctx).Consistency(gocql.One).Scan(&dur)
			if e == nil && dur > 0 {
				break
			}
			if e != nil && e != gocql.ErrNotFound {
				return tr, fmt.Errorf("read system_traces.sessions: %w", e)
			}
			if time.Now().After(deadline) {
				tr.missing++
				break
			}
			select {
			case <-ctx.Done():
				return tr, ctx.Err()
			case <-time.After(200 * time.Millisecond):
			}
		}
		iter := s.Query(`SELECT activity FROM system_traces.events WHERE session_id = ?`, uuid).
			WithContext(ctx).Consistency(gocql.One).Iter()
		var act string
		for iter.Scan(&act) {
			if m := traceLine.FindStringSubmatch(act); m != nil {
				live, _ := strconv.Atoi(m[1])
				n, _ := strconv.Atoi(m[2])
				tr.reads++
				tr.live += live
				tr.tombs += n
				tr.most = max(tr.most, n)
			}
		}
		if e := iter.Close(); e != nil {
			return tr, fmt.Errorf("read system_traces.events: %w", e)
		}
	}
	return tr, nil
}

// tombstonesPerPartition sets the tombstones an average partition holds from the traced
// reads: the tombstone cells they passed per live row they returned, times the table's rows
// per partition (per partition traced when the reads returned no live row). A sample of live
// rows cannot see them: deleted rows, range tombstones and expired cells are what a read
// skips, and they stay in the sstables until gc_grace_seconds have passed.
func tombstonesPerPartition(t *Table) {
	tb := &t.Tombstones
	switch {
	case tb.TracedTombstones == 0:
		tb.PerPartition = 0
	case tb.TracedLiveRows > 0:
		tb.PerPartition = float64(tb.TracedTombstones) / float64(tb.TracedLiveRows) * math.Max(1, t.MeanRows)
	case tb.TracedPartitions > 0:
		tb.PerPartition = float64(tb.TracedTombstones) / float64(tb.TracedPartitions)
	}
}
