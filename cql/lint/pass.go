package lint

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
)

// stmt is a statement to lint with what is known where it runs.
type stmt struct {
	file     *File
	s        cql.Statement
	keyspace string // the keyspace unqualified names resolve to
}

// pass is the state shared by the analyzers of one Run.
type pass struct {
	in        Input
	analyzer  *Analyzer
	diags     []Diagnostic
	fileOrder map[string]int
	stmts     []stmt
	// tables is the last state of every table the statements create or alter, built from
	// the statements themselves, so lints work without a schema model too.
	tables map[string]*cql.Table
	// dropped remembers column types dropped by the statements (keyspace.table.column).
	dropped map[string]cql.Type

	fileNolint map[string]directive // file name -> file-wide directive
	stmtNolint map[*cql.StmtInfo]directive
}

func newPass(in Input) *pass {
	p := &pass{
		in: in, fileOrder: map[string]int{}, tables: map[string]*cql.Table{}, dropped: map[string]cql.Type{},
		fileNolint: map[string]directive{}, stmtNolint: map[*cql.StmtInfo]directive{},
	}
	for i := range in.Files {
		f := &in.Files[i]
		p.fileOrder[f.Name] = i
		ks := in.Keyspace
		for _, s := range f.Statements {
			if u, ok := s.(*cql.Use); ok {
				ks = u.Keyspace.Name
			}
			p.stmts = append(p.stmts, stmt{file: f, s: s, keyspace: ks})
		}
		p.readDirectives(f)
	}
	for _, st := range p.stmts {
		p.model(st)
	}
	return p
}

func (p *pass) report(pos cql.Pos, format string, args ...any) {
	a := p.analyzer
	p.diags = append(p.diags, Diagnostic{
		Pos: pos, Code: a.Code, Name: a.Name, Severity: a.Severity,
		Message: fmt.Sprintf(format, args...), Fix: a.Fix,
	})
}

// qualify resolves a name to keyspace.name with the statement's keyspace.
func qualify(q cql.QualifiedName, ks string) (string, string) {
	if !q.Keyspace.IsZero() {
		return q.Keyspace.Name, q.Name.Name
	}
	return ks, q.Name.Name
}

// table returns the table a name refers to after every statement: as the statements
// left it when they touch it, else as the starting schema has it.
func (p *pass) table(q cql.QualifiedName, ks string) *cql.Table {
	k, n := qualify(q, ks)
	if t := p.tables[k+"."+n]; t != nil {
		return t
	}
	if k == "" {
		for key, t := range p.tables {
			if strings.HasSuffix(key, "."+n) {
				return t
			}
		}
	}
	if s := p.in.Schema; s != nil {
		if t := s.Table(k, n); t != nil {
			return t
		}
		if k == "" {
			if t, ok := s.FindTable(n); ok {
				return t
			}
		}
	}
	return nil
}

// tableFromCreate builds the model of a CREATE TABLE.
func tableFromCreate(c *cql.CreateTable, ks string) *cql.Table {
	k, n := qualify(c.Name, ks)
	t := &cql.Table{Keyspace: k, Name: n, Pos: c.Pos, Options: cql.TableOptions{GCGraceSeconds: cql.DefaultGCGraceSeconds}}
	role := map[string]*cql.Column{}
	for _, d := range c.Columns {
		col := &cql.Column{Name: d.Name.Name, Type: d.Type, Kind: cql.Regular, Position: -1, Pos: d.Name.Pos}
		if d.Static {
			col.Kind = cql.Static
		}
		t.Columns = append(t.Columns, col)
		role[col.Name] = col
	}
	for i, id := range c.PartitionKey {
		if col := role[id.Name]; col != nil {
			col.Kind, col.Position = cql.PartitionKey, i
			t.PartitionKey = append(t.PartitionKey, col)
		}
	}
	for i, id := range c.Clustering {
		if col := role[id.Name]; col != nil {
			col.Kind, col.Position = cql.Clustering, i
			t.Clustering = append(t.Clustering, col)
		}
	}
	for _, o := range c.ClusteringOrder {
		if col := role[o.Column.Name]; col != nil && o.Desc {
			col.Order = cql.Desc
		}
	}
	t.Options.CompactStorage = c.CompactStorage
	applyProps(&t.Options, c.Properties)
	return t
}

