package cql

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// TokenKind says what a token is.
type TokenKind int

// Token kinds, following Cassandra 5.0's lexer (src/antlr/Lexer.g).
const (
	TokEOF         TokenKind = iota
	TokIdent                 // an unquoted name or keyword; Val is folded to lower case
	TokQuotedIdent           // "Name"; Val has the quotes removed, "" unescaped and case kept
	TokString                // 'text' or $$text$$; Val is the content ('' unescaped)
	TokInt                   // -?[0-9]+
	TokFloat                 // 1.5, 1e10, -2.5E-3, 1., NaN, -NaN, Infinity, -Infinity
	TokBool                  // true or false, any case; Val is lower case
	TokDuration              // 1h30m, -2d, 10ms, 1µs, P1DT2H, PT10M, P2W, P0001-02-03T04:05:06
	TokUUID                  // 8-4-4-4-12 hex digits
	TokBlob                  // 0x followed by hex digits (possibly none)
	TokPunct                 // an operator or punctuation; Val is the operator, e.g. "<=" or ";"
	TokQMark                 // the anonymous bind marker ?
)

var kindNames = [...]string{
	TokEOF: "end of input", TokIdent: "identifier", TokQuotedIdent: "quoted identifier", TokString: "string",
	TokInt: "integer", TokFloat: "float", TokBool: "boolean", TokDuration: "duration", TokUUID: "uuid",
	TokBlob: "blob", TokPunct: "punctuation", TokQMark: "bind marker",
}

func (k TokenKind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("TokenKind(%d)", int(k))
}

// Token is one lexical element of a CQL source.
type Token struct {
	Kind TokenKind
	Text string // exactly as written in the source
	Val  string // the value: folded name, unescaped string, operator, number as written
	Pos  Pos    // the first byte
}

// End is the position just past the token's last byte.
func (t Token) End() Pos {
	e := t.Pos
	e.Offset += len(t.Text)
	if nl := strings.LastIndexByte(t.Text, '\n'); nl >= 0 {
		e.Line += strings.Count(t.Text, "\n")
		e.Col = len(t.Text) - nl
	} else {
		e.Col += len(t.Text)
	}
	return e
}

// Is reports whether t is the unquoted keyword or name kw (compared case-insensitively;
// kw must be lower case).
func (t Token) Is(kw string) bool { return t.Kind == TokIdent && t.Val == kw }

// IsPunct reports whether t is the operator or punctuation p.
func (t Token) IsPunct(p string) bool { return t.Kind == TokPunct && t.Val == p }

// Describe renders t for an error message: `"select"`, `';'`, `end of input`.
func (t Token) Describe() string {
	switch t.Kind {
	case TokEOF:
		return "end of input"
	case TokPunct, TokQMark:
		return "'" + t.Text + "'"
	case TokString:
		return "string " + shorten(t.Text)
	case TokIdent, TokQuotedIdent:
		return shorten(t.Text)
	}
	return t.Kind.String() + " " + shorten(t.Text)
}

func shorten(s string) string {
	if len(s) > 40 {
		// Cut on a rune boundary so the message stays valid UTF-8.
		i := 37
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		return s[:i] + "..."
	}
	return s
}

// Comment is a comment in a CQL source: -- and // run to the end of the line, /* */ does
// not nest (as in Cassandra: the first */ ends it).
type Comment struct {
	Text string // as written, markers included
	Pos  Pos
	End  Pos
}

// Lex splits src into tokens, ending with a TokEOF token. Comments and white space are
// dropped. The first error (an unterminated string, quoted name, comment or $$ body, or a
// character CQL does not allow) is an *Error at its start.
func Lex(file string, src []byte) ([]Token, error) {
	toks, _, err := lexAll(file, src, false)
	return toks, err
}

// lexAll lexes src, also returning the comments when keepComments is set.
func lexAll(file string, src []byte, keepComments bool) ([]Token, []Comment, error) {
	lx := lexer{file: file, src: string(src), line: 1}
	if strings.HasPrefix(lx.src, "\uFEFF") { // a UTF-8 byte order mark some editors write
		lx.off = 3
	}
	toks := make([]Token, 0, len(src)/4+1)
	var comments []Comment
	for {
		tok, com, err := lx.next()
		if err != nil {
			return toks, comments, err
		}
		if com != nil {
			if keepComments {
				comments = append(comments, *com)
			}
			continue
		}
		toks = append(toks, tok)
		if tok.Kind == TokEOF {
			return toks, comments, nil
		}
	}
}

