package cli

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sort"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/liveschema"
	"github.com/cqlsize/cqlsize/internal/report"
	"github.com/cqlsize/cqlsize/migrations"
)

// liveConfig returns the cluster to read, or nil when the estimate is offline. --hosts
// names it; --live takes $CASSANDRA_HOSTS. Credentials come from the environment only.
func (f *estimateFlags) liveConfig(env *Env) (*connect.Config, error) {
	return liveReaderConfig(env, f.hosts, f.live, &f.reach)
}

// liveReaderConfig is the cluster a command that only reads the schema and system tables
// talks to: --hosts, or $CASSANDRA_HOSTS with --live; nil when neither is given.
func liveReaderConfig(env *Env, hosts string, live bool, t *reachFlags) (*connect.Config, error) {
	if hosts == "" && !live {
		return nil, nil
	}
	if err := t.check(); err != nil {
		return nil, err
	}
	cfg := readerConfig(env, hosts, "ONE", 20*time.Second, t)
	if len(cfg.Hosts) == 0 {
		return nil, Usagef("--live: no cluster: set $%s or pass --hosts", connect.EnvHosts)
	}
	if err := cfg.Validate(); err != nil {
		return nil, Usagef("%v", err)
	}
	return &cfg, nil
}

// liveConn is an open session to the cluster the estimate compares with.
type liveConn struct {
	s   *gocql.Session
	cfg connect.Config
	ctx context.Context
	// diff and source are what schema() found, for the report.
	diff   []string
	source string
	// replFrom is where the keyspaces' replication was read: "cluster" when the schema is
	// the cluster's, or the files create no keyspace and the cluster's was taken.
	replFrom string
	// nodesNote says why each node's share is missing, when the node counts could not be read.
	nodesNote string
}

// openEstimateLive opens the cluster an estimate reads and takes from it the schema (or
// the differences from the files'), where the replication comes from, and each DC's node
// count unless --nodes gave them: the copies per DC stand without the counts, so a failure
// to read them only costs each node's share, which the report then says.
func openEstimateLive(env *Env, cfg connect.Config, files *cql.Schema, keyspace string, opt *report.Options) (*liveConn, *cql.Schema, error) {
	conn, err := openLive(env, cfg)
	if err != nil {
		return nil, nil, err
	}
	schema, err := conn.schema(env, files, keyspace)
	if err != nil {
		conn.Close()
		return nil, nil, err
	}
	opt.ReplicationSource = conn.replFrom
	if opt.Nodes == nil {
		if opt.Nodes, err = conn.nodes(); err != nil {
			conn.nodesNote = fmt.Sprintf("no copies per node: %v; pass --nodes dc1=N,dc2=N", err)
		}
	}
	return conn, schema, nil
}

func openLive(env *Env, cfg connect.Config) (*liveConn, error) {
	ctx, cancel := context.WithTimeout(env.Ctx, cfg.ConnectTimeout+5*time.Second)
	defer cancel()
	s, err := connect.Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &liveConn{s: s, cfg: cfg, ctx: env.Ctx}, nil
}

func (c *liveConn) Close() { c.s.Close() }

// schema reads the schema from system_schema. With a schema from files, the files stay the
// schema estimated and the differences are reported; without, the cluster's is used.
func (c *liveConn) schema(env *Env, files *cql.Schema, keyspace string) (*cql.Schema, error) {
	var keyspaces []string
	if keyspace != "" {
		// CQL folds an unquoted name: -k App reads the keyspace `CREATE KEYSPACE App` made (app).
		k, err := foldCQLName(keyspace)
		if err != nil {
			return nil, Usagef("--keyspace: %v", err)
		}
		keyspace = k
	}
	switch {
	case keyspace != "":
		keyspaces = []string{keyspace}
	case files != nil:
		for name := range files.Keyspaces {
			keyspaces = append(keyspaces, name)
		}
		sort.Strings(keyspaces)
	}
	ctx, cancel := context.WithTimeout(c.ctx, 60*time.Second)
	defer cancel()
	got, err := liveschema.Read(ctx, c.s, keyspaces...)
	if err != nil {
		return nil, fmt.Errorf("read the schema from %s: %w", strings.Join(c.cfg.Hosts, ","), err)
	}
	if files == nil {
		if len(got.Keyspaces) == 0 {
			if keyspace != "" {
				return nil, fmt.Errorf("keyspace %s does not exist on %s", keyspace, strings.Join(c.cfg.Hosts, ","))
			}
			return nil, fmt.Errorf("the cluster at %s has no keyspace of its own", strings.Join(c.cfg.Hosts, ","))
		}
		c.source, c.replFrom = "cluster", "cluster"
		return got, nil
	}
	c.diff = liveschema.Diff(files, got)
	c.source = "the schema files"
	// Migrations run with --keyspace create no keyspace: the cluster's says how it is
	// replicated.
	for name, k := range files.Keyspaces {
		if g := got.Keyspaces[name]; len(k.Replication) == 0 && g != nil && len(g.Replication) > 0 {
			k.Replication = maps.Clone(g.Replication)
			c.replFrom = "cluster"
		}
	}
	return files, nil
}

