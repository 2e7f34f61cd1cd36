package lint

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/severity"
)

// Severity says whether a diagnostic fails a run. It is the scale every cqlsize analysis
// shares (severity.Level): a lint is a warn or a fail finding.
type Severity = severity.Level

// Severities. An Error fails `cqlsize migrate validate` (exit 1) and stops `migrate up`
// unless silenced or allowed; a Warning is reported only. Lint reports write them with the
// words they always had, "error" and "warning" (see Word), so scripts keep working.
const (
	Warning = severity.Warn
	Error   = severity.Fail
)

// Analyzer is one check. Code and Name never change once released: users silence
// diagnostics by them.
type Analyzer struct {
	Code     string // e.g. "DS102"
	Name     string // e.g. "drop-table"
	Severity Severity
	What     string // what it reports
	Why      string // why it matters in Cassandra
	Fix      string // how to fix it
	// NeedsWorkload: the analyzer only reports when Input.Workload is given.
	NeedsWorkload bool
	run           func(p *pass)
}

// Diagnostic is one finding at a position.
type Diagnostic struct {
	Pos      cql.Pos  `json:"-"`
	Code     string   `json:"code"`
	Name     string   `json:"name"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
	Fix      string   `json:"fix,omitempty"`
	Silenced bool     `json:"silenced,omitempty"` // by a nolint directive or Config.Allow
}

// String renders file:line:col: CODE severity: message, the severity as Word writes it.
func (d Diagnostic) String() string {
	return fmt.Sprintf("%s: %s %s: %s", d.Pos, d.Code, Word(d.Severity), d.Message)
}

// File is one source's statements as cql.ParseFile returns them, with the source itself
// (file-wide nolint directives live in its first lines).
type File struct {
	Name       string
	Source     []byte
	Statements []cql.Statement
}

// Workload is what a workload description says that lints use. It is plain data so the
// lint package depends neither on how workloads are written nor on how they are sized;
// the CLI fills it from workload.yaml and the sizing estimate.
type Workload struct {
	// Deletes lists the tables (keyspace.table, or table) the workload deletes from.
	Deletes []string
	// Sizes are the estimated partitions of the tables the workload describes.
	Sizes []TableSize
}

// TableSize is what the sizing estimate says about one table's partitions.
type TableSize struct {
	Table string // keyspace.table
	// Limits are the partition limits the estimate says the table crosses.
	Limits []LimitFinding
	// Tombstones is how many tombstones the table's typical read counts in the largest
	// partition (the tombstone model's figure, the one estimate reports), and
	// TypicalTombstones the same read of the median partition. Read says which read it is.
	Tombstones, TypicalTombstones float64
	Read                          string
}

// LimitFinding is one limit a table's partitions cross.
type LimitFinding struct {
	Code    string // the sizing code (SZ002: 100 MB per partition, ...)
	Fail    bool   // over a hard limit, or the typical partition is over it
	Message string
}

// Cassandra's default tombstone_warn_threshold and tombstone_failure_threshold: a read
// that meets more tombstones logs a warning, or fails.
const (
	TombstoneWarnThreshold    = 1000
	TombstoneFailureThreshold = 100000
)

// Input is what to lint.
type Input struct {
	// Files hold the statements to lint, in the order they run (for migrations: the
	// pending files). Only these are reported on.
	Files []File
	// Schema is the schema the statements start from (for `migrate up`: the live schema;
	// offline: what the applied files or a baseline produced; nil: empty). Lints see it with
	// the statements applied on top, so they judge the schema the migrations produce. It
	// is also what exists before the run: the destructive lints (DS101-DS103, DS105) report
	// only drops and truncates of what it holds, never of what the statements created.
	Schema *cql.Schema
	// RunCreated names what Schema holds that an earlier run of the same statements'
	// history created and that cannot hold data from before that history ran: "ks.table"
	// for a table (or view), "ks.table.column" for a column added to an older table. For
	// `migrate up` it is what the run this one finishes created (the run that stopped
	// partway: the files it applied and the statements of the file it stopped in), minus
	// what existed before it (migrations.CreatedByUnfinishedRun). The destructive lints
	// treat these as the statements' own: a rerun after an interruption is judged as the
	// run it finishes was.
	RunCreated map[string]bool
	// Keyspace resolves unqualified names until a USE statement changes it.
	Keyspace string
	// Workload, when given, turns on the analyzers that need one.
	Workload *Workload
	// Writes are the application's write statements (INSERT, UPDATE, BATCH), such as the
	// ones a queries file copied from a service holds. They are not linted; they say how
	// rows are written: a table whose writes carry USING TTL (a literal above 0, or a bind
	// marker the service fills) expires its rows, so its partitions are bounded even
	// without default_time_to_live.
	Writes []cql.Statement
}

// Config selects what fails.
type Config struct {
	// Allow lists codes (or names) whose diagnostics are reported as silenced instead of
	// failing: `migrate up --allow-lint DS103`.
	Allow []string
	// Disable lists codes (or names) not to run at all.
	Disable []string
}

// Report is the result of Run.
type Report struct {
	Diagnostics []Diagnostic // sorted by position; silenced ones included, marked
}

// Errors counts the error-severity diagnostics that are not silenced.
func (r *Report) Errors() int { return r.count(Error, false) }

// Warnings counts the warnings that are not silenced.
func (r *Report) Warnings() int { return r.count(Warning, false) }

// Silenced counts the silenced diagnostics.
func (r *Report) Silenced() int {
	n := 0
	for _, d := range r.Diagnostics {
		if d.Silenced {
			n++
		}
	}
	return n
}

func (r *Report) count(s Severity, silenced bool) int {
	n := 0
	for _, d := range r.Diagnostics {
		if d.Severity == s && d.Silenced == silenced {
			n++
		}
	}
	return n
}

// Analyzers returns every analyzer, in code order. The slice is new on each call.
func Analyzers() []*Analyzer {
	as := append(analyzers(), yamlAnalyzers()...)
	sort.Slice(as, func(i, j int) bool { return as[i].Code < as[j].Code })
	return as
}

// Lookup finds an analyzer by code or name, case-insensitively.
func Lookup(codeOrName string) *Analyzer {
	for _, a := range Analyzers() {
		if strings.EqualFold(a.Code, codeOrName) || strings.EqualFold(a.Name, codeOrName) {
			return a
		}
	}
	return nil
}

// Run lints the input. It fails only on a bad Config (an unknown code); findings are in
// the report.
func Run(in Input, cfg Config) (*Report, error) {
	allow, err := codeSet(cfg.Allow, "lint.Config.Allow")
	if err != nil {
		return nil, err
	}
	disable, err := codeSet(cfg.Disable, "disabled lint")
	if err != nil {
		return nil, err
	}
	p := newPass(in)
	for _, a := range Analyzers() {
		if disable[a.Code] || a.NeedsWorkload && in.Workload == nil {
			continue
		}
		p.analyzer = a
		a.run(p)
	}
	rep := &Report{}
	seen := map[string]bool{}
	for _, d := range p.diags {
		key := d.Pos.String() + d.Code + d.Message
		if seen[key] {
			continue
		}
		seen[key] = true
		if allow[d.Code] || p.silenced(d) {
			d.Silenced = true
		}
		rep.Diagnostics = append(rep.Diagnostics, d)
	}
	sort.SliceStable(rep.Diagnostics, func(i, j int) bool {
		a, b := rep.Diagnostics[i].Pos, rep.Diagnostics[j].Pos
		if a.File != b.File {
			return p.fileOrder[a.File] < p.fileOrder[b.File]
		}
		if a.Offset != b.Offset {
			return a.Offset < b.Offset
		}
		return rep.Diagnostics[i].Code < rep.Diagnostics[j].Code
	})
	return rep, nil
}

func codeSet(list []string, what string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, item := range list {
		for _, c := range strings.FieldsFunc(item, func(r rune) bool { return r == ',' || r == ' ' }) {
			a := Lookup(c)
			if a == nil {
				return nil, fmt.Errorf("%s %q: no such lint code (lint.Analyzers lists them)", what, c)
			}
			out[a.Code] = true
		}
	}
	return out, nil
}
