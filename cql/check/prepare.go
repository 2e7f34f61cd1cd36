package check

import (
	"strings"

	"github.com/cqlsize/cqlsize/cql"
)

// filteringMessage is Cassandra's REQUIRES_ALLOW_FILTERING_MESSAGE, word for word, so a
// user who has seen it in a log recognises it.
const filteringMessage = "Cannot execute this query as it might involve data filtering and thus may have " +
	"unpredictable performance. If you want to execute this query despite the performance " +
	"unpredictability, use ALLOW FILTERING"

// prepared is the outcome of preparing a SELECT the way Cassandra 5.0 does
// (SelectStatement.RawStatement.prepare, StatementRestrictions), then the checks it makes
// when it executes the statement.
type prepared struct {
	rej *rejection // nil when Cassandra accepts the statement

	pk, ck, nonPK restrictionSet
	token         *restriction

	isKeyRange bool
	usesIndex  bool
	// filterSets are the restriction sets that go into the row filter, in the order
	// Cassandra adds them (partition key, clustering, regular/static).
	filterSets []*restrictionSet
	// served lists the indexes of the group that answers every row-filter restriction,
	// or, when none does, every index that answers one of them.
	served []tableIndex
}

// prepareContext is what preparing needs besides the statement.
type prepareContext struct {
	table      *cql.Table
	indexes    []tableIndex
	aggregates map[string]bool // user-defined aggregates of the table's keyspace
	unpaged    bool
}

// prepare runs Cassandra's checks on q with ALLOW FILTERING set to af. It stops at the
// first rejection, as Cassandra does, so the reason is the one Cassandra would give.
func (pc *prepareContext) prepare(q *selectQuery, af bool) *prepared {
	p := &prepared{}
	p.rej = pc.run(p, q, af)
	return p
}

// run is Cassandra's preparation of a SELECT, step by step in its order: resolve the
// selected and ordered columns, take the WHERE relations, decide how the partition key,
// clustering and other restrictions are served, check the selection, DISTINCT, GROUP BY
// and ORDER BY, then the row filter and the limits.
func (pc *prepareContext) run(p *prepared, q *selectQuery, af bool) *rejection {
	if rej := pc.resolveColumns(p, q, af); rej != nil {
		return rej
	}
	hasIndex, hasClusteringIndex := pc.indexAnswers(p)
	if rej := pc.partitionKeyRestrictions(p, q, af, hasIndex); rej != nil {
		return rej
	}
	if rej := pc.clusteringRestrictions(p, q, af, hasIndex, hasClusteringIndex); rej != nil {
		return rej
	}
	if rej := pc.otherRestrictions(p, q, af, hasIndex); rej != nil {
		return rej
	}
	aggregateAll, rej := pc.checkSelection(p, q)
	if rej != nil {
		return rej
	}
	// checkNeedsFiltering: a range or index read that would filter.
	if filters := pc.needFiltering(p); filters && !af && (p.isKeyRange || p.usesIndex) {
		return filteringRejection(q.pos)
	}
	if rej := pc.checkRowFilter(p); rej != nil {
		return rej
	}
	return pc.checkLimits(p, q, aggregateAll)
}

// resolveColumns resolves the selection and ORDER BY columns (before the WHERE clause, as
// Cassandra does) and takes the WHERE relations.
func (pc *prepareContext) resolveColumns(p *prepared, q *selectQuery, af bool) *rejection {
	t := pc.table
	for _, s := range q.sel {
		for _, c := range s.cols {
			if t.Column(c) == nil {
				return undefinedColumn(t, c, s.pos)
			}
		}
	}
	for _, o := range q.orderBy {
		if t.Column(o.col) == nil {
			return undefinedColumn(t, o.col, o.pos)
		}
	}
	for i := range q.where {
		if rej := pc.addRelation(p, &q.where[i], af); rej != nil {
			return rej
		}
	}
	return nil
}