type lexer struct {
	file      string
	src       string
	off       int
	line      int
	lineStart int
}

func (lx *lexer) pos() Pos {
	return Pos{File: lx.file, Line: lx.line, Col: lx.off - lx.lineStart + 1, Offset: lx.off}
}

func (lx *lexer) peek(i int) byte {
	if lx.off+i < len(lx.src) {
		return lx.src[lx.off+i]
	}
	return 0
}

// advance moves n bytes forward, counting lines.
func (lx *lexer) advance(n int) {
	end := lx.off + n
	for ; lx.off < end; lx.off++ {
		if lx.src[lx.off] == '\n' {
			lx.line++
			lx.lineStart = lx.off + 1
		}
	}
}

func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isHex(c byte) bool    { return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f') }
func isIdentByte(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '_'
}

// next returns the next token, or a comment, or an error.
func (lx *lexer) next() (Token, *Comment, error) {
	for lx.off < len(lx.src) {
		c := lx.src[lx.off]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			lx.advance(1)
			continue
		}
		break
	}
	start := lx.pos()
	if lx.off >= len(lx.src) {
		return Token{Kind: TokEOF, Pos: start}, nil, nil
	}
	c, c1 := lx.src[lx.off], lx.peek(1)
	switch {
	case (c == '-' && c1 == '-') || (c == '/' && c1 == '/'):
		n := strings.IndexAny(lx.src[lx.off:], "\n\r")
		if n < 0 {
			n = len(lx.src) - lx.off
		}
		lx.advance(n)
		return Token{}, &Comment{Text: lx.src[start.Offset:lx.off], Pos: start, End: lx.pos()}, nil
	case c == '/' && c1 == '*':
		n := strings.Index(lx.src[lx.off+2:], "*/")
		if n < 0 {
			return Token{}, nil, Errorf(start, "unterminated comment: /* has no closing */")
		}
		lx.advance(n + 4)
		return Token{}, &Comment{Text: lx.src[start.Offset:lx.off], Pos: start, End: lx.pos()}, nil
	case c == '\'':
		return lx.quoted(start, '\'', TokString, "string")
	case c == '"':
		return lx.quoted(start, '"', TokQuotedIdent, "quoted identifier")
	case c == '$' && c1 == '$':
		n := strings.Index(lx.src[lx.off+2:], "$$")
		if n < 0 {
			return Token{}, nil, Errorf(start, "unterminated $$ string: no closing $$")
		}
		val := lx.src[lx.off+2 : lx.off+2+n]
		lx.advance(n + 4)
		return lx.tok(TokString, start, val), nil, nil
	}
	if n := lx.matchUUID(); n > 0 {
		lx.advance(n)
		return lx.tok(TokUUID, start, ""), nil, nil
	}
	switch {
	case isDigit(c) || (c == '-' && isDigit(c1)):
		return lx.number(start), nil, nil
	case c == '-' || c == 'P':
		if n := matchISODuration(lx.src[lx.off:]); n > 0 && (c == '-' || lx.off+n >= len(lx.src) || !isIdentByte(lx.src[lx.off+n])) {
			lx.advance(n)
			return lx.tok(TokDuration, start, ""), nil, nil
		}
		if c == '-' {
			for _, w := range []string{"nan", "infinity"} {
				if n := len(w) + 1; lx.off+n <= len(lx.src) && strings.EqualFold(lx.src[lx.off+1:lx.off+n], w) &&
					(lx.off+n == len(lx.src) || !isIdentByte(lx.src[lx.off+n])) {
					lx.advance(n)
					return lx.tok(TokFloat, start, ""), nil, nil
				}
			}
		}
	}
	if isLetter(c) {
		n := 1
		for lx.off+n < len(lx.src) && isIdentByte(lx.src[lx.off+n]) {
			n++
		}
		lx.advance(n)
		t := lx.tok(TokIdent, start, foldName(lx.src[start.Offset:lx.off]))
		switch t.Val {
		case "true", "false":
			t.Kind = TokBool
		case "nan", "infinity":
			t.Kind = TokFloat
			t.Val = t.Text
		}
		return t, nil, nil
	}
	if c == '?' {
		lx.advance(1)
		return lx.tok(TokQMark, start, "?"), nil, nil
	}
	for _, p := range [...]string{"<=", ">=", "!=", "+=", "-=", ".."} {
		if c == p[0] && c1 == p[1] {
			lx.advance(2)
			return lx.tok(TokPunct, start, p), nil, nil
		}
	}
	if strings.IndexByte("()[]{},;.:=<>+-*/%", c) >= 0 {
		lx.advance(1)
		return lx.tok(TokPunct, start, string(c)), nil, nil
	}
	r, _ := utf8.DecodeRuneInString(lx.src[lx.off:])
	if r == utf8.RuneError {
		return Token{}, nil, Errorf(start, "unexpected byte 0x%02x: not valid UTF-8", c)
	}
	return Token{}, nil, Errorf(start, "unexpected character %q (U+%04X)", r, r)
}

