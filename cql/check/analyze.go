package check

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
)

// Check judges every query against the schema. A query that cannot be parsed is an error
// (a *cql.Error with its position); a query Cassandra would reject is a Result with an
// Invalid or NeedsFiltering verdict and a finding saying why.
func Check(schema *cql.Schema, queries []Query, opts Options) ([]Result, error) {
	out := make([]Result, 0, len(queries))
	for _, q := range queries {
		r, err := CheckQuery(schema, q, opts)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// CheckQuery judges one query. When q comes from ParseQueries it is already parsed;
// otherwise q.Text is parsed here, with positions relative to the text.
func CheckQuery(schema *cql.Schema, q Query, opts Options) (Result, error) {
	stmt := q.stmt
	if stmt == nil {
		file := q.Pos.File
		st, err := cql.Parse(file, []byte(q.Text))
		if err != nil {
			return Result{}, err
		}
		sel, ok := st.(*cql.Select)
		if !ok {
			return Result{}, cql.Errorf(st.Info().Pos, "expected SELECT, found %s", firstWord(q.Text))
		}
		stmt = sel
		if !q.Pos.IsValid() {
			q.Pos = sel.Pos
		}
	}
	res := Result{Query: q}
	t, rej := resolveTable(schema, stmt, opts)
	if rej != nil {
		res.Verdict, res.WithFilteringToggled = Invalid, Invalid
		res.Findings = []Finding{rejectionFinding(rej, Invalid, "", false, nil)}
		res.duplicateName()
		res.applyNoLint()
		return res, nil
	}
	res.Table = t.Name
	if t.Keyspace != "" {
		res.Table = t.QualifiedName()
	}
	pc := &prepareContext{table: t, indexes: tableIndexes(schema, t), aggregates: userAggregates(schema, t), unpaged: opts.Unpaged}
	sq := fromAST(stmt, pc.aggregates)
	asWritten := pc.prepare(sq, sq.allowFiltering)
	toggled := pc.prepare(sq, !sq.allowFiltering)
	res.Verdict = verdictOf(asWritten)
	res.WithFilteringToggled = verdictOf(toggled)
	res.NeedsFiltering = res.Verdict == NeedsFiltering
	res.Filters = sq.allowFiltering && res.Verdict == OK && res.WithFilteringToggled != OK

	// What Cassandra does (or would do with ALLOW FILTERING) to find the rows.
	run := asWritten
	if run.rej != nil && toggled.rej == nil {
		run = toggled
	}
	access := accessOf(t, sq)
	res.Access, res.Partitions = access.access, access.partitions

	// The index plan of the query that runs (or would, with ALLOW FILTERING): an index
	// that serves it turns a scan into a read of the index's hits.
	plan := pc.planIndexes(run)
	if plan != nil {
		res.Index = plan.list()
	}
	if asWritten.rej != nil {
		res.Findings = append(res.Findings, rejectionFinding(asWritten.rej, res.WithFilteringToggled, res.Access, len(t.Clustering) > 0, plan))
	}
	// How the rows are found matters for queries that run, or would with ALLOW FILTERING;
	// for one Cassandra rejects otherwise, the rejection is the finding.
	if res.Verdict != Invalid {
		res.Findings = append(res.Findings, accessFindings(t, sq, access, run, res, plan, opts)...)
	}
	if res.Filters && plan != nil {
		// Served by an index that answers part of the restrictions: Cassandra reads the
		// index's hits and drops those that fail the rest. Not a scan: what it costs is
		// how many rows the index returns, which only the data can tell.
		where := "on every node (no partition key)"
		if res.Access != Scan {
			where = "within the partition"
		}
		res.Findings = append(res.Findings, Finding{Code: CodeIndexFilters, Severity: Warn, Pos: sq.pos,
			Message: "runs only thanks to ALLOW FILTERING, but is not a scan: " + plan.served() + ", " + where + "; " +
				"the cost is the rows the index returns, so it depends on the index's selectivity " +
				"(cheap when few rows match the indexed value, a near-scan when many do)"})
	} else if res.Filters {
		sev := Warn
		where := "within the partitions it reads"
		size := ""
		switch {
		case res.Access == Scan:
			sev, size = scanSeverity(t, opts)
			where = "across the whole table"
			if sev == Warn {
				size = "" // QF002 beside it asks for the size
			}
		case len(t.Clustering) == 0:
			sev, where = Info, "of the one-row partitions it reads"
		}
		res.Findings = append(res.Findings, Finding{Code: CodeFilters, Severity: sev, Pos: sq.pos,
			Message: "runs only thanks to ALLOW FILTERING: Cassandra reads rows " + where + " and discards those that do not match" + size})
	}
	if sq.allowFiltering && res.Verdict == OK && res.WithFilteringToggled == OK {
		res.Findings = append(res.Findings, Finding{Code: CodeNeedlessFilter, Severity: Info, Pos: sq.pos,
			Message: "ALLOW FILTERING is not needed: Cassandra accepts this query without it and does not filter"})
	}
	if wantsSuggestion(t, res, asWritten, sq) {
		if alt, query := existingTable(schema, t, sq, stmt); alt != nil {
			res.ExistingTable, res.SuggestedQuery = alt.QualifiedName(), query
		} else if table, query, same := suggest(schema, t, sq, stmt, q, opts); same {
			res.ExistingTable, res.SuggestedQuery = res.Table, query
		} else {
			res.SuggestedTable, res.SuggestedQuery = table, query
		}
	}
	res.duplicateName()
	sortFindings(res.Findings)
	res.applyNoLint()
	return res, nil
}

// duplicateName reports a query named as an earlier one of its file.
func (r *Result) duplicateName() {
	q := r.Query
	if !q.dupOf.IsValid() {
		return
	}
	at := q.HeaderPos
	if !at.IsValid() {
		at = q.Pos
	}
	r.Findings = append(r.Findings, Finding{Code: CodeDuplicateName, Severity: Fail, Pos: at,
		Message: fmt.Sprintf("query %q is already defined at %s: rename one of the two (reports and CI tell queries apart by name)", q.Name, q.dupOf)})
}

func verdictOf(p *prepared) Verdict {
	switch {
	case p.rej == nil:
		return OK
	case p.rej.filtering:
		return NeedsFiltering
	}
	return Invalid
}

// resolveTable finds the table (or materialized view) a SELECT reads: in the keyspace it
// names; else in Options.Keyspace; else in the schema's current keyspace (its last USE)
// when the table is there; else in the only keyspace that has it.
func resolveTable(schema *cql.Schema, s *cql.Select, opts Options) (*cql.Table, *rejection) {
	name, ks := s.Table.Name.Name, s.Table.Keyspace.Name
	if ks == "" {
		ks = opts.Keyspace
	}
	if ks == "" && lookup(schema, schema.Current, name) != nil {
		ks = schema.Current
	}
	if ks != "" {
		if t := lookup(schema, ks, name); t != nil {
			return t, nil
		}
		if schema.Keyspaces[ks] == nil && !cql.IsSystemKeyspace(ks) {
			return nil, reject(CodeUnknownName, s.Table.Pos(), "keyspace %s does not exist", cql.QuoteName(ks))
		}
		return nil, reject(CodeUnknownName, s.Table.Pos(), "table %s.%s does not exist", cql.QuoteName(ks), s.Table.Name)
	}
	var found []*cql.Table
	var names []string
	for _, k := range schema.Keyspaces {
		if t := lookup(schema, k.Name, name); t != nil {
			found = append(found, t)
			names = append(names, k.Name)
		}
	}
	switch len(found) {
	case 0:
		return nil, reject(CodeUnknownName, s.Table.Pos(), "table %s does not exist", s.Table.Name)
	case 1:
		return found[0], nil
	}
	sort.Strings(names)
	return nil, reject(CodeUnknownName, s.Table.Pos(), "table %s is in several keyspaces (%s): qualify it as keyspace.%s or pass a keyspace",
		s.Table.Name, strings.Join(names, ", "), s.Table.Name)
}

// lookup returns the table or materialized view ks.name, or nil.
func lookup(schema *cql.Schema, ks, name string) *cql.Table {
	k := schema.Keyspaces[ks]
	if k == nil {
		// The system keyspaces every node ships (system.local, system_schema.tables):
		// queries read them too, and no schema file creates them.
		return cql.SystemTable(ks, name)
	}
	if t := k.Tables[name]; t != nil {
		return t
	}
	if v := k.Views[name]; v != nil && v.Table != nil {
		return v.Table
	}
	return nil
}

func userAggregates(schema *cql.Schema, t *cql.Table) map[string]bool {
	out := map[string]bool{}
	if ks := schema.Keyspaces[t.Keyspace]; ks != nil {
		for name := range ks.Aggregates {
			out[strings.ToLower(name)] = true
		}
	}
	return out
}

// accessInfo is how the rows of a query are found, read off its partition key relations.
type accessInfo struct {
	access     Access
	partitions int      // 1 or N for single-partition and fan-out; 0 when unknown or a scan
	inFactors  []string // "day: 3", "sensor_id: ?" for the fan-out message
	missing    []string // partition key columns not restricted by = or IN
	pkRange    string   // a partition key column restricted by something else
	token      bool     // a token() restriction
}

func accessOf(t *cql.Table, q *selectQuery) accessInfo {
	var a accessInfo
	known, n := true, 1
	for _, k := range t.PartitionKey {
		var eq *relation
		for i := range q.where {
			r := &q.where[i]
			if r.token || r.tuple || r.mapKey || len(r.cols) != 1 || r.cols[0] != k.Name {
				continue
			}
			if r.op == opEQ || r.op == opIN {
				eq = r
			} else if a.pkRange == "" {
				a.pkRange = r.text
			}
		}
		if eq == nil {
			a.missing = append(a.missing, k.Name)
			continue
		}
		if eq.op == opIN {
			switch {
			case eq.inN == unknownN:
				known = false
				a.inFactors = append(a.inFactors, k.Name+": IN ?")
			case eq.inN != 1:
				n *= eq.inN
				a.inFactors = append(a.inFactors, fmt.Sprintf("%s: %d values", k.Name, eq.inN))
			}
		}
	}
	for _, r := range q.where {
		a.token = a.token || r.token
	}
	switch {
	case len(a.missing) > 0 || a.pkRange != "":
		a.access = Scan
	case !known:
		a.access = FanOut
	case n == 1:
		a.access, a.partitions = SinglePartition, 1
	default:
		a.access, a.partitions = FanOut, n
	}
	if a.access == FanOut && known {
		a.partitions = n
	}
	return a
}

// accessFindings report scans and fan-outs.
func accessFindings(t *cql.Table, q *selectQuery, a accessInfo, run *prepared, res Result, plan *indexPlan, opts Options) []Finding {
	var out []Finding
	switch a.access {
	case FanOut:
		n := "an unknown number of"
		if a.partitions > 0 {
			n = fmt.Sprint(a.partitions)
		}
		out = append(out, Finding{Code: CodeFanOut, Severity: Warn, Pos: q.pos,
			Message: fmt.Sprintf("fans out over %s partitions (%s): the coordinator waits for the slowest replica of each; "+
				"prefer one query per partition run concurrently", n, strings.Join(a.inFactors, " × "))})
	case Scan:
		// An index serves it (answering every restriction, or with ALLOW FILTERING some
		// of them): not a scan of the table, but no partition key either.
		if plan != nil {
			without := "the partition key"
			if len(a.missing) > 0 && len(a.missing) < len(t.PartitionKey) {
				without = fmt.Sprintf("the whole partition key (missing %s)", strings.Join(a.missing, ", "))
			}
			out = append(out, Finding{Code: CodeIndexScan, Severity: Warn, Pos: q.pos,
				Message: fmt.Sprintf("served by %s without %s: every node is asked (one request per token range); "+
					"fine for rare queries, costly on a hot path", indexNoun(plan), without)})
			return out
		}
		var why string
		switch {
		case a.token && len(a.missing) > 0:
			why = "it restricts token(), a range of the ring: every partition in that range is read"
		case len(a.missing) == len(t.PartitionKey) && a.pkRange == "":
			why = "it does not restrict the partition key: every partition of the table is read"
		case a.pkRange != "":
			why = fmt.Sprintf("it restricts the partition key by a range (%s), which Cassandra cannot look up: every partition is read", a.pkRange)
		default:
			why = fmt.Sprintf("it restricts only part of the partition key (missing %s): every partition is read", strings.Join(a.missing, ", "))
		}
		sev, size := scanSeverity(t, opts)
		out = append(out, Finding{Code: CodeScan, Severity: sev, Pos: q.pos, Message: "only a scan serves this query: " + why + size})
	}
	return out
}

// scanSeverity judges a scan of t by the table's size: reading all of a configuration
// table of forty rows is fine, reading all of a table of orders is not, and the query alone
// cannot tell the two apart. Without a size it is a warning that asks for one, rather than
// a failure that is false for every small table. size is the words that say why.
func scanSeverity(t *cql.Table, opts Options) (sev Severity, size string) {
	for _, name := range opts.Small {
		if name == t.Name || name == t.QualifiedName() || (t.Keyspace != "" && name == t.Keyspace+"."+t.Name) {
			return Info, "; the table is marked small (--small " + name + "), so reading all of it is fine"
		}
	}
	if opts.TableRows != nil {
		if rows, said, known := opts.TableRows(t); known {
			if rows > SmallTableRows {
				return Fail, "; " + said + ", more than a scan should read (" + fmt.Sprint(SmallTableRows) + " rows, one page)"
			}
			return Info, "; " + said + ", within one page (" + fmt.Sprint(SmallTableRows) + " rows), so reading all of it is fine"
		}
	}
	name := t.QualifiedName()
	return Warn, "; fine for a small table (configuration, lookups), a failure for one that grows: " +
		"how big is it? Give its volume in a workload (--workload) or mark it small (--small " + name + ")"
}

// rejectionFinding turns Cassandra's refusal into a finding, with what toggling ALLOW
// FILTERING would change.
func rejectionFinding(rej *rejection, toggled Verdict, access Access, wide bool, plan *indexPlan) Finding {
	msg := rej.msg
	switch {
	case rej.filtering && plan != nil:
		msg = "needs ALLOW FILTERING: Cassandra rejects it as written (\"Cannot execute this query as it might involve data filtering\"); " +
			"with ALLOW FILTERING, " + plan.served() + ": it reads the rows the index returns, not every partition"
	case rej.filtering:
		what := "every partition of the table"
		switch {
		case access == SinglePartition && wide:
			what = "the whole partition"
		case access == SinglePartition:
			what = "the partition's row"
		case access == FanOut:
			what = "each of the partitions"
		}
		msg = "needs ALLOW FILTERING: Cassandra rejects it as written (\"Cannot execute this query as it might involve data filtering\"); " +
			"with ALLOW FILTERING it would read " + what + " and discard the rows that do not match"
	case toggled == OK:
		msg = "Cassandra rejects it: " + msg + ". ALLOW FILTERING would make Cassandra accept it, by filtering"
	default:
		msg = "Cassandra rejects it: " + msg
	}
	return Finding{Code: rej.code, Severity: Fail, Message: msg, Pos: rej.pos}
}

func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].Severity != fs[j].Severity {
			return fs[i].Severity > fs[j].Severity
		}
		return fs[i].Code < fs[j].Code
	})
}

// applyNoLint drops the findings whose codes a `-- cqlsize:nolint CODE` line above the
// query names.
func (r *Result) applyNoLint() {
	if len(r.Query.NoLint) == 0 {
		return
	}
	kept := r.Findings[:0]
	for _, f := range r.Findings {
		if !r.Query.nolinted(f.Code) {
			kept = append(kept, f)
		}
	}
	r.Findings = kept
}