// indexAnswers is StatementRestrictions' question: does some index answer any
// restriction, and any clustering restriction?
func (pc *prepareContext) indexAnswers(p *prepared) (hasIndex, hasClusteringIndex bool) {
	for _, r := range p.pk.list {
		hasIndex = hasIndex || pc.supported(r)
	}
	for _, r := range p.ck.list {
		if pc.supported(r) {
			hasIndex, hasClusteringIndex = true, true
		}
	}
	for _, r := range p.nonPK.list {
		hasIndex = hasIndex || pc.supported(r)
	}
	return hasIndex, hasClusteringIndex
}

// partitionKeyRestrictions is processPartitionKeyRestrictions: a read without the whole
// partition key is a range read, served by an index or by filtering.
func (pc *prepareContext) partitionKeyRestrictions(p *prepared, q *selectQuery, af, hasIndex bool) *rejection {
	if p.token != nil && p.pk.empty() {
		p.isKeyRange = true
	}
	if p.token == nil && p.pk.empty() {
		p.isKeyRange = true
		p.usesIndex = hasIndex
	}
	pkFilters := pc.pkNeedsFiltering(p)
	if pkFilters {
		if !af && !hasIndex {
			return filteringRejection(q.pos)
		}
		p.isKeyRange = true
		p.usesIndex = hasIndex
	}
	if p.usesIndex || pkFilters {
		p.filterSets = append(p.filterSets, &p.pk)
	}
	if !p.ck.empty() && selectsOnlyStatic(pc.table, q) {
		return reject(CodeInvalid, p.ck.list[0].pos(), "Cannot restrict clustering columns when selecting only static columns")
	}
	return nil
}

// clusteringRestrictions is processClusteringColumnsRestrictions: a clustering column
// restricted after an unrestricted one needs an index or filtering.
func (pc *prepareContext) clusteringRestrictions(p *prepared, q *selectQuery, af, hasIndex, hasClusteringIndex bool) *rejection {
	t := pc.table
	if p.ck.hasContains() && !hasIndex && !af {
		return reject(CodeClustering, q.pos, "Clustering columns can only be restricted with CONTAINS with a secondary index or filtering")
	}
	ckFilters := ckNeedsFiltering(&p.ck)
	if !p.ck.empty() && ckFilters {
		if hasIndex {
			p.usesIndex = true
		} else if !af {
			var restricted []*cql.Column
			for _, r := range p.ck.list {
				restricted = append(restricted, r.cols...)
			}
			for i, c := range restricted {
				if i < len(t.Clustering) && t.Clustering[i] != c {
					return reject(CodeClustering, p.ck.forColumn(c).pos(),
						"PRIMARY KEY column %q cannot be restricted as preceding column %q is not restricted", c.Name, t.Clustering[i].Name)
				}
			}
		}
	}
	if p.isKeyRange && hasClusteringIndex {
		p.usesIndex = true
	}
	if p.usesIndex || ckFilters {
		p.filterSets = append(p.filterSets, &p.ck)
	}
	return nil
}

// otherRestrictions: restrictions on regular and static columns need an index or filtering.
func (pc *prepareContext) otherRestrictions(p *prepared, q *selectQuery, af, hasIndex bool) *rejection {
	if !p.nonPK.empty() {
		if hasIndex {
			p.usesIndex = true
		} else if !af {
			return filteringRejection(q.pos)
		}
		p.filterSets = append(p.filterSets, &p.nonPK)
	}
	if p.usesIndex && p.pk.hasIN() {
		return reject(CodeInvalid, q.pos, "Select on indexed columns and with IN clause for the PRIMARY KEY are not supported")
	}
	return nil
}

