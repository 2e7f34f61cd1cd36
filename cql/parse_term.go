package cql

import (
	"math"
	"strconv"
)

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
			if err != nil || n > math.MaxInt32 {
				// 5.0 reads the dimension as a Java int: "NumberFormatException For input string".
				p.fail(d.Pos, "vector dimension %s is over 2147483647: NumberFormatException For input string: %q", d.Val, d.Val)
			}
			if n <= 0 {
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
