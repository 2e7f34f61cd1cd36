package cql

import (
	"strconv"
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
	stmt := make([]Token, sp.to-sp.from+1)
	copy(stmt, toks[sp.from:sp.to])
	term := toks[sp.to] // the ';' or TokEOF that ends the statement
	stmt[len(stmt)-1] = Token{Kind: TokEOF, Text: term.Text, Pos: term.Pos, End: term.Pos}
	p := &parser{toks: stmt, src: src}
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
		p.failExpected("end of statement")
	}
	return st, nil
}

// bailout carries a syntax error up the parser's call stack to parseSpan, which recovers
// it; no other panic is recovered.
type bailout struct{ err *Error }

type parser struct {
	toks  []Token
	i     int
	src   string
	depth int // nesting of terms, selectors and relations being parsed
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

func (p *parser) peek() Token { return p.toks[p.i] }

// peekN returns the token n ahead (0 is the current one), or the final TokEOF.
func (p *parser) peekN(n int) Token {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) next() Token {
	t := p.toks[p.i]
	if t.Kind != TokEOF {
		p.i++
	}
	return t
}

// prevEnd is the end of the last consumed token.
func (p *parser) prevEnd() Pos {
	if p.i == 0 {
		return p.toks[0].Pos
	}
	return p.toks[p.i-1].End
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

// ---- SELECT ----

func (p *parser) selectStmt() *Select {
	p.expect("select")
	s := &Select{}
	// "json" and "distinct" are also valid column names: they are keywords only when a
	// selection clause follows them (Cassandra resolves it the same way).
	if p.is("json") && p.try(func() {
		p.next()
		p.selectClause(&s.Distinct, &s.Star, &s.Selectors)
		if !p.is("from") {
			p.failExpected("FROM")
		}
	}) {
		s.JSON = true
	} else {
		s.Distinct, s.Star, s.Selectors = false, false, nil
		p.selectClause(&s.Distinct, &s.Star, &s.Selectors)
	}
	p.expect("from")
	s.Table = p.qualifiedName("a table name")
	if p.accept("where") {
		s.Where = p.whereClause()
	}
	if p.is("group") {
		p.expect("group", "by")
		for {
			s.GroupBy = append(s.GroupBy, p.selectorExpr())
			if !p.acceptPunct(",") {
				break
			}
		}
	}
	if p.is("order") {
		p.expect("order", "by")
		for {
			o := Ordering{Pos: p.peek().Pos, Column: p.cident("a column name")}
			if p.is("ann") {
				p.expect("ann", "of")
				o.ANN = p.term()
			}
			if p.accept("desc") {
				o.Desc = true
			} else {
				p.accept("asc")
			}
			s.OrderBy = append(s.OrderBy, o)
			if !p.acceptPunct(",") {
				break
			}
		}
	}
	if p.is("per") {
		p.expect("per", "partition", "limit")
		s.PerPartitionLimit = p.intValue()
	}
	if p.accept("limit") {
		s.Limit = p.intValue()
	}
	if p.is("allow") {
		p.expect("allow", "filtering")
		s.AllowFiltering = true
	}
	return s
}

func (p *parser) selectClause(distinct, star *bool, sels *[]*Selector) {
	if p.is("distinct") {
		var st bool
		var ss []*Selector
		if p.try(func() {
			p.next()
			p.selectors(&st, &ss)
			if !p.is("from") {
				p.failExpected("FROM")
			}
		}) {
			*distinct, *star, *sels = true, st, ss
			return
		}
	}
	p.selectors(star, sels)
}

func (p *parser) selectors(star *bool, sels *[]*Selector) {
	if p.acceptPunct("*") {
		*star = true
		return
	}
	for {
		s := p.selectorExpr()
		if p.accept("as") {
			s.Alias = p.ident("an alias")
		}
		*sels = append(*sels, s)
		if !p.acceptPunct(",") {
			return
		}
	}
}

// selectorExpr parses an unaliased selector: additions of multiplications of groups.
func (p *parser) selectorExpr() *Selector {
	start := p.peek().Pos
	l := p.selMul()
	for p.isPunct("+") || p.isPunct("-") {
		op := p.next().Val
		r := p.selMul()
		l = &Selector{Kind: SelOp, Pos: start, Func: op, Args: []*Selector{l, r}, Text: p.textFrom(start)}
	}
	return l
}

func (p *parser) selMul() *Selector {
	start := p.peek().Pos
	l := p.selGroup()
	for p.isPunct("*") || p.isPunct("/") || p.isPunct("%") {
		op := p.next().Val
		r := p.selGroup()
		l = &Selector{Kind: SelOp, Pos: start, Func: op, Args: []*Selector{l, r}, Text: p.textFrom(start)}
	}
	return l
}

func (p *parser) selGroup() *Selector {
	p.enter()
	defer p.leave()
	start := p.peek().Pos
	if p.acceptPunct("-") {
		g := p.selGroup()
		return &Selector{Kind: SelOp, Pos: start, Func: "neg", Args: []*Selector{g}, Text: p.textFrom(start)}
	}
	s := p.selPrimary()
	return p.selModifiers(s, start)
}

// selModifiers parses .field and [element] / [a..b] after a selector.
func (p *parser) selModifiers(s *Selector, start Pos) *Selector {
	for {
		switch {
		case p.isPunct("."):
			p.next()
			f := p.ident("a field name")
			s = &Selector{Kind: SelField, Pos: start, Args: []*Selector{s}, Field: f, Text: p.textFrom(start)}
		case p.isPunct("["):
			p.next()
			e := &Selector{Kind: SelElement, Pos: start, Args: []*Selector{s}}
			if p.acceptPunct("..") {
				e.Slice = true
				e.To = p.term()
			} else {
				e.Term = p.term()
				if p.acceptPunct("..") {
					e.Slice = true
					if !p.isPunct("]") {
						e.To = p.term()
					}
				}
			}
			p.expectPunct("]")
			e.Text = p.textFrom(start)
			s = e
		default:
			return s
		}
	}
}

func (p *parser) selPrimary() *Selector {
	p.enter()
	defer p.leave()
	t := p.peek()
	start := t.Pos
	done := func(s *Selector) *Selector {
		s.Pos = start
		s.Text = p.textFrom(start)
		return s
	}
	switch {
	case t.Is("count") && p.peekN(1).IsPunct("(") && p.peekN(2).IsPunct("*"):
		p.next()
		p.next()
		p.next()
		p.expectPunct(")")
		return done(&Selector{Kind: SelCountStar, Func: "count"})
	case (t.Is("writetime") || t.Is("maxwritetime") || t.Is("ttl")) && p.peekN(1).IsPunct("("):
		p.next()
		p.next()
		colStart := p.peek().Pos
		col := p.cident("a column name")
		inner := p.selModifiers(&Selector{Kind: SelColumn, Column: col, Pos: colStart, Text: p.textFrom(colStart)}, colStart)
		p.expectPunct(")")
		s := &Selector{Kind: SelWritetime, Func: t.Val, Column: col}
		if inner.Kind != SelColumn {
			s.Args = []*Selector{inner}
		}
		return done(s)
	case t.Is("cast") && p.peekN(1).IsPunct("("):
		p.next()
		p.next()
		arg := p.selectorExpr()
		p.expect("as")
		typ := p.nativeType()
		p.expectPunct(")")
		return done(&Selector{Kind: SelCast, Func: "cast", Args: []*Selector{arg}, Type: &typ})
	case t.Kind == TokIdent || t.Kind == TokQuotedIdent:
		if name, ok := p.functionNameAhead(); ok {
			p.expectPunct("(")
			s := &Selector{Kind: SelFunc, Func: name}
			if !p.isPunct(")") {
				for {
					s.Args = append(s.Args, p.selectorExpr())
					if !p.acceptPunct(",") {
						break
					}
				}
			}
			p.expectPunct(")")
			return done(s)
		}
		if t.Is("null") {
			return done(&Selector{Kind: SelTerm, Term: p.term()})
		}
		return done(&Selector{Kind: SelColumn, Column: p.cident("a column name or selector")})
	case t.Kind == TokQMark || t.IsPunct(":"):
		return done(&Selector{Kind: SelTerm, Term: p.term()})
	case isConstant(t):
		return done(&Selector{Kind: SelTerm, Term: p.term()})
	case t.IsPunct("("):
		// (type) selector, or (a, b), or (a).
		var typ Type
		save := p.i
		if p.try(func() {
			p.next()
			typ, _ = p.parseType()
			p.expectPunct(")")
			if !p.canStartSelector() {
				p.failExpected("a selector")
			}
		}) {
			arg := p.selPrimary()
			return done(&Selector{Kind: SelTypeHint, Type: &typ, Args: []*Selector{arg}})
		}
		p.i = save
		p.next()
		s := &Selector{Kind: SelTuple}
		for {
			s.Args = append(s.Args, p.selectorExpr())
			if !p.acceptPunct(",") {
				break
			}
		}
		p.expectPunct(")")
		return done(s)
	case t.IsPunct("["):
		p.next()
		s := &Selector{Kind: SelList}
		if !p.isPunct("]") {
			for {
				s.Args = append(s.Args, p.selectorExpr())
				if !p.acceptPunct(",") {
					break
				}
			}
		}
		p.expectPunct("]")
		return done(s)
	case t.IsPunct("{"):
		p.next()
		s := &Selector{Kind: SelSet}
		if p.acceptPunct("}") {
			return done(s)
		}
		first := p.selectorExpr()
		s.Args = append(s.Args, first)
		if p.acceptPunct(":") {
			s.Kind = SelMap
			s.Args = append(s.Args, p.selectorExpr())
			for p.acceptPunct(",") {
				s.Args = append(s.Args, p.selectorExpr())
				p.expectPunct(":")
				s.Args = append(s.Args, p.selectorExpr())
			}
		} else {
			for p.acceptPunct(",") {
				s.Args = append(s.Args, p.selectorExpr())
			}
		}
		p.expectPunct("}")
		return done(s)
	}
	p.failExpected("a selector")
	return nil
}

// canStartSelector reports whether the current token can begin a selector.
func (p *parser) canStartSelector() bool {
	t := p.peek()
	return isConstant(t) || t.Kind == TokQMark || t.Kind == TokQuotedIdent || (t.Kind == TokIdent && (!isReserved(t.Val) || t.Val == "null" || t.Val == "token")) ||
		t.IsPunct("(") || t.IsPunct("[") || t.IsPunct("{") || t.IsPunct(":") || t.IsPunct("-")
}

// functionNameAhead parses [ks.]name when it is followed by '(' and returns it as written
// in canonical form ("ks.f" or "f"); otherwise it consumes nothing.
func (p *parser) functionNameAhead() (string, bool) {
	t0, t1 := p.peekN(0), p.peekN(1)
	okName := func(t Token) bool {
		return (t.Kind == TokIdent && (!isReserved(t.Val) || t.Val == "token")) || (t.Kind == TokQuotedIdent && t.Val != "")
	}
	if !okName(t0) {
		return "", false
	}
	if t1.IsPunct("(") {
		p.i++
		return t0.Val, true
	}
	if t1.IsPunct(".") && okName(p.peekN(2)) && p.peekN(3).IsPunct("(") && !t0.Is("token") {
		p.i += 3
		return t0.Val + "." + p.peekN(-1).Val, true
	}
	return "", false
}

func isConstant(t Token) bool {
	switch t.Kind {
	case TokString, TokInt, TokFloat, TokBool, TokDuration, TokUUID, TokBlob:
		return true
	}
	return false
}

// ---- WHERE and IF ----

func (p *parser) whereClause() []*Relation {
	var out []*Relation
	for {
		out = append(out, p.relation())
		if !p.accept("and") {
			return out
		}
	}
}

func (p *parser) relation() *Relation {
	p.enter()
	defer p.leave()
	t := p.peek()
	start := t.Pos
	done := func(r *Relation) *Relation {
		r.Pos = start
		r.Text = p.textFrom(start)
		return r
	}
	switch {
	case t.Is("token") && p.peekN(1).IsPunct("("):
		p.next()
		r := &Relation{Kind: RelToken, Columns: p.tupleOfIdents()}
		r.Op = p.relationType()
		r.Value = p.term()
		return done(r)
	case t.Is("expr") && p.peekN(1).IsPunct("(") && p.peekN(1).Pos.Offset == t.End.Offset:
		p.next()
		p.next()
		r := &Relation{Kind: RelCustom, Op: OpEq}
		r.Index = p.qualifiedName("an index name")
		p.expectPunct(",")
		r.Value = p.term()
		p.expectPunct(")")
		return done(r)
	case t.IsPunct("("):
		n1, n2 := p.peekN(1), p.peekN(2)
		if (n1.Kind == TokIdent || n1.Kind == TokQuotedIdent) && (n2.IsPunct(",") || n2.IsPunct(")")) {
			r := &Relation{Kind: RelTuple, Columns: p.tupleOfIdents()}
			if p.accept("in") {
				r.Op = OpIn
				p.multiColumnIn(r)
			} else {
				r.Op = p.relationType()
				if p.peek().Kind == TokQMark || p.isPunct(":") {
					r.Value = p.marker()
				} else {
					r.Value = p.tupleLiteral()
				}
			}
			return done(r)
		}
		p.next()
		r := p.relation()
		p.expectPunct(")")
		return r
	}
	col := p.cident("a column name")
	r := &Relation{Kind: RelColumn, Columns: []Ident{col}}
	if p.acceptPunct("[") {
		r.Kind = RelElement
		r.Key = p.term()
		p.expectPunct("]")
		r.Op = p.relationType()
		r.Value = p.term()
		return done(r)
	}
	p.columnOperator(r, false)
	return done(r)
}

// columnOperator parses the operator and value of a single-column relation or condition.
func (p *parser) columnOperator(r *Relation, condition bool) {
	switch {
	case p.accept("in"):
		r.Op = OpIn
		p.inValues(r)
	case p.accept("contains"):
		r.Op = OpContains
		if p.accept("key") {
			r.Op = OpContainsKey
		}
		r.Value = p.term()
	case !condition && p.accept("like"):
		r.Op = OpLike
		r.Value = p.term()
	case !condition && p.is("is"):
		p.expect("is", "not", "null")
		r.Op = OpIsNotNull
	default:
		r.Op = p.relationType()
		r.Value = p.term()
	}
}

func (p *parser) relationType() Operator {
	t := p.peek()
	if t.Kind == TokPunct {
		switch t.Val {
		case "=", "<", "<=", ">", ">=", "!=":
			p.next()
			return Operator(t.Val)
		}
	}
	p.failExpected("an operator (=, <, <=, >, >=, !=, IN, CONTAINS)")
	return ""
}

func (p *parser) tupleOfIdents() []Ident {
	p.expectPunct("(")
	var out []Ident
	for {
		out = append(out, p.cident("a column name"))
		if !p.acceptPunct(",") {
			break
		}
	}
	p.expectPunct(")")
	return out
}

// inValues parses the values of a single-column IN: (a, b, ...) or a marker.
func (p *parser) inValues(r *Relation) {
	if p.peek().Kind == TokQMark || p.isPunct(":") {
		r.InMarker = p.marker()
		return
	}
	p.expectPunct("(")
	r.In = []*Term{}
	if p.acceptPunct(")") {
		return
	}
	for {
		r.In = append(r.In, p.term())
		if !p.acceptPunct(",") {
			break
		}
	}
	p.expectPunct(")")
}

// multiColumnIn parses the values of (a, b) IN: (), a marker, ((1, 2), (3, 4)) or (?, ?).
func (p *parser) multiColumnIn(r *Relation) {
	if p.peek().Kind == TokQMark || p.isPunct(":") {
		r.InMarker = p.marker()
		return
	}
	p.expectPunct("(")
	r.In = []*Term{}
	if p.acceptPunct(")") {
		return
	}
	for {
		if p.peek().Kind == TokQMark || p.isPunct(":") {
			r.In = append(r.In, p.marker())
		} else {
			r.In = append(r.In, p.tupleLiteral())
		}
		if !p.acceptPunct(",") {
			break
		}
	}
	p.expectPunct(")")
}

// conditions parses the IF conditions of UPDATE and DELETE.
func (p *parser) conditions() []*Relation {
	var out []*Relation
	for {
		start := p.peek().Pos
		r := &Relation{Kind: RelColumn, Columns: []Ident{p.cident("a column name")}}
		switch {
		case p.acceptPunct("["):
			r.Kind = RelElement
			r.Key = p.term()
			p.expectPunct("]")
			if p.accept("in") {
				r.Op = OpIn
				p.inValues(r)
			} else {
				r.Op = p.relationType()
				r.Value = p.term()
			}
		case p.acceptPunct("."):
			r.Kind = RelField
			r.Field = p.ident("a field name")
			if p.accept("in") {
				r.Op = OpIn
				p.inValues(r)
			} else {
				r.Op = p.relationType()
				r.Value = p.term()
			}
		default:
			p.columnOperator(r, true)
		}
		r.Pos, r.Text = start, p.textFrom(start)
		out = append(out, r)
		if !p.accept("and") {
			return out
		}
	}
}

// ---- terms ----

// term parses a value: additions of multiplications of (possibly negated) simple terms.
// As in Cassandra, "1 -1" is not a subtraction: the lexer reads -1 as one integer.
func (p *parser) term() *Term {
	start := p.peek().Pos
	l := p.termMul()
	for p.isPunct("+") || p.isPunct("-") {
		op := p.next().Val
		r := p.termMul()
		l = &Term{Kind: TermOp, Pos: start, Value: op, Items: []*Term{l, r}, Text: p.textFrom(start)}
	}
	return l
}

func (p *parser) termMul() *Term {
	start := p.peek().Pos
	l := p.termGroup()
	for p.isPunct("*") || p.isPunct("/") || p.isPunct("%") {
		op := p.next().Val
		r := p.termGroup()
		l = &Term{Kind: TermOp, Pos: start, Value: op, Items: []*Term{l, r}, Text: p.textFrom(start)}
	}
	return l
}

func (p *parser) termGroup() *Term {
	p.enter()
	defer p.leave()
	start := p.peek().Pos
	if p.acceptPunct("-") {
		x := p.simpleTerm()
		return &Term{Kind: TermOp, Pos: start, Value: "neg", Items: []*Term{x}, Text: p.textFrom(start)}
	}
	return p.simpleTerm()
}

func (p *parser) simpleTerm() *Term {
	p.enter()
	defer p.leave()
	t := p.peek()
	start := t.Pos
	done := func(x *Term) *Term {
		x.Pos = start
		x.Text = p.textFrom(start)
		return x
	}
	switch {
	case isConstant(t):
		p.next()
		return done(&Term{Kind: TermLiteral, Lit: t.Kind, Value: t.Val})
	case t.Is("null"):
		p.next()
		return done(&Term{Kind: TermNull})
	case t.Kind == TokQMark || t.IsPunct(":"):
		return p.marker()
	case t.IsPunct("["):
		p.next()
		x := &Term{Kind: TermList}
		if !p.isPunct("]") {
			for {
				x.Items = append(x.Items, p.term())
				if !p.acceptPunct(",") {
					break
				}
			}
		}
		p.expectPunct("]")
		return done(x)
	case t.IsPunct("{"):
		return p.braceLiteral()
	case t.IsPunct("("):
		// (type) term is a cast; anything else is a tuple.
		var typ Type
		if p.try(func() {
			p.next()
			typ, _ = p.parseType()
			p.expectPunct(")")
		}) {
			x := p.simpleTerm()
			return done(&Term{Kind: TermCast, Type: &typ, Items: []*Term{x}})
		}
		return p.tupleLiteral()
	case t.Is("cast") && p.peekN(1).IsPunct("("):
		p.next()
		p.next()
		x := p.simpleTerm()
		p.expect("as")
		typ := p.nativeType()
		p.expectPunct(")")
		return done(&Term{Kind: TermCast, Type: &typ, Items: []*Term{x}})
	case t.Kind == TokIdent || t.Kind == TokQuotedIdent:
		if name, ok := p.functionNameAhead(); ok {
			p.expectPunct("(")
			x := &Term{Kind: TermFunc, Value: name}
			if !p.isPunct(")") {
				for {
					x.Items = append(x.Items, p.term())
					if !p.acceptPunct(",") {
						break
					}
				}
			}
			p.expectPunct(")")
			return done(x)
		}
	}
	p.failExpected("a value")
	return nil
}

// braceLiteral parses {}, {a, b}, {k: v} or {field: v}.
func (p *parser) braceLiteral() *Term {
	start := p.expectPunct("{").Pos
	done := func(x *Term) *Term {
		p.expectPunct("}")
		x.Pos, x.Text = start, p.textFrom(start)
		return x
	}
	if p.isPunct("}") {
		return done(&Term{Kind: TermSet})
	}
	// A name followed by ':' starts a user type literal (a bare name is not a term).
	if t := p.peek(); (t.Kind == TokIdent || t.Kind == TokQuotedIdent) && p.peekN(1).IsPunct(":") && !p.peekN(2).IsPunct(":") {
		x := &Term{Kind: TermUDT}
		for {
			x.Fields = append(x.Fields, p.ident("a field name"))
			p.expectPunct(":")
			x.Items = append(x.Items, p.term())
			if !p.acceptPunct(",") {
				break
			}
		}
		return done(x)
	}
	first := p.term()
	if p.acceptPunct(":") {
		x := &Term{Kind: TermMap, Keys: []*Term{first}, Items: []*Term{p.term()}}
		for p.acceptPunct(",") {
			x.Keys = append(x.Keys, p.term())
			p.expectPunct(":")
			x.Items = append(x.Items, p.term())
		}
		return done(x)
	}
	x := &Term{Kind: TermSet, Items: []*Term{first}}
	for p.acceptPunct(",") {
		x.Items = append(x.Items, p.term())
	}
	return done(x)
}

func (p *parser) tupleLiteral() *Term {
	start := p.expectPunct("(").Pos
	x := &Term{Kind: TermTuple}
	for {
		x.Items = append(x.Items, p.term())
		if !p.acceptPunct(",") {
			break
		}
	}
	p.expectPunct(")")
	x.Pos, x.Text = start, p.textFrom(start)
	return x
}

// marker parses ? or :name.
func (p *parser) marker() *Term {
	t := p.peek()
	if t.Kind == TokQMark {
		p.next()
		return &Term{Kind: TermMarker, Pos: t.Pos, Text: "?"}
	}
	if !t.IsPunct(":") {
		p.failExpected("a bind marker")
	}
	p.next()
	name := p.ident("a bind marker name")
	return &Term{Kind: TermMarker, Pos: t.Pos, Value: name.Name, Text: p.textFrom(t.Pos)}
}

// intValue parses an integer literal or a bind marker (LIMIT, TTL, TIMESTAMP).
func (p *parser) intValue() *Term {
	t := p.peek()
	if t.Kind == TokInt {
		p.next()
		return &Term{Kind: TermLiteral, Lit: TokInt, Value: t.Val, Pos: t.Pos, Text: t.Text}
	}
	if t.Kind == TokQMark || t.IsPunct(":") {
		return p.marker()
	}
	p.failExpected("an integer or a bind marker")
	return nil
}

// ---- INSERT, UPDATE, DELETE, BATCH ----

func (p *parser) using(u *Using, timestampOnly bool) {
	if !p.accept("using") {
		return
	}
	for {
		switch {
		case p.accept("timestamp"):
			u.Timestamp = p.intValue()
		case !timestampOnly && p.accept("ttl"):
			u.TTL = p.intValue()
		default:
			if timestampOnly {
				p.failExpected("TIMESTAMP")
			}
			p.failExpected("TTL or TIMESTAMP")
		}
		if timestampOnly || !p.accept("and") {
			return
		}
	}
}

func (p *parser) insertStmt() *Insert {
	p.expect("insert", "into")
	s := &Insert{Table: p.qualifiedName("a table name")}
	if p.accept("json") {
		t := p.peek()
		switch {
		case t.Kind == TokString:
			p.next()
			s.JSON = &Term{Kind: TermLiteral, Lit: TokString, Value: t.Val, Pos: t.Pos, Text: t.Text}
		case t.Kind == TokQMark || t.IsPunct(":"):
			s.JSON = p.marker()
		default:
			p.failExpected("a JSON string or a bind marker")
		}
		if p.accept("default") {
			if p.accept("unset") {
				s.DefaultUnset = true
			} else if !p.accept("null") {
				p.failExpected("NULL or UNSET")
			}
		}
	} else {
		p.expectPunct("(")
		for {
			s.Columns = append(s.Columns, p.cident("a column name"))
			if !p.acceptPunct(",") {
				break
			}
		}
		p.expectPunct(")")
		p.expect("values")
		p.expectPunct("(")
		for {
			s.Values = append(s.Values, p.term())
			if !p.acceptPunct(",") {
				break
			}
		}
		p.expectPunct(")")
	}
	s.IfNotExists = p.ifNotExists()
	p.using(&s.Using, false)
	return s
}

func (p *parser) updateStmt() *Update {
	p.expect("update")
	s := &Update{Table: p.qualifiedName("a table name")}
	p.using(&s.Using, false)
	p.expect("set")
	for {
		s.Set = append(s.Set, p.assignment())
		if !p.acceptPunct(",") {
			break
		}
	}
	p.expect("where")
	s.Where = p.whereClause()
	if p.accept("if") {
		if p.accept("exists") {
			s.IfExists = true
		} else {
			s.If = p.conditions()
		}
	}
	return s
}

func (p *parser) assignment() *Assignment {
	start := p.peek().Pos
	a := &Assignment{Pos: start, Column: p.cident("a column name")}
	switch {
	case p.acceptPunct("+="):
		a.Op, a.Value = AssignAdd, p.term()
	case p.acceptPunct("-="):
		a.Op, a.Value = AssignSub, p.term()
	case p.acceptPunct("["):
		a.Op, a.Key = AssignElement, p.term()
		p.expectPunct("]")
		p.expectPunct("=")
		a.Value = p.term()
	case p.acceptPunct("."):
		a.Op, a.Field = AssignField, p.ident("a field name")
		p.expectPunct("=")
		a.Value = p.term()
	default:
		p.expectPunct("=")
		// c = c + v, c = c - v, c = c -1 (lexed as c, INTEGER(-1)), c = v + c, c = v.
		if p.isColumn(0, a.Column) {
			n := p.peekN(1)
			switch {
			case n.IsPunct("+") || n.IsPunct("-"):
				p.next()
				p.next()
				a.Op = AssignAdd
				if n.Val == "-" {
					a.Op = AssignSub
				}
				a.Value = p.term()
				return a
			case n.Kind == TokInt:
				// Cassandra's grammar has a rule for this: "c = c -1" lexes as c, INTEGER(-1)
				// and means c - 1 (and so, oddly, "c = c 1" means c + 1).
				p.next()
				p.next()
				a.Op = AssignAdd
				a.Value = &Term{Kind: TermLiteral, Lit: TokInt, Value: n.Val, Pos: n.Pos, Text: n.Text}
				if strings.HasPrefix(n.Val, "-") {
					a.Op = AssignSub
					a.Value.Value = n.Val[1:]
				}
				return a
			}
		}
		// c = v + c prepends to a list. A bare column is not a term, so look for it first.
		save := p.i
		v := p.termMul()
		if p.isPunct("+") && p.isColumn(1, a.Column) {
			if after := p.peekN(2); after.IsPunct(",") || after.Is("where") {
				p.next()
				p.next()
				a.Op, a.Value = AssignPrepend, v
				return a
			}
		}
		p.i = save
		a.Op, a.Value = AssignSet, p.term()
	}
	return a
}

// isColumn reports whether the token n ahead names col (and is not a function call).
func (p *parser) isColumn(n int, col Ident) bool {
	t := p.peekN(n)
	if t.Kind != TokIdent && t.Kind != TokQuotedIdent {
		return false
	}
	return t.Val == col.Name && (t.Kind == TokQuotedIdent) == col.Quoted && !p.peekN(n+1).IsPunct("(")
}

func (p *parser) deleteStmt() *Delete {
	p.expect("delete")
	s := &Delete{}
	if !p.is("from") {
		for {
			start := p.peek().Pos
			d := &DeleteTarget{Pos: start, Column: p.cident("a column name")}
			if p.acceptPunct("[") {
				d.Key = p.term()
				p.expectPunct("]")
			} else if p.acceptPunct(".") {
				d.Field = p.ident("a field name")
			}
			s.Columns = append(s.Columns, d)
			if !p.acceptPunct(",") {
				break
			}
		}
	}
	p.expect("from")
	s.Table = p.qualifiedName("a table name")
	p.using(&s.Using, true)
	p.expect("where")
	s.Where = p.whereClause()
	if p.accept("if") {
		if p.accept("exists") {
			s.IfExists = true
		} else {
			s.If = p.conditions()
		}
	}
	return s
}

func (p *parser) batchStmt() *Batch {
	p.expect("begin")
	b := &Batch{}
	switch {
	case p.accept("unlogged"):
		b.Type = UnloggedBatch
	case p.accept("counter"):
		b.Type = CounterBatch
	}
	p.expect("batch")
	p.using(&b.Using, false)
	for !p.is("apply") {
		start := p.peek().Pos
		var st Statement
		switch {
		case p.is("insert"):
			st = p.insertStmt()
		case p.is("update"):
			st = p.updateStmt()
		case p.is("delete"):
			st = p.deleteStmt()
		default:
			p.failExpected("INSERT, UPDATE, DELETE or APPLY BATCH")
		}
		info := st.Info()
		info.Pos, info.End, info.Text = start, p.prevEnd(), p.textFrom(start)
		b.Statements = append(b.Statements, st)
		p.acceptPunct(";")
	}
	p.expect("apply", "batch")
	return b
}

// ---- types ----

// nativeType parses a native type name (CAST ... AS type).
func (p *parser) nativeType() Type {
	t := p.peek()
	if t.Kind == TokIdent {
		if n, ok := CanonicalNative(t.Val); ok {
			p.next()
			return Type{Kind: Native, Name: n}
		}
	}
	p.failExpected("a native type")
	return Type{}
}

// parseType parses a CQL type and returns it with its position. The result is normalised
// the way Cassandra stores it: tuples are frozen, and everything inside a frozen type or a
// tuple is frozen too (see Type.String).
func (p *parser) parseType() (Type, Pos) {
	pos := p.peek().Pos
	t := p.typ(0)
	return t, pos
}

// maxTypeDepth bounds type nesting so hostile input cannot exhaust the stack.
const maxTypeDepth = 100

func (p *parser) typ(depth int) Type {
	p.enter()
	defer p.leave()
	if depth > maxTypeDepth {
		p.fail(p.peek().Pos, "type nested more than %d levels deep", maxTypeDepth)
	}
	t := p.peek()
	if t.Kind == TokString {
		p.fail(t.Pos, "custom types ('%s') are not supported", t.Val)
	}
	if t.Kind == TokIdent && p.peekN(1).IsPunct("<") {
		switch t.Val {
		case "frozen":
			p.next()
			p.next()
			inner := p.typ(depth + 1)
			p.expectPunct(">")
			if inner.Kind == Native {
				p.fail(t.Pos, "frozen<> is only allowed on collections, tuples, and user-defined types (got %s)", inner.Name)
			}
			return inner.freeze()
		case "list", "set":
			p.next()
			p.next()
			elem := p.typ(depth + 1)
			p.expectPunct(">")
			k := List
			if t.Val == "set" {
				k = Set
			}
			return Type{Kind: k, Name: t.Val, Params: []Type{elem}}
		case "map":
			p.next()
			p.next()
			key := p.typ(depth + 1)
			p.expectPunct(",")
			val := p.typ(depth + 1)
			p.expectPunct(">")
			return Type{Kind: Map, Name: "map", Params: []Type{key, val}}
		case "tuple":
			p.next()
			p.next()
			var ps []Type
			for {
				ps = append(ps, p.typ(depth+1))
				if !p.acceptPunct(",") {
					break
				}
			}
			p.expectPunct(">")
			return Type{Kind: Tuple, Name: "tuple", Params: ps}.freeze()
		case "vector":
			p.next()
			p.next()
			elem := p.typ(depth + 1)
			p.expectPunct(",")
			d := p.peek()
			if d.Kind != TokInt {
				p.failExpected("the vector dimension")
			}
			p.next()
			p.expectPunct(">")
			n, err := strconv.Atoi(d.Val)
			if err != nil || n <= 0 {
				p.fail(d.Pos, "vectors may only have positive dimensions; given %s", d.Val)
			}
			return Type{Kind: Vector, Name: "vector", Params: []Type{elem}, Dim: n, Frozen: true}
		}
	}
	if t.Kind == TokIdent {
		if n, ok := CanonicalNative(t.Val); ok {
			p.next()
			return Type{Kind: Native, Name: n}
		}
	}
	// A user type: [keyspace.]name.
	q := p.qualifiedName("a type")
	return Type{Kind: UDT, Name: q.Name.Name, Keyspace: q.Keyspace.Name}
}

// ---- DDL ----

func (p *parser) createStmt() Statement {
	p.expect("create")
	orReplace := false
	if p.is("or") {
		p.expect("or", "replace")
		orReplace = true
	}
	switch {
	case orReplace && !(p.is("function") || p.is("aggregate")):
		p.failExpected("FUNCTION or AGGREGATE")
	case p.accept("keyspace") || p.accept("schema"):
		s := &CreateKeyspace{IfNotExists: p.ifNotExists()}
		s.Name = p.ident("a keyspace name")
		p.expect("with")
		s.Properties = p.properties()
		return s
	case p.accept("table") || p.accept("columnfamily"):
		return p.createTable()
	case p.is("custom") || p.is("index"):
		return p.createIndex()
	case p.accept("type"):
		s := &CreateType{IfNotExists: p.ifNotExists()}
		s.Name = p.userTypeName()
		p.expectPunct("(")
		for {
			start := p.peek().Pos
			f := &FieldDef{Name: p.ident("a field name")}
			_ = start
			f.Type, f.TypePos = p.parseType()
			s.Fields = append(s.Fields, f)
			if !p.acceptPunct(",") {
				break
			}
			if p.isPunct(")") { // a trailing comma is allowed
				break
			}
		}
		p.expectPunct(")")
		return s
	case p.is("materialized"):
		p.expect("materialized", "view")
		return p.createView()
	case p.accept("function"):
		return p.createFunction(orReplace)
	case p.accept("aggregate"):
		return p.createAggregate(orReplace)
	case p.accept("trigger"):
		s := &CreateTrigger{IfNotExists: p.ifNotExists()}
		s.Name = p.ident("a trigger name")
		p.expect("on")
		s.Table = p.qualifiedName("a table name")
		p.expect("using")
		s.Class = p.stringLit("the trigger class")
		return s
	case p.is("role"), p.is("user"):
		return p.authStmt("CREATE " + strings.ToUpper(p.peek().Val))
	}
	p.failExpected("KEYSPACE, TABLE, INDEX, TYPE, MATERIALIZED VIEW, FUNCTION, AGGREGATE, TRIGGER, ROLE or USER")
	return nil
}

func (p *parser) stringLit(what string) string {
	t := p.peek()
	if t.Kind != TokString {
		p.failExpected(what + " (a string)")
	}
	p.next()
	return t.Val
}

// userTypeName parses [keyspace.]name of a user type; native type names are not allowed.
func (p *parser) userTypeName() QualifiedName {
	q := p.qualifiedName("a type name")
	n := q.Name
	if !n.Quoted && isNativeKeyword(n.Name) {
		p.fail(n.Pos, "expected a type name, found the native type %s", n.Name)
	}
	if !n.Quoted {
		switch n.Name {
		case "byte", "complex", "enum", "date", "interval", "macaddr", "bitstring":
			p.fail(n.Pos, "invalid (reserved) user type name %s", n.Name)
		}
	}
	return q
}

func (p *parser) createTable() *CreateTable {
	s := &CreateTable{IfNotExists: p.ifNotExists()}
	s.Name = p.qualifiedName("a table name")
	p.expectPunct("(")
	for {
		if p.is("primary") {
			kp := p.expect("primary", "key").Pos
			s.KeyCount++
			s.KeyPos = kp
			p.expectPunct("(")
			if p.acceptPunct("(") {
				s.PartitionKey = nil
				for {
					s.PartitionKey = append(s.PartitionKey, p.ident("a column name"))
					if !p.acceptPunct(",") {
						break
					}
				}
				p.expectPunct(")")
			} else {
				s.PartitionKey = []Ident{p.ident("a column name")}
			}
			s.Clustering = nil
			for p.acceptPunct(",") {
				s.Clustering = append(s.Clustering, p.ident("a column name"))
			}
			p.expectPunct(")")
		} else {
			c := p.columnDef()
			if p.is("primary") {
				kp := p.expect("primary", "key").Pos
				c.PrimaryKey = true
				s.KeyCount++
				s.KeyPos = kp
				s.PartitionKey, s.Clustering = []Ident{c.Name}, nil
			}
			s.Columns = append(s.Columns, c)
		}
		if !p.acceptPunct(",") {
			break
		}
		if p.isPunct(")") { // Cassandra accepts a trailing comma
			break
		}
	}
	p.expectPunct(")")
	if p.accept("with") {
		for {
			switch {
			case p.is("compact") && p.isN(1, "storage"):
				p.next()
				p.next()
				s.CompactStorage = true
			case p.is("clustering") && p.isN(1, "order"):
				s.ClusteringOrder = p.clusteringOrder()
			default:
				s.Properties = append(s.Properties, p.property())
			}
			if !p.accept("and") {
				break
			}
		}
	}
	return s
}

// columnDef parses name type [STATIC] [MASKED WITH ...].
func (p *parser) columnDef() *ColumnDef {
	c := &ColumnDef{Name: p.ident("a column name")}
	c.Type, c.TypePos = p.parseType()
	if p.accept("static") {
		c.Static = true
	}
	if p.is("masked") {
		c.Mask = p.columnMask()
	}
	return c
}

// columnMask parses MASKED WITH DEFAULT | MASKED WITH fn(args) and returns the function.
func (p *parser) columnMask() string {
	p.expect("masked", "with")
	start := p.peek().Pos
	if p.accept("default") {
		return "mask_default()"
	}
	if _, ok := p.functionNameAhead(); !ok {
		p.failExpected("a masking function")
	}
	p.expectPunct("(")
	if !p.isPunct(")") {
		for {
			p.term()
			if !p.acceptPunct(",") {
				break
			}
		}
	}
	p.expectPunct(")")
	return p.textFrom(start)
}

func (p *parser) clusteringOrder() []ClusteringOrder {
	p.expect("clustering", "order", "by")
	p.expectPunct("(")
	var out []ClusteringOrder
	for {
		o := ClusteringOrder{Column: p.ident("a column name")}
		switch {
		case p.accept("desc"):
			o.Desc = true
		case p.accept("asc"):
		default:
			p.failExpected("ASC or DESC")
		}
		out = append(out, o)
		if !p.acceptPunct(",") {
			break
		}
	}
	p.expectPunct(")")
	return out
}

// properties parses name = value (AND name = value)*.
func (p *parser) properties() []*Property {
	var out []*Property
	for {
		out = append(out, p.property())
		if !p.accept("and") {
			return out
		}
	}
}

// property parses name = constant | name = {map of constants} | name = unreserved keyword.
func (p *parser) property() *Property {
	name := p.ident("an option name")
	p.expectPunct("=")
	t := p.peek()
	pr := &Property{Name: name, Pos: t.Pos}
	switch {
	case t.IsPunct("{"):
		p.next()
		pr.IsMap = true
		if !p.isPunct("}") {
			for {
				k := p.propertyConstant("an option key")
				p.expectPunct(":")
				v := p.propertyConstant("an option value")
				for _, e := range pr.Map {
					if e.Key == k {
						p.fail(t.Pos, "multiple definition for property %s", k)
					}
				}
				pr.Map = append(pr.Map, MapEntry{Key: k, Value: v})
				if !p.acceptPunct(",") {
					break
				}
			}
		}
		p.expectPunct("}")
	case isConstant(t):
		p.next()
		pr.Value, pr.Lit = t.Val, t.Kind
	case t.Kind == TokFloat:
		p.next()
		pr.Value, pr.Lit = t.Val, t.Kind
	case t.Kind == TokIdent && !isReserved(t.Val):
		p.next()
		pr.Value, pr.Lit = t.Val, TokIdent
	case t.Kind == TokQMark || t.IsPunct(":"):
		p.fail(t.Pos, "bind variables are not supported in DDL queries")
	default:
		p.failExpected("an option value")
	}
	return pr
}

func (p *parser) propertyConstant(what string) string {
	t := p.peek()
	if isConstant(t) || t.Kind == TokFloat {
		p.next()
		return t.Val
	}
	if t.Kind == TokQMark || t.IsPunct(":") {
		p.fail(t.Pos, "bind variables are not supported in DDL queries")
	}
	p.failExpected(what + " (a constant)")
	return ""
}

func (p *parser) createIndex() *CreateIndex {
	s := &CreateIndex{}
	if p.accept("custom") {
		s.Custom = true
	}
	p.expect("index")
	s.IfNotExists = p.ifNotExists()
	if !p.is("on") {
		s.Name = p.ident("an index name")
	}
	p.expect("on")
	s.Table = p.qualifiedName("a table name")
	p.expectPunct("(")
	if !p.isPunct(")") {
		for {
			t := p.peek()
			target := IndexTarget{Pos: t.Pos}
			if (t.Is("keys") || t.Is("values") || t.Is("entries") || t.Is("full")) && p.peekN(1).IsPunct("(") {
				p.next()
				p.next()
				target.Kind = t.Val
				target.Column = p.cident("a column name")
				p.expectPunct(")")
			} else {
				target.Column = p.cident("a column name")
			}
			s.Targets = append(s.Targets, target)
			if !p.acceptPunct(",") {
				break
			}
		}
	}
	p.expectPunct(")")
	if p.accept("using") {
		s.UsingPos = p.peek().Pos
		s.Using = p.stringLit("the index class")
	}
	if p.accept("with") {
		s.Properties = p.properties()
	}
	return s
}

func (p *parser) createView() *CreateView {
	s := &CreateView{IfNotExists: p.ifNotExists()}
	s.Name = p.qualifiedName("a view name")
	p.expect("as", "select")
	p.selectors(&s.Star, &s.Selectors)
	p.expect("from")
	s.Base = p.qualifiedName("a table name")
	if p.accept("where") {
		s.Where = p.whereClause()
	}
	s.KeyPos = p.expect("primary", "key").Pos
	p.expectPunct("(")
	if p.acceptPunct("(") {
		for {
			s.PartitionKey = append(s.PartitionKey, p.ident("a column name"))
			if !p.acceptPunct(",") {
				break
			}
		}
		p.expectPunct(")")
	} else {
		s.PartitionKey = []Ident{p.ident("a column name")}
	}
	for p.acceptPunct(",") {
		s.Clustering = append(s.Clustering, p.ident("a column name"))
	}
	p.expectPunct(")")
	if p.accept("with") {
		for {
			switch {
			case p.is("compact") && p.isN(1, "storage"):
				p.fail(p.peek().Pos, "COMPACT STORAGE tables are not allowed starting with version 4.0")
			case p.is("clustering") && p.isN(1, "order"):
				s.ClusteringOrder = p.clusteringOrder()
			default:
				s.Properties = append(s.Properties, p.property())
			}
			if !p.accept("and") {
				break
			}
		}
	}
	return s
}

// functionName parses [keyspace.]name of a function or aggregate.
func (p *parser) functionName() QualifiedName {
	okName := func(t Token) bool {
		return (t.Kind == TokIdent && (!isReserved(t.Val) || t.Val == "token")) || (t.Kind == TokQuotedIdent && t.Val != "")
	}
	t := p.peek()
	if !okName(t) {
		p.failExpected("a function name")
	}
	p.next()
	first := Ident{Name: t.Val, Quoted: t.Kind == TokQuotedIdent, Pos: t.Pos}
	if p.acceptPunct(".") {
		n := p.peek()
		if !okName(n) {
			p.failExpected("a function name")
		}
		p.next()
		return QualifiedName{Keyspace: first, Name: Ident{Name: n.Val, Quoted: n.Kind == TokQuotedIdent, Pos: n.Pos}}
	}
	return QualifiedName{Name: first}
}

func (p *parser) typeList() []Type {
	p.expectPunct("(")
	var out []Type
	if !p.isPunct(")") {
		for {
			t, _ := p.parseType()
			out = append(out, t)
			if !p.acceptPunct(",") {
				break
			}
		}
	}
	p.expectPunct(")")
	return out
}

func (p *parser) createFunction(orReplace bool) *CreateFunction {
	s := &CreateFunction{OrReplace: orReplace, IfNotExists: p.ifNotExists()}
	s.Name = p.functionName()
	p.expectPunct("(")
	if !p.isPunct(")") {
		for {
			a := FuncArg{Name: p.ident("an argument name")}
			a.Type, _ = p.parseType()
			s.Args = append(s.Args, a)
			if !p.acceptPunct(",") {
				break
			}
		}
	}
	p.expectPunct(")")
	switch {
	case p.accept("called"):
		s.CalledOnNullInput = true
	case p.is("returns"):
		p.expect("returns", "null")
	default:
		p.failExpected("CALLED or RETURNS NULL")
	}
	p.expect("on", "null", "input", "returns")
	s.Returns, _ = p.parseType()
	p.expect("language")
	lang := p.peek()
	if lang.Kind != TokIdent {
		p.failExpected("a language name")
	}
	p.next()
	s.Language = lang.Val
	p.expect("as")
	s.Body = p.stringLit("the function body")
	return s
}

func (p *parser) createAggregate(orReplace bool) *CreateAggregate {
	s := &CreateAggregate{OrReplace: orReplace, IfNotExists: p.ifNotExists()}
	s.Name = p.functionName()
	s.ArgTypes = p.typeList()
	p.expect("sfunc")
	s.SFunc = p.functionName().Name.Name
	p.expect("stype")
	s.SType, _ = p.parseType()
	if p.accept("finalfunc") {
		s.FinalFunc = p.functionName().Name.Name
	}
	if p.accept("initcond") {
		s.InitCond = p.term()
	}
	return s
}

func (p *parser) alterStmt() Statement {
	p.expect("alter")
	switch {
	case p.accept("keyspace") || p.accept("schema"):
		s := &AlterKeyspace{IfExists: p.ifExists()}
		s.Name = p.ident("a keyspace name")
		p.expect("with")
		s.Properties = p.properties()
		return s
	case p.accept("table") || p.accept("columnfamily"):
		return p.alterTable()
	case p.accept("type"):
		return p.alterType()
	case p.is("materialized"):
		p.expect("materialized", "view")
		s := &AlterView{IfExists: p.ifExists()}
		s.Name = p.qualifiedName("a view name")
		p.expect("with")
		s.Properties = p.properties()
		return s
	case p.is("role"), p.is("user"):
		return p.authStmt("ALTER " + strings.ToUpper(p.peek().Val))
	}
	p.failExpected("KEYSPACE, TABLE, TYPE, MATERIALIZED VIEW, ROLE or USER")
	return nil
}

func (p *parser) alterTable() *AlterTable {
	s := &AlterTable{IfExists: p.ifExists()}
	s.Name = p.qualifiedName("a table name")
	switch {
	case p.accept("alter"):
		if p.is("if") {
			s.IfColumn = p.ifExists()
		}
		s.Column = p.cident("a column name")
		switch {
		case !s.IfColumn && p.accept("type"):
			s.Action = AlterType
			t, _ := p.parseType()
			s.NewType = &t
		case p.is("masked"):
			s.Action = AlterMask
			s.Mask = p.columnMask()
		case p.is("drop"):
			p.expect("drop", "masked")
			s.Action = AlterMask
		default:
			p.failExpected("TYPE, MASKED WITH or DROP MASKED")
		}
	case p.accept("add"):
		s.Action = AlterAdd
		s.IfColumn = p.ifNotExists()
		if p.acceptPunct("(") {
			for {
				s.Add = append(s.Add, p.columnDef())
				if !p.acceptPunct(",") {
					break
				}
			}
			p.expectPunct(")")
		} else {
			s.Add = []*ColumnDef{p.columnDef()}
		}
	case p.is("drop") && p.isN(1, "compact"):
		p.expect("drop", "compact", "storage")
		s.Action = AlterDropCompactStorage
	case p.accept("drop"):
		s.Action = AlterDrop
		s.IfColumn = p.ifExists()
		if p.acceptPunct("(") {
			for {
				s.Drop = append(s.Drop, p.ident("a column name"))
				if !p.acceptPunct(",") {
					break
				}
			}
			p.expectPunct(")")
		} else {
			s.Drop = []Ident{p.ident("a column name")}
		}
		if p.accept("using") {
			p.expect("timestamp")
			t := p.peek()
			if t.Kind != TokInt {
				p.failExpected("an integer")
			}
			p.next()
			s.DropTimestamp = &Term{Kind: TermLiteral, Lit: TokInt, Value: t.Val, Pos: t.Pos, Text: t.Text}
		}
	case p.accept("rename"):
		s.Action = AlterRename
		s.IfColumn = p.ifExists()
		for {
			r := Rename{From: p.ident("a column name")}
			p.expect("to")
			r.To = p.ident("a column name")
			s.Renames = append(s.Renames, r)
			if !p.accept("and") {
				break
			}
		}
	case p.accept("with"):
		s.Action = AlterWith
		s.Properties = p.properties()
	default:
		p.failExpected("ADD, DROP, RENAME, ALTER or WITH")
	}
	return s
}

func (p *parser) alterType() *AlterUserType {
	s := &AlterUserType{IfExists: p.ifExists()}
	s.Name = p.userTypeName()
	switch {
	case p.accept("alter"):
		s.Action = AlterTypeAlter
		s.Field = p.ident("a field name")
		p.expect("type")
		t, _ := p.parseType()
		s.NewType = &t
	case p.accept("add"):
		s.Action = AlterTypeAdd
		s.IfField = p.ifNotExists()
		f := &FieldDef{Name: p.ident("a field name")}
		f.Type, f.TypePos = p.parseType()
		s.Add = f
	case p.accept("rename"):
		s.Action = AlterTypeRename
		s.IfField = p.ifExists()
		for {
			r := Rename{From: p.ident("a field name")}
			p.expect("to")
			r.To = p.ident("a field name")
			s.Renames = append(s.Renames, r)
			if !p.accept("and") {
				break
			}
		}
	default:
		p.failExpected("ADD, RENAME or ALTER")
	}
	return s
}

func (p *parser) dropStmt() Statement {
	p.expect("drop")
	switch {
	case p.accept("keyspace") || p.accept("schema"):
		s := &DropKeyspace{IfExists: p.ifExists()}
		s.Name = p.ident("a keyspace name")
		return s
	case p.accept("table") || p.accept("columnfamily"):
		s := &DropTable{IfExists: p.ifExists()}
		s.Name = p.qualifiedName("a table name")
		return s
	case p.accept("index"):
		s := &DropIndex{IfExists: p.ifExists()}
		s.Name = p.qualifiedName("an index name")
		return s
	case p.accept("type"):
		s := &DropType{IfExists: p.ifExists()}
		s.Name = p.userTypeName()
		return s
	case p.is("materialized"):
		p.expect("materialized", "view")
		s := &DropView{IfExists: p.ifExists()}
		s.Name = p.qualifiedName("a view name")
		return s
	case p.accept("function"):
		s := &DropFunction{IfExists: p.ifExists()}
		s.Name = p.functionName()
		if p.isPunct("(") {
			s.HasArgs, s.ArgTypes = true, p.typeList()
		}
		return s
	case p.accept("aggregate"):
		s := &DropAggregate{IfExists: p.ifExists()}
		s.Name = p.functionName()
		if p.isPunct("(") {
			s.HasArgs, s.ArgTypes = true, p.typeList()
		}
		return s
	case p.accept("trigger"):
		s := &DropTrigger{IfExists: p.ifExists()}
		s.Name = p.ident("a trigger name")
		p.expect("on")
		s.Table = p.qualifiedName("a table name")
		return s
	case p.is("role"), p.is("user"):
		return p.authStmt("DROP " + strings.ToUpper(p.peek().Val))
	}
	p.failExpected("KEYSPACE, TABLE, INDEX, TYPE, MATERIALIZED VIEW, FUNCTION, AGGREGATE, TRIGGER, ROLE or USER")
	return nil
}

// listStmt parses LIST ROLES / USERS / SUPERUSERS / permissions.
func (p *parser) listStmt() Statement {
	p.expect("list")
	switch {
	case p.is("roles"), p.is("users"), p.is("superusers"):
		verb := "LIST " + strings.ToUpper(p.next().Val)
		p.skipRest()
		return &Auth{Verb: verb}
	}
	p.skipRest()
	return &Auth{Verb: "LIST PERMISSIONS"}
}

// authStmt recognises a role, user or permission statement: the verb is checked and the
// name that follows must be there; the options are not modelled.
func (p *parser) authStmt(verb string) Statement {
	p.next() // ROLE, USER, or the GRANT/REVOKE keyword itself
	if t := p.peek(); t.Kind == TokEOF {
		p.failExpected("a role, user or permission")
	}
	p.skipRest()
	return &Auth{Verb: verb}
}