// checkSelection checks writetime() and ttl() on key columns, DISTINCT, GROUP BY and
// ORDER BY; aggregateAll says the query aggregates every row it reads.
func (pc *prepareContext) checkSelection(p *prepared, q *selectQuery) (aggregateAll bool, rej *rejection) {
	for _, s := range q.sel {
		if s.fn == "writetime" || s.fn == "maxwritetime" || s.fn == "ttl" {
			for _, c := range s.cols {
				if col := pc.table.Column(c); col != nil && (col.Kind == cql.PartitionKey || col.Kind == cql.Clustering) {
					return false, reject(CodeInvalid, s.pos, "Cannot use selection function %s on PRIMARY KEY part %s", s.fn, c)
				}
			}
		}
	}
	if q.distinct {
		if rej := pc.checkDistinct(p, q); rej != nil {
			return false, rej
		}
	}
	aggregateAll, rej = pc.checkGroupBy(p, q)
	if rej != nil {
		return false, rej
	}
	if aggregateAll && q.ppl != nil {
		return false, reject(CodeInvalid, q.ppl.pos, "PER PARTITION LIMIT is not allowed with aggregate queries.")
	}
	if len(q.orderBy) > 0 {
		if rej := pc.checkOrderBy(p, q); rej != nil {
			return false, rej
		}
	}
	return aggregateAll, nil
}

// checkRowFilter: building the row filter, a multi-column restriction cannot be filtered on.
func (pc *prepareContext) checkRowFilter(p *prepared) *rejection {
	if !containsSet(p.filterSets, &p.ck) {
		return nil
	}
	position := 0
	for _, r := range p.ck.list {
		if r.isContains() || r.kind == rkLike || position != r.firstPos() || pc.supported(r) {
			if r.multi {
				if r.isSlice() {
					return reject(CodeClustering, r.pos(), "Multi-column slice restrictions cannot be used for filtering.")
				}
				return reject(CodeClustering, r.pos(), "Multi-column relations cannot be used for filtering.")
			}
			continue
		}
		if !r.isSlice() {
			position = r.lastPos() + 1
		}
	}
	return nil
}