// foldName lower-cases an unquoted name. Keywords come back as one shared string, so a
// file of upper-case CQL does not allocate a string per keyword.
func foldName(s string) string {
	upper := false
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			upper = true
			break
		}
	}
	if !upper {
		return s
	}
	var buf [24]byte
	if len(s) <= len(buf) {
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			buf[i] = c
		}
		if kw, ok := keywords[string(buf[:len(s)])]; ok {
			return kw
		}
	}
	return strings.ToLower(s)
}

// keywords are the words that are commonly written in upper case.
var keywords = func() map[string]string {
	m := map[string]string{}
	for _, w := range strings.Fields(`add allow alter and apply as asc batch begin by clustering compact
		contains count create custom delete desc distinct drop exists filtering frozen from grant
		if in index insert into is json key keys keyspace limit list map materialized not null
		of on or order partition per primary rename replace select set static storage table
		timestamp to token truncate ttl tuple type unlogged update use using values vector view
		where with writetime`) {
		m[w] = w
	}
	for w := range reservedKeywords {
		m[w] = w
	}
	for _, w := range NativeTypes {
		m[w] = w
	}
	m["varchar"] = "varchar"
	return m
}()

// tok builds a token from start to the current offset. An empty val means "the text".
func (lx *lexer) tok(kind TokenKind, start Pos, val string) Token {
	text := lx.src[start.Offset:lx.off]
	if val == "" && kind != TokString && kind != TokQuotedIdent {
		val = text
	}
	return Token{Kind: kind, Text: text, Val: val, Pos: start}
}

// quoted lexes a 'string' or a "quoted name", where a doubled quote stands for itself.
func (lx *lexer) quoted(start Pos, q byte, kind TokenKind, what string) (Token, *Comment, error) {
	i := lx.off + 1
	var b strings.Builder
	escaped := false
	for {
		j := strings.IndexByte(lx.src[i:], q)
		if j < 0 {
			return Token{}, nil, Errorf(start, "unterminated %s: no closing %c", what, q)
		}
		if i+j+1 < len(lx.src) && lx.src[i+j+1] == q {
			b.WriteString(lx.src[i : i+j+1])
			i += j + 2
			escaped = true
			continue
		}
		var val string
		if escaped {
			b.WriteString(lx.src[i : i+j])
			val = b.String()
		} else {
			val = lx.src[lx.off+1 : i+j]
		}
		lx.advance(i + j + 1 - lx.off)
		return lx.tok(kind, start, val), nil, nil
	}
}

// matchUUID returns the length of a TokUUID at the current offset, or 0.
func (lx *lexer) matchUUID() int {
	const n = 36
	if lx.off+n > len(lx.src) {
		return 0
	}
	s := lx.src[lx.off : lx.off+n]
	for i := 0; i < n; i++ {
		switch i {
		case 8, 13, 18, 23:
			if s[i] != '-' {
				return 0
			}
		default:
			if !isHex(s[i]) {
				return 0
			}
		}
	}
	return n
}

