package cql_test

import (
	"testing"
)

// TestValuesTheNodeRefuses: constants the node refuses when it prepares a statement, in
// its words (testdata/grammar/wide's run on a 5.0 node is the evidence).
func TestValuesTheNodeRefuses(t *testing.T) {
	const setup = `CREATE TABLE w (k int, c int, a ascii, b blob, tp frozen<tuple<int, text>>, l list<int>, s set<text>, m map<text, int>, vec vector<float, 2>, PRIMARY KEY (k, c));`
	for _, tc := range []struct{ stmt, want string }{ // want "" when the node applies it
		{"INSERT INTO w (k, c, tp) VALUES (1, 1, (1, 'a'))", ""},
		{"INSERT INTO w (k, c, tp) VALUES (1, 1, (1))", ""},
		{"INSERT INTO w (k, c, tp) VALUES (1, 1, (1, null))", ""},
		{"INSERT INTO w (k, c, tp) VALUES (1, 1, (1, 'a', 2))", "Invalid tuple literal for tp: too many elements. Type frozen<tuple<int, text>> expects 2 but got 3"},
		{"INSERT INTO w (k, c, tp) VALUES (1, 1, ('x', 'y'))", "Invalid tuple literal for tp: component 0 is not of type int"},
		{"INSERT INTO w (k, c, tp) VALUES (1, 1, {1, 'x'})", "Invalid set literal for tp"},
		{"INSERT INTO w (k, c, l) VALUES (1, 1, [1, null])", "null is not supported inside collections"},
		{"INSERT INTO w (k, c, s) VALUES (1, 1, {'a', null})", "null is not supported inside collections"},
		{"INSERT INTO w (k, c, vec) VALUES (1, 1, [1.0, null])", "null is not supported inside vectors"},
		{"INSERT INTO w (k, c, l) VALUES (1, 1, null)", ""},
		{"INSERT INTO w (k, c, b) VALUES (1, 1, 0xabcd)", ""},
		{"INSERT INTO w (k, c, b) VALUES (1, 1, 0x)", ""},
		{"INSERT INTO w (k, c, b) VALUES (1, 1, 0xABC)", "cannot parse 'ABC' as hex bytes"},
		{"INSERT INTO w (k, c, a) VALUES (1, 1, 'plain')", ""},
		{"INSERT INTO w (k, c, a) VALUES (1, 1, 'café')", "Invalid ASCII character in string literal"},
		{"SELECT * FROM w WHERE k = 1 AND c = 2", ""},
		{"SELECT * FROM w WHERE k = 'one'", `Invalid STRING constant (one) for "k" of type int`},
		{"SELECT * FROM w WHERE k = 1 AND c IN (1, 'x')", `Invalid STRING constant (x) for "c" of type int`},
		{"SELECT * FROM w WHERE k = 1 AND c > 'x'", `Invalid STRING constant (x) for "c" of type int`},
		{"SELECT s['a'], m['k'], m['a'..'z'] FROM w WHERE k = 1", ""},
		{"SELECT l[0] FROM w WHERE k = 1", "Element selection is only allowed on sets and maps, but l is a list"},
		{"SELECT m[1] FROM w WHERE k = 1", `Invalid INTEGER constant (1) for "key(m)" of type text`},
		{"SELECT k, 'label' FROM w WHERE k = 1", "Cannot infer type for term 'label' in selection clause"},
		{"SELECT k, (text) 'label', blobAsText(0x61) FROM w WHERE k = 1", ""},
	} {
		judgeAfter(t, setup, tc.stmt, tc.want)
	}
}

// TestCollectionAndFieldTargets: what the node cannot do to a column's parts, in its words.
func TestCollectionAndFieldTargets(t *testing.T) {
	const setup = `CREATE TYPE box (w int, h int);
CREATE TABLE u (k int, c int, d int, fl frozen<list<int>>, l list<int>, s set<text>, b box, fb frozen<box>, PRIMARY KEY (k, c, d));`
	for _, tc := range []struct{ stmt, want string }{ // want "" when the node applies it
		{"UPDATE u SET l[0] = 1, l = l + [2] WHERE k = 1 AND c = 1 AND d = 1", ""},
		{"UPDATE u SET fl[0] = 1 WHERE k = 1 AND c = 1 AND d = 1", "Invalid operation (fl[0] = 1) for frozen collection column fl"},
		{"UPDATE u SET fl = fl + [1] WHERE k = 1 AND c = 1 AND d = 1", "Invalid operation (fl = fl + [1]) for frozen collection column fl"},
		{"UPDATE u SET fl = [1] WHERE k = 1 AND c = 1 AND d = 1", ""},
		{"UPDATE u SET s[0] = 'a' WHERE k = 1 AND c = 1 AND d = 1", "Invalid operation (s[0] = 'a') for set column s"},
		{"UPDATE u SET b.w = 1 WHERE k = 1 AND c = 1 AND d = 1", ""},
		{"UPDATE u SET b.depth = 1 WHERE k = 1 AND c = 1 AND d = 1", "UDT column b does not have a field named depth"},
		{"UPDATE u SET fb.w = 1 WHERE k = 1 AND c = 1 AND d = 1", "Invalid operation (fb.w = 1) for frozen UDT column fb"},
		{"DELETE s['a'], l[0], b.w FROM u WHERE k = 1 AND c = 1 AND d = 1", ""},
		{"DELETE s[0] FROM u WHERE k = 1 AND c = 1 AND d = 1", `Invalid INTEGER constant (0) for "value(s)" of type text`},
		{"DELETE b.depth FROM u WHERE k = 1 AND c = 1 AND d = 1", "UDT column b does not have a field named depth"},
		{"DELETE FROM u WHERE k = 1 AND c = 1 AND d > 1", ""},
		{"DELETE FROM u WHERE k = 1 AND d > 1", `PRIMARY KEY column "d" cannot be restricted as preceding column "c" is not restricted`},
		{"SELECT b.w FROM u WHERE k = 1", ""},
		{"SELECT b.depth FROM u WHERE k = 1", "b of type box has no field depth"},
	} {
		judgeAfter(t, setup, tc.stmt, tc.want)
	}
}