// checkLimits is execution's check: the limits, then paging.
func (pc *prepareContext) checkLimits(p *prepared, q *selectQuery, aggregateAll bool) *rejection {
	if q.limit != nil && !q.limit.marker && q.limit.n <= 0 {
		return reject(CodeInvalid, q.limit.pos, "LIMIT must be strictly positive")
	}
	if q.ppl != nil && !q.ppl.marker && q.ppl.n <= 0 {
		return reject(CodeInvalid, q.ppl.pos, "PER PARTITION LIMIT must be strictly positive")
	}
	if len(q.orderBy) > 0 && p.pk.hasIN() && (!pc.unpaged || aggregateAll || len(q.groupBy) > 0) {
		return reject(CodeOrderByIn, q.orderBy[0].pos,
			"Cannot page queries with both ORDER BY and a IN restriction on the partition key; you must either "+
				"remove the ORDER BY or the IN and sort client side, or disable paging for this query")
	}
	return nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func undefinedColumn(t *cql.Table, name string, pos cql.Pos) *rejection {
	qualified := t.Name
	if t.Keyspace != "" {
		qualified = t.QualifiedName()
	}
	return reject(CodeUnknownName, pos, "Undefined column name %s in table %s", name, qualified)
}

func filteringRejection(pos cql.Pos) *rejection {
	r := reject(CodeNeedsFiltering, pos, "%s", filteringMessage)
	r.filtering = true
	return r
}

func containsSet(sets []*restrictionSet, s *restrictionSet) bool {
	for _, x := range sets {
		if x == s {
			return true
		}
	}
	return false
}

// addRelation validates one WHERE relation and merges it into the restrictions, as
// Relation.toRestriction and the restriction sets' mergeWith do.
func (pc *prepareContext) addRelation(p *prepared, rel *relation, af bool) *rejection {
	t := pc.table
	if rel.other != "" || len(rel.cols) == 0 {
		return reject(CodeUnsupported, rel.pos, "%s is not supported in the WHERE clause of a SELECT checked by cqlsize: %s", orDefault(rel.other, "this relation"), rel.text)
	}
	cols := make([]*cql.Column, len(rel.cols))
	for i, name := range rel.cols {
		c := t.Column(name)
		if c == nil {
			return undefinedColumn(t, name, rel.pos)
		}
		cols[i] = c
	}
	switch rel.op {
	case opNEQ:
		return reject(CodeUnsupported, rel.pos, "Unsupported \"!=\" relation: %s", rel.text)
	case opIsNotNull:
		return reject(CodeUnsupported, rel.pos, "Unsupported restriction: %s", rel.text)
	}
	if rel.token {
		return pc.addToken(p, rel, cols)
	}
	if rel.tuple {
		return pc.addTuple(p, rel, cols, af)
	}
	c := cols[0]
	r := &restriction{cols: cols, rels: []*relation{rel}, inN: 1}
	switch {
	case rel.mapKey:
		if c.Type.Kind != cql.Map || c.Type.Frozen {
			return reject(CodeUnsupported, rel.pos, "Column %s cannot be used as a map", c.Name)
		}
		if rel.op != opEQ {
			return reject(CodeUnsupported, rel.pos, "Only = is supported on a map entry: %s", rel.text)
		}
		r.kind, r.containsOps = rkContains, []containsOp{mapEntry}
	case rel.op == opContains:
		if !c.Type.IsCollection() {
			return reject(CodeUnsupported, rel.pos, "Cannot use CONTAINS on non-collection column %s", c.Name)
		}
		r.kind, r.containsOps = rkContains, []containsOp{containsValue}
	case rel.op == opContainsKey:
		if c.Type.Kind != cql.Map {
			return reject(CodeUnsupported, rel.pos, "Cannot use CONTAINS KEY on non-map column %s", c.Name)
		}
		r.kind, r.containsOps = rkContains, []containsOp{containsKey}
	case rel.op == opLike:
		r.kind = rkLike
		if !pc.supported(r) {
			return reject(CodeUnsupported, rel.pos, "LIKE restriction is only supported on properly indexed columns. %s is not valid.", rel.text)
		}
	default:
		if c.Type.MultiCell() {
			return reject(CodeUnsupported, rel.pos, "Collection column '%s' (%s) cannot be restricted by a '%s' relation", c.Name, c.Type, rel.op)
		}
		switch {
		case rel.op == opEQ:
			r.kind = rkEQ
		case rel.op == opIN:
			r.kind, r.inN = rkIN, rel.inN
			if rel.inN == 1 {
				r.kind = rkEQ // IN with one value is an equality
			}
		case rel.op.isSlice():
			r.kind = rkSlice
			r.start, r.end = rel.op.isStart(), !rel.op.isStart()
		}
	}
	switch c.Kind {
	case cql.PartitionKey:
		return mergeSingle(&p.pk, c, rel, r)
	case cql.Clustering:
		return pc.addClustering(p, rel, r, af)
	}
	return mergeSingle(&p.nonPK, c, rel, r)
}

// addToken adds token(pk...) op value. Its arguments must be the whole partition key in
// order; it may be combined with restrictions on the partition key columns themselves.
func (pc *prepareContext) addToken(p *prepared, rel *relation, cols []*cql.Column) *rejection {
	pk := pc.table.PartitionKey
	same := len(cols) == len(pk)
	inOrder := same
	for i, c := range cols {
		if c.Kind != cql.PartitionKey {
			same = false
		}
		if i < len(pk) && pk[i] != c {
			inOrder = false
		}
	}
	if !same {
		return reject(CodeInvalid, rel.pos, "The token() function must be applied to all partition key components or none of them")
	}
	if !inOrder {
		return reject(CodeInvalid, rel.pos, "The token function arguments must be in the partition key order: %s", rel.text)
	}
	if rel.op != opEQ && !rel.op.isSlice() {
		return reject(CodeUnsupported, rel.pos, "%s is not supported on token(): %s", rel.op, rel.text)
	}
	r := &restriction{cols: cols, token: true, rels: []*relation{rel}, kind: rkSlice, start: rel.op.isStart(), end: !rel.op.isStart()}
	if rel.op == opEQ {
		r.kind, r.start, r.end = rkEQ, false, false
	}
	if p.token == nil {
		p.token = r
		return nil
	}
	old := p.token
	if old.kind == rkEQ || r.kind == rkEQ {
		return reject(CodeInvalid, rel.pos, "token() cannot be restricted by more than one relation if it includes an Equal")
	}
	if old.start && r.start {
		return reject(CodeInvalid, rel.pos, "More than one restriction was found for the start bound on %s", tokenName(cols))
	}
	if old.end && r.end {
		return reject(CodeInvalid, rel.pos, "More than one restriction was found for the end bound on %s", tokenName(cols))
	}
	old.start, old.end = old.start || r.start, old.end || r.end
	old.rels = append(old.rels, rel)
	return nil
}

func tokenName(cols []*cql.Column) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return "token(" + strings.Join(names, ", ") + ")"
}

