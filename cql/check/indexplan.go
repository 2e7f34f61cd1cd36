package check

import (
	"fmt"
	"sort"
	"strings"
)

// indexPlan is how Cassandra 5.0 serves a query through its secondary indexes: which
// indexes it reads, and which restrictions it then checks on every row they return.
//
// Cassandra asks each index group for a plan (SecondaryIndexManager.getBestIndexQueryPlanFor):
// all the SAI indexes of a table form one group and intersect their answers; every legacy
// (2i) index is a group of its own and answers one restriction. When no group answers
// every restriction of the row filter, the query needs ALLOW FILTERING, and with it
// Cassandra reads the hits of the chosen group and filters them on the rest. That is not a
// scan: the rows read are the index's hits, so the cost is the index's selectivity.
type indexPlan struct {
	// used are the indexes that answer restrictions; when choice is true they belong to
	// different groups and Cassandra reads only one group's (the one it estimates returns
	// fewest rows, from the indexes' statistics), filtering on the others' restrictions too.
	used   []tableIndex
	choice bool
	// saiPassedOver: SAI indexes answer some restrictions too, but Cassandra reads a
	// legacy index instead (see planIndexes) and filters on theirs.
	saiPassedOver bool
	// filtered are the restrictions no index answers, as written: Cassandra checks them
	// on each row the index returns (and, when choice is true, the restrictions of the
	// indexes it did not pick as well).
	filtered []string
}

// planIndexes works out the index plan of a prepared query that uses an index (as
// written, or as it would with ALLOW FILTERING). It returns nil when no index is used.
func (pc *prepareContext) planIndexes(p *prepared) *indexPlan {
	if p == nil || !p.usesIndex || p.rej != nil && !p.rej.filtering {
		return nil
	}
	var all []*restriction
	for _, s := range p.filterSets {
		all = append(all, s.list...)
	}
	// The groups that answer at least one restriction: each is a plan Cassandra weighs.
	var groups [][]tableIndex
	legacy := false
	for _, g := range indexGroups(pc.indexes) {
		var used []tableIndex
		for _, r := range all {
			if ix, ok := groupSupports(g, r); ok {
				used = appendIndex(used, ix)
			}
		}
		if len(used) == 0 {
			continue
		}
		groups = append(groups, used)
		legacy = legacy || used[0].kind != saiIndex
	}
	if len(groups) == 0 {
		return nil
	}
	// Cassandra reads the plan with the fewest estimated rows, and 5.0 estimates an SAI
	// plan's rows as Long.MAX_VALUE (the node's trace says "Index mean cardinalities are
	// products_brand_sai:9223372036854775807,products_name_idx:0. Scanning with
	// products_name_idx."): any legacy index is read before SAI.
	plan := &indexPlan{}
	if legacy && len(groups) > 1 {
		var kept [][]tableIndex
		for _, g := range groups {
			if g[0].kind == saiIndex {
				plan.saiPassedOver = true
				continue
			}
			kept = append(kept, g)
		}
		groups = kept
	}
	for _, g := range groups {
		for _, ix := range g {
			plan.used = appendIndex(plan.used, ix)
		}
	}
	plan.choice = len(groups) > 1
	for _, r := range all {
		answered := false
		for _, ix := range plan.used {
			answered = answered || ix.supports(r)
		}
		if !answered {
			for _, rel := range r.rels {
				plan.filtered = append(plan.filtered, rel.text)
			}
		}
	}
	return plan
}

// names lists the indexes the plan reads, for messages.
func (ip *indexPlan) names() string {
	var names []string
	for _, ix := range ip.used {
		names = append(names, ix.name)
	}
	if ip.choice {
		return "one of " + strings.Join(names, ", ")
	}
	if n := len(names); n > 1 {
		return strings.Join(names[:n-1], ", ") + " and " + names[n-1] + " (intersected)"
	}
	return names[0]
}

// served says which index serves the query and what Cassandra filters, in words: the
// heart of the QF015 finding and of the QF001 message for an indexed query.
func (ip *indexPlan) served() string {
	if ip.choice {
		rest := "the restrictions of the indexes it did not pick"
		if len(ip.filtered) > 0 {
			rest += " and on " + strings.Join(ip.filtered, " AND ")
		}
		return fmt.Sprintf("%s serves it (Cassandra reads one index, the one whose statistics promise the fewest rows) "+
			"and Cassandra filters its hits on %s", ip.names(), rest)
	}
	what := "index " + ip.names()
	if ip.saiPassedOver {
		what += " (Cassandra 5.0 reads a legacy index before SAI ones: it estimates an SAI index's rows as unknown)"
	}
	if len(ip.filtered) == 0 {
		return what + " serves it"
	}
	return fmt.Sprintf("%s serves it and Cassandra filters the index's hits on %s", what, strings.Join(ip.filtered, " AND "))
}

// indexNoun names the plan's indexes as the subject of a sentence: "index a", "indexes a
// and b (intersected)", "one of the indexes a, b".
func indexNoun(ip *indexPlan) string {
	if ip.choice {
		return "one of the indexes " + strings.TrimPrefix(ip.names(), "one of ")
	}
	if len(ip.used) > 1 {
		return "indexes " + ip.names()
	}
	return "index " + ip.names()
}

// list is the plan's indexes for Result.Index: sorted, comma-separated.
func (ip *indexPlan) list() string {
	var names []string
	for _, ix := range ip.used {
		names = append(names, ix.name)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
