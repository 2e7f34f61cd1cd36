package evolve

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/derive"
	"github.com/cqlsize/cqlsize/sizing"
	"github.com/cqlsize/cqlsize/workload"
)

// NewTable reads the new table's CREATE TABLE from file into a copy of schema, unqualified
// names in keyspace. The file holds one CREATE TABLE (and the CREATE TYPEs it needs) of a
// table the schema does not have yet; anything else is an error naming file:line:col.
func NewTable(schema *cql.Schema, keyspace, file string, src []byte) (*cql.Schema, *cql.Table, error) {
	stmts, err := cql.ParseFile(file, src)
	if err != nil {
		return nil, nil, err
	}
	var create *cql.CreateTable
	for _, st := range stmts {
		switch s := st.(type) {
		case *cql.CreateType:
		case *cql.CreateTable:
			if create != nil {
				return nil, nil, cql.Errorf(s.Info().Pos, "a second CREATE TABLE: the plan is for one new table (%s is the first)", create.Name)
			}
			create = s
		default:
			return nil, nil, cql.Errorf(st.Info().Pos, "the new table's file holds its CREATE TABLE (and CREATE TYPEs) only")
		}
	}
	if create == nil {
		return nil, nil, cql.Errorf(cql.Pos{File: file, Line: 1, Col: 1}, "no CREATE TABLE: the file holds the new table's CREATE TABLE")
	}
	ks := keyspace
	if !create.Name.Keyspace.IsZero() {
		ks = create.Name.Keyspace.Name
	}
	if old := schema.Table(ks, create.Name.Name.Name); old != nil {
		return nil, nil, cql.Errorf(create.Info().Pos, "%s already exists (%s): the plan is for a new table", old.QualifiedName(), old.Pos)
	}
	next := schema.Clone()
	next.Current = keyspace
	if err := next.ApplyAll(stmts); err != nil {
		return nil, nil, err
	}
	return next, next.Table(ks, create.Name.Name.Name), nil
}

// Input is what a plan is made from.
type Input struct {
	Schema   *cql.Schema // the schema with the new table (NewTable's)
	From, To *cql.Table
	ToFile   string   // the new table's file, as the plan names it
	ToSource string   // its text: what the migration creating the table holds
	Derive   []string // rules the user gave, COL=EXPR
	// KeepFrom says From stays: the new table adds an access pattern and replaces nothing,
	// so nothing is dropped and From's readers never move.
	KeepFrom bool

	// Workload sizes the new table (its entry by name) and, when Rows is zero, counts the
	// old one's rows (its entry); nil: neither.
	Workload     *workload.Workload
	WorkloadFile string
	Target       sizing.Target
	Now          time.Time

	Rows     float64 // rows of From; 0: from the workload, else unknown
	RowsFrom string  // where Rows comes from, for the plan
	Rate     float64 // rows the backfill writes a second
	RateFrom string

	Hosts    string // the cluster, for the commands; empty: they take $CASSANDRA_HOSTS
	Keyspace string // the keyspace the commands name (-k)
	// CreateFile and DropFile are the migration files to add: the new table's, and the
	// later one dropping From. Empty: no migrations folder is known; the plan says what to add.
	CreateFile, DropFile string
}

// Plan is the ordered way from the old table to the new one.
type Plan struct {
	From     string    `json:"from"`
	To       string    `json:"to"`
	ToPos    string    `json:"to_pos"`
	KeepFrom bool      `json:"keep_from"`
	Derive   []Derived `json:"derive"`
	Unset    []string  `json:"unset,omitempty"` // regular columns of To that nothing fills
	Sizes    *Sizes    `json:"sizes,omitempty"`
	Backfill Backfill  `json:"backfill"`
	Steps    []Step    `json:"steps"`
	Notes    []string  `json:"notes,omitempty"`
}

// Sizes is the new table's partitions under its workload, by estimate's byte model.
type Sizes struct {
	Workload   string           `json:"workload"`
	Partitions float64          `json:"partitions"`
	Typical    Partition        `json:"typical"`
	P99        Partition        `json:"p99"`
	Largest    Partition        `json:"largest"`
	Verdict    string           `json:"verdict"`
	Findings   []SizeFinding    `json:"findings,omitempty"`
	Estimate   *sizing.Estimate `json:"-"`
}

// Partition is one partition's size.
type Partition struct {
	Rows   float64 `json:"rows"`
	Values float64 `json:"values"`
	Bytes  float64 `json:"bytes"`
}

