// Package codes is the registry of every finding code cqlsize emits: the sizer's (SZ), the
// tombstone analysis's (TS), the query checker's (QF) and the migration lints' (DS, IF, BK,
// TT, AF, IX, MV, CS, WL, UD, NL). Each code has a name, what it reports, why it matters,
// how to fix it and which commands emit it. `cqlsize explain CODE` prints one,
// `cqlsize explain --list-codes` lists them all, and docs/codes.md is generated from them
// (a test fails when it is stale).
//
// The lints' text comes from the analyzers themselves (lint.Analyzers), the size limits'
// from sizing.Limits, so each is written once; the rest is written here, beside the others.
package codes

import (
	"sort"
	"strings"

	"github.com/cqlsize/cqlsize/finding"
)

// Commands that emit findings.
const (
	cmdEstimate = "estimate"
	cmdCheck    = "check"
	cmdValidate = "migrate validate"
	cmdPlan     = "migrate plan"
	cmdUp       = "migrate up"
)

var lintCommands = []string{cmdValidate, cmdPlan, cmdUp}

// All returns every documented code, sorted by code. The slice is new on each call.
func All() []finding.Doc {
	var out []finding.Doc
	out = append(out, sizingDocs()...)
	out = append(out, tombstoneDocs()...)
	out = append(out, checkDocs()...)
	out = append(out, lintDocs()...)
	sort.Slice(out, func(i, j int) bool { return out[i].Code < out[j].Code })
	return out
}

// Lookup finds a code, or a lint's name, case-insensitively ("sz001", "drop-table").
func Lookup(codeOrName string) (finding.Doc, bool) {
	s := strings.TrimSpace(codeOrName)
	for _, d := range All() {
		if strings.EqualFold(d.Code, s) || strings.EqualFold(d.Name, s) {
			return d, true
		}
	}
	return finding.Doc{}, false
}

// Known reports whether a code is documented.
func Known(code string) bool {
	_, ok := Lookup(code)
	return ok
}

// Nearest returns up to n codes closest to s (by edit distance on the code, then on the
// name), for an "unknown code" message: QF15 suggests QF001, QF005, QF010...
func Nearest(s string, n int) []string {
	s = strings.ToUpper(strings.TrimSpace(s))
	type cand struct {
		code string
		d    int
	}
	var cs []cand
	for _, doc := range All() {
		d := distance(s, doc.Code)
		if nd := distance(strings.ToLower(s), doc.Name); nd < d {
			d = nd
		}
		// A shared family (the letters) counts for more than a shared digit.
		if doc.Family() != strings.TrimRight(s, "0123456789") {
			d += 2
		}
		cs = append(cs, cand{doc.Code, d})
	}
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].code < cs[j].code
	})
	var out []string
	for i := 0; i < len(cs) && i < n; i++ {
		out = append(out, cs[i].code)
	}
	return out
}

// distance is the Levenshtein distance between a and b, over bytes (codes and names are ASCII).
// Inputs are cut at 64 bytes so a pasted paragraph costs no more than a code.
func distance(a, b string) int {
	if len(a) > 64 {
		a = a[:64]
	}
	if len(b) > 64 {
		b = b[:64]
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