// nodes counts the cluster's nodes in each data center, to spread each DC's copies over.
func (c *liveConn) nodes() (map[string]int, error) {
	ctx, cancel := context.WithTimeout(c.ctx, 20*time.Second)
	defer cancel()
	return migrations.NodesPerDC(ctx, c.s)
}

// fill adds what the cluster reports for each table to the report. Virtual tables are the
// answering node's own figures; size_estimates covers the token ranges that node holds.
func (c *liveConn) fill(env *Env, r *report.Report) error {
	ctx, cancel := context.WithTimeout(c.ctx, 60*time.Second)
	defer cancel()
	r.Live = &report.LiveInfo{Hosts: strings.Join(c.cfg.Hosts, ","), SchemaSource: c.source, SchemaDiff: c.diff}
	if c.nodesNote != "" {
		r.Notes = append(r.Notes, c.nodesNote)
	}
	if r.Live.SchemaDiff == nil {
		r.Live.SchemaDiff = []string{}
	}
	for i := range r.Tables {
		t := &r.Tables[i]
		ks, name, ok := strings.Cut(t.Name, ".")
		if !ok {
			continue
		}
		live, err := tableFigures(ctx, c.s, ks, name)
		if err != nil && notPermitted(err) {
			// The figures are extras beside the estimate: a role that may read the schema but
			// not the node's views still gets the estimate, with a note saying what is missing.
			for j := range r.Tables {
				r.Tables[j].Live = nil
			}
			// system.size_estimates is readable by every role; the views are not.
			note := fmt.Sprintf("no cluster figures from %s: %v (they need SELECT on "+
				"system_views.max_partition_size and system_views.tombstones_per_read)", r.Live.Hosts, err)
			if g := grantFor(err.Error()); g != "" {
				note += ": " + g
			}
			r.Notes = append(r.Notes, note)
			// On stderr too: not every format prints the report's notes (markdown does not).
			fmt.Fprintf(env.Stderr, "cqlsize: %s\n", note)
			return nil
		}
		if err != nil {
			return fmt.Errorf("read what %s reports for %s: %w", r.Live.Hosts, t.Name, err)
		}
		t.Live = live
	}
	r.Notes = append(r.Notes, "cluster figures are the answering node's: system_views are per node, and system.size_estimates covers the ranges that node holds; flush first, memtables are not counted")
	return nil
}

// notPermitted reports the node's Unauthorized answer: the role lacks a permission.
func notPermitted(err error) bool {
	var req gocql.RequestError
	return errors.As(err, &req) && req.Code() == gocql.ErrCodeUnauthorized
}

// tableFigures reads one table's max partition size, tombstones per read and size
// estimates. A table nothing has been read from or flushed to simply reports zeros.
func tableFigures(ctx context.Context, s *gocql.Session, ks, table string) (*report.Live, error) {
	live := &report.Live{}
	var mib int64
	err := s.Query(`SELECT mebibytes FROM system_views.max_partition_size WHERE keyspace_name = ? AND table_name = ?`, ks, table).
		WithContext(ctx).Scan(&mib)
	if err != nil && err != gocql.ErrNotFound {
		return nil, fmt.Errorf("system_views.max_partition_size: %w", err)
	}
	live.MaxPartitionBytes = report.Num(mib * 1 << 20)
	var count int64
	var p99, max float64
	err = s.Query(`SELECT count, p99th, max FROM system_views.tombstones_per_read WHERE keyspace_name = ? AND table_name = ?`, ks, table).
		WithContext(ctx).Scan(&count, &p99, &max)
	if err != nil && err != gocql.ErrNotFound {
		return nil, fmt.Errorf("system_views.tombstones_per_read: %w", err)
	}
	live.TombstonesReads, live.TombstonesPerReadP99, live.TombstonesPerReadMax = count, report.Num(p99), report.Num(max)
	iter := s.Query(`SELECT partitions_count, mean_partition_size FROM system.size_estimates WHERE keyspace_name = ? AND table_name = ?`, ks, table).
		WithContext(ctx).Iter()
	var n, mean int64
	var parts, bytes float64
	for iter.Scan(&n, &mean) {
		live.SizeEstimatesRanges++
		parts += float64(n)
		bytes += float64(n) * float64(mean)
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("system.size_estimates: %w", err)
	}
	live.PartitionsEstimate = report.Num(parts)
	if parts > 0 {
		live.MeanPartitionBytes = report.Num(bytes / parts)
	}
	return live, nil
}
