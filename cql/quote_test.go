package cql

import (
	"strings"
	"testing"
)

// reserved50 is Cassandra 5.0's list of reserved keywords, as the 5.0.9 jar ships it in
// org/apache/cassandra/cql3/reserved_keywords.txt. Later releases reserve more words
// (CONSTRAINT, CHECK, LENGTH); 5.0 accepts those unquoted.
const reserved50 = `ADD ALLOW ALTER AND APPLY ASC AUTHORIZE BATCH BEGIN BY COLUMNFAMILY CREATE DELETE DESC
	DESCRIBE DROP ENTRIES EXECUTE FROM FULL GRANT IF IN INDEX INFINITY INSERT INTO IS KEYSPACE
	LIMIT MATERIALIZED MODIFY NAN NORECURSIVE NOT NULL OF ON OR ORDER PRIMARY RENAME REVOKE
	SCHEMA SELECT SET TABLE TO TOKEN TRUNCATE UNLOGGED UPDATE USE USING VIEW WHERE WITH`

func TestQuoteName(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		// plain lower-case names
		{"post_id", "post_id"},
		{"a1", "a1"},
		{"x", "x"},
		// unreserved keywords: Parser.g lets them stand as names
		{"key", "key"}, {"type", "type"}, {"ttl", "ttl"}, {"writetime", "writetime"},
		{"keys", "keys"}, {"values", "values"}, {"json", "json"}, {"user", "user"},
		{"role", "role"}, {"static", "static"}, {"frozen", "frozen"}, {"list", "list"},
		{"map", "map"}, {"as", "as"}, {"count", "count"}, {"exists", "exists"},
		{"text", "text"}, {"int", "int"}, {"timestamp", "timestamp"}, {"vector", "vector"},
		{"constraint", "constraint"}, {"check", "check"}, {"length", "length"},
		// reserved keywords
		{"table", `"table"`}, {"select", `"select"`}, {"token", `"token"`},
		{"order", `"order"`}, {"nan", `"nan"`}, {"infinity", `"infinity"`}, {"null", `"null"`},
		// case: an unquoted name is folded to lower case, so upper case must be quoted
		{"Post", `"Post"`}, {"postID", `"postID"`}, {"TABLE", `"TABLE"`}, {"KEY", `"KEY"`},
		// characters outside [a-z0-9_], a leading digit or underscore, the empty name
		{"2fa", `"2fa"`}, {"_x", `"_x"`}, {"my-table", `"my-table"`}, {"a b", `"a b"`},
		{"naïve", `"naïve"`}, {`we"ird`, `"we""ird"`}, {`"`, `""""`}, {"", `""`},
	} {
		if got := QuoteName(tc.name); got != tc.want {
			t.Errorf("QuoteName(%q) = %s, want %s", tc.name, got, tc.want)
		}
	}
}

// TestQuoteNameReserved50 quotes every reserved keyword of Cassandra 5.0, and only those
// among the words the lexer knows as keywords.
func TestQuoteNameReserved50(t *testing.T) {
	want := map[string]bool{}
	for _, w := range strings.Fields(reserved50) {
		w = strings.ToLower(w)
		want[w] = true
		if got := QuoteName(w); got != `"`+w+`"` {
			t.Errorf("QuoteName(%q) = %s: %s is reserved in 5.0", w, got, w)
		}
	}
	for w := range keywords {
		if !want[w] && QuoteName(w) != w {
			t.Errorf("QuoteName(%q) = %s: %s is not reserved in 5.0", w, QuoteName(w), w)
		}
	}
}
