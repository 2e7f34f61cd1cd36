package cql

import (
	"strings"
)

// ParseFile parses every statement of a CQL source, in order. The first syntax error stops
// it: the error is an *Error "file:line:col: expected X, found Y".
func ParseFile(file string, src []byte) ([]Statement, error) {
	toks, comments, err := lexAll(file, src, true)
	if err != nil {
		return nil, err
	}
	spans, err := splitTokens(toks)
	if err != nil {
		return nil, err
	}
	text := string(src)
	docs := docComments(toks, spans, comments)
	out := make([]Statement, 0, len(spans))
	for i, sp := range spans {
		st, err := parseSpan(text, toks, sp)
		if err != nil {
			return nil, err
		}
		st.Info().Doc = docs[i]
		out = append(out, st)
	}
	return out, nil
}

// Parse parses a source holding exactly one statement (a trailing ';' is optional).
func Parse(file string, src []byte) (Statement, error) {
	toks, comments, err := lexAll(file, src, true)
	if err != nil {
		return nil, err
	}
	spans, err := splitTokens(toks)
	if err != nil {
		return nil, err
	}
	if len(spans) == 0 {
		eof := toks[len(toks)-1]
		return nil, Errorf(eof.Pos, "expected a statement, found end of input")
	}
	if len(spans) > 1 {
		return nil, Errorf(toks[spans[1].from].Pos, "expected one statement, found a second one")
	}
	st, err := parseSpan(string(src), toks, spans[0])
	if err != nil {
		return nil, err
	}
	st.Info().Doc = docComments(toks, spans, comments)[0]
	return st, nil
}

// parseSpan parses the statement toks[sp.from:sp.to].
func parseSpan(src string, toks []Token, sp span) (st Statement, err error) {
	term := toks[sp.to] // the ';' or end of input that ends the statement
	p := &parser{
		toks: toks, i: sp.from, start: sp.from, end: sp.to, src: src,
		eof: Token{Kind: TokEOF, Text: term.Text, Pos: term.Pos},
	}
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bailout)
			if !ok {
				panic(r)
			}
			st, err = nil, b.err
		}
	}()
	st = p.statement()
	if t := p.peek(); t.Kind != TokEOF {
		if startsStatement(t) {
			// Two statements with no ';' between them: the parser only sees a word
			// that does not belong, so name what is missing, where it goes.
			end := p.prevEnd()
			p.fail(end, "missing ';' at the end of the statement: the next statement (%s at %d:%d) starts without one", strings.ToUpper(t.Text), t.Pos.Line, t.Pos.Col)
		}
		p.failExpected("end of statement")
	}
	return st, nil
}

// startsStatement reports whether t is a keyword a statement begins with.
func startsStatement(t Token) bool {
	for _, kw := range []string{"select", "insert", "update", "delete", "create", "alter", "drop", "truncate", "use", "grant", "revoke", "list", "describe", "desc"} {
		if t.Is(kw) {
			return true
		}
	}
	return t.Is("begin")
}

// bailout carries a syntax error up the parser's call stack to parseSpan, which recovers
// it; no other panic is recovered.
type bailout struct{ err *Error }

// parser parses one statement: the tokens toks[start:end] of the whole source, followed
// by eof (the statement's ';', or the end of input, seen as TokEOF).
type parser struct {
	toks       []Token
	i          int
	start, end int
	eof        Token
	src        string
	depth      int // nesting of terms, selectors and relations being parsed
}

// maxDepth bounds how deeply terms, selectors and relations may nest, so hostile input
// (a megabyte of '(') is an error rather than a stack overflow.
const maxDepth = 200

// enter counts one more level of nesting; call leave when done.
func (p *parser) enter() {
	p.depth++
	if p.depth > maxDepth {
		p.fail(p.peek().Pos, "expression nested more than %d levels deep", maxDepth)
	}
}

func (p *parser) leave() { p.depth-- }

