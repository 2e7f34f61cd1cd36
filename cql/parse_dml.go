package cql

import "strings"

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
		return done(p.selWritetime())
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
				s.Args = p.selectorList()
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
		return done(p.selParenthesized())
	case t.IsPunct("["):
		p.next()
		s := &Selector{Kind: SelList}
		if !p.isPunct("]") {
			s.Args = p.selectorList()
		}
		p.expectPunct("]")
		return done(s)
	case t.IsPunct("{"):
		return done(p.selSetOrMap())
	}
	p.failExpected("a selector")
	return nil
}

// selectorList reads selectors separated by commas.
func (p *parser) selectorList() []*Selector {
	var out []*Selector
	for {
		out = append(out, p.selectorExpr())
		if !p.acceptPunct(",") {
			return out
		}
	}
}

// selWritetime reads writetime(col), maxwritetime(col) or ttl(col), the column possibly
// with an element or field modifier.
func (p *parser) selWritetime() *Selector {
	fn := p.next().Val
	p.next()
	colStart := p.peek().Pos
	col := p.cident("a column name")
	inner := p.selModifiers(&Selector{Kind: SelColumn, Column: col, Pos: colStart, Text: p.textFrom(colStart)}, colStart)
	p.expectPunct(")")
	s := &Selector{Kind: SelWritetime, Func: fn, Column: col}
	if inner.Kind != SelColumn {
		s.Args = []*Selector{inner}
	}
	return s
}

// selParenthesized reads a (type) selector hint, a tuple (a, b), or a parenthesized (a).
func (p *parser) selParenthesized() *Selector {
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
		return &Selector{Kind: SelTypeHint, Type: &typ, Args: []*Selector{arg}}
	}
	p.i = save
	p.next()
	s := &Selector{Kind: SelTuple, Args: p.selectorList()}
	p.expectPunct(")")
	return s
}

// selSetOrMap reads a set literal {a, b} or a map literal {k: v, ...}.
func (p *parser) selSetOrMap() *Selector {
	p.next()
	s := &Selector{Kind: SelSet}
	if p.acceptPunct("}") {
		return s
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
	return s
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
	case t.Is("expr") && p.peekN(1).IsPunct("(") && p.peekN(1).Pos.Offset == t.Pos.Offset+len(t.Text):
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
