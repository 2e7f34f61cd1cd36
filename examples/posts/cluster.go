package posts

import (
	"context"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/cql/denorm"
)

// Open connects the service to its cluster: cfg says where and how (hosts, keyspace,
// consistency, credentials, TLS), denorm.ConfigureCluster how a request rides through a
// node going away (an idempotent write is retried on the next replica, a frozen
// coordinator costs one attempt's timeout, a restarted node is used again within seconds).
// Like connect.Open it tries again with backoff until cfg.ConnectTimeout (or ctx) ends; a
// cluster that cannot be reached is a *connect.UnreachableError naming the hosts.
//
// Schema changes (migrations) are better run on a session from connect.Open: its request
// timeout leaves DDL on a busy node the seconds it takes.
func Open(ctx context.Context, cfg connect.Config, o denorm.ClusterOptions) (*gocql.Session, error) {
	return connect.OpenWith(ctx, cfg, func(cc *gocql.ClusterConfig) (*gocql.ClusterConfig, error) {
		return denorm.ConfigureCluster(cc, o)
	})
}

// ClusterConfig is the driver configuration Open connects with, for a caller that adds to
// it (an observer, a host filter) before creating the session itself.
func ClusterConfig(cfg connect.Config, o denorm.ClusterOptions) (*gocql.ClusterConfig, error) {
	cc, err := cfg.ClusterConfig()
	if err != nil {
		return nil, err
	}
	return denorm.ConfigureCluster(cc, o)
}
