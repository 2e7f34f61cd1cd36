package tombstone

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cqlsize/cqlsize/cql"
)

// Input is one table's pattern, per partition: how rows are written, what is deleted, and
// how the typical read scans the partition. It is deliberately independent of any workload
// file format; callers fill it from theirs (TableOf fills the part a schema knows).
type Input struct {
	Table   Table
	Writes  Writes
	Deletes []Delete
	Read    Read
	// Thresholds are the cluster's tombstone thresholds; the zero value means Cassandra's
	// defaults (DefaultThresholds).
	Thresholds Thresholds
}

// Table holds what the analysis needs to know about a table's shape and options.
type Table struct {
	Name              string
	ClusteringColumns int // 0 means one row per partition
	RegularColumns    int // regular columns stored as one cell each (scalars, frozen types)
	CollectionColumns int // regular non-frozen collections and UDTs (one cell per element)
	StaticColumns     int
	DefaultTTLSeconds int // default_time_to_live, 0 = none
	// GCGraceSeconds is gc_grace_seconds exactly as the table has it: 0 is a real setting
	// (tombstones purgeable at once), so a zero value is not replaced by the default.
	// TableOf fills cql.DefaultGCGraceSeconds when the schema does not set it.
	GCGraceSeconds int
	Compaction     Compaction
}

// Strategy is a compaction strategy.
type Strategy int

// Compaction strategies of Cassandra 5.0.
const (
	STCS Strategy = iota // SizeTieredCompactionStrategy, the default
	LCS                  // LeveledCompactionStrategy
	TWCS                 // TimeWindowCompactionStrategy
	UCS                  // UnifiedCompactionStrategy
)

func (s Strategy) String() string {
	switch s {
	case LCS:
		return "LCS"
	case TWCS:
		return "TWCS"
	case UCS:
		return "UCS"
	}
	return "STCS"
}

// ParseStrategy accepts a compaction class as CQL writes it (with or without its package)
// or a short name: STCS, LCS, TWCS, UCS.
func ParseStrategy(s string) (Strategy, error) {
	c := s
	if i := strings.LastIndexByte(c, '.'); i >= 0 {
		c = c[i+1:]
	}
	switch strings.ToLower(c) {
	case "", "stcs", "sizetieredcompactionstrategy":
		return STCS, nil
	case "lcs", "leveledcompactionstrategy":
		return LCS, nil
	case "twcs", "timewindowcompactionstrategy":
		return TWCS, nil
	case "ucs", "unifiedcompactionstrategy":
		return UCS, nil
	}
	return STCS, fmt.Errorf("compaction strategy %q: want STCS, LCS, TWCS or UCS (or the class name)", s)
}

// Compaction is a table's compaction strategy and, for TWCS, its window.
type Compaction struct {
	Strategy Strategy
	Window   time.Duration // TWCS compaction window (compaction_window_size x unit); 0 = 1 day
}

// tombstoneCompactionInterval is Cassandra's default tombstone_compaction_interval (1 day):
// the least time an sstable must exist before a single-sstable tombstone compaction runs on it.
const tombstoneCompactionInterval = 24 * time.Hour

// Linger is the least time a tombstone stays on disk past gc_grace_seconds before a
// compaction can drop it. For TWCS it is one window (a window's sstable is dropped or
// compacted as a whole); for the others it is tombstone_compaction_interval (1 day), the
// soonest a single-sstable tombstone compaction runs. It is a lower bound: STCS in
// particular keeps a tombstone until the sstables holding the data it shadows are compacted
// together, which for the largest tier can take weeks.
func (c Compaction) Linger() time.Duration {
	if c.Strategy == TWCS {
		if c.Window > 0 {
			return c.Window
		}
		return 24 * time.Hour
	}
	return tombstoneCompactionInterval
}

