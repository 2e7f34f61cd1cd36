package migrations

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
)

// Migration is one versioned file: 0003_add_tags.cql is version 3, name "add_tags".
type Migration struct {
	// Version orders the history and is what the bookkeeping records: the number a
	// NNNN_name.cql file starts with, or, in a layout whose versions are not single
	// numbers (Flyway's 1.46, gocqlx's file names, a manifest's folders), the file's place
	// in its runner's order (1, 2, 3...), with the version as written in Label.
	Version    int64
	Label      string // the version as its file writes it, when it is not Version (VersionLabel)
	Name       string
	File       string // the path used in messages: the folder given plus the file name
	Checksum   string // hex sha256 of the file's bytes, as recorded in the bookkeeping table
	Source     []byte
	Statements []Statement
	Parsed     []cql.Statement // the same statements, parsed (for lints and the schema model)
	// Calls are gocqlx's `-- CALL name;` lines: Go code the file asks the program to run
	// between its statements (Options.Calls). Only gocqlx's layout has them.
	Calls []Call
}

// Call is a gocqlx callback line: run the program's function Name after the file's first
// After statements and before the next.
type Call struct {
	Name  string
	Pos   cql.Pos
	After int
}

// Statement is one statement of a migration file, as the cql lexer split it.
type Statement struct {
	Text     string  // the statement without its terminating ';'
	Pos, End cql.Pos // where it starts and ends in the file
	Doc      string  // the comment block right above it (nolint directives live here)
	Checksum string  // hex sha256 of Text: lets a half-applied file be fixed after the statements that ran
	Schema   bool    // a schema change (CREATE/ALTER/DROP ...): the runner waits for agreement after it
	// Keyspace is the keyspace a USE earlier in the same file switched to ("" when none):
	// the statement's unqualified names resolve there, and the runner sends it with them
	// qualified, since the driver refuses USE.
	Keyspace string
	// Use marks a USE statement: it is not sent (the driver refuses it); its effect is the
	// Keyspace of the file's statements after it.
	Use bool
}

// String is the file name, which says both version and name.
func (m *Migration) String() string { return m.File }

func sha256hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// ShortSum is the first 12 hex digits of a checksum, enough to tell two apart in a table.
func ShortSum(sum string) string {
	if len(sum) > 12 {
		return sum[:12]
	}
	return sum
}

// leadingWords returns the first n keywords of a statement, upper-cased, skipping
// whitespace and comments.
func leadingWords(text string, n int) []string {
	var words []string
	i := 0
	for i < len(text) && len(words) < n {
		c := text[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case strings.HasPrefix(text[i:], "--") || strings.HasPrefix(text[i:], "//"):
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case strings.HasPrefix(text[i:], "/*"):
			end := strings.Index(text[i+2:], "*/")
			if end < 0 {
				return words
			}
			i += end + 4
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(text) && (text[j] == '_' || text[j] >= 'a' && text[j] <= 'z' || text[j] >= 'A' && text[j] <= 'Z' || text[j] >= '0' && text[j] <= '9') {
				j++
			}
			words = append(words, strings.ToUpper(text[i:j]))
			i = j
		default:
			return words
		}
	}
	return words
}

// isSchemaChange reports whether a statement changes the schema (and so the cluster's
// schema version): CREATE, ALTER or DROP of anything but a role or user.
func isSchemaChange(text string) bool {
	w := leadingWords(text, 2)
	if len(w) == 0 {
		return false
	}
	switch w[0] {
	case "CREATE", "ALTER", "DROP":
		return len(w) < 2 || (w[1] != "ROLE" && w[1] != "USER")
	}
	return false
}

// statementKind is a short description for messages: "CREATE TABLE", "INSERT".
func statementKind(text string) string {
	w := leadingWords(text, 3)
	switch {
	case len(w) == 0:
		return "statement"
	case w[0] == "CREATE" || w[0] == "ALTER" || w[0] == "DROP":
		if len(w) >= 3 && (w[1] == "MATERIALIZED" || w[1] == "CUSTOM" || w[1] == "OR") {
			return strings.Join(w[:3], " ")
		}
		if len(w) >= 2 {
			return w[0] + " " + w[1]
		}
	}
	return w[0]
}
