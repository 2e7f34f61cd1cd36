package cli

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gocql/gocql"
)

// impossibleQuorum turns "Cannot achieve consistency level QUORUM" into bad input (exit 2)
// when no retry can cure it: a keyspace the run uses asks for more replicas than the
// cluster has nodes (replication factor 3 on a one-node cluster), so a quorum cannot form
// even with every node up. The node names neither the keyspace nor the fix; this does. It
// returns nil when err is not such a failure or the replication leaves a quorum possible
// (a node is down: a retry may cure it, exit 3 stays).
func impossibleQuorum(ctx context.Context, s *gocql.Session, err error, keyspaces ...string) error {
	var un *gocql.RequestErrUnavailable
	if !errors.As(err, &un) {
		return nil
	}
	nodes := map[string]int{} // per data center
	total := 0
	for _, q := range []string{"SELECT data_center FROM system.local", "SELECT data_center FROM system.peers"} {
		it := s.Query(q).WithContext(ctx).Consistency(gocql.One).Iter()
		var dc string
		for it.Scan(&dc) {
			nodes[dc]++
			total++
		}
		if it.Close() != nil {
			return nil
		}
	}
	seen := map[string]bool{}
	for _, ks := range keyspaces {
		if ks == "" || seen[ks] {
			continue
		}
		seen[ks] = true
		var repl map[string]string
		if s.Query("SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = ?", ks).WithContext(ctx).Consistency(gocql.One).Scan(&repl) != nil {
			continue
		}
		var short []string
		class := repl["class"]
		for k, v := range repl {
			rf, perr := strconv.Atoi(strings.SplitN(v, "/", 2)[0]) // "3/1": 3 replicas, 1 transient
			if perr != nil || k == "class" {
				continue
			}
			have := nodes[k]
			where := "data center " + k
			if strings.HasSuffix(class, "SimpleStrategy") && k == "replication_factor" {
				have, where = total, "the cluster"
			} else if k == "replication_factor" {
				continue
			}
			if rf/2+1 > have {
				short = append(short, fmt.Sprintf("%s has %d node(s) for replication factor %d (a quorum is %d)", where, have, rf, rf/2+1))
			}
		}
		if len(short) == 0 {
			continue
		}
		sort.Strings(short)
		return fmt.Errorf("%v: no retry can fix this: keyspace %s has replication %s and %s; "+
			"lower its replication (ALTER KEYSPACE %s WITH replication = {...}, and in the file that creates it) or add nodes, then run again",
			err, ks, replText(repl), strings.Join(short, ", "), ks)
	}
	return nil
}

// replText writes a replication map as CQL does, keys sorted.
func replText(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		v := m[k]
		if k == "class" {
			v = v[strings.LastIndexByte(v, '.')+1:]
		}
		parts[i] = fmt.Sprintf("'%s': '%s'", k, v)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