// addTuple adds a multi-column relation (c1, c2) op (...): clustering columns only, in
// primary key order with none skipped.
func (pc *prepareContext) addTuple(p *prepared, rel *relation, cols []*cql.Column, af bool) *rejection {
	for _, c := range cols {
		if c.Kind != cql.Clustering {
			return reject(CodeInvalid, rel.pos, "Multi-column relations can only be applied to clustering columns but was applied to: %s", c.Name)
		}
	}
	for i := 1; i < len(cols); i++ {
		if cols[i].Position != cols[i-1].Position+1 {
			return reject(CodeInvalid, rel.pos, "Clustering columns must appear in the PRIMARY KEY order in multi-column relations: %s", rel.text)
		}
	}
	r := &restriction{cols: cols, multi: true, rels: []*relation{rel}, inN: 1}
	switch {
	case rel.op == opEQ:
		r.kind = rkEQ
	case rel.op == opIN:
		r.kind, r.inN = rkIN, rel.inN
	case rel.op.isSlice():
		r.kind, r.start, r.end = rkSlice, rel.op.isStart(), !rel.op.isStart()
	default:
		return reject(CodeUnsupported, rel.pos, "%s is not supported in a multi-column relation: %s", rel.op, rel.text)
	}
	return pc.addClustering(p, rel, r, af)
}

// addClustering merges a clustering restriction, then makes ClusteringColumnRestrictions'
// check: without ALLOW FILTERING or an index on the column, nothing may follow a range,
// and a range may not precede a restricted column.
func (pc *prepareContext) addClustering(p *prepared, rel *relation, r *restriction, af bool) *rejection {
	wasEmpty := p.ck.empty()
	last := p.ck.last()
	if r.multi {
		for _, c := range r.cols {
			if old := p.ck.forColumn(c); old != nil {
				if old.multi && len(old.cols) == len(r.cols) && old.cols[0] == r.cols[0] && old.isSlice() && r.isSlice() {
					if old.start && r.start {
						return reject(CodeInvalid, rel.pos, "More than one restriction was found for the start bound on %s", c.Name)
					}
					if old.end && r.end {
						return reject(CodeInvalid, rel.pos, "More than one restriction was found for the end bound on %s", c.Name)
					}
					old.start, old.end = old.start || r.start, old.end || r.end
					old.rels = append(old.rels, rel)
					return nil
				}
				return reject(CodeInvalid, rel.pos, "column %s is already restricted; a multi-column relation cannot restrict it again: %s", c.Name, rel.text)
			}
		}
		p.ck.add(r)
	} else if rej := mergeSingle(&p.ck, r.col(), rel, r); rej != nil {
		return rej
	}
	if wasEmpty || af || pc.supported(r) {
		return nil
	}
	if last.isSlice() && r.firstPos() > last.firstPos() {
		return reject(CodeClustering, rel.pos, "Clustering column %q cannot be restricted (preceding column %q is restricted by a non-EQ relation)",
			r.col().Name, last.col().Name)
	}
	if r.firstPos() < last.firstPos() && r.isSlice() {
		next := pc.table.Clustering[r.lastPos()+1]
		return reject(CodeClustering, rel.pos, "PRIMARY KEY column %q cannot be restricted (preceding column %q is restricted by a non-EQ relation)",
			next.Name, r.col().Name)
	}
	return nil
}