// Writes is how rows reach one partition.
type Writes struct {
	RowsPerDay float64 // new rows written to one partition per day
	// Bucket is how long a partition receives writes (its time bucket); 0 = for ever.
	Bucket time.Duration
	// ByUpdate says rows are written with UPDATE, which writes no row liveness: a row whose
	// cells are all deleted or expired then has nothing left. INSERT (the default) writes it.
	ByUpdate bool
	// TTLSeconds is the TTL of each write (USING TTL); 0 = the table's default_time_to_live.
	TTLSeconds int
	// NullFraction is the share of the regular columns each write sets to null (binding
	// null, a literal NULL, or JSON without DEFAULT UNSET): each null is a cell tombstone.
	NullFraction float64
	// UnsetFraction is the share of the regular (non-collection) columns each write leaves
	// unset (an UPDATE that does not name them, a bound value left UNSET, JSON with DEFAULT
	// UNSET): an unset column writes no cell, so it is neither a null tombstone nor a cell
	// that expires with the write's TTL. NullFraction + UnsetFraction is at most 1.
	UnsetFraction float64
	// CollectionsWhole says the non-frozen collections are written whole (INSERT, or
	// SET c = {...}) rather than element by element (SET c = c + {...}); each whole write
	// starts with a complex deletion of the collection.
	CollectionsWhole bool
	// ElementsPerCollection is the average number of elements in each non-frozen collection.
	ElementsPerCollection float64
}

// Kind is what a DELETE (or an equivalent write) removes.
type Kind int

// Kinds of deletion.
const (
	PartitionDelete Kind = iota // DELETE FROM t WHERE <full partition key>
	RowDelete                   // DELETE FROM t WHERE <full primary key>
	RangeDelete                 // DELETE FROM t WHERE <partition key> AND <clustering range or prefix>
	CellDelete                  // DELETE c FROM ..., UPDATE ... SET c = null
	ElementDelete               // UPDATE ... SET c = c - {...}, DELETE c[k] FROM ...
)

var kindNames = [...]string{"partition", "row", "range", "cell", "element"}

func (k Kind) String() string { return enumName(kindNames[:], int(k), "kind") }

// ParseKind parses partition, row, range, cell or element.
func ParseKind(s string) (Kind, error) {
	for i, n := range kindNames {
		if strings.EqualFold(s, n) {
			return Kind(i), nil
		}
	}
	return 0, fmt.Errorf("delete kind %q: want partition, row, range, cell or element", s)
}

// Placement says where deleted rows lie relative to the point a read starts from.
type Placement int

// Placements.
const (
	// Scattered: anywhere among the rows (a user deletes one of their posts).
	Scattered Placement = iota
	// Head: at the start of the clustering order, where a read that does not reverse it
	// starts, before the live rows it wants: a queue consumed from the front, the
	// anti-pattern that scans every tombstone on every read that does not start after them.
	Head
	// Tail: at the end of the clustering order (old rows of a newest-first time series):
	// reads that stop at their LIMIT never reach them.
	Tail
	// Oldest: the oldest rows (deleted by age). Where they lie follows the read's Order:
	// at its head when it reads oldest first, at its tail newest first, scattered when the
	// clustering is not time.
	Oldest
	// Newest: the newest rows (a write undone soon after), the mirror of Oldest.
	Newest
)

var placementNames = [...]string{"scattered", "head", "tail", "oldest", "newest"}

func (p Placement) String() string { return enumName(placementNames[:], int(p), "placement") }

// ParsePlacement parses scattered (or spread), head, tail, oldest or newest.
func ParsePlacement(s string) (Placement, error) {
	if strings.EqualFold(s, "spread") {
		return Scattered, nil
	}
	for i, n := range placementNames {
		if strings.EqualFold(s, n) {
			return Placement(i), nil
		}
	}
	return 0, fmt.Errorf("placement %q: want scattered (spread), head, tail, oldest or newest", s)
}

// in resolves a placement against a read: Oldest and Newest by the read's time order, and
// Head and Tail swapped when the read runs against the clustering order.
func (p Placement) in(r Read) Placement {
	switch p {
	case Oldest, Newest:
		first := r.Order == OldestFirst
		if r.Order == Unordered {
			return Scattered
		}
		if (p == Oldest) == first {
			return Head
		}
		return Tail
	case Head, Tail:
		if r.Reversed {
			return Head + Tail - p
		}
	}
	return p
}

