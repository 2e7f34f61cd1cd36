package check

import "github.com/cqlsize/cqlsize/cql"

// rawStatement mirrors cql.RawStatement until the cql package's splitter lands.
// TODO(check): replace with cql.SplitStatements.
type rawStatement struct {
	Text     string
	Pos, End cql.Pos
}

// splitStatements splits src on ';' outside strings, quoted identifiers, comments and
// $$ bodies. It is a stand-in for cql.SplitStatements.
func splitStatements(file string, src []byte) ([]rawStatement, error) {
	var out []rawStatement
	start := 0
	i := 0
	emit := func(end int) {
		text := string(src[start:end])
		out = append(out, rawStatement{Text: text, Pos: posAt(file, src, start), End: posAt(file, src, end)})
	}
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\'' || c == '"':
			open := i
			i++
			for {
				if i >= len(src) {
					return nil, cql.Errorf(posAt(file, src, open), "expected a closing %c, found end of file", c)
				}
				if src[i] == c {
					if i+1 < len(src) && src[i+1] == c {
						i += 2
						continue
					}
					i++
					break
				}
				i++
			}
		case c == '$' && i+1 < len(src) && src[i+1] == '$':
			open := i
			i += 2
			for {
				if i+1 >= len(src) {
					return nil, cql.Errorf(posAt(file, src, open), "expected a closing $$, found end of file")
				}
				if src[i] == '$' && src[i+1] == '$' {
					i += 2
					break
				}
				i++
			}
		case c == '-' && i+1 < len(src) && src[i+1] == '-', c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			open := i
			i += 2
			for {
				if i+1 >= len(src) {
					return nil, cql.Errorf(posAt(file, src, open), "expected */ to close the comment, found end of file")
				}
				if src[i] == '*' && src[i+1] == '/' {
					i += 2
					break
				}
				i++
			}
		case c == ';':
			i++
			emit(i)
			start = i
		default:
			i++
		}
	}
	emit(len(src))
	return out, nil
}
