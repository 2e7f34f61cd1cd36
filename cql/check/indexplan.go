package check

import (
	"fmt"
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
	plan := &indexPlan{}
	groups := 0
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
		groups++
		for _, ix := range used {
			plan.used = appendIndex(plan.used, ix)
		}
	}
	if len(plan.used) == 0 {
		return nil
	}
	plan.choice = groups > 1
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
