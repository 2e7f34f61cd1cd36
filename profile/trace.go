package profile

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/gocql/gocql"
)

// traceReads is how many slices of each table are read with tracing on: enough to see
// tombstones the warning threshold does not reach, few enough that system_traces (a TTL'd
// table the node writes for every traced request) stays small.
const traceReads = 3

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

// readTraces reads the traced requests' events and returns how many reads they logged, the
// tombstone cells they scanned in all and the most one read scanned. The node writes traces
// asynchronously, so each session is waited for (its duration is set when it is complete), up
// to a few seconds; a session not there by then is left out and counted in missing.
func readTraces(ctx context.Context, s *gocql.Session, ids [][]byte) (reads, tombs, most, missing int, err error) {
	for _, id := range ids {
		uuid, uerr := gocql.UUIDFromBytes(id)
		if uerr != nil {
			missing++
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
				return reads, tombs, most, missing, fmt.Errorf("read system_traces.sessions: %w", e)
			}
			if time.Now().After(deadline) {
				missing++
				break
			}
			select {
			case <-ctx.Done():
				return reads, tombs, most, missing, ctx.Err()
			case <-time.After(200 * time.Millisecond):
			}
		}
		iter := s.Query(`SELECT activity FROM system_traces.events WHERE session_id = ?`, uuid).
			WithContext(ctx).Consistency(gocql.One).Iter()
		var act string
		for iter.Scan(&act) {
			if m := traceLine.FindStringSubmatch(act); m != nil {
				n, _ := strconv.Atoi(m[2])
				reads++
				tombs += n
				most = max(most, n)
			}
		}
		if e := iter.Close(); e != nil {
			return reads, tombs, most, missing, fmt.Errorf("read system_traces.events: %w", e)
		}
	}
	return reads, tombs, most, missing, nil
}