// number lexes an integer, float, blob or duration starting with a digit or '-'.
func (lx *lexer) number(start Pos) Token {
	s := lx.src[lx.off:]
	if len(s) > 1 && s[0] == '0' && s[1]|0x20 == 'x' {
		n := 2
		for n < len(s) && isHex(s[n]) {
			n++
		}
		lx.advance(n)
		return lx.tok(TokBlob, start, "")
	}
	if n := matchDuration(s); n > 0 {
		lx.advance(n)
		return lx.tok(TokDuration, start, "")
	}
	n := 0
	if s[0] == '-' {
		n++
	}
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	kind := TokInt
	// "1..2" is INTEGER RANGE INTEGER (collection slices), not a float.
	if n < len(s) && s[n] == '.' && !(n+1 < len(s) && s[n+1] == '.') {
		kind = TokFloat
		n++
		for n < len(s) && isDigit(s[n]) {
			n++
		}
	}
	if n < len(s) && s[n]|0x20 == 'e' {
		m := n + 1
		if m < len(s) && (s[m] == '+' || s[m] == '-') {
			m++
		}
		if m < len(s) && isDigit(s[m]) {
			for m < len(s) && isDigit(s[m]) {
				m++
			}
			kind, n = TokFloat, m
		}
	}
	lx.advance(n)
	return lx.tok(kind, start, "")
}

// durationUnits in the order they must be tried: two-letter units before their one-letter
// prefixes, so 1ms is milliseconds and 1mo a month.
var durationUnits = [...]string{"mo", "ms", "us", "µs", "ns", "y", "w", "d", "h", "m", "s"}

// matchDuration returns the length of a duration like 1h30m or -10ms at the start of s, or 0.
func matchDuration(s string) int {
	n := 0
	if n < len(s) && s[n] == '-' {
		n++
	}
	groups := 0
	for {
		d := n
		for d < len(s) && isDigit(s[d]) {
			d++
		}
		if d == n {
			break
		}
		u := matchUnit(s[d:])
		if u == 0 {
			break
		}
		n = d + u
		groups++
	}
	if groups == 0 {
		return 0
	}
	return n
}

func matchUnit(s string) int {
	for _, u := range durationUnits {
		if len(s) >= len(u) && strings.EqualFold(s[:len(u)], u) {
			return len(u)
		}
	}
	return 0
}

// matchISODuration returns the length of an ISO 8601 duration (P1Y2M3DT4H5M6S, P2W, PT1H,
// P0001-02-03T04:05:06, each optionally preceded by '-') at the start of s, or 0. Designators
// are upper case, as Cassandra's lexer requires.
func matchISODuration(s string) int {
	n := 0
	if n < len(s) && s[n] == '-' {
		n++
	}
	if n >= len(s) || s[n] != 'P' {
		return 0
	}
	n++
	if m := matchPattern(s[n:], "dddd-dd-ddTdd:dd:dd"); m > 0 {
		return n + m
	}
	if m := designators(s[n:], "W"); m > 0 {
		return n + m
	}
	date := designators(s[n:], "YMD")
	n += date
	if n < len(s) && s[n] == 'T' {
		if t := designators(s[n+1:], "HMS"); t > 0 {
			return n + 1 + t
		}
	}
	if date == 0 {
		return 0
	}
	return n
}

// designators matches groups of digits each followed by one of letters, in order, each
// letter at most once; it returns the length matched (0 for no group).
func designators(s, letters string) int {
	n := 0
	for {
		d := n
		for d < len(s) && isDigit(s[d]) {
			d++
		}
		if d == n || d >= len(s) {
			return n
		}
		i := strings.IndexByte(letters, s[d])
		if i < 0 {
			return n
		}
		letters = letters[i+1:]
		n = d + 1
	}
}

// matchPattern matches s against a pattern where 'd' is a digit and any other byte itself.
func matchPattern(s, pattern string) int {
	if len(s) < len(pattern) {
		return 0
	}
	for i := 0; i < len(pattern); i++ {
		if pattern[i] == 'd' {
			if !isDigit(s[i]) {
				return 0
			}
		} else if s[i] != pattern[i] {
			return 0
		}
	}
	return len(pattern)
}
