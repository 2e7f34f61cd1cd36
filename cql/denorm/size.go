package denorm

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql"
)

// BatchSize is a batch measured the way Cassandra 5.0 measures it for
// batch_size_warn_threshold and batch_size_fail_threshold: BatchStatement.verifyBatchSize
// sums PartitionUpdate.dataSize over the batch's mutations. That is not the bytes on the
// wire nor on disk: per partition 29 bytes (8 for the deletion info, 21 for the static
// row, present even when empty); per row the clustering values, 8 for the row timestamp
// (20 with a TTL) and 13 for the row deletion; per cell 20 (timestamp, TTL, local deletion
// time) plus the value; per non-frozen collection 12 plus a cell per element, whose path
// (set element, map key, list timeuuid) counts too. Partition keys are not counted.
// Cassandra only checks batches that span more than one mutation (keyspace and partition key).
type BatchSize struct {
	Bytes     int
	Mutations int         // distinct (keyspace, partition key) pairs
	Tables    []TableSize // in mapping order
}

// TableSize is one table's share of a batch.
type TableSize struct {
	Table      string
	Rows       int // statements (a partition deletion counts as one)
	Partitions int
	Bytes      int
}

// The fixed parts of PartitionUpdate.dataSize in Cassandra 5.0 (see BatchSize).
const (
	partitionOverhead = 8 + 21 // MutableDeletionInfo (markedForDeleteAt) + empty static row
	rowOverhead       = 13     // Row.Deletion: DeletionTime (12) + 1
	livenessBytes     = 8      // LivenessInfo: the timestamp
	expiringLiveness  = 8 + 4 + 8
	cellOverhead      = 8 + 4 + 8 // timestamp, ttl, localDeletionTime
	complexOverhead   = 12        // the complex deletion of a non-frozen collection
	listPathBytes     = 16        // a list element's path is a timeuuid
	udtPathBytes      = 2         // a user type field's path is its index as a short
)

// sizer accumulates a batch's size statement by statement.
type sizer struct {
	size   BatchSize
	tables []*table // size.Tables[i] is tables[i]
	parts  []partition
	muts   int
}

type partition struct {
	t       *table
	pk      string
	statics []int // static columns already counted: a partition has one static row
}

func newSizer(tables []*table, rows int) *sizer {
	s := &sizer{tables: tables, size: BatchSize{Tables: make([]TableSize, len(tables))}, parts: make([]partition, 0, rows)}
	for i, t := range tables {
		s.size.Tables[i].Table = t.name
	}
	return s
}

func (s *sizer) partition(t *table, pk string) (*partition, int) {
	newMutation := true // a mutation is a keyspace and a partition key, over every table
	for i := range s.parts {
		p := &s.parts[i]
		if p.pk != pk || p.t.keyspace != t.keyspace {
			continue
		}
		if p.t == t {
			return p, 0
		}
		newMutation = false
	}
	if newMutation {
		s.muts++
	}
	s.parts = append(s.parts, partition{t: t, pk: pk})
	s.size.Tables[s.tableIndex(t)].Partitions++
	return &s.parts[len(s.parts)-1], partitionOverhead
}

func (s *sizer) tableIndex(t *table) int {
	for i, x := range s.tables {
		if x == t {
			return i
		}
	}
	return 0
}

