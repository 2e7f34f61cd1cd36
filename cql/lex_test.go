package cql

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestLexGolden(t *testing.T) {
	for _, in := range inputs(t, "lex/*.cql") {
		t.Run(in, func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			toks, err := Lex("f.cql", src)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for _, tok := range toks {
				fmt.Fprintf(&b, "%d:%d-%d:%d\t%s\t%q", tok.Pos.Line, tok.Pos.Col, tok.End().Line, tok.End().Col, tok.Kind, tok.Text)
				if tok.Val != tok.Text {
					fmt.Fprintf(&b, "\t=> %q", tok.Val)
				}
				b.WriteByte('\n')
				if src := string(src); tok.Kind != TokEOF && src[tok.Pos.Offset:tok.End().Offset] != tok.Text {
					t.Errorf("token %q: offsets %d..%d hold %q", tok.Text, tok.Pos.Offset, tok.End().Offset, src[tok.Pos.Offset:tok.End().Offset])
				}
			}
			golden(t, strings.TrimSuffix(in, ".cql")+".golden", []byte(b.String()))
		})
	}
}

func TestLexTokens(t *testing.T) {
	tests := []struct {
		src  string
		want string // kind:text pairs
	}{
		{"a-1", "identifier:a integer:-1"}, // INTEGER includes its sign, as in Cassandra
		{"a - 1", "identifier:a punctuation:- integer:1"},
		{"1..3", "integer:1 punctuation:.. integer:3"},
		{"1.5..3", "float:1.5 punctuation:.. integer:3"},
		// Block comments do not nest: the first */ ends the comment, so "c */" is tokens.
		{"x /* a /* b */ c */", "identifier:x identifier:c punctuation:* punctuation:/"},
		{"5b6962dd", "integer:5 identifier:b6962dd"},
		{"1mo 1ms 1m 1MO", "duration:1mo duration:1ms duration:1m duration:1MO"},
		{"P1DT", "identifier:P1DT"}, // a longer identifier wins over a duration
		{"p1d", "identifier:p1d"},   // ISO designators are upper case only
		{"PT", "identifier:PT"},
		{"-P1D", "duration:-P1D"},
		{"1e", "integer:1 identifier:e"},
		{"nanx -nanx", "identifier:nanx punctuation:- identifier:nanx"},
		{`""`, "quoted identifier:\"\""},
		{`""""`, "quoted identifier:\"\"\"\""},
		{"\uFEFFselect", "identifier:select"},
		{"x--", "identifier:x"},
		{"x//", "identifier:x"},
		{"x/**/y", "identifier:x identifier:y"},
		{"$$$$", "string:$$$$"},
		{"'a''''b'", "string:'a''''b'"},
	}
	for _, tt := range tests {
		toks, err := Lex("", []byte(tt.src))
		if err != nil {
			t.Errorf("Lex(%q): %v", tt.src, err)
			continue
		}
		var got []string
		for _, tok := range toks[:len(toks)-1] {
			got = append(got, tok.Kind.String()+":"+tok.Text)
		}
		if g := strings.Join(got, " "); g != tt.want {
			t.Errorf("Lex(%q) = %s, want %s", tt.src, g, tt.want)
		}
	}
}

func TestLexValues(t *testing.T) {
	toks, err := Lex("", []byte(`'it''s' "A""b" $$x'y$$ FooBar`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"it's", `A"b`, "x'y", "foobar"}
	for i, w := range want {
		if toks[i].Val != w {
			t.Errorf("token %d value = %q, want %q", i, toks[i].Val, w)
		}
	}
}

func TestLexErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"SELECT 'abc", "f.cql:1:8: unterminated string: no closing '"},
		{"SELECT\n  \"abc", "f.cql:2:3: unterminated quoted identifier: no closing \""},
		{"a\n/* never closed", "f.cql:2:1: unterminated comment: /* has no closing */"},
		{"AS $$ body", "f.cql:1:4: unterminated $$ string: no closing $$"},
		{"a @ b", "f.cql:1:3: unexpected character '@' (U+0040)"},
		{"a $ b", "f.cql:1:3: unexpected character '$' (U+0024)"},
		{"é", "f.cql:1:1: unexpected character 'é' (U+00E9)"},
		{"a \xff", "f.cql:1:3: unexpected byte 0xff: not valid UTF-8"},
	}
	for _, tt := range tests {
		_, err := Lex("f.cql", []byte(tt.src))
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Lex(%q) error = %v, want *Error", tt.src, err)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("Lex(%q) error = %q, want %q", tt.src, err, tt.want)
		}
	}
}
