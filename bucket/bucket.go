package bucket

import "time"

// A Bucket is one slice of time cut by a Scheme: the half-open interval [Start, End). Its
// label (String) or its start (Start) is the value that goes into the partition key. Two
// buckets of the same Scheme are equal (==) exactly when they are the same bucket.
type Bucket struct {
	scheme     Scheme
	key        int64 // which bucket: see Scheme.keyOfDay; for fixed widths, start / width
	start, end int64 // Unix seconds
}

// Start returns the first instant in the bucket, in the scheme's location. It is the value
// for a timestamp partition-key column; it is a whole second, so a timestamp read back from
// Cassandra gives the bucket back through Scheme.For.
func (b Bucket) Start() time.Time {
	if !b.scheme.valid() {
		return time.Time{}
	}
	return time.Unix(b.start, 0).In(b.scheme.Location())
}

// End returns the first instant after the bucket, in the scheme's location: the bucket holds
// t when Start() <= t < End(). End is the next bucket's Start.
func (b Bucket) End() time.Time {
	if !b.scheme.valid() {
		return time.Time{}
	}
	return time.Unix(b.end, 0).In(b.scheme.Location())
}

// Next returns the bucket that starts where b ends.
func (b Bucket) Next() Bucket {
	if !b.scheme.valid() {
		return Bucket{}
	}
	for k := b.key + 1; ; k++ { // skip buckets the zone skipped
		if n, ok := b.scheme.bucketAt(k); ok {
			return n
		}
	}
}

// Prev returns the bucket that ends where b starts.
func (b Bucket) Prev() Bucket {
	if !b.scheme.valid() {
		return Bucket{}
	}
	for k := b.key - 1; ; k-- {
		if p, ok := b.scheme.bucketAt(k); ok {
			return p
		}
	}
}

// String returns the bucket's label, which Scheme.Parse reads back: 2024 (year), 2024-01
// (month), 2024-W03 (ISO week), 2024-01-15 (day) on the scheme's local calendar, and for
// fixed widths the UTC start at the width's precision, 2024-01-15T10 (hour, 6h),
// 2024-01-15T10:04 (minute, 15m) or 2024-01-15T10:04:05. Years outside 0000-9999 carry a
// sign, as ISO 8601 allows: +10000, -0001. Within those years, sorting labels as text
// sorts the buckets by time.
func (b Bucket) String() string {
	if !b.scheme.valid() {
		return ""
	}
	var buf [32]byte
	return string(b.scheme.appendLabel(buf[:0], b))
}