func (p *parser) peek() Token { return p.peekN(0) }

// peekN returns the token n ahead (0 is the current one, -1 the last consumed), or eof.
func (p *parser) peekN(n int) Token {
	if j := p.i + n; j >= p.start && j < p.end {
		return p.toks[j]
	}
	return p.eof
}

func (p *parser) next() Token {
	t := p.peek()
	if t.Kind != TokEOF {
		p.i++
	}
	return t
}

// prevEnd is the end of the last consumed token.
func (p *parser) prevEnd() Pos {
	if p.i <= p.start {
		return p.peek().Pos
	}
	return p.toks[p.i-1].End()
}

// textFrom returns the source from pos to the end of the last consumed token.
func (p *parser) textFrom(pos Pos) string {
	end := p.prevEnd().Offset
	if end < pos.Offset {
		return ""
	}
	return p.src[pos.Offset:end]
}

func (p *parser) fail(pos Pos, format string, args ...any) {
	panic(bailout{Errorf(pos, format, args...)})
}

func (p *parser) failExpected(what string) {
	t := p.peek()
	found := t.Describe()
	if t.Kind == TokEOF && t.Text == ";" {
		found = "';'"
	}
	p.fail(t.Pos, "expected %s, found %s", what, found)
}

// is reports whether the current token is the keyword kw (lower case).
func (p *parser) is(kw string) bool { return p.peek().Is(kw) }

// isN reports whether the token n ahead is the keyword kw.
func (p *parser) isN(n int, kw string) bool { return p.peekN(n).Is(kw) }

func (p *parser) isPunct(s string) bool { return p.peek().IsPunct(s) }

// accept consumes the keyword kw if it is next.
func (p *parser) accept(kw string) bool {
	if p.is(kw) {
		p.i++
		return true
	}
	return false
}

func (p *parser) acceptPunct(s string) bool {
	if p.isPunct(s) {
		p.i++
		return true
	}
	return false
}

// expect consumes the keywords kws in order, failing on the first one missing.
func (p *parser) expect(kws ...string) Token {
	var first Token
	for i, kw := range kws {
		if !p.is(kw) {
			p.failExpected(strings.ToUpper(kw))
		}
		t := p.next()
		if i == 0 {
			first = t
		}
	}
	return first
}

func (p *parser) expectPunct(s string) Token {
	if !p.isPunct(s) {
		p.failExpected("'" + s + "'")
	}
	return p.next()
}

// ifNotExists accepts IF NOT EXISTS.
func (p *parser) ifNotExists() bool {
	if p.is("if") {
		p.expect("if", "not", "exists")
		return true
	}
	return false
}

// ifExists accepts IF EXISTS.
func (p *parser) ifExists() bool {
	if p.is("if") {
		p.expect("if", "exists")
		return true
	}
	return false
}

// try runs f; on a syntax error it rewinds and reports false.
func (p *parser) try(f func()) (ok bool) {
	save := p.i
	defer func() {
		if r := recover(); r != nil {
			if _, isBail := r.(bailout); !isBail {
				panic(r)
			}
			p.i = save
			ok = false
		}
	}()
	f()
	return true
}

// reservedKeywords are the keywords of Cassandra 5.0 that cannot be used as unquoted names
// (every K_ token of Lexer.g that Parser.g's unreserved_keyword does not list).
var reservedKeywords = map[string]bool{
	"add": true, "allow": true, "alter": true, "and": true, "apply": true, "asc": true,
	"authorize": true, "batch": true, "begin": true, "by": true, "columnfamily": true,
	"create": true, "delete": true, "desc": true, "describe": true, "drop": true,
	"entries": true, "execute": true, "from": true, "full": true, "grant": true, "if": true,
	"in": true, "index": true, "infinity": true, "insert": true, "into": true, "is": true,
	"keyspace": true, "limit": true, "materialized": true, "modify": true, "nan": true,
	"norecursive": true, "not": true, "null": true, "of": true, "on": true, "or": true,
	"order": true, "primary": true, "rename": true, "revoke": true, "schema": true,
	"select": true, "set": true, "table": true, "to": true, "token": true, "truncate": true,
	"unlogged": true, "update": true, "use": true, "using": true, "view": true, "where": true,
	"with": true,
}

