package design

import (
	"fmt"
	"math"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/workload"
)

// Migration is the CQL migration that creates every table of the design (and the keyspace,
// when the entities create one): each table under comment lines giving its access patterns
// and the reasons for its key.
func (d *Design) Migration(schema *cql.Schema) string {
	var b strings.Builder
	b.WriteString("-- Written by cqlsize design: one table per access pattern (merged where one serves several),\n")
	b.WriteString("-- each sized by the volumes of the workload file. Every line below says why.\n")
	done := map[string]bool{}
	for _, t := range d.Tables {
		ks := t.Table.Keyspace
		k := schema.Keyspaces[ks]
		if ks == "" || done[ks] || k == nil {
			continue
		}
		// The replication given (--replication) over the entities' own; a keyspace with
		// neither (entities written for migrate --keyspace) is not created here.
		repl := cql.ReplicationLiteral(k.Replication)
		if d.Replication != nil {
			repl = d.Replication.String()
		} else if r, err := cql.ReplicationOf(k.Replication); err == nil && r.Known() {
			repl = r.String()
		}
		if len(k.Replication) == 0 && d.Replication == nil {
			continue
		}
		done[ks] = true
		durable := ""
		if !k.DurableWrites {
			durable = " AND durable_writes = false"
		}
		fmt.Fprintf(&b, "\nCREATE KEYSPACE IF NOT EXISTS %s WITH replication = %s%s;\n", cql.QuoteName(ks), repl, durable)
	}
	for _, u := range usedTypes(d.Tables, schema) {
		fmt.Fprintf(&b, "\n-- %s is a type the tables below use (from the entities).\n%s;\n", u.Name, createType(u))
	}
	for _, t := range d.Tables {
		b.WriteString("\n")
		verb := " " // "serves ..."
		if len(t.Queries) == 0 {
			verb = " is " // "is the home of ..."
		}
		fmt.Fprintf(&b, "-- %s%s%s.\n", t.Table.Name, verb, t.serves())
		for _, r := range t.Reasons {
			b.WriteString(comment(r))
		}
		for _, n := range t.Notes {
			b.WriteString(comment("cost: " + n))
		}
		if t.NoLint != "" {
			b.WriteString("-- cqlsize:nolint BK101 " + t.NoLint + "\n")
		}
		b.WriteString(t.Table.CreateStatement(true) + ";\n")
		if tt := t.Tiers; tt != nil {
			fmt.Fprintf(&b, "\n-- %s holds each key's tier of %s, newest first: from when (since) its rows are cut by\n", tt.Table, t.Table.Name)
			fmt.Fprintf(&b, "-- which bucket width and over how many shards. A key with no row is on the default tier (%s).\n", tt.Default)
			b.WriteString("-- cqlsize:nolint BK101 a row a tier change: a key is promoted a few times in its life, so its partition holds a handful of rows\n")
			b.WriteString(tt.CreateTable + ";\n")
		}
	}
	return b.String()
}

// usedTypes lists the user-defined types the tables' columns use, each after the types its
// own fields use, so the migration creates them in an order the node accepts: a table of a
// frozen<addr> column in a fresh keyspace fails unless addr is created first.
func usedTypes(tables []*Table, schema *cql.Schema) []*cql.UserType {
	var out []*cql.UserType
	seen := map[string]bool{}
	var visit func(ks string, t cql.Type)
	visit = func(ks string, t cql.Type) {
		for _, p := range t.Params {
			visit(ks, p)
		}
		if t.Kind != cql.UDT {
			return
		}
		if t.Keyspace != "" {
			ks = t.Keyspace
		}
		k := schema.Keyspaces[ks]
		if k == nil || k.Types[t.Name] == nil || seen[ks+"."+t.Name] {
			return
		}
		seen[ks+"."+t.Name] = true
		u := k.Types[t.Name]
		for _, f := range u.Fields {
			visit(ks, f.Type)
		}
		out = append(out, u)
	}
	for _, t := range tables {
		for _, c := range t.Table.Columns {
			visit(t.Table.Keyspace, c.Type)
		}
	}
	return out
}

// createType renders u as CREATE TYPE IF NOT EXISTS keyspace.name.
func createType(u *cql.UserType) string {
	fields := make([]string, len(u.Fields))
	for i, f := range u.Fields {
		fields[i] = "    " + cql.QuoteName(f.Name) + " " + f.Type.String()
	}
	name := cql.QuoteName(u.Name)
	if u.Keyspace != "" {
		name = cql.QuoteName(u.Keyspace) + "." + name
	}
	return "CREATE TYPE IF NOT EXISTS " + name + " (\n" + strings.Join(fields, ",\n") + "\n)"
}

// comment wraps text as -- lines of at most about 100 characters.
func comment(text string) string {
	var b strings.Builder
	line := "--"
	for _, w := range strings.Fields(text) {
		if len(line)+1+len(w) > 100 && line != "--" {
			b.WriteString(line + "\n")
			line = "--  "
		}
		line += " " + w
	}
	return b.String() + line + "\n"
}