// pkNeedsFiltering is PartitionKeySingleRestrictionSet.needFiltering: some but not all
// partition key columns restricted, or one restricted by a range or CONTAINS.
func (pc *prepareContext) pkNeedsFiltering(p *prepared) bool {
	if p.pk.empty() {
		return false
	}
	return p.pk.size() < len(pc.table.PartitionKey) || p.pk.hasSlice() || p.pk.hasContains()
}

// ckNeedsFiltering is ClusteringColumnRestrictions.needFiltering: the restrictions are not
// a prefix of the clustering key with at most a final range.
func ckNeedsFiltering(ck *restrictionSet) bool {
	position := 0
	for _, r := range ck.list {
		if r.isContains() || r.kind == rkLike || position != r.firstPos() {
			return true
		}
		if !r.isSlice() {
			position = r.lastPos() + 1
		}
	}
	return ck.hasContains()
}

// supported reports whether some index of the table answers r on its own.
func (pc *prepareContext) supported(r *restriction) bool {
	for _, ix := range pc.indexes {
		if ix.supports(r) {
			return true
		}
	}
	return false
}

// indexGroups groups the indexes the way Cassandra queries them: every SAI index of the
// table in one group (they intersect their answers), every other index alone.
func indexGroups(indexes []tableIndex) [][]tableIndex {
	var groups [][]tableIndex
	var sai []tableIndex
	for _, ix := range indexes {
		if ix.kind == saiIndex {
			sai = append(sai, ix)
			continue
		}
		groups = append(groups, []tableIndex{ix})
	}
	if len(sai) > 0 {
		groups = append([][]tableIndex{sai}, groups...)
	}
	return groups
}

// needFiltering is StatementRestrictions.needFiltering: true unless one index group
// answers every restriction of the row filter. It records the serving indexes in p.served.
func (pc *prepareContext) needFiltering(p *prepared) bool {
	p.served = nil
	var all []*restriction
	for _, s := range p.filterSets {
		all = append(all, s.list...)
	}
	if len(p.filterSets) > 0 {
		answered := false
		for _, g := range indexGroups(pc.indexes) {
			ok := true
			var used []tableIndex
			for _, r := range all {
				ix, found := groupSupports(g, r)
				if !found {
					ok = false
					break
				}
				used = appendIndex(used, ix)
			}
			if ok {
				p.served, answered = used, true
				break
			}
		}
		if !answered {
			for _, r := range all {
				for _, ix := range pc.indexes {
					if ix.supports(r) {
						p.served = appendIndex(p.served, ix)
					}
				}
			}
			return true
		}
	}
	return len(all) == 0 && !p.ck.empty()
}

func groupSupports(g []tableIndex, r *restriction) (tableIndex, bool) {
	for _, ix := range g {
		if ix.supports(r) {
			return ix, true
		}
	}
	return tableIndex{}, false
}

func appendIndex(list []tableIndex, ix tableIndex) []tableIndex {
	for _, x := range list {
		if x.name == ix.name {
			return list
		}
	}
	return append(list, ix)
}

// selectsOnlyStatic reports whether the selection reads static columns and no clustering
// or regular column (SelectStatement.selectOnlyStaticColumns).
func selectsOnlyStatic(t *cql.Table, q *selectQuery) bool {
	if q.star || len(t.ColumnsOf(cql.Static)) == 0 {
		return false
	}
	static := false
	for _, s := range q.sel {
		for _, name := range s.cols {
			c := t.Column(name)
			if c == nil {
				continue
			}
			switch c.Kind {
			case cql.Static:
				static = true
			case cql.Clustering, cql.Regular:
				return false
			}
		}
	}
	return static
}