// SizeFinding is one of estimate's findings about the new table.
type SizeFinding struct {
	Code     string `json:"code"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

// Backfill is the copy step's command and how long it should take.
type Backfill struct {
	Command       string  `json:"command"`
	VerifyCommand string  `json:"verify_command"`
	SourceRows    float64 `json:"source_rows,omitempty"`
	RowsFrom      string  `json:"rows_from,omitempty"`
	// Fanout is the new table's rows per old row (the mean element count of each() columns).
	Fanout        float64 `json:"fanout"`
	FanoutFrom    string  `json:"fanout_from,omitempty"`
	TargetRows    float64 `json:"target_rows,omitempty"`
	RowsPerSecond float64 `json:"rows_per_second"`
	RateFrom      string  `json:"rate_from"`
	Seconds       float64 `json:"seconds,omitempty"` // 0 when the rows are unknown
}

// Step is one step of the plan.
type Step struct {
	N       int    `json:"n"`
	Title   string `json:"title"`
	Do      string `json:"do"`
	File    string `json:"file,omitempty"`    // a migration file to add
	CQL     string `json:"cql,omitempty"`     // what it holds
	Command string `json:"command,omitempty"` // a command to run
}

// Build makes the plan: the derive rules (given, then inferred; a key column none fits is
// a *NeedError), the new table's sizes, the backfill's command and duration, and the steps.
func Build(in Input) (*Plan, error) {
	if in.From == nil || in.To == nil {
		return nil, fmt.Errorf("plan: no old or no new table")
	}
	if in.Rate <= 0 || math.IsInf(in.Rate, 0) || math.IsNaN(in.Rate) {
		return nil, fmt.Errorf("plan: copy rate %v: want a positive number of rows a second", in.Rate)
	}
	derived, prog, err := Infer(in.From, in.To, in.Derive)
	if err != nil {
		return nil, err
	}
	p := &Plan{From: in.From.QualifiedName(), To: in.To.QualifiedName(), ToPos: in.To.Pos.String(),
		KeepFrom: in.KeepFrom, Derive: derived, Unset: prog.Unset()}
	if p.Sizes, err = sizeNew(in); err != nil {
		return nil, err
	}
	if len(p.Unset) > 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("%s has no column for %s of %s: the backfill leaves them unset; the service's dual writes fill them",
			in.From.Name, strings.Join(p.Unset, ", "), in.To.Name))
	}
	if p.Backfill, err = backfill(in, derived, prog); err != nil {
		return nil, err
	}
	p.Steps = steps(in, p)
	return p, nil
}

// sizeNew estimates the new table under its workload entry, when there is one.
func sizeNew(in Input) (*Sizes, error) {
	if in.Workload == nil {
		return nil, nil
	}
	tw := in.Workload.Table(in.To.Name)
	if tw == nil {
		return nil, nil
	}
	est, err := sizing.EstimateTable(in.To, tw, sizing.Options{Target: in.Target, Schema: in.Schema, Now: in.Now})
	if err != nil {
		return nil, fmt.Errorf("size %s: %w", in.To.QualifiedName(), err)
	}
	part := func(p sizing.Partition) Partition {
		return Partition{Rows: math.Round(p.Rows), Values: math.Round(p.StoredValues), Bytes: math.Round(p.Bytes)}
	}
	s := &Sizes{Workload: in.WorkloadFile, Partitions: est.Partitions, Typical: part(est.Typical), P99: part(est.P99),
		Largest: part(est.Largest), Verdict: est.Verdict.String(), Estimate: est}
	for _, f := range est.Findings {
		s.Findings = append(s.Findings, SizeFinding{Code: f.Code, Severity: f.Severity.String(), Message: f.Message})
	}
	return s, nil
}

// backfill builds the copy's command and its duration.
func backfill(in Input, derived []Derived, prog *derive.Program) (Backfill, error) {
	var b strings.Builder
	b.WriteString("cqlsize backfill")
	if in.Hosts != "" {
		b.WriteString(" --hosts " + shellQuote(in.Hosts))
	}
	ks := in.Keyspace
	if ks == "" {
		ks = in.From.Keyspace
	}
	fmt.Fprintf(&b, " -k %s --from %s --to %s", shellQuote(ks), shellQuote(in.From.Name), shellQuote(in.To.Name))
	for _, d := range derived {
		b.WriteString(" --derive " + shellQuote(d.Rule()))
	}
	bf := Backfill{Command: b.String(), RowsPerSecond: in.Rate, RateFrom: in.RateFrom, Fanout: 1}
	bf.VerifyCommand = bf.Command + " --verify"
	bf.SourceRows, bf.RowsFrom = in.Rows, in.RowsFrom
	var srcWork *workload.TableWorkload
	if in.Workload != nil {
		srcWork = in.Workload.Table(in.From.Name)
	}
	if bf.SourceRows == 0 && srcWork != nil {
		est, err := sizing.EstimateTable(in.From, srcWork, sizing.Options{Target: in.Target, Schema: in.Schema, Now: in.Now})
		if err != nil {
			return bf, fmt.Errorf("count the rows of %s: %w", in.From.QualifiedName(), err)
		}
		bf.SourceRows = math.Round(est.Partitions * est.Mean.Rows)
		bf.RowsFrom = fmt.Sprintf("%s partitions of %s row(s) (%s, entry %s)", sizing.FormatCount(est.Partitions),
			sizing.FormatCount(est.Mean.Rows), in.WorkloadFile, in.From.Name)
	}
	for _, t := range prog.Columns() {
		if t.Expr.Func != derive.Each {
			continue
		}
		var items workload.Items
		if srcWork != nil {
			items = srcWork.Items[t.Expr.Column]
		}
		if items.Count <= 0 {
			bf.FanoutFrom = fmt.Sprintf("taken as 1 row per %s row: no workload gives the elements of %s", in.From.Name, t.Expr.Column)
			continue
		}
		bf.Fanout *= items.Count
		bf.FanoutFrom = fmt.Sprintf("%s elements of %s a row (%s, items.%s)", sizing.FormatCount(items.Count), t.Expr.Column, in.WorkloadFile, t.Expr.Column)
	}
	if bf.SourceRows > 0 {
		bf.TargetRows = bf.SourceRows * bf.Fanout
		bf.Seconds = math.Ceil(bf.TargetRows / bf.RowsPerSecond)
	}
	return bf, nil
}

// steps lays out the ordered steps.
func steps(in Input, p *Plan) []Step {
	from, to := in.From.Name, in.To.Name
	tr := fmt.Sprintf(`denorm.Transition{Old: %q, New: %q, Stage: denorm.DualWrite}`, from, to)
	if in.KeepFrom {
		tr = fmt.Sprintf(`denorm.Transition{New: %q, Stage: denorm.DualWrite}`, to)
	}
	create := Step{Title: "Create the table", CQL: in.ToSource}
	if in.CreateFile != "" {
		create.File = in.CreateFile
		create.Do = fmt.Sprintf("add the migration %s holding %s's CREATE TABLE (%s) and apply it (cqlsize migrate up)", in.CreateFile, to, in.ToFile)
	} else {
		create.Do = fmt.Sprintf("add a migration holding %s's CREATE TABLE (%s) and apply it (cqlsize migrate up)", to, in.ToFile)
	}
	out := []Step{create,
		{Title: "Deploy dual writes", Do: fmt.Sprintf("map %s in the service's denorm.Model, its keys derived as the backfill derives them (%s), "+
			"and run every instance with %s (dual-write in its configuration). Every instance must write both before the backfill starts: "+
			"a row written without the new table after the backfill read its range would be missing", to, rules(p.Derive), tr)},
		{Title: "Backfill", Command: p.Backfill.Command, Do: backfillDo(p.Backfill, from, to)},
		{Title: "Verify", Command: p.Backfill.VerifyCommand, Do: fmt.Sprintf("compare %s's rows with the %s rows they map to; exit 1 lists the missing and different ones (run the backfill again for them)", from, to)},
	}
	if in.KeepFrom {
		out = append(out,
			Step{Title: "Switch reads", Do: fmt.Sprintf("set the stage to read-new: %s serves its access pattern (Model.Reads says so); %s's readers stay", to, from)},
			Step{Title: "End the transition", Do: fmt.Sprintf("set the stage to new-only (or drop the transition from the configuration). %s keeps its own readers: nothing to drop", from)})
	} else {
		drop := Step{Title: "Stop writing the old table, then drop it", CQL: fmt.Sprintf("DROP TABLE IF EXISTS %s;", cqlName(in.From)),
			Do: fmt.Sprintf("set the stage to new-only; once no instance runs an earlier stage, drop %s in a later migration of its own", from)}
		if in.DropFile != "" {
			drop.File = in.DropFile
			drop.Do += " (" + in.DropFile + ")"
		}
		out = append(out,
			Step{Title: "Switch reads", Do: fmt.Sprintf("set the stage to read-new: readers use %s (Model.Reads, denorm.Choose); writes still reach %s, so going back to dual-write is safe", to, from)},
			drop)
	}
	for i := range out {
		out[i].N = i + 1
	}
	return out
}

func backfillDo(b Backfill, from, to string) string {
	s := fmt.Sprintf("copy the rows %s held before dual writes, each cell with its source write time and remaining TTL, so newer dual writes and deletes win", from)
	if b.Seconds == 0 {
		return s + fmt.Sprintf("; its duration is unknown: no row count of %s (no cluster counted it, no workload entry gives it)", from)
	}
	return s + fmt.Sprintf("; %s rows of %s, %s rows of %s at %s rows/s: about %s",
		sizing.FormatCount(b.SourceRows), from, sizing.FormatCount(b.TargetRows), to, sizing.FormatCount(b.RowsPerSecond), duration(b.Seconds))
}

func rules(ds []Derived) string {
	if len(ds) == 0 {
		return "every key column by name"
	}
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Rule()
	}
	return strings.Join(out, ", ")
}

func cqlName(t *cql.Table) string { return cql.QuoteName(t.Keyspace) + "." + cql.QuoteName(t.Name) }

// shellQuote quotes s for a POSIX shell when it holds anything but plain characters.
func shellQuote(s string) string {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_-.,:/=@", c)) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}

// duration renders seconds as 45s, 12m, 3h20m or 2d4h.
func duration(sec float64) string {
	if !(sec < 100*365*86400) {
		// Also what a time.Duration could not hold (292 years) without wrapping to nonsense.
		return "over 100 years"
	}
	d := time.Duration(sec) * time.Second
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(math.Ceil(d.Minutes())))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd%dh", int(d.Hours())/24, int(d.Hours())%24)
}