// QueriesFile is every query rewritten for its table, under the same name, rate and p99,
// in the queries-file format `check` reads.
func (d *Design) QueriesFile() string {
	var b strings.Builder
	for i, q := range d.Queries {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString("-- query: " + q.Name)
		if q.Rate > 0 {
			b.WriteString("  rate=" + trimFloat(q.Rate) + "/s")
		}
		if q.P99 != "" {
			b.WriteString("  p99=" + q.P99)
		}
		b.WriteString("\n")
		if q.Reads != "" {
			b.WriteString(comment("reads " + q.Reads))
		}
		b.WriteString(q.Text + ";\n")
	}
	return b.String()
}

func trimFloat(v float64) string {
	s := fmt.Sprintf("%.3f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}

// WorkloadFile is the per-table workload `estimate` reads, derived from the volumes: every
// figure the design sized each table with, written by the workload package's writer with
// the figures rounded as the reasons print them (three decimals; a rate's count six).
func (d *Design) WorkloadFile() string {
	w := &workload.Workload{}
	for _, t := range d.Tables {
		if t.Workload == nil {
			continue
		}
		w.Tables = append(w.Tables, roundedWorkload(t.Workload))
	}
	return workload.Marshal(w, &workload.Notes{Head: []string{"Written by cqlsize design from the entity volumes: the workload of each query table."}})
}

// roundedWorkload is the part of a table's workload the file declares, rounded.
func roundedWorkload(w *workload.TableWorkload) *workload.TableWorkload {
	r3 := func(v float64) float64 { return math.Round(v*1e3) / 1e3 }
	rate := func(r workload.Rate) workload.Rate { r.Count = math.Round(r.Count*1e6) / 1e6; return r }
	out := &workload.TableWorkload{
		Name: w.Name, Partitions: r3(w.Partitions), WriteRate: rate(w.WriteRate), Bucket: w.Bucket, NoBucket: w.NoBucket,
		Shards: w.Shards, TTL: w.TTL, Horizon: w.Horizon, NullsAs: workload.NullUnset,
		Skew: workload.Skew{Kind: w.Skew.Kind, S: r3(w.Skew.S), MaxRate: rate(w.Skew.MaxRate)},
	}
	if w.TTL != nil {
		out.Horizon = 0
	}
	for k, v := range w.Avg {
		if out.Avg == nil {
			out.Avg = map[string]float64{}
		}
		out.Avg[k] = r3(v)
	}
	for k, it := range w.Items {
		if out.Items == nil {
			out.Items = map[string]workload.Items{}
		}
		out.Items[k] = workload.Items{Count: r3(it.Count), Size: r3(it.Size), KeySize: r3(it.KeySize)}
	}
	return out
}

// WritePlanFile is the write plan: for each entity, the tables one write fans out to and
// the rule (cql/derive, TARGET=EXPR) that fills each of their key columns; the other
// columns are copied by name. cql/denorm loads it (LoadWritePlan).
func (d *Design) WritePlanFile() string {
	var b strings.Builder
	b.WriteString("# Written by cqlsize design: each entity row is written to every table under it, each key\n")
	b.WriteString("# column filled by its rule (cql/derive: COL, year/month/week/day/hour(COL), shard(COL, N),\n")
	b.WriteString("# each(COL)); the other columns are copied from the entity's column of the same name.\n")
	b.WriteString("# source: true marks the entity's home, which holds every row once: Load reads it back.\n")
	b.WriteString("version: 1\nentities:\n")
	var order []string
	byEntity := map[string][]*Table{}
	for _, t := range d.Tables {
		e := t.Entity.QualifiedName()
		if t.Entity.Keyspace == "" {
			e = t.Entity.Name
		}
		if byEntity[e] == nil {
			order = append(order, e)
		}
		byEntity[e] = append(byEntity[e], t)
	}
	for _, e := range order {
		fmt.Fprintf(&b, "  %s:\n", e)
		for _, t := range byEntity[e] {
			name := t.Table.QualifiedName()
			if t.Table.Keyspace == "" {
				name = t.Table.Name
			}
			fmt.Fprintf(&b, "    - table: %s\n", name)
			if t.Home {
				b.WriteString("      source: true\n")
			}
			b.WriteString("      derive:\n")
			keys := len(t.Table.PartitionKey) + len(t.Table.Clustering)
			for _, dv := range t.Derive[:min(keys, len(t.Derive))] {
				fmt.Fprintf(&b, "        - %s=%s\n", cql.QuoteName(dv.Column), dv.Expr)
			}
			if tt := t.Tiers; tt != nil {
				// cql/denorm's tiers: each key's rows cut by its tier (a row of the tier
				// table), the default tier the rules above; promote_over the estimate's
				// threshold.
				fmt.Fprintf(&b, "      tiers: {table: %s, default: {bucket: %s}, hot: {bucket: %s, shards: %d}, promote_over: %s}\n",
					tt.Table, tt.Default.Bucket, tt.Hot.Bucket, max(1, tt.Hot.Shards), perKey(tt.Threshold))
			}
		}
	}
	return b.String()
}
