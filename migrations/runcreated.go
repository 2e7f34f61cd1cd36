package migrations

import (
	"github.com/cqlsize/cqlsize/cql"
)

// CreatedByUnfinishedRun names the tables, views and columns that the run a rerun finishes
// created: the destructive lints treat them as the pending files' own
// (lint.Input.RunCreated), so a rerun is judged as the run it finishes was judged.
//
// The run that stopped partway is known by its run id: the bookkeeping holds a file that
// did not finish (running, failed or in doubt), written by that run. Its work is every
// file recorded with the same run id (applied or not) up to the statements it reached:
// statements 1..Applied, and the ones it was sending when it stopped (they may have run).
// What that work created is what the schema the history's other applied files produce
// lacks and the same files plus that work hold: a table (or view) new by name, or a
// column new in a table that was there before. The deploy that ran the stopped run never
// finished its migrations, so the release that uses these objects was not serving yet;
// the files applied by finished runs are a released history whose tables may hold
// production data by now, and drops of their objects still report.
//
// Nil when no file is unfinished, when a record has no run id (written by a release that
// did not record one), or when the other applied files do not load on their own (a
// history that depends on objects made outside it): then nothing is exempted, the safe
// side. A resumed file keeps the id of the run that resumed it, so after two interruptions
// in a row the files the first run applied count as released.
func CreatedByUnfinishedRun(statuses []Status, keyspace string) map[string]bool {
	runs := map[string]bool{}
	for _, st := range statuses {
		r := st.Record
		if r == nil || r.Complete() || st.Migration == nil {
			continue
		}
		if r.RunID == "" {
			return nil
		}
		runs[r.RunID] = true
	}
	if len(runs) == 0 {
		return nil
	}
	var released, work []*Migration
	for _, st := range statuses {
		r, mg := st.Record, st.Migration
		if r == nil || mg == nil {
			continue
		}
		if !runs[r.RunID] {
			if r.Complete() {
				released = append(released, mg)
			}
			continue
		}
		n := len(mg.Parsed)
		if !r.Complete() {
			n = max(r.Applied, r.Running, r.RunningTo)
			n = min(n, len(mg.Parsed))
		}
		part := *mg
		part.Parsed = mg.Parsed[:n]
		work = append(work, &part)
	}
	before, err := SchemaOf(released, keyspace)
	if err != nil {
		return nil
	}
	after := modelOf(append(append([]*Migration(nil), released...), work...), keyspace)
	created := map[string]bool{}
	for name, ks := range after.Keyspaces {
		var old *cql.Keyspace
		if before != nil {
			old = before.Keyspaces[name]
		}
		for tn, t := range ks.Tables {
			var ot *cql.Table
			if old != nil {
				ot = old.Tables[tn]
			}
			if ot == nil {
				created[name+"."+tn] = true
				continue
			}
			for _, c := range t.Columns {
				if ot.Column(c.Name) == nil {
					created[name+"."+tn+"."+c.Name] = true
				}
			}
		}
		for vn := range ks.Views {
			if old == nil || old.Views[vn] == nil {
				created[name+"."+vn] = true
			}
		}
	}
	if len(created) == 0 {
		return nil
	}
	return created
}

// modelOf is SchemaOf that keeps going past a statement the model refuses: the stopped
// run's last statement may be the one the node refused, and the work before it still
// created what it created.
func modelOf(migs []*Migration, keyspace string) *cql.Schema {
	sch := cql.NewSchemaIn(keyspace)
	if keyspace != "" && CreatesKeyspace(migs, keyspace) {
		sch = cql.NewSchema()
	}
	for _, m := range migs {
		sch.Current = keyspace
		for _, st := range m.Parsed {
			_ = sch.Apply(st)
		}
	}
	return sch
}
