package sizing

import (
	"fmt"
	"math"
	"time"

	"github.com/cqlsize/cqlsize/workload"
)

// TWCSWindow is a TimeWindowCompactionStrategy window: compaction_window_unit (MINUTES,
// HOURS or DAYS, the units Cassandra 5.0 accepts) and compaction_window_size.
type TWCSWindow struct {
	Unit string
	Size int
}

// String is the window as design's reasons name it: "3 DAYS".
func (w TWCSWindow) String() string { return fmt.Sprintf("%d %s", w.Size, w.Unit) }

// Duration is the window's length.
func (w TWCSWindow) Duration() time.Duration {
	for _, u := range windowUnits {
		if u.name == w.Unit {
			return time.Duration(w.Size) * u.d
		}
	}
	return 0
}

// Compaction is the table's compaction option with the window: the map cql.Options holds.
func (w TWCSWindow) Compaction() map[string]string {
	return map[string]string{"class": "TimeWindowCompactionStrategy", "compaction_window_unit": w.Unit, "compaction_window_size": fmt.Sprint(w.Size)}
}

// windowUnits are the compaction_window_unit values, coarsest first.
var windowUnits = []struct {
	name string
	d    time.Duration
}{{"DAYS", workload.Day}, {"HOURS", time.Hour}, {"MINUTES", time.Minute}}

// The number of windows over the TTL the window aims at, and the range Cassandra's guidance
// accepts: each window is at least one sstable, a read checks the bloom filter of every
// one it may hold rows in, and compaction keeps each apart, so a few dozen, not thousands.
const (
	twcsAimWindows = 30
	twcsMinWindows = 20
	twcsMaxWindows = 50
)

// TWCSWindowFor is the one TimeWindowCompactionStrategy window cqlsize advises for rows kept
// ttl in partitions bucketed by bucket (the zero Span for none): SZ104 in estimate and the
// compaction design gives a TTL'd time series both call it.
//
// The window aims at about thirty windows over the TTL (Cassandra's guidance is twenty to
// fifty). It is a whole number of the coarsest unit, DAYS, then HOURS, then MINUTES, whose
// nearest window to TTL/30 gives twenty to fifty windows. With a bucket no longer than the
// TTL the window is also a whole number of buckets, never shorter than one, so a bucket's
// rows stay together in one window's sstables (the windows count from the epoch, as day and
// hour buckets do); when even one bucket makes fewer than twenty windows, the window is the
// bucket. A calendar bucket counts as its whole days (a month 30, a year 365): no fixed
// window lines up with calendar months anyway. A bucket longer than the TTL is ignored: its
// rows expire before it closes, and a window that long would only keep expired sstables.
//
// An hour bucket kept 90 days gets windows of 3 DAYS (30 of them), not 2,160 of an hour.
func TWCSWindowFor(bucket workload.Span, ttl time.Duration) TWCSWindow {
	if ttl < time.Minute {
		return TWCSWindow{"MINUTES", 1}
	}
	step := bucketStep(bucket)
	if step > ttl {
		step = 0
	}
	target := float64(ttl) / twcsAimWindows
	for _, u := range windowUnits {
		grain := u.d
		if step > 0 {
			grain = lcm(step, u.d)
		}
		n := max(1, math.Round(target/float64(grain)))
		d := time.Duration(n) * grain
		if windows := float64(ttl) / float64(d); windows >= twcsMinWindows && windows <= twcsMaxWindows {
			return windowOf(d)
		}
	}
	// No unit gives twenty windows: the TTL is short beside the bucket (or under twenty
	// minutes). The window is the bucket, or the nearest whole minutes to TTL/30.
	d := step
	if d == 0 {
		d = max(time.Minute, time.Duration(math.Round(target/float64(time.Minute)))*time.Minute)
	}
	return windowOf(d)
}

// bucketStep is a bucket's length as a window counts it: whole days from a day up, else
// whole minutes (at least one); 0 for no bucket.
func bucketStep(b workload.Span) time.Duration {
	switch {
	case b.IsZero():
		return 0
	case b.Avg >= workload.Day:
		return b.Avg.Round(workload.Day)
	}
	return max(time.Minute, b.Avg.Round(time.Minute))
}

// windowOf writes d in the coarsest unit it is a whole number of.
func windowOf(d time.Duration) TWCSWindow {
	for _, u := range windowUnits {
		if d%u.d == 0 {
			return TWCSWindow{u.name, int(d / u.d)}
		}
	}
	return TWCSWindow{"MINUTES", int(max(1, d/time.Minute))}
}

// lcm is the least common multiple of two whole-minute durations.
func lcm(a, b time.Duration) time.Duration {
	x, y := int64(a/time.Minute), int64(b/time.Minute)
	g, h := x, y
	for h != 0 {
		g, h = h, g%h
	}
	return time.Duration(x/g*y) * time.Minute
}