// checkDistinct is validateDistinctSelection and the DISTINCT checks of prepare.
func (pc *prepareContext) checkDistinct(p *prepared, q *selectQuery) *rejection {
	t := pc.table
	if q.ppl != nil {
		return reject(CodeDistinct, q.ppl.pos, "PER PARTITION LIMIT is not allowed with SELECT DISTINCT queries")
	}
	nonStatic := false
	for _, s := range p.filterSets {
		for _, r := range s.list {
			for _, c := range r.cols {
				if c.Kind == cql.Regular {
					nonStatic = true
				}
			}
		}
	}
	if !p.ck.empty() || nonStatic {
		return reject(CodeDistinct, q.pos, "SELECT DISTINCT with WHERE clause only supports restriction by partition key and/or static columns.")
	}
	var selected []*cql.Column
	if q.star {
		selected = t.Columns
	}
	for _, s := range q.sel {
		for _, name := range s.cols {
			selected = append(selected, t.Column(name))
		}
	}
	for _, c := range selected {
		if c.Kind != cql.PartitionKey && c.Kind != cql.Static {
			return reject(CodeDistinct, q.pos, "SELECT DISTINCT queries must only request partition key columns and/or static columns (not %s)", c.Name)
		}
	}
	if !p.isKeyRange {
		return nil
	}
	for _, k := range t.PartitionKey {
		found := false
		for _, c := range selected {
			found = found || c == k
		}
		if !found {
			return reject(CodeDistinct, q.pos, "SELECT DISTINCT queries must request all the partition key columns (missing %s)", k.Name)
		}
	}
	return nil
}

// eqRestricted is StatementRestrictions.isColumnRestrictedByEq.
func (p *prepared) eqRestricted(c *cql.Column) bool {
	var r *restriction
	switch c.Kind {
	case cql.PartitionKey:
		r = p.pk.forColumn(c)
	case cql.Clustering:
		r = p.ck.forColumn(c)
	default:
		r = p.nonPK.forColumn(c)
	}
	return r != nil && r.isEQ()
}

// isAggregate reports whether the selection aggregates (count, min, max, sum, avg or a
// user-defined aggregate).
func isAggregate(q *selectQuery) bool {
	for _, s := range q.sel {
		if s.aggregate {
			return true
		}
	}
	return false
}

// checkGroupBy is getAggregationSpecFactory: GROUP BY must follow the primary key from its
// start, skipping only columns restricted by =. It reports whether the whole result is one
// aggregate (an aggregate selection without GROUP BY).
func (pc *prepareContext) checkGroupBy(p *prepared, q *selectQuery) (bool, *rejection) {
	t := pc.table
	if len(q.groupBy) == 0 {
		return isAggregate(q), nil
	}
	keys := append(append([]*cql.Column{}, t.PartitionKey...), t.Clustering...)
	next := 0
	clusteringPrefix := 0
	sawFunc := false
	for _, g := range q.groupBy {
		c := t.Column(g.col)
		if c == nil {
			return false, undefinedColumn(t, g.col, g.pos)
		}
		if g.fn != "" {
			if builtinAggregates[g.fn] || pc.aggregates[g.fn] {
				return false, reject(CodeGroupBy, g.pos, "Aggregate functions are not supported within the GROUP BY clause, got: %s", g.fn)
			}
			if c.Kind != cql.Clustering {
				return false, reject(CodeGroupBy, g.pos, "Group by functions are only supported on clustering columns, got %s", c.Name)
			}
		} else {
			if c.Kind != cql.PartitionKey && c.Kind != cql.Clustering {
				return false, reject(CodeGroupBy, g.pos, "Group by is currently only supported on the columns of the PRIMARY KEY, got %s", c.Name)
			}
			if sawFunc {
				return false, reject(CodeGroupBy, g.pos, "Functions are only supported on the last element of the GROUP BY clause")
			}
		}
		sawFunc = sawFunc || g.fn != ""
		for {
			if next >= len(keys) {
				return false, reject(CodeGroupBy, g.pos, "Group by currently only support groups of columns following their declared order in the PRIMARY KEY")
			}
			k := keys[next]
			next++
			if k.Kind == cql.Clustering {
				clusteringPrefix++
			}
			if k == c {
				break
			}
			if !p.eqRestricted(k) {
				return false, reject(CodeGroupBy, g.pos, "Group by currently only support groups of columns following their declared order in the PRIMARY KEY")
			}
		}
	}
	if next < len(keys) && keys[next].Kind == cql.PartitionKey {
		return false, reject(CodeGroupBy, q.groupBy[0].pos, "Group by is not supported on only a part of the partition key")
	}
	if clusteringPrefix > 0 && q.distinct {
		return false, reject(CodeGroupBy, q.groupBy[0].pos, "Grouping on clustering columns is not allowed for SELECT DISTINCT queries")
	}
	return false, nil
}