// Delete is one recurring deletion of a partition's data.
type Delete struct {
	Kind   Kind
	PerDay float64 // deletions of this kind per partition per day
	// Rows is the number of rows each range deletion removes (RangeDelete only; default 1).
	Rows float64
	// Cells is the number of cells (CellDelete) or collection elements (ElementDelete) each
	// deletion removes (default 1).
	Cells float64
	At    Placement
}

// Order is how the clustering order relates to write time, seen from where a read starts.
type Order int

// Orders.
const (
	// Unordered: the clustering key is not time; old and new rows are interleaved.
	Unordered Order = iota
	// NewestFirst: time-ordered clustering read from the newest row (CLUSTERING ORDER BY
	// (ts DESC) with a plain SELECT, the usual time series): expired rows are at the far end.
	NewestFirst
	// OldestFirst: time-ordered clustering read from the oldest row: expired rows come first.
	OldestFirst
)

var orderNames = [...]string{"unordered", "newest-first", "oldest-first"}

func (o Order) String() string { return enumName(orderNames[:], int(o), "order") }

// ParseOrder parses unordered, newest-first or oldest-first.
func ParseOrder(s string) (Order, error) {
	for i, n := range orderNames {
		if strings.EqualFold(s, n) {
			return Order(i), nil
		}
	}
	return 0, fmt.Errorf("read order %q: want unordered, newest-first or oldest-first", s)
}

// enumName is names[i], or kind(i) for a value no name is given to.
func enumName(names []string, i int, kind string) string {
	if i < 0 || i >= len(names) {
		return kind + "(" + strconv.Itoa(i) + ")"
	}
	return names[i]
}

// DefaultPageSize is the fetch size of gocql and of the other common drivers (5000 rows):
// each page is a separate read for the tombstone thresholds.
const DefaultPageSize = 5000

// Slice is where a read's clustering range starts.
type Slice int

// Slices.
const (
	// FromStart: the read starts at the first row in its order (a whole partition, or a
	// range bounded only at its far end, or a clustering prefix).
	FromStart Slice = iota
	// AfterCursor: the read's range starts at a bound on its starting side (WHERE ck > ?
	// read ascending, ck < ? descending), the last row a consumer processed: it starts past
	// the deleted and expired rows at its head and never reads them.
	AfterCursor
	// Point: every clustering column restricted by equality: the read seeks one row and
	// counts only that row's tombstones.
	Point
)

var sliceNames = [...]string{"from-start", "after-cursor", "point"}

func (s Slice) String() string { return enumName(sliceNames[:], int(s), "slice") }

// Read is the typical read of one partition.
type Read struct {
	// Limit is the LIMIT (or PER PARTITION LIMIT) of the read; 0 means none: the client pages
	// through the whole range, and the worst page is what the thresholds see.
	Limit int
	// PageSize is the driver's fetch size; 0 means DefaultPageSize.
	PageSize int
	// Fraction is the share of the partition's rows the read's clustering range covers,
	// starting where the read starts; 0 (or 1) means the whole partition.
	Fraction float64
	Order    Order
	// Slice is where the read's clustering range starts (ReadOf derives it from a query).
	Slice Slice
	// Reversed says the read runs against the table's clustering order (an ORDER BY that
	// reverses it): deletions placed at the Head of the clustering order are at its end.
	Reversed bool
}

// Thresholds are the per-read tombstone thresholds. A read warns when it counts more than
// Warn tombstones and fails when it counts more than Fail.
type Thresholds struct {
	Warn int // tombstone_warn_threshold
	Fail int // tombstone_failure_threshold; 0 when reads never fail (ScyllaDB)
	// WarnName and FailName are the settings as messages name them, and WarnEffect says what
	// happens over Warn; empty means Cassandra's.
	WarnName, FailName, WarnEffect string
}

// DefaultThresholds are Cassandra 4.0-5.0's defaults.
var DefaultThresholds = Thresholds{Warn: 1000, Fail: 100000}

// ScyllaThresholds are ScyllaDB's: no failure, but a page ends after
// query_tombstone_page_limit (10000) tombstones.
var ScyllaThresholds = Thresholds{
	Warn: 10000, WarnName: "query_tombstone_page_limit",
	WarnEffect: "ScyllaDB ends the page there, so the client needs more round trips for the same rows",
}

