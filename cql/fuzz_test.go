package cql

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// seedFuzz adds every .cql file under testdata to f's corpus.
func seedFuzz(f *testing.F) {
	f.Helper()
	err := filepath.WalkDir("testdata", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".cql") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f.Add(src)
		return nil
	})
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"", ";", "'", "\"", "$$", "/*", "--", "BEGIN BATCH", "-P1D", "0x", "1..2", "\uFEFF"} {
		f.Add([]byte(s))
	}
}

// checkPos fails t unless p is a valid position in src: line >= 1, offset within src, and
// line and column agreeing with the offset.
func checkPos(t *testing.T, what string, src []byte, p Pos) {
	t.Helper()
	if p.Line < 1 || p.Col < 1 || p.Offset < 0 || p.Offset > len(src) {
		t.Fatalf("%s: invalid position %+v for input of %d bytes", what, p, len(src))
	}
	line := 1 + strings.Count(string(src[:p.Offset]), "\n")
	col := p.Offset - (strings.LastIndexByte(string(src[:p.Offset]), '\n') + 1) + 1
	if line != p.Line || col != p.Col {
		t.Fatalf("%s: position %+v, but offset %d is at %d:%d", what, p, p.Offset, line, col)
	}
}

// checkErr fails t unless err is nil or an *Error with a valid position in src.
func checkErr(t *testing.T, src []byte, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *Error", err, err)
	}
	checkPos(t, "error "+e.Msg, src, e.Pos)
}

func FuzzSplit(f *testing.F) {
	seedFuzz(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		stmts, err := SplitStatements("f.cql", src)
		checkErr(t, src, err)
		for _, s := range stmts {
			checkPos(t, "statement start", src, s.Pos)
			checkPos(t, "statement end", src, s.End)
			if got := string(src[s.Pos.Offset:s.End.Offset]); got != s.Text {
				t.Fatalf("statement text %q, but its offsets hold %q", s.Text, got)
			}
			if s.Text == "" || strings.TrimSpace(s.Text) != s.Text {
				t.Fatalf("statement text %q is empty or untrimmed", s.Text)
			}
		}
	})
}

func FuzzParse(f *testing.F) {
	seedFuzz(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		stmts, err := ParseFile("f.cql", src)
		checkErr(t, src, err)
		for _, s := range stmts {
			info := s.Info()
			checkPos(t, "statement start", src, info.Pos)
			checkPos(t, "statement end", src, info.End)
			if got := string(src[info.Pos.Offset:info.End.Offset]); got != info.Text {
				t.Fatalf("statement text %q, but its offsets hold %q", info.Text, got)
			}
		}
		// Parse must agree with ParseFile on single statements.
		if err == nil && len(stmts) == 1 {
			if _, err := Parse("f.cql", src); err != nil {
				t.Fatalf("ParseFile accepted one statement, Parse rejected it: %v", err)
			}
		}
	})
}
