package cql

// The rules below are about a write's form, not its values: the node checks them when it
// prepares the statement (ModificationStatement, BatchStatement), so a history holding one
// stops at it. Each was tried on a 5.0 node (testdata/grammar/wide keeps the evidence) and
// the messages are the node's.

// checkWriteForm checks the form of an INSERT, UPDATE or DELETE on table t.
func checkWriteForm(t *Table, stmt Statement) error {
	switch st := stmt.(type) {
	case *Insert:
		if st.JSON == nil {
			if len(st.Columns) != len(st.Values) {
				return Errorf(st.Table.Name.Pos, "Unmatched column names/values")
			}
			seen := map[string]bool{}
			for _, c := range st.Columns {
				if seen[c.Name] {
					return Errorf(c.Pos, "Multiple definitions found for column %s", c.Name)
				}
				seen[c.Name] = true
			}
		}
		if st.IfNotExists && st.Using.Timestamp != nil {
			return Errorf(st.Using.Timestamp.Pos, "Cannot provide custom timestamp for conditional updates")
		}
	case *Update:
		if isCounterTable(t) && st.Using.TTL != nil {
			return Errorf(st.Using.TTL.Pos, "Cannot provide custom TTL for counter updates")
		}
		if st.IfExists || len(st.If) > 0 {
			return checkConditional(t, st.Pos, st.Using, st.Where, st.If)
		}
	case *Delete:
		if st.IfExists || len(st.If) > 0 {
			if err := checkConditional(t, st.Pos, st.Using, st.Where, st.If); err != nil {
				return err
			}
			return checkConditionalDelete(t, st)
		}
	}
	return nil
}

// checkConditional checks what an UPDATE or DELETE with IF may not have: a counter table,
// a timestamp, IN on the key, conditions on key columns.
func checkConditional(t *Table, pos Pos, u Using, where, conds []*Relation) error {
	if isCounterTable(t) {
		return Errorf(pos, "Conditional updates are not supported on counter tables")
	}
	if u.Timestamp != nil {
		return Errorf(u.Timestamp.Pos, "Cannot provide custom timestamp for conditional updates")
	}
	for _, r := range where {
		if r.Op != OpIn || r.Kind != RelColumn {
			continue
		}
		if c := t.Column(r.Column().Name); c != nil && c.Kind == PartitionKey {
			return Errorf(r.Pos, "IN on the partition key is not supported with conditional updates")
		} else if c != nil && c.Kind == Clustering {
			return Errorf(r.Pos, "IN on the clustering key columns is not supported with conditional updates")
		}
	}
	for _, r := range conds {
		if c := t.Column(r.Column().Name); c != nil && isKey(c) {
			return Errorf(r.Pos, "PRIMARY KEY column '%s' cannot have IF conditions", c.Name)
		}
	}
	return nil
}

// checkConditionalDelete: a DELETE with IF names one row (every key column by =), unless it
// deletes static columns only under conditions on static columns only.
func checkConditionalDelete(t *Table, st *Delete) error {
	eq := map[string]bool{}
	for _, r := range st.Where {
		if r.Kind == RelColumn && r.Op == OpEq {
			eq[r.Column().Name] = true
		}
	}
	if missingColumns(t.PartitionKey, eq) == "" && missingColumns(t.Clustering, eq) == "" {
		return nil
	}
	staticOnly := len(st.Columns) > 0 && !st.IfExists
	for _, d := range st.Columns {
		if c := t.Column(d.Column.Name); c == nil || c.Kind != Static {
			staticOnly = false
		}
	}
	for _, r := range st.If {
		if c := t.Column(r.Column().Name); c == nil || c.Kind != Static {
			staticOnly = false
		}
	}
	if staticOnly {
		return nil
	}
	return Errorf(st.Pos, "DELETE statements must restrict all PRIMARY KEY columns with equality relations in order to use IF conditions")
}

// checkBatchForm checks what a batch may hold: counter writes only in a COUNTER batch and
// nothing else there, one timestamp (the batch's or the statements'), no batch-wide TTL,
// and conditions only within one partition of one table.
func (s *Schema) checkBatchForm(b *Batch) error {
	if b.Using.TTL != nil {
		return Errorf(b.Using.TTL.Pos, "Global TTL on the BATCH statement is not supported.")
	}
	type write struct {
		t   *Table
		key string
		pos Pos
	}
	var writes []write
	conditional, counters, others := false, false, false
	for _, inner := range b.Statements {
		var u Using
		var table QualifiedName
		var where []*Relation
		cond := false
		switch st := inner.(type) {
		case *Insert:
			u, table, cond = st.Using, st.Table, st.IfNotExists
		case *Update:
			u, table, where, cond = st.Using, st.Table, st.Where, st.IfExists || len(st.If) > 0
		case *Delete:
			u, table, where, cond = st.Using, st.Table, st.Where, st.IfExists || len(st.If) > 0
		default:
			continue
		}
		if b.Using.Timestamp != nil && u.Timestamp != nil {
			return Errorf(u.Timestamp.Pos, "Timestamp must be set either on BATCH or individual statements")
		}
		_, t, err := s.findTable(table)
		if err != nil {
			continue // Apply names it
		}
		if isCounterTable(t) {
			counters = true
		} else {
			others = true
		}
		switch {
		case b.Type == LoggedBatch && counters:
			return Errorf(inner.Info().Pos, "Cannot include a counter statement in a logged batch")
		case b.Type == CounterBatch && others:
			return Errorf(inner.Info().Pos, "Cannot include non-counter statement in a counter batch")
		case counters && others:
			return Errorf(inner.Info().Pos, "Counter and non-counter mutations cannot exist in the same batch")
		}
		conditional = conditional || cond
		writes = append(writes, write{t, partitionKeyText(t, inner, where), inner.Info().Pos})
	}
	if !conditional {
		return nil
	}
	for _, w := range writes[1:] {
		switch first := writes[0]; {
		case w.t != first.t:
			return Errorf(w.pos, "Batch with conditions cannot span multiple tables")
		case w.key != "" && first.key != "" && w.key != first.key:
			return Errorf(w.pos, "Batch with conditions cannot span multiple partitions")
		}
	}
	return nil
}

// partitionKeyText renders the partition key values a write names, in key order, or ""
// when a value comes from a bind marker (then the partitions are the node's to compare).
func partitionKeyText(t *Table, stmt Statement, where []*Relation) string {
	vals := map[string]*Term{}
	if ins, ok := stmt.(*Insert); ok {
		for i, c := range ins.Columns {
			if i < len(ins.Values) {
				vals[c.Name] = ins.Values[i]
			}
		}
	}
	for _, r := range where {
		if r.Kind == RelColumn && r.Op == OpEq {
			vals[r.Column().Name] = r.Value
		}
	}
	key := ""
	for _, c := range t.PartitionKey {
		v := vals[c.Name]
		if v == nil || v.HasMarker() {
			return ""
		}
		if v.Kind == TermLiteral {
			key += v.Value + "\x00"
		} else {
			key += v.Text + "\x00"
		}
	}
	return key
}
