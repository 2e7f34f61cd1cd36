package cli

import (
	"fmt"
	"strings"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/workload"
)

// foldCQLName is the name CQL means by s: unquoted, folded to lower case (the node created
// `CREATE KEYSPACE App` as app); double-quoted, kept as written, "" standing for one quote.
// So -k App finds app, and -k '"App"' finds the keyspace created with quotes.
func foldCQLName(s string) (string, error) {
	parts, err := splitCQLName(s)
	if err != nil {
		return "", err
	}
	if len(parts) != 1 {
		return "", fmt.Errorf("%q is a qualified name (keyspace.table); want one name", s)
	}
	return parts[0], nil
}

// splitCQLName splits a possibly qualified name at its dots outside double quotes and folds
// each part as CQL does: `App.Events` is [app events], `"My.Ks"."T"` is [My.Ks T].
func splitCQLName(s string) ([]string, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return nil, fmt.Errorf("empty name")
	}
	var parts []string
	for i := 0; ; {
		var part string
		if t[i] == '"' {
			var b strings.Builder
			j := i + 1
			for {
				k := strings.IndexByte(t[j:], '"')
				if k < 0 {
					return nil, fmt.Errorf("%q: unterminated quoted name", s)
				}
				b.WriteString(t[j : j+k])
				j += k + 1
				if j < len(t) && t[j] == '"' { // "" is a quote inside the name
					b.WriteByte('"')
					j++
					continue
				}
				break
			}
			part, i = b.String(), j
			if part == "" {
				return nil, fmt.Errorf("%q: empty quoted name", s)
			}
		} else {
			k := strings.IndexAny(t[i:], ".\"")
			if k < 0 {
				k = len(t) - i
			}
			part = strings.ToLower(t[i : i+k])
			i += k
			if part == "" {
				return nil, fmt.Errorf("%q: empty name before a dot", s)
			}
		}
		parts = append(parts, part)
		if i == len(t) {
			return parts, nil
		}
		if t[i] != '.' || i+1 == len(t) {
			return nil, fmt.Errorf("%q: want name or keyspace.name (quote a name holding dots or quotes)", s)
		}
		i++
	}
}

// profileTargets resolves -k and --table into the keyspace to profile and the tables in it.
// A --table may be qualified (ks.t, as cqlsh and estimate take it): its keyspace must be
// -k's, or names the keyspace when -k is not given.
func profileTargets(keyspace string, tables []string) (string, []string, error) {
	ks := ""
	if keyspace != "" {
		k, err := foldCQLName(keyspace)
		if err != nil {
			return "", nil, Usagef("--keyspace: %v", err)
		}
		ks = k
	}
	from := "" // the --table that named the keyspace, when -k did not
	var names []string
	for _, raw := range tables {
		parts, err := splitCQLName(raw)
		if err != nil {
			return "", nil, Usagef("--table: %v", err)
		}
		switch len(parts) {
		case 1:
			names = append(names, parts[0])
			continue
		case 2:
		default:
			return "", nil, Usagef("--table %s: want table or keyspace.table", raw)
		}
		switch {
		case ks == "":
			ks, from = parts[0], raw
		case from == "" && parts[0] != ks:
			return "", nil, Usagef("--table %s is in keyspace %s, but --keyspace is %s: profile reads one keyspace a run "+
				"(drop --keyspace, or name the table without its keyspace)", raw, parts[0], ks)
		case parts[0] != ks:
			return "", nil, Usagef("--table %s and --table %s name two keyspaces (%s, %s): profile reads one keyspace a run",
				from, raw, ks, parts[0])
		}
		names = append(names, parts[1])
	}
	if ks == "" {
		return "", nil, Usagef("--keyspace is required: the keyspace to profile (or name its tables as keyspace.table with --table)")
	}
	return ks, names, nil
}

// parseProfileRate reads --rate: rows a second (2000), or rows per unit as estimate writes
// a rate (2000/s, 100k/m, 5M/h); 0 is no limit. It returns rows a second.
func parseProfileRate(s string) (float64, error) {
	const want = "want rows read a second (2000), or rows per unit (2000/s, 100k/m, 5M/h); 0 for no limit"
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, Usagef("--rate %q: %s", s, want)
	}
	var perSecond float64
	if strings.Contains(t, "/") {
		r, err := workload.ParseRate(t)
		if err != nil || r.Count < 0 {
			return 0, Usagef("--rate %s: %s", s, want)
		}
		perSecond = r.PerSecond()
	} else {
		n, err := workload.ParseCount(t)
		if err != nil {
			return 0, Usagef("--rate %s: %s", s, want)
		}
		perSecond = n
	}
	if perSecond < 0 || perSecond != perSecond {
		return 0, Usagef("--rate %s: %s", s, want)
	}
	return perSecond, nil
}

// readLevels are the consistency levels a read can ask for. ANY is for writes only (the node
// refuses it on a read), and SERIAL and LOCAL_SERIAL read one partition at a time, never a
// token range.
var readLevels = []string{"ONE", "LOCAL_ONE", "TWO", "THREE", "QUORUM", "LOCAL_QUORUM", "EACH_QUORUM", "ALL"}

// parseReadConsistency reads --consistency, refusing a level no read takes.
func parseReadConsistency(s string) (gocql.Consistency, error) {
	u := strings.ToUpper(strings.TrimSpace(s))
	for _, l := range readLevels {
		if u == l {
			c, err := connect.ParseConsistency(u)
			if err != nil {
				break
			}
			return c, nil
		}
	}
	why := ""
	if u == "ANY" {
		why = " is a write-only level"
	}
	return 0, Usagef("--consistency %q%s: profile reads, at one of %s", s, why, strings.Join(readLevels, ", "))
}