// maxANNLimit is the largest LIMIT 5.0 takes with ORDER BY ... ANN OF.
const maxANNLimit = 1000

// checkANN is the ordering of a vector search: one ORDER BY item, on a vector column an SAI
// index serves, with a LIMIT of at most 1000. The partition key need not be restricted:
// the index answers across partitions.
func (pc *prepareContext) checkANN(q *selectQuery, o ordering) *rejection {
	if len(q.orderBy) > 1 {
		return reject(CodeOrderBy, q.orderBy[0].pos, "ANN ordering does not support any other ordering")
	}
	c := pc.table.Column(o.col)
	if c == nil || c.Type.Name != "vector" {
		return reject(CodeOrderBy, o.pos, "ANN ordering is only supported on float vector indexes")
	}
	if o.annLen >= 0 && o.annLen != c.Type.Dim {
		return reject(CodeInvalid, o.pos, "Invalid vector literal for %s of type %s; expected %d elements, but given %d", c.Name, c.Type, c.Type.Dim, o.annLen)
	}
	indexed := false
	for _, ix := range pc.indexes {
		indexed = indexed || (ix.kind == saiIndex && ix.col == c)
	}
	if !indexed {
		return reject(CodeOrderBy, o.pos, "ORDER BY %s ANN OF needs a storage-attached index on %s (CREATE INDEX ... USING 'sai')", c.Name, c.Name)
	}
	switch {
	case q.limit == nil:
		return reject(CodeOrderBy, o.pos, "Use of ANN OF in an ORDER BY clause requires a LIMIT that is not greater than %d. LIMIT was NO LIMIT", maxANNLimit)
	case !q.limit.marker && q.limit.n > maxANNLimit:
		return reject(CodeOrderBy, q.limit.pos, "Use of ANN OF in an ORDER BY clause requires a LIMIT that is not greater than %d. LIMIT was %d", maxANNLimit, q.limit.n)
	}
	return nil
}

var builtinAggregates = map[string]bool{"count": true, "min": true, "max": true, "sum": true, "avg": true}

// checkOrderBy is verifyOrderingIsAllowed and isReversed.
func (pc *prepareContext) checkOrderBy(p *prepared, q *selectQuery) *rejection {
	t := pc.table
	for _, o := range q.orderBy {
		if o.ann {
			return pc.checkANN(q, o)
		}
	}
	if p.usesIndex {
		return reject(CodeOrderBy, q.orderBy[0].pos, "ORDER BY with 2ndary indexes is not supported, except for ANN queries.")
	}
	if p.isKeyRange {
		return reject(CodeOrderBy, q.orderBy[0].pos, "ORDER BY is only supported when the partition key is restricted by an EQ or an IN.")
	}
	reversed := make([]int, len(t.Clustering)) // 0 unset, 1 reversed, 2 not reversed
	i := 0
	for _, o := range q.orderBy {
		c := t.Column(o.col)
		if c.Kind != cql.Clustering {
			return reject(CodeOrderBy, o.pos, "Order by is currently only supported on the clustered columns of the PRIMARY KEY, got %s", c.Name)
		}
		for i != c.Position {
			if i > c.Position || !p.eqRestricted(t.Clustering[i]) {
				return reject(CodeOrderBy, o.pos, "Order by currently only supports the ordering of columns following their declared order in the PRIMARY KEY")
			}
			i++
		}
		i++
		if o.desc != (c.Order == cql.Desc) {
			reversed[c.Position] = 1
		} else {
			reversed[c.Position] = 2
		}
	}
	first := 0
	for _, r := range reversed {
		if r == 0 {
			continue
		}
		if first == 0 {
			first = r
		} else if r != first {
			return reject(CodeOrderBy, q.orderBy[0].pos, "Unsupported order by relation")
		}
	}
	return nil
}
