package migrations

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/gocql/gocql"
)

// awaitAgreement waits until every node reports the same schema version, or the timeout
// passes. On failure it names the nodes that disagree, read from system.local and
// system.peers_v2 (system.peers on clusters older than 4.0).
func awaitAgreement(ctx context.Context, s *gocql.Session, timeout time.Duration, what string) error {
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err := s.AwaitSchemaAgreement(actx)
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		// The run itself was cancelled (interrupt, lost lock): report that, not the nodes.
		if c := context.Cause(ctx); c != nil {
			return c
		}
		return ctx.Err()
	}
	rctx, rcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer rcancel()
	versions, rerr := SchemaVersions(rctx, s)
	if rerr != nil {
		return &DisagreementError{Statement: what, Err: fmt.Errorf("%v (and reading the versions failed: %v)", err, rerr)}
	}
	return &DisagreementError{Statement: what, Versions: versions, Err: err}
}

// SchemaVersions returns each node's schema version (host -> version) as the coordinator
// sees it: its own from system.local, the others' from system.peers_v2.
func SchemaVersions(ctx context.Context, s *gocql.Session) (map[string]string, error) {
	out := map[string]string{}
	var addr net.IP
	var version gocql.UUID
	if err := s.Query(`SELECT broadcast_address, schema_version FROM system.local WHERE key = 'local'`).
		WithContext(ctx).Consistency(gocql.One).Scan(&addr, &version); err != nil {
		return nil, fmt.Errorf("read system.local: %w", err)
	}
	out[addr.String()] = version.String()
	iter := s.Query(`SELECT peer, peer_port, schema_version FROM system.peers_v2`).WithContext(ctx).Consistency(gocql.One).Iter()
	var port int
	for iter.Scan(&addr, &port, &version) {
		out[net.JoinHostPort(addr.String(), strconv.Itoa(port))] = version.String()
	}
	if err := iter.Close(); err != nil {
		iter = s.Query(`SELECT peer, schema_version FROM system.peers`).WithContext(ctx).Consistency(gocql.One).Iter()
		for iter.Scan(&addr, &version) {
			out[addr.String()] = version.String()
		}
		if err := iter.Close(); err != nil {
			return nil, fmt.Errorf("read system.peers_v2 and system.peers: %w", err)
		}
	}
	return out, nil
}
