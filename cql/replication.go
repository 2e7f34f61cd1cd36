package cql

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Replication is a keyspace's replication read into numbers: how many copies of each row
// the cluster keeps and where. The node gives it in two forms, both read here by one rule:
// the CQL map literal a CREATE KEYSPACE (or DESCRIBE) writes, and the map<text, text> of
// system_schema.keyspaces, where every value is text and the class is the full Java name.
// Sizing multiplies by it, design writes it, migrations count live replicas against it.
type Replication struct {
	// Class is the strategy's short name: SimpleStrategy, NetworkTopologyStrategy,
	// LocalStrategy or EverywhereStrategy.
	Class string
	// Factor is SimpleStrategy's replication_factor. Under NetworkTopologyStrategy it is
	// the 'replication_factor' key's default for every DC the map does not name (the node
	// expands it into the DCs it knows when the keyspace is created), 0 when absent.
	Factor int
	// DCs is NetworkTopologyStrategy's full replicas per data center. A transient value
	// ("3/1") counts its full replicas only: transient ones hold data only until repair.
	DCs map[string]int
}

// Strategy short names.
const (
	SimpleStrategy          = "SimpleStrategy"
	NetworkTopologyStrategy = "NetworkTopologyStrategy"
)

// ParseReplication reads a replication map written as CQL writes it, such as
// {'class': 'NetworkTopologyStrategy', 'dc1': 3, 'dc2': 3}. Errors name file:line:col of
// the value at fault (file may be "" for a flag's value: then line:col).
func ParseReplication(file, src string) (r Replication, err error) {
	toks, _, err := lexAll(file, []byte(src), false)
	if err != nil {
		return Replication{}, err
	}
	last := toks[len(toks)-1] // the lexer always ends with TokEOF
	p := &parser{toks: toks, end: len(toks) - 1, src: src, eof: last}
	var entries []MapEntry
	defer func() {
		if rec := recover(); rec != nil {
			b, ok := rec.(bailout)
			if !ok {
				panic(rec)
			}
			r, err = Replication{}, b.err
		}
	}()
	first := p.peek()
	if !first.IsPunct("{") {
		p.failExpected("a replication map such as {'class': 'NetworkTopologyStrategy', 'dc1': 3}")
	}
	entries = p.optionMap()
	if t := p.peek(); t.Kind != TokEOF {
		p.failExpected("the end of the replication map")
	}
	return replicationFrom(entries, first.Pos)
}

// ReplicationOf reads a replication map as system_schema.keyspaces holds it (and as the
// schema model keeps it, Keyspace.Replication): every value text, the class short or the
// full Java name. An empty map is the zero Replication (no replication known).
func ReplicationOf(m map[string]string) (Replication, error) {
	if len(m) == 0 {
		return Replication{}, nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	entries := make([]MapEntry, len(keys))
	for i, k := range keys {
		entries[i] = MapEntry{Key: k, Value: m[k]}
	}
	r, err := replicationFrom(entries, Pos{})
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return Replication{}, fmt.Errorf("replication %s: %s", ReplicationLiteral(m), e.Msg)
		}
		return Replication{}, err
	}
	return r, nil
}

// replicationFrom checks a replication map the way Cassandra 5.0 does before it creates a
// keyspace, and reads its numbers. A SimpleStrategy without a replication_factor is refused:
// the copies it keeps are the node's default_keyspace_rf, which a map alone cannot say.
func replicationFrom(entries []MapEntry, at Pos) (Replication, error) {
	return replicationRead(entries, at, true)
}