func isReserved(name string) bool { return reservedKeywords[name] }

// nativeTypeKeywords are the type names that are keywords (text, int, ...).
func isNativeKeyword(name string) bool {
	_, ok := CanonicalNative(name)
	return ok
}

// isIdentStart reports whether t can be a name: an unreserved word or a quoted name.
func isIdentStart(t Token) bool {
	return (t.Kind == TokIdent && !isReserved(t.Val)) || (t.Kind == TokQuotedIdent && t.Val != "")
}

// ident parses a name (IDENT, QUOTED_NAME or an unreserved keyword).
func (p *parser) ident(what string) Ident {
	t := p.peek()
	if t.Kind == TokQMark {
		p.fail(t.Pos, "bind variables cannot be used for %s", what)
	}
	if t.Kind == TokQuotedIdent && t.Val == "" {
		p.fail(t.Pos, "expected %s, found the empty name \"\"", what)
	}
	if !isIdentStart(t) {
		p.failExpected(what)
	}
	p.i++
	return Ident{Name: t.Val, Quoted: t.Kind == TokQuotedIdent, Pos: t.Pos}
}

// cident is ident, also accepting the empty quoted name "" (a legacy column name Cassandra
// accepts in DML but not in DDL).
func (p *parser) cident(what string) Ident {
	if t := p.peek(); t.Kind == TokQuotedIdent && t.Val == "" {
		p.i++
		return Ident{Name: "", Quoted: true, Pos: t.Pos}
	}
	return p.ident(what)
}

// qualifiedName parses [keyspace.]name.
func (p *parser) qualifiedName(what string) QualifiedName {
	first := p.ident(what)
	if p.acceptPunct(".") {
		return QualifiedName{Keyspace: first, Name: p.ident(what)}
	}
	return QualifiedName{Name: first}
}

// statement parses one statement.
func (p *parser) statement() Statement {
	t := p.peek()
	start := t.Pos
	var st Statement
	switch {
	case t.Is("select"):
		st = p.selectStmt()
	case t.Is("insert"):
		st = p.insertStmt()
	case t.Is("update"):
		st = p.updateStmt()
	case t.Is("delete"):
		st = p.deleteStmt()
	case t.Is("begin"):
		st = p.batchStmt()
	case t.Is("use"):
		p.next()
		st = &Use{Keyspace: p.ident("a keyspace name")}
	case t.Is("truncate"):
		p.next()
		if p.is("table") || p.is("columnfamily") {
			p.next()
		}
		st = &Truncate{Table: p.qualifiedName("a table name")}
	case t.Is("create"):
		st = p.createStmt()
	case t.Is("alter"):
		st = p.alterStmt()
	case t.Is("drop"):
		st = p.dropStmt()
	case t.Is("grant"), t.Is("revoke"):
		st = p.authStmt(strings.ToUpper(t.Val))
	case t.Is("list"):
		st = p.listStmt()
	case t.Is("describe"), t.Is("desc"):
		p.skipRest()
		st = &Describe{}
	default:
		p.failExpected("a statement (SELECT, INSERT, UPDATE, DELETE, BEGIN BATCH, CREATE, ALTER, DROP, USE, TRUNCATE, GRANT, REVOKE, LIST)")
	}
	info := st.Info()
	info.Pos, info.End, info.Text = start, p.prevEnd(), p.textFrom(start)
	return st
}

// skipRest consumes every token up to the end of the statement.
func (p *parser) skipRest() {
	for p.peek().Kind != TokEOF {
		p.i++
	}
}
