package sizing

import (
	"fmt"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/workload"
)

// Batch size, as Cassandra measures it for batch_size_warn_threshold (5 KiB) and
// batch_size_fail_threshold (50 KiB).
//
// BatchStatement.verifyBatchSize (cql3/statements/BatchStatement.java, 5.0) checks a batch only
// when it spans more than one mutation: a mutation is one partition key of one keyspace, so a
// batch writing one partition (even of several tables sharing the key) is never checked. It
// sums PartitionUpdate.dataSize() over every table of every mutation — the in-memory data
// size, not the bytes on the wire or on disk:
//
//	partition update  8 (the partition deletion's timestamp) + static row + rows
//	row               clustering values + 8 (row marker timestamp, 20 with a TTL: + 4 TTL + 8
//	                  expiry) + 13 (row deletion) + cells; a write with no static column still
//	                  carries the empty static row: 8 + 13 = 21
//	cell              8 timestamp + 4 TTL + 8 local deletion time + value + cell path
//	                  (20 bytes before the value, whether or not the cell expires)
//	collection        12 (its deletion time) + one cell per element
//
// Over the fail threshold the batch is rejected ("Batch too large"); over the warn threshold
// the coordinator logs a warning and returns it to the client.

// Batch thresholds (cassandra.yaml defaults, unchanged from 4.0 to 5.0).
const (
	BatchWarnThreshold = 5 * 1024
	BatchFailThreshold = 50 * 1024
)

// BatchWrite is what one statement of a batch writes: rows of a table under its workload's
// value sizes and null rates.
type BatchWrite struct {
	Table    *cql.Table
	Workload *workload.TableWorkload // value sizes; nil = defaults. Only sizes, nulls, TTL and writes are used.
	Rows     int                     // rows this statement writes (default 1)
	// Partition groups statements into mutations: statements of the same keyspace with the
	// same non-empty Partition write one partition key (one mutation). Empty = its own.
	Partition string
}

// BatchEstimate is the size Cassandra compares with the batch thresholds.
type BatchEstimate struct {
	Bytes     float64            // sum of the mutations' data sizes
	Mutations int                // distinct (keyspace, partition key) pairs
	Checked   bool               // Cassandra checks the size (more than one mutation)
	PerTable  map[string]float64 // data size by keyspace.table
	Findings  []Finding
}

// EstimateBatch estimates the data size of a batch that writes one entity to several tables
// (the fan-out of a denormalized model), as BatchStatement.verifyBatchSize measures it.
func EstimateBatch(writes []BatchWrite, opt Options) (*BatchEstimate, error) {
	out := &BatchEstimate{PerTable: map[string]float64{}}
	mutations := map[string]bool{}
	var names []string
	for i, bw := range writes {
		if bw.Table == nil {
			return nil, fmt.Errorf("estimate batch: statement %d has no table", i+1)
		}
		w := bw.Workload
		if w == nil {
			w = &workload.TableWorkload{Name: bw.Table.Name, RowsPerPartition: 1}
		} else {
			// One statement's rows: the workload's sizes and nulls, not its volume.
			c := w.Clone()
			c.RowsPerPartition, c.WriteRate, c.Deletes = 1, workload.Rate{}, nil
			delete(c.Fields, "write_rate")
			w = c
		}
		if err := w.ValidateFor(bw.Table); err != nil {
			return nil, fmt.Errorf("estimate batch: %w", err)
		}
		p, err := newPlan(bw.Table, w, opt.Schema)
		if err != nil {
			return nil, fmt.Errorf("estimate batch: %w", err)
		}
		rows := bw.Rows
		if rows <= 0 {
			rows = 1
		}
		size := p.updateDataSize(float64(rows))
		name := bw.Table.QualifiedName()
		if _, ok := out.PerTable[name]; !ok {
			names = append(names, name)
		}
		out.PerTable[name] += size
		out.Bytes += size
		key := fmt.Sprintf("%s\x00#%d", bw.Table.Keyspace, i)
		if bw.Partition != "" {
			key = bw.Table.Keyspace + "\x00" + bw.Partition
		}
		mutations[key] = true
	}
	out.Mutations = len(mutations)
	out.Checked = out.Mutations > 1
	if out.Checked {
		tables := strings.Join(names, ", ")
		switch {
		case out.Bytes > BatchFailThreshold:
			out.Findings = append(out.Findings, Finding{Code: CodeBatchFail, Severity: Fail, Table: tables,
				Message: fmt.Sprintf("the batch is about %.0f bytes, over batch_size_fail_threshold (50 KiB): Cassandra rejects it (\"Batch too large\"); write the tables separately or split the entity", out.Bytes)})
		case out.Bytes > BatchWarnThreshold:
			out.Findings = append(out.Findings, Finding{Code: CodeBatchWarn, Severity: Warn, Table: tables,
				Message: fmt.Sprintf("the batch is about %.0f bytes, over batch_size_warn_threshold (5 KiB): every write logs a warning on the coordinator", out.Bytes)})
		}
	}
	return out, nil
}

// updateDataSize is PartitionUpdate.dataSize() of one statement writing rows rows.
func (p *plan) updateDataSize(rows float64) float64 {
	cellsOf := func(cols []*colPlan) float64 {
		var s float64
		for _, c := range cols {
			present := 1 - c.missing
			if c.multi {
				// The collection's deletion time (an INSERT overwrites it), then its elements.
				s += 12 + present*c.elems*(20+c.elemRaw)
				if p.w.NullsAs == workload.NullUnset {
					s -= c.missing * 12
				}
				continue
			}
			s += present * (20 + c.raw)
			if p.w.NullsAs == workload.NullTombstone {
				s += c.missing * 20
			}
		}
		return s
	}
	liveness := 8.0
	if p.ttl > 0 && p.w.Writes == workload.Insert {
		liveness += 12
	}
	var ck float64
	for _, k := range p.ck {
		ck += k.raw
	}
	static := 21.0
	if writesAny(p.static) {
		static += cellsOf(p.static)
	}
	row := ck + liveness + 13 + cellsOf(p.regular)
	return 8 + static + rows*row
}

// BatchFromWorkloads builds the batch of one entity written to every named table once, each
// its own partition: the fan-out of a write to a denormalized model (posts_by_user,
// posts_by_hashtag, posts_by_id).
func BatchFromWorkloads(s *cql.Schema, w *workload.Workload, tables ...string) ([]BatchWrite, error) {
	var out []BatchWrite
	for _, name := range tables {
		tbl, ok := s.FindTable(name)
		if !ok {
			return nil, fmt.Errorf("batch: table %s is not in the schema", name)
		}
		out = append(out, BatchWrite{Table: tbl, Workload: w.Table(name), Rows: 1})
	}
	return out, nil
}