func applyProps(o *cql.TableOptions, props []*cql.Property) {
	for _, pr := range props {
		switch pr.Name.Name {
		case "default_time_to_live":
			if n, err := strconv.Atoi(pr.Value); err == nil {
				o.DefaultTTL = n
			}
		case "gc_grace_seconds":
			if n, err := strconv.Atoi(pr.Value); err == nil {
				o.GCGraceSeconds = n
			}
		case "compaction":
			o.Compaction = pr.MapValue()
		}
	}
}

// model follows the statements that shape tables, so later lints see their last state.
func (p *pass) model(st stmt) {
	switch s := st.s.(type) {
	case *cql.CreateTable:
		t := tableFromCreate(s, st.keyspace)
		key := t.Keyspace + "." + t.Name
		if p.tables[key] == nil || !s.IfNotExists {
			p.tables[key] = t
		}
	case *cql.AlterTable:
		k, n := qualify(s.Name, st.keyspace)
		t := p.tables[k+"."+n]
		if t == nil {
			if p.in.Schema == nil || p.in.Schema.Table(k, n) == nil {
				return
			}
			t = cloneTable(p.in.Schema.Table(k, n)) // never change the caller's schema
			p.tables[k+"."+n] = t
		}
		switch s.Action {
		case cql.AlterAdd:
			for _, d := range s.Add {
				if t.Column(d.Name.Name) == nil {
					kind := cql.Regular
					if d.Static {
						kind = cql.Static
					}
					t.Columns = append(t.Columns, &cql.Column{Name: d.Name.Name, Type: d.Type, Kind: kind, Position: -1, Pos: d.Name.Pos})
				}
			}
		case cql.AlterDrop:
			for _, id := range s.Drop {
				for i, c := range t.Columns {
					if c.Name == id.Name {
						p.dropped[k+"."+n+"."+c.Name] = c.Type
						t.Columns = append(t.Columns[:i:i], t.Columns[i+1:]...)
						break
					}
				}
			}
		case cql.AlterRename:
			for _, r := range s.Renames {
				if c := t.Column(r.From.Name); c != nil {
					c.Name = r.To.Name
				}
			}
		case cql.AlterWith:
			applyProps(&t.Options, s.Properties)
		}
	}
}

// directive is a parsed "-- cqlsize:nolint [CODE ...]": all when no code is given.
type directive struct {
	all   bool
	codes map[string]bool
}

func (d directive) covers(code string) bool { return d.all || d.codes[code] }

var (
	nolintRe = regexp.MustCompile(`cqlsize:nolint\b([^\n]*)`)
	codeRe   = regexp.MustCompile(`^[A-Za-z]{2}[0-9]{3}$`)
)

// parseDirective reads every nolint directive in comment text. Codes that look like codes
// but are unknown are returned as bad, so a typo does not silently silence nothing.
func parseDirective(text string) (d directive, found bool, bad []string) {
	d.codes = map[string]bool{}
	for _, m := range nolintRe.FindAllStringSubmatch(text, -1) {
		found = true
		n := 0
		for _, tok := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ' ' || r == ',' || r == '\t' }) {
			if a := Lookup(tok); a != nil {
				d.codes[a.Code] = true
				n++
				continue
			}
			if codeRe.MatchString(tok) {
				bad = append(bad, tok)
				n++
				continue
			}
			break // free text after the codes: the reason
		}
		if n == 0 {
			d.all = true
		}
	}
	return d, found, bad
}

type badDirective struct {
	pos  cql.Pos
	code string
}

func (p *pass) readDirectives(f *File) {
	var bad []badDirective
	for _, s := range f.Statements {
		info := s.Info()
		if d, ok, _ := parseDirective(info.Doc); ok {
			p.stmtNolint[info] = d
			lines := strings.Split(info.Doc, "\n")
			for i, line := range lines {
				for _, c := range badCodes(line) {
					bad = append(bad, badDirective{cql.Pos{File: f.Name, Line: info.Pos.Line - len(lines) + i, Col: 1}, c})
				}
			}
		}
	}
	// File-wide: directives in the comments at the top of the file that are not part of
	// the first statement's own comment block (a blank line separates them).
	header := string(f.Source)
	limit := 1 << 30
	if len(f.Statements) > 0 {
		first := f.Statements[0].Info()
		if first.Pos.Offset <= len(header) {
			header = header[:first.Pos.Offset]
		}
		limit = first.Pos.Line
		if first.Doc != "" {
			limit -= strings.Count(first.Doc, "\n") + 1
		}
	}
	var fileText strings.Builder
	for i, line := range strings.Split(header, "\n") {
		if i+1 >= limit {
			break
		}
		fileText.WriteString(line + "\n")
		for _, c := range badCodes(line) {
			bad = append(bad, badDirective{cql.Pos{File: f.Name, Line: i + 1, Col: 1}, c})
		}
	}
	if d, ok, _ := parseDirective(fileText.String()); ok {
		p.fileNolint[f.Name] = d
	}
	for _, b := range bad {
		p.diags = append(p.diags, Diagnostic{
			Pos: b.pos, Code: "NL001", Name: "unknown-nolint-code", Severity: Warning,
			Message: fmt.Sprintf("nolint directive names %s, which is not a lint code; nothing is silenced by it", b.code),
			Fix:     "use a code from `cqlsize migrate validate --list-lints`",
		})
	}
}

