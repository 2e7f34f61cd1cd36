package cql

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestSplitGolden(t *testing.T) {
	for _, in := range inputs(t, "split/*.cql") {
		t.Run(in, func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			stmts, err := SplitStatements(in, src)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for i, s := range stmts {
				fmt.Fprintf(&b, "== %d at %s to %d:%d\n", i+1, s.Pos, s.End.Line, s.End.Col)
				if s.Doc != "" {
					fmt.Fprintf(&b, "doc:\n%s\n", s.Doc)
				}
				fmt.Fprintf(&b, "text:\n%s\n", s.Text)
				if got := string(src[s.Pos.Offset:s.End.Offset]); got != s.Text {
					t.Errorf("statement %d: offsets hold %q, Text is %q", i+1, got, s.Text)
				}
			}
			golden(t, strings.TrimSuffix(in, ".cql")+".golden", []byte(b.String()))
		})
	}
}

func TestSplitErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"SELECT 1;\nSELECT 'x;", "f.cql:2:8: unterminated string: no closing '"},
		{"CREATE FUNCTION f() AS $$ x;", "f.cql:1:24: unterminated $$ string: no closing $$"},
		{"SELECT 1; /* x; y", "f.cql:1:11: unterminated comment: /* has no closing */"},
		{"SELECT 1;\n  BEGIN BATCH INSERT INTO t (k) VALUES (1);", "f.cql:2:3: unterminated batch: BEGIN BATCH has no APPLY BATCH"},
	}
	for _, tt := range tests {
		_, err := SplitStatements("f.cql", []byte(tt.src))
		var e *Error
		if !errors.As(err, &e) || err.Error() != tt.want {
			t.Errorf("SplitStatements(%q) error = %v, want %q", tt.src, err, tt.want)
		}
	}
}

func TestSplitEmpty(t *testing.T) {
	for _, src := range []string{"", "  \n", ";;;", "-- only a comment", "/* c */ ; -- x"} {
		stmts, err := SplitStatements("", []byte(src))
		if err != nil || len(stmts) != 0 {
			t.Errorf("SplitStatements(%q) = %v, %v; want nothing", src, stmts, err)
		}
	}
}