func (t Thresholds) warnName() string {
	if t.WarnName != "" {
		return t.WarnName
	}
	return "tombstone_warn_threshold"
}

func (t Thresholds) failName() string {
	if t.FailName != "" {
		return t.FailName
	}
	return "tombstone_failure_threshold"
}

func (t Thresholds) warnEffect() string {
	if t.WarnEffect != "" {
		return t.WarnEffect
	}
	return "every such read logs a warning and sends one to the client"
}

// overFail reports whether v crosses the failure threshold (never when there is none).
func (t Thresholds) overFail(v float64) bool { return t.Fail > 0 && over(v, t.Fail) }

// overWarn reports whether v crosses the warn threshold.
func (t Thresholds) overWarn(v float64) bool { return over(v, t.Warn) }

// over reports whether a modelled count is over a threshold: Cassandra warns at more than
// the threshold, and a count computed in floating point as 1000.0000001 is 1000.
func over(v float64, threshold int) bool { return v > float64(threshold)+1e-6 }

// FieldError is an Input field with a value the analysis cannot use. Field is the Go path of
// the field ("Writes.NullFraction", "Deletes[1].PerDay") so a caller can map it back to
// the line of its own input file.
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// Validate reports the first field that makes no sense: negative counts or rates, a
// fraction outside 0..1, a placement or kind out of range, warn over fail.
func (in Input) Validate() error {
	nonneg := func(field string, v float64) error {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return &FieldError{field, fmt.Sprintf("must be a finite number >= 0, got %v", v)}
		}
		return nil
	}
	checks := []struct {
		field string
		v     float64
	}{
		{"Table.ClusteringColumns", float64(in.Table.ClusteringColumns)},
		{"Table.RegularColumns", float64(in.Table.RegularColumns)},
		{"Table.CollectionColumns", float64(in.Table.CollectionColumns)},
		{"Table.StaticColumns", float64(in.Table.StaticColumns)},
		{"Table.DefaultTTLSeconds", float64(in.Table.DefaultTTLSeconds)},
		{"Table.GCGraceSeconds", float64(in.Table.GCGraceSeconds)},
		{"Table.Compaction.Window", float64(in.Table.Compaction.Window)},
		{"Writes.RowsPerDay", in.Writes.RowsPerDay},
		{"Writes.Bucket", float64(in.Writes.Bucket)},
		{"Writes.TTLSeconds", float64(in.Writes.TTLSeconds)},
		{"Writes.NullFraction", in.Writes.NullFraction},
		{"Writes.UnsetFraction", in.Writes.UnsetFraction},
		{"Writes.ElementsPerCollection", in.Writes.ElementsPerCollection},
		{"Read.Limit", float64(in.Read.Limit)},
		{"Read.PageSize", float64(in.Read.PageSize)},
		{"Read.Fraction", in.Read.Fraction},
		{"Thresholds.Warn", float64(in.Thresholds.Warn)},
		{"Thresholds.Fail", float64(in.Thresholds.Fail)},
	}
	for _, c := range checks {
		if err := nonneg(c.field, c.v); err != nil {
			return err
		}
	}
	if in.Writes.NullFraction > 1 {
		return &FieldError{"Writes.NullFraction", fmt.Sprintf("is a share of the columns: between 0 and 1, got %v", in.Writes.NullFraction)}
	}
	if in.Writes.UnsetFraction > 1 {
		return &FieldError{"Writes.UnsetFraction", fmt.Sprintf("is a share of the columns: between 0 and 1, got %v", in.Writes.UnsetFraction)}
	}
	if sum := in.Writes.NullFraction + in.Writes.UnsetFraction; sum > 1+1e-9 {
		return &FieldError{"Writes.UnsetFraction", fmt.Sprintf("with Writes.NullFraction %v, %v leaves more than every column without a value (the two add up to %v, at most 1)",
			in.Writes.NullFraction, in.Writes.UnsetFraction, sum)}
	}
	if in.Read.Fraction > 1 {
		return &FieldError{"Read.Fraction", fmt.Sprintf("is a share of the partition: between 0 and 1, got %v", in.Read.Fraction)}
	}
	if in.Read.Order < Unordered || in.Read.Order > OldestFirst {
		return &FieldError{"Read.Order", fmt.Sprintf("unknown order %d", in.Read.Order)}
	}
	if in.Read.Slice < FromStart || in.Read.Slice > Point {
		return &FieldError{"Read.Slice", fmt.Sprintf("unknown slice %d", in.Read.Slice)}
	}
	if in.Table.Compaction.Strategy < STCS || in.Table.Compaction.Strategy > UCS {
		return &FieldError{"Table.Compaction.Strategy", fmt.Sprintf("unknown strategy %d", in.Table.Compaction.Strategy)}
	}
	if t := in.Thresholds; t != (Thresholds{}) && t.Fail > 0 && t.Warn > t.Fail {
		return &FieldError{"Thresholds.Warn", fmt.Sprintf("warn threshold %d is over the failure threshold %d", t.Warn, t.Fail)}
	}
	for i, d := range in.Deletes {
		f := fmt.Sprintf("Deletes[%d]", i)
		if d.Kind < PartitionDelete || d.Kind > ElementDelete {
			return &FieldError{f + ".Kind", fmt.Sprintf("unknown kind %d", d.Kind)}
		}
		if d.At < Scattered || d.At > Newest {
			return &FieldError{f + ".At", fmt.Sprintf("unknown placement %d", d.At)}
		}
		for _, c := range []struct {
			field string
			v     float64
		}{{f + ".PerDay", d.PerDay}, {f + ".Rows", d.Rows}, {f + ".Cells", d.Cells}} {
			if err := nonneg(c.field, c.v); err != nil {
				return err
			}
		}
		if d.Kind == RowDelete || d.Kind == RangeDelete {
			if in.Table.ClusteringColumns == 0 && d.Kind == RangeDelete {
				return &FieldError{f + ".Kind", "a range deletion needs clustering columns; this table has none"}
			}
		}
		if d.Kind == ElementDelete && in.Table.CollectionColumns == 0 {
			return &FieldError{f + ".Kind", "an element deletion needs a non-frozen collection; this table has none"}
		}
	}
	return nil
}