// replicationRead is replicationFrom; needFactor false lets a SimpleStrategy go without a
// replication_factor, as a CREATE KEYSPACE may (the node then uses default_keyspace_rf).
func replicationRead(entries []MapEntry, at Pos, needFactor bool) (Replication, error) {
	var r Replication
	classAt := at
	for _, e := range entries {
		if e.Key == "class" {
			r.Class = strings.TrimPrefix(e.Value, locatorPackage)
			classAt = e.ValuePos
		}
	}
	switch {
	case r.Class == "":
		return Replication{}, Errorf(at, "missing replication strategy class: replication needs a 'class'")
	case !replicationStrategies[r.Class]:
		return Replication{}, Errorf(classAt, "unknown replication strategy class %q (want SimpleStrategy or NetworkTopologyStrategy)", r.Class)
	}
	hasFactor := false
	for _, e := range entries {
		if e.Key == "class" {
			continue
		}
		pos := e.ValuePos
		if !pos.IsValid() {
			pos = at
		}
		if r.Class != SimpleStrategy && r.Class != NetworkTopologyStrategy {
			return Replication{}, Errorf(pos, "%s takes no options, found %q", r.Class, e.Key)
		}
		n, err := replicaCount(e.Value)
		if err != nil {
			return Replication{}, Errorf(pos, "replication %q: %v", e.Key, err)
		}
		switch {
		case e.Key == "replication_factor":
			r.Factor, hasFactor = n, true
		case r.Class == SimpleStrategy:
			return Replication{}, Errorf(pos, "SimpleStrategy takes replication_factor only, found %q (data centers need NetworkTopologyStrategy)", e.Key)
		default:
			if r.DCs == nil {
				r.DCs = map[string]int{}
			}
			r.DCs[e.Key] = n
		}
	}
	if r.Class == SimpleStrategy && !hasFactor && needFactor {
		return Replication{}, Errorf(at, "SimpleStrategy requires a replication_factor")
	}
	return r, nil
}

// replicaCount reads a replication value: "3", or with transient replication "3/1", whose
// full replicas come first.
func replicaCount(v string) (int, error) {
	full, _, _ := strings.Cut(strings.TrimSpace(v), "/")
	n, err := strconv.Atoi(full)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a replica count (a whole number, 0 or more)", v)
	}
	return n, nil
}

// Known reports whether the replication was given at all.
func (r Replication) Known() bool { return r.Class != "" }

// DCNames lists the data centers NetworkTopologyStrategy names, sorted.
func (r Replication) DCNames() []string {
	out := make([]string, 0, len(r.DCs))
	for dc := range r.DCs {
		out = append(out, dc)
	}
	sort.Strings(out)
	return out
}

// Total is how many copies of each row the whole cluster keeps, and whether that is known:
// not for LocalStrategy and EverywhereStrategy (their copies follow the nodes), nor under
// NetworkTopologyStrategy with a 'replication_factor' default (which DCs it reaches is the
// cluster's).
func (r Replication) Total() (int, bool) {
	switch r.Class {
	case SimpleStrategy:
		return r.Factor, true
	case NetworkTopologyStrategy:
		if r.Factor > 0 {
			return 0, false
		}
		n := 0
		for _, rf := range r.DCs {
			n += rf
		}
		return n, true
	}
	return 0, false
}

// Map is the replication as system_schema.keyspaces keeps it: the class's full name and
// every value as text.
func (r Replication) Map() map[string]string {
	if !r.Known() {
		return map[string]string{}
	}
	m := map[string]string{"class": locatorPackage + r.Class}
	if r.Factor > 0 || r.Class == SimpleStrategy {
		m["replication_factor"] = strconv.Itoa(r.Factor)
	}
	for dc, n := range r.DCs {
		m[dc] = strconv.Itoa(n)
	}
	return m
}

// String writes the replication as a CQL map literal, the class (short) first, then the
// other keys sorted: {'class': 'NetworkTopologyStrategy', 'dc1': '3', 'dc2': '3'}. "none"
// when no replication is known.
func (r Replication) String() string {
	if !r.Known() {
		return "none"
	}
	return ReplicationLiteral(r.Map())
}

// ReplicationLiteral writes a replication map as a CQL map literal, the class shortened and
// first; it also writes maps that are not a valid replication, for messages and as given.
func ReplicationLiteral(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		if k != "class" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var parts []string
	if c, ok := m["class"]; ok {
		parts = append(parts, "'class': "+quoteText(strings.TrimPrefix(c, locatorPackage)))
	}
	for _, k := range keys {
		parts = append(parts, quoteText(k)+": "+quoteText(m[k]))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// quoteText writes s as a CQL string literal.
func quoteText(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