// add measures one statement. expiring says whether inserted rows carry a TTL (the write's,
// or the table's default_time_to_live).
func (s *sizer) add(t *table, r *row, op Op, expiring bool) {
	p, n := s.partition(t, r.pk)
	switch {
	case op == OpDelete && len(t.ck) == 0:
		// DELETE with the whole primary key of a table without clustering columns is a
		// partition deletion: no row, only the deletion info already counted.
	case op == OpDelete:
		n += r.ckSize + livenessBytes + rowOverhead
	default:
		n += r.ckSize + rowOverhead
		if expiring {
			n += expiringLiveness
		} else {
			n += livenessBytes
		}
		for i := range t.cols {
			c := &t.cols[i]
			if c.kind == cql.PartitionKey || c.kind == cql.Clustering || r.enc[i] == gocql.UnsetValue {
				continue
			}
			if c.kind == cql.Static {
				if containsInt(p.statics, i) {
					continue
				}
				p.statics = append(p.statics, i)
			}
			n += cellBytes(c, r.enc[i])
		}
	}
	ts := &s.size.Tables[s.tableIndex(t)]
	ts.Rows++
	ts.Bytes += n
	s.size.Bytes += n
	s.size.Mutations = s.muts
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// cellBytes is Cell.dataSize for a simple column, ComplexColumnData.dataSize for a
// non-frozen collection or user type (whose serialized form is split into its cells).
func cellBytes(c *column, v any) int {
	if !c.complex {
		n, _ := c.encodedLen(v)
		return cellOverhead + n
	}
	b, _ := v.(raw)
	n := complexOverhead
	switch c.typ.Kind {
	case cql.Set: // path = element, value empty
		for e := range elements(b, 1) {
			n += cellOverhead + len(e[0])
		}
	case cql.List: // path = timeuuid, value = element
		for e := range elements(b, 1) {
			n += cellOverhead + listPathBytes + len(e[0])
		}
	case cql.Map: // path = key, value = value
		for e := range elements(b, 2) {
			n += cellOverhead + len(e[0]) + len(e[1])
		}
	case cql.UDT: // a cell per non-null field, path = field index
		for len(b) >= 4 {
			l := int(int32(binary.BigEndian.Uint32(b)))
			b = b[4:]
			if l < 0 {
				continue
			}
			if l > len(b) {
				break
			}
			n += cellOverhead + udtPathBytes + l
			b = b[l:]
		}
	}
	return n
}

// elements walks a collection serialized with protocol v3+ framing: an int32 count, then
// per element `per` values (1 for a list or set, 2 for a map), each an int32 length and
// bytes. It stops at the first malformed length.
func elements(b []byte, per int) func(yield func([2][]byte) bool) {
	return func(yield func([2][]byte) bool) {
		if len(b) < 4 {
			return
		}
		count := int(binary.BigEndian.Uint32(b))
		b = b[4:]
		var vals [2][]byte
		for i := 0; i < count; i++ {
			for j := 0; j < per; j++ {
				if len(b) < 4 {
					return
				}
				l := int(int32(binary.BigEndian.Uint32(b)))
				b = b[4:]
				if l < 0 {
					l = 0
				}
				if l > len(b) {
					return
				}
				vals[j], b = b[:l], b[l:]
			}
			if !yield(vals) {
				return
			}
		}
	}
}

// advice says what to change about a batch that is too large: the fan-out that dominates
// it, or the column that weighs most across its copies.
func advice(p *Plan, tables []*table) string {
	total := len(p.Statements)
	var big *TableSize
	for i := range p.Size.Tables {
		if big == nil || p.Size.Tables[i].Bytes > big.Bytes {
			big = &p.Size.Tables[i]
		}
	}
	var tips []string
	if big != nil && big.Rows > 1 && 2*big.Rows > total {
		tips = append(tips, fmt.Sprintf("%s is %d of the %d rows: write fewer of them per entity (cap the fan-out, e.g. fewer hashtags per post)", big.Table, big.Rows, total))
	}
	// The heaviest column, summed over every copy of it.
	weights := map[string]int{}
	for _, st := range p.Statements {
		if st.Op != OpInsert {
			continue
		}
		var t *table
		for _, tb := range tables {
			if tb.name == st.Table {
				t = tb
			}
		}
		if t == nil {
			continue
		}
		for i := range t.cols {
			if st.Args[i] != gocql.UnsetValue && t.cols[i].kind != cql.PartitionKey && t.cols[i].kind != cql.Clustering {
				weights[t.cols[i].name] += cellBytes(&t.cols[i], st.Args[i])
			}
		}
	}
	names := make([]string, 0, len(weights))
	for n := range weights {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if weights[names[i]] != weights[names[j]] {
			return weights[names[i]] > weights[names[j]]
		}
		return names[i] < names[j]
	})
	if len(names) > 0 && 3*weights[names[0]] > p.Size.Bytes {
		tips = append(tips, fmt.Sprintf("column %s weighs %d bytes over its copies: store large values in one table and a reference in the others, or make them smaller", names[0], weights[names[0]]))
	}
	tips = append(tips, "or write with Mode: Concurrent (unlogged, idempotent, no batch limit), or raise batch_size_fail_threshold and Options.FailBytes together")
	return strings.Join(tips, "; ")
}