// TableOf fills a Table from a schema table: its column counts by role, default TTL,
// gc_grace_seconds and compaction strategy and window.
func TableOf(t *cql.Table) Table {
	out := Table{
		Name:              t.QualifiedName(),
		ClusteringColumns: len(t.Clustering),
		DefaultTTLSeconds: t.Options.DefaultTTL,
		GCGraceSeconds:    t.Options.GCGraceSeconds,
	}
	if _, set := t.Options.Raw["gc_grace_seconds"]; !set && out.GCGraceSeconds == 0 {
		out.GCGraceSeconds = cql.DefaultGCGraceSeconds
	}
	if t.Keyspace == "" {
		out.Name = t.Name
	}
	for _, c := range t.Columns {
		switch c.Kind {
		case cql.Static:
			out.StaticColumns++
		case cql.Regular:
			if c.Type.MultiCell() {
				out.CollectionColumns++
			} else {
				out.RegularColumns++
			}
		}
	}
	out.Compaction.Strategy, _ = ParseStrategy(t.Options.CompactionClass())
	if out.Compaction.Strategy == TWCS {
		out.Compaction.Window = twcsWindow(t.Options.Compaction)
	}
	return out
}

// twcsWindow reads compaction_window_size and compaction_window_unit (default 1 DAYS).
func twcsWindow(opts map[string]string) time.Duration {
	size := 1
	if s, ok := opts["compaction_window_size"]; ok {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && n > 0 {
			size = n
		}
	}
	unit := 24 * time.Hour
	switch strings.ToUpper(strings.TrimSpace(opts["compaction_window_unit"])) {
	case "MINUTES":
		unit = time.Minute
	case "HOURS":
		unit = time.Hour
	}
	if int64(size) > math.MaxInt64/int64(unit) {
		return math.MaxInt64 // saturate: a window longer than time.Duration holds
	}
	return time.Duration(size) * unit
}
