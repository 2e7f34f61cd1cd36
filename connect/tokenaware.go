package connect

import (
	"fmt"

	"github.com/gocql/gocql"
)

// TokenAware is gocql's token-aware policy over fallback, guarded against a driver panic.
//
// gocql v1.7.0 compiles a keyspace's metadata whenever the keyspace changes (a schema event)
// or the session's own keyspace meets a topology change, to learn its replicas; and that
// compilation dereferences a user-defined aggregate's final function without checking that
// it has one, although FINALFUNC is optional. A history that creates such an aggregate, or a
// cluster that holds one, then crashes the whole process from a driver goroutine: no caller
// can recover it. (The Apache driver fixed it after v1.7.0; this module's import path does
// not have the fix.) The guard recovers the panic where the driver calls the policy: the
// keyspace's replicas stay unknown and its requests go to fallback's choice of node, which
// costs a hop and nothing else.
func TokenAware(fallback gocql.HostSelectionPolicy, logger gocql.StdLogger) gocql.HostSelectionPolicy {
	return &guardedPolicy{HostSelectionPolicy: gocql.TokenAwareHostPolicy(fallback), logger: logger}
}

type guardedPolicy struct {
	gocql.HostSelectionPolicy
	logger gocql.StdLogger
}

func (g *guardedPolicy) recover(what string) {
	if r := recover(); r != nil && g.logger != nil {
		g.logger.Printf("cqlsize: the driver could not compile the schema metadata on %s (%v); requests are routed without token awareness for it", what, r)
	}
}

func (g *guardedPolicy) KeyspaceChanged(u gocql.KeyspaceUpdateEvent) {
	defer g.recover(fmt.Sprintf("a change of keyspace %s", u.Keyspace))
	g.HostSelectionPolicy.KeyspaceChanged(u)
}

func (g *guardedPolicy) SetPartitioner(p string) {
	defer g.recover("the partitioner's announcement")
	g.HostSelectionPolicy.SetPartitioner(p)
}

func (g *guardedPolicy) AddHost(h *gocql.HostInfo) {
	defer g.recover("a node's arrival")
	g.HostSelectionPolicy.AddHost(h)
}

func (g *guardedPolicy) RemoveHost(h *gocql.HostInfo) {
	defer g.recover("a node's removal")
	g.HostSelectionPolicy.RemoveHost(h)
}

func (g *guardedPolicy) HostUp(h *gocql.HostInfo) {
	defer g.recover("a node coming up")
	g.HostSelectionPolicy.HostUp(h)
}

func (g *guardedPolicy) HostDown(h *gocql.HostInfo) {
	defer g.recover("a node going down")
	g.HostSelectionPolicy.HostDown(h)
}

// DriverLogger is the logger the driver itself logs to for cc: its own, or gocql.Logger.
func DriverLogger(cc *gocql.ClusterConfig) gocql.StdLogger {
	if cc.Logger != nil {
		return cc.Logger
	}
	return gocql.Logger
}