func badCodes(line string) []string {
	_, _, bad := parseDirective(line)
	return bad
}

// silenced reports whether a directive covers d: one on the statement d points into, or
// one for the whole file.
func (p *pass) silenced(d Diagnostic) bool {
	if fd, ok := p.fileNolint[d.Pos.File]; ok && fd.covers(d.Code) {
		return true
	}
	for _, st := range p.stmts {
		info := st.s.Info()
		if info.Pos.File == d.Pos.File && d.Pos.Offset >= info.Pos.Offset && d.Pos.Offset <= info.End.Offset {
			if sd, ok := p.stmtNolint[info]; ok && sd.covers(d.Code) {
				return true
			}
		}
	}
	return false
}

// existedTable reports whether a table held data before this run: whether Input.Schema
// (the live schema for up, the applied files or a baseline offline) has it. A table the
// statements create is not data, however it is altered or dropped later in the same run;
// a table that was in Input.Schema stays data under its name even after the run drops and
// re-creates it, since the run may stop between the two and a reader cannot tell them apart.
func (p *pass) existedTable(q cql.QualifiedName, ks string) bool {
	s := p.in.Schema
	if s == nil {
		return false
	}
	k, n := qualify(q, ks)
	var t *cql.Table
	if k == "" {
		t, _ = s.FindTable(n)
	} else {
		t = s.Table(k, n)
	}
	return t != nil && !p.runCreated(t.Keyspace, t.Name)
}

// runCreated reports whether Input.RunCreated names the table ks.name, or its column when
// one is given: an earlier run of the same history created it (see Input.RunCreated).
func (p *pass) runCreated(ks, name string, column ...string) bool {
	key := ks + "." + name
	if p.in.RunCreated[key] {
		return true
	}
	return len(column) > 0 && p.in.RunCreated[key+"."+column[0]]
}

// existedColumn reports whether the column was in the table as Input.Schema has it.
func (p *pass) existedColumn(q cql.QualifiedName, ks, column string) bool {
	s := p.in.Schema
	if s == nil {
		return false
	}
	k, n := qualify(q, ks)
	var t *cql.Table
	if k == "" {
		t, _ = s.FindTable(n)
	} else {
		t = s.Table(k, n)
	}
	return t != nil && t.Column(column) != nil && !p.runCreated(t.Keyspace, t.Name, column)
}

// existedKeyspaceData reports whether the keyspace held a table or a view in Input.Schema:
// an empty keyspace (the target keyspace that migrate creates before the first file) or
// one the statements created holds nothing a drop could lose.
func (p *pass) existedKeyspaceData(name string) bool {
	if p.in.Schema == nil {
		return false
	}
	ks := p.in.Schema.Keyspaces[name]
	if ks == nil {
		return false
	}
	for t := range ks.Tables {
		if !p.runCreated(name, t) {
			return true
		}
	}
	for v := range ks.Views {
		if !p.runCreated(name, v) {
			return true
		}
	}
	return false
}

func cloneTable(t *cql.Table) *cql.Table {
	c := *t
	c.Columns, c.PartitionKey, c.Clustering = nil, nil, nil
	for _, col := range t.Columns {
		cc := *col
		c.Columns = append(c.Columns, &cc)
		switch cc.Kind {
		case cql.PartitionKey:
			c.PartitionKey = append(c.PartitionKey, &cc)
		case cql.Clustering:
			c.Clustering = append(c.Clustering, &cc)
		}
	}
	return &c
}
