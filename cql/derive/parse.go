package derive

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
)

// Func is what an expression does with its source column.
type Func int

// The expressions of a rule.
const (
	Copy   Func = iota // COL: the value as it is
	Year               // year(COL): the year bucket of a time
	Month              // month(COL): the month bucket
	Week               // week(COL): the ISO week bucket
	Day                // day(COL): the day bucket
	Hour               // hour(COL): the hour bucket
	Shard              // shard(COL, N): bucket.Shard of the value, 0 to N-1
	Each               // each(COL): one target row per element of a set or list
	Minute             // minute(COL): the minute bucket (short-lived data, and tests that cross a boundary)
)

var funcNames = [...]string{Copy: "copy", Year: "year", Month: "month", Week: "week", Day: "day", Hour: "hour", Shard: "shard", Each: "each", Minute: "minute"}

func (f Func) String() string {
	if f < 0 || int(f) >= len(funcNames) {
		return "Func(" + strconv.Itoa(int(f)) + ")"
	}
	return funcNames[f]
}

// Expr is a parsed expression: a function of one source column.
type Expr struct {
	Func   Func
	Column string // the source column, as Cassandra stores it (folded to lower case unless quoted)
	Shards int    // the shard count of shard(COL, N)
	Col    int    // where the expression starts in the rule's text, from 1
	ColCol int    // where the column name starts, from 1
}

// String renders the expression so that Parse reads it back.
func (e Expr) String() string {
	name := cql.QuoteName(e.Column)
	switch e.Func {
	case Copy:
		return name
	case Shard:
		return fmt.Sprintf("shard(%s, %d)", name, e.Shards)
	}
	return e.Func.String() + "(" + name + ")"
}

// Rule fills one target column: TARGET=EXPR.
type Rule struct {
	Target string // the target column, as stored
	Expr   Expr
	Text   string // the rule as written
}

func (r Rule) String() string { return cql.QuoteName(r.Target) + "=" + r.Expr.String() }

// Error says what is wrong with a rule and where: Col counts from 1 in the rule's text (0
// when the error is about the tables rather than one place in a rule), so a caller that
// read the rule from a file at line L, column C reports it at L:C+Col-1.
type Error struct {
	Rule int // index of the rule in the list given to Compile; -1 when no rule is at fault
	Col  int
	Msg  string
}

func (e *Error) Error() string {
	if e.Col > 0 {
		return fmt.Sprintf("col %d: %s", e.Col, e.Msg)
	}
	return e.Msg
}

// ParseRule reads TARGET=EXPR, where EXPR is COL, year(COL), month(COL), week(COL),
// day(COL), hour(COL), minute(COL), shard(COL, N) or each(COL). Names follow CQL: folded to lower case
// unless double-quoted. A malformed rule is an *Error.
func ParseRule(text string) (Rule, error) {
	p := &parser{s: text}
	p.space()
	target, err := p.ident("a target column name")
	if err != nil {
		return Rule{}, err
	}
	p.space()
	if !p.eat('=') {
		return Rule{}, p.fail(p.i, "want = after the target column %s", cql.QuoteName(target))
	}
	e, err := p.expr()
	if err != nil {
		return Rule{}, err
	}
	return Rule{Target: target, Expr: e, Text: text}, nil
}

// ParseExpr reads an expression on its own (the part of a rule after =).
func ParseExpr(text string) (Expr, error) {
	p := &parser{s: text}
	return p.expr()
}

type parser struct {
	s string
	i int
}

func (p *parser) fail(at int, format string, args ...any) error {
	return &Error{Rule: -1, Col: at + 1, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *parser) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *parser) expr() (Expr, error) {
	p.space()
	start := p.i
	if p.i < len(p.s) && p.s[p.i] == '"' {
		name, err := p.ident("a column name")
		if err != nil {
			return Expr{}, err
		}
		return Expr{Func: Copy, Column: name, Col: start + 1, ColCol: start + 1}, p.end()
	}
	name, err := p.ident("a column name or a function such as month(created_at)")
	if err != nil {
		return Expr{}, err
	}
	p.space()
	if !p.eat('(') {
		return Expr{Func: Copy, Column: name, Col: start + 1, ColCol: start + 1}, p.end()
	}
	f := Copy
	for i, n := range funcNames {
		if i != int(Copy) && n == name {
			f = Func(i)
		}
	}
	if f == Copy {
		return Expr{}, p.fail(start, "unknown function %s (want year, month, week, day, hour, minute, shard or each)", name)
	}
	p.space()
	colAt := p.i
	col, err := p.ident("a source column name")
	if err != nil {
		return Expr{}, err
	}
	e := Expr{Func: f, Column: col, Col: start + 1, ColCol: colAt + 1}
	p.space()
	if f == Shard {
		if !p.eat(',') {
			return Expr{}, p.fail(p.i, "want , and a shard count: shard(%s, N)", cql.QuoteName(col))
		}
		p.space()
		nAt := p.i
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
		n, err := strconv.Atoi(p.s[nAt:p.i])
		if err != nil || n < 1 {
			return Expr{}, p.fail(nAt, "want a shard count of at least 1, got %q", p.word(nAt))
		}
		e.Shards = n
		p.space()
	}
	if !p.eat(')') {
		return Expr{}, p.fail(p.i, "want ) to close %s(", name)
	}
	return e, p.end()
}

// word is the text from at up to the next space or punctuation, for messages.
func (p *parser) word(at int) string {
	end := at
	for end < len(p.s) && !strings.ContainsRune(" \t,()=", rune(p.s[end])) {
		end++
	}
	if end == at && end < len(p.s) {
		end++
	}
	return p.s[at:end]
}

func (p *parser) end() error {
	p.space()
	if p.i < len(p.s) {
		return p.fail(p.i, "unexpected %q after the expression", p.s[p.i:])
	}
	return nil
}

// ident reads a CQL name: letters, digits and _, folded to lower case, or a double-quoted
// name kept as written ("" stands for one quote).
func (p *parser) ident(want string) (string, error) {
	start := p.i
	if p.eat('"') {
		var b strings.Builder
		for {
			if p.i >= len(p.s) {
				return "", p.fail(start, "unterminated quoted name")
			}
			c := p.s[p.i]
			p.i++
			if c == '"' {
				if p.eat('"') {
					b.WriteByte('"')
					continue
				}
				break
			}
			b.WriteByte(c)
		}
		if b.Len() == 0 {
			return "", p.fail(start, "empty quoted name")
		}
		return b.String(), nil
	}
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || p.i > start && c >= '0' && c <= '9' {
			p.i++
			continue
		}
		break
	}
	if p.i == start {
		if p.i >= len(p.s) {
			return "", p.fail(start, "want %s, got the end of the text", want)
		}
		return "", p.fail(start, "want %s, got %q", want, p.word(start))
	}
	return strings.ToLower(p.s[start:p.i]), nil
}
