package cql

import "strings"

// RawStatement is one statement of a CQL source, not yet parsed.
type RawStatement struct {
	Text string // the statement as written, without the trailing ';', trimmed
	Pos  Pos    // its first token
	End  Pos    // just past its last token (the ';' is not part of it)
	// Doc is the block of comments right above the statement (no blank line between, none
	// on the line that ends the previous statement), as written, one comment per line.
	// Annotations such as "-- query: by_user rate=200/s" live here.
	Doc string
}

// SplitStatements splits a CQL source into statements at each top-level ';'.
//
// We do not split the way gocqlx/migrate does: it cuts on every ';' (so a ';' inside a
// string literal, a comment or a $$ function body breaks a migration), and v3 also skips
// the statement that follows a leading "--" comment line. Here the source is lexed as
// Cassandra lexes it, so ';' only separates statements outside strings, quoted names,
// comments and $$ bodies, and comments never swallow what follows them. A
// BEGIN [UNLOGGED|COUNTER] BATCH ... APPLY BATCH block is one statement even though the
// statements inside it end with ';'. Empty statements (";;") are dropped.
//
// An unterminated string, quoted name, comment, $$ body or batch, or a character CQL does
// not allow, is an *Error at its start.
func SplitStatements(file string, src []byte) ([]RawStatement, error) {
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
	out := make([]RawStatement, 0, len(spans))
	for i, sp := range spans {
		first, last := toks[sp.from], toks[sp.to-1]
		out = append(out, RawStatement{
			Text: text[first.Pos.Offset:last.End().Offset],
			Pos:  first.Pos,
			End:  last.End(),
			Doc:  docs[i],
		})
	}
	return out, nil
}

// docComments returns the doc comment of each span (see RawStatement.Doc): the block of
// comments that ends on the line above the statement (or on its first line), with no blank
// line inside, leaving out a comment that trails the previous statement on its last line.
func docComments(toks []Token, spans []span, comments []Comment) []string {
	out := make([]string, len(spans))
	if len(comments) == 0 {
		return out
	}
	ci, prevEndLine := 0, 0
	for i, sp := range spans {
		first, last := toks[sp.from], toks[sp.to-1]
		var doc []Comment
		for ci < len(comments) && comments[ci].Pos.Offset < first.Pos.Offset {
			c := comments[ci]
			ci++
			if c.Pos.Line == prevEndLine {
				continue
			}
			if len(doc) > 0 && c.Pos.Line > doc[len(doc)-1].End.Line+1 {
				doc = doc[:0]
			}
			doc = append(doc, c)
		}
		if len(doc) > 0 && first.Pos.Line > doc[len(doc)-1].End.Line+1 {
			doc = nil
		}
		for ci < len(comments) && comments[ci].Pos.Offset < last.End().Offset {
			ci++
		}
		out[i] = joinComments(doc)
		prevEndLine = sp.endLine
	}
	return out
}

func joinComments(cs []Comment) string {
	if len(cs) == 0 {
		return ""
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.Text
	}
	return strings.Join(parts, "\n")
}

// span is a statement as a token range [from, to) of a token slice, and the line of the
// ';' (or last token) that ends it.
type span struct {
	from, to int
	endLine  int
}

// splitTokens cuts toks (ending with TokEOF) into statements at top-level ';'.
func splitTokens(toks []Token) ([]span, error) {
	var out []span
	start := 0
	inBatch := false
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if i == start && isBatchStart(toks[i:]) {
			inBatch = true
		}
		if t.Kind == TokEOF || t.IsPunct(";") {
			if inBatch && t.Kind != TokEOF && !(i-start >= 2 && toks[i-2].Is("apply") && toks[i-1].Is("batch")) {
				continue // a ';' between the statements of a batch
			}
			if inBatch && t.Kind == TokEOF && !(i-start >= 2 && toks[i-2].Is("apply") && toks[i-1].Is("batch")) {
				return nil, Errorf(toks[start].Pos, "unterminated batch: BEGIN BATCH has no APPLY BATCH")
			}
			if i > start {
				out = append(out, span{from: start, to: i, endLine: t.Pos.Line})
			}
			start = i + 1
			inBatch = false
		}
	}
	return out, nil
}

// isBatchStart reports whether toks begins with BEGIN [UNLOGGED|COUNTER] BATCH.
func isBatchStart(toks []Token) bool {
	if len(toks) < 2 || !toks[0].Is("begin") {
		return false
	}
	if toks[1].Is("unlogged") || toks[1].Is("counter") {
		return len(toks) > 2 && toks[2].Is("batch")
	}
	return toks[1].Is("batch")
}
