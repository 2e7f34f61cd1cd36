package liveschema

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
)

// parseType reads a type as system_schema prints it ("frozen<map<text, int>>",
// "vector<float, 3>", "frozen<tuple<int, text>>", "frozen<\"Addr\">") into the model.
// A custom type ('org.apache...') becomes a native type named by its class string, so
// it still compares equal to itself.
func parseType(s string) (cql.Type, error) {
	p := &typeParser{s: s}
	t, err := p.parse()
	if err != nil {
		return cql.Type{}, fmt.Errorf("parse column type %q: %w", s, err)
	}
	p.space()
	if p.i != len(p.s) {
		return cql.Type{}, fmt.Errorf("parse column type %q: unexpected %q at offset %d", s, p.s[p.i:], p.i)
	}
	return t, nil
}

type typeParser struct {
	s string
	i int
}

func (p *typeParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *typeParser) peek() byte {
	p.space()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *typeParser) expect(c byte) error {
	if p.peek() != c {
		return fmt.Errorf("want %q at offset %d", c, p.i)
	}
	p.i++
	return nil
}

// ident reads a name, unquoting "double quoted" names (with "" for a quote) and keeping
// 'single quoted' custom class names whole.
func (p *typeParser) ident() (name string, quoted bool, err error) {
	p.space()
	if p.i >= len(p.s) {
		return "", false, fmt.Errorf("want a type name at offset %d", p.i)
	}
	switch p.s[p.i] {
	case '"':
		var b strings.Builder
		for j := p.i + 1; j < len(p.s); j++ {
			if p.s[j] == '"' {
				if j+1 < len(p.s) && p.s[j+1] == '"' {
					b.WriteByte('"')
					j++
					continue
				}
				p.i = j + 1
				return b.String(), true, nil
			}
			b.WriteByte(p.s[j])
		}
		return "", false, fmt.Errorf("unterminated quoted name at offset %d", p.i)
	case '\'':
		end := strings.IndexByte(p.s[p.i+1:], '\'')
		if end < 0 {
			return "", false, fmt.Errorf("unterminated custom type at offset %d", p.i)
		}
		name = p.s[p.i : p.i+end+2]
		p.i += end + 2
		return name, true, nil
	}
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			p.i++
			continue
		}
		break
	}
	if start == p.i {
		return "", false, fmt.Errorf("want a type name at offset %d, found %q", p.i, p.s[p.i:])
	}
	return p.s[start:p.i], false, nil
}

func (p *typeParser) params(n int) ([]cql.Type, error) {
	if err := p.expect('<'); err != nil {
		return nil, err
	}
	var out []cql.Type
	for {
		t, err := p.parse()
		if err != nil {
			return nil, err
		}
		out = append(out, t)
		if p.peek() == ',' {
			p.i++
			continue
		}
		break
	}
	if err := p.expect('>'); err != nil {
		return nil, err
	}
	if n > 0 && len(out) != n {
		return nil, fmt.Errorf("want %d type parameters, got %d", n, len(out))
	}
	return out, nil
}

func (p *typeParser) parse() (cql.Type, error) {
	name, quoted, err := p.ident()
	if err != nil {
		return cql.Type{}, err
	}
	if quoted {
		if strings.HasPrefix(name, "'") {
			return cql.Type{Kind: cql.Native, Name: name}, nil
		}
		return cql.Type{Kind: cql.UDT, Name: name}, nil
	}
	lower := strings.ToLower(name)
	switch lower {
	case "frozen":
		ps, err := p.params(1)
		if err != nil {
			return cql.Type{}, err
		}
		t := ps[0]
		t.Frozen = true
		return t, nil
	case "list", "set":
		ps, err := p.params(1)
		if err != nil {
			return cql.Type{}, err
		}
		k := cql.List
		if lower == "set" {
			k = cql.Set
		}
		return cql.Type{Kind: k, Name: lower, Params: ps}, nil
	case "map":
		ps, err := p.params(2)
		if err != nil {
			return cql.Type{}, err
		}
		return cql.Type{Kind: cql.Map, Name: lower, Params: ps}, nil
	case "tuple":
		ps, err := p.params(0)
		if err != nil {
			return cql.Type{}, err
		}
		return cql.Type{Kind: cql.Tuple, Name: lower, Params: ps, Frozen: true}, nil
	case "vector":
		if err := p.expect('<'); err != nil {
			return cql.Type{}, err
		}
		elem, err := p.parse()
		if err != nil {
			return cql.Type{}, err
		}
		if err := p.expect(','); err != nil {
			return cql.Type{}, err
		}
		p.space()
		start := p.i
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
		dim, err := strconv.Atoi(p.s[start:p.i])
		if err != nil {
			return cql.Type{}, fmt.Errorf("vector dimension at offset %d: %w", start, err)
		}
		if err := p.expect('>'); err != nil {
			return cql.Type{}, err
		}
		return cql.Type{Kind: cql.Vector, Name: lower, Params: []cql.Type{elem}, Dim: dim, Frozen: true}, nil
	}
	if n, ok := cql.CanonicalNative(lower); ok {
		return cql.Type{Kind: cql.Native, Name: n}, nil
	}
	// A user type: system_schema prints it unqualified (it lives in the column's keyspace)
	// and quoted only when its name needs quotes.
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return cql.Type{Kind: cql.UDT, Keyspace: name[:i], Name: name[i+1:]}, nil
	}
	return cql.Type{Kind: cql.UDT, Name: name}, nil
}
