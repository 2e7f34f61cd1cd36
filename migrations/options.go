package migrations

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/internal/version"
)

// Defaults for Options.
const (
	DefaultTable            = "cqlsize_migrations"
	DefaultLockTTL          = 60 * time.Second
	DefaultLockTimeout      = 10 * time.Minute
	DefaultAgreementTimeout = 2 * time.Minute
)

// Options configure a Migrator. Only Keyspace is required.
type Options struct {
	// Keyspace is the target keyspace: unqualified names in the files resolve to it, and
	// the bookkeeping table lives in it unless BookkeepingKeyspace says otherwise. The
	// history is kept per target keyspace. The session must be bound to it or to no
	// keyspace (New refuses another: ErrWrongKeyspace); with an unbound session every
	// unqualified name of a file is qualified with it before the statement is sent.
	Keyspace string
	// BookkeepingKeyspace holds the bookkeeping and lock tables (default Keyspace).
	BookkeepingKeyspace string
	// Table names the bookkeeping table (default cqlsize_migrations); the lock table is
	// Table + "_lock".
	Table string
	// Replication, a CQL map literal such as {'class': 'NetworkTopologyStrategy', 'dc1': 3},
	// creates a missing target or bookkeeping keyspace. Without it a missing keyspace is
	// ErrNoKeyspace: a tool should not guess a production replication factor.
	Replication string
	// LockTTL is the lease time: a process that dies holding the lock blocks others for at
	// most this long. It is renewed every quarter of it while a run lasts, and a holder
	// trusts it for TTL - (1s + TTL/10) from when the last renewal was sent: past that it
	// sends nothing more (ErrLockLost). Default 60s.
	LockTTL time.Duration
	// LockTimeout is how long to wait for another process's lock before ErrLocked.
	LockTimeout time.Duration
	// AgreementTimeout bounds the wait for schema agreement after each DDL statement.
	AgreementTimeout time.Duration
	// RequireAllNodes makes schema agreement wait for every node of the ring, down ones
	// included (gocql's rule). By default the nodes that are down are left out, as the Java
	// driver does, and named in a Warning event: a down node takes the schema from the
	// others when it comes back.
	RequireAllNodes bool
	// Consistency of bookkeeping reads and writes (default QUORUM, which is consistent
	// across datacenters; LOCAL_QUORUM with LocalSerial).
	Consistency gocql.Consistency
	// LocalSerial takes the lock with LOCAL_SERIAL in LocalDC instead of SERIAL across every
	// DC, and checks only LocalDC's replicas before running. It is for the one case SERIAL
	// cannot serve: a whole DC lost while a deploy must go on. It is safe only when no
	// process in another DC runs migrations meanwhile: LOCAL_SERIAL is a quorum of one DC's
	// replicas, so a process in each DC could hold the same lock at once. The DC that was
	// away takes the schema from gossip when it returns, and the rows it missed by repair:
	// Result.Behind names the DCs, RepairPlan the commands, CompareDCs checks.
	LocalSerial bool
	// LocalDC is the datacenter the session routes to first (connect.Config.LocalDC): the
	// one LOCAL_SERIAL and LOCAL_QUORUM mean. Required with LocalSerial.
	LocalDC string
	// AllowOutOfOrder applies a pending file whose version is lower than an applied one
	// (a branch merged late). Without it such a file is an error, since it was written
	// against an older schema.
	AllowOutOfOrder bool
	// Host, PID and ToolVersion are recorded as who applied each migration (default: this
	// machine's host name, this process, this build of cqlsize).
	Host        string
	PID         int
	ToolVersion string
	// BeforeApply, when set, is called with the lock held, after the bookkeeping was read
	// again and before the first statement runs, with exactly the statements this run will
	// apply. An error stops the run with nothing applied and is returned as is. The CLI
	// checks there that the statements apply to a model of the live schema.
	BeforeApply func(ctx context.Context, steps []Step) error
	// Calls are the functions gocqlx files name on their `-- CALL name;` lines (see
	// CallFunc), by name.
	Calls map[string]CallFunc
	// SkipCalls applies gocqlx files without the calls Calls does not hold, naming each in
	// a Warning event; without it such a file is refused (ErrUnknownCall) before anything
	// runs.
	SkipCalls bool
	// OnEvent, when set, is told about progress: lock waits, each statement, each file.
	// It runs on the migrating goroutine; a slow callback delays the run (the lease is
	// renewed meanwhile).
	OnEvent func(Event)
}

// Validate checks the options without touching the cluster: names Cassandra accepts, a
// replication that looks like a CQL map, a lock TTL of at least 2s, no negative timeouts.
func (o Options) Validate() error {
	_, err := o.withDefaults()
	return err
}

func (o Options) withDefaults() (Options, error) {
	if o.Keyspace == "" {
		return o, errors.New("migrations: no target keyspace: set Options.Keyspace")
	}
	if o.BookkeepingKeyspace == "" {
		o.BookkeepingKeyspace = o.Keyspace
	}
	if o.Table == "" {
		o.Table = DefaultTable
	}
	for _, n := range []struct{ what, name string }{
		{"keyspace", o.Keyspace}, {"bookkeeping keyspace", o.BookkeepingKeyspace}, {"bookkeeping table", o.Table},
	} {
		if err := checkName(n.name); err != nil {
			return o, fmt.Errorf("migrations: %s %q: %w", n.what, n.name, err)
		}
	}
	if len(o.Table) > 48-len("_lock") {
		return o, fmt.Errorf("migrations: bookkeeping table %q: at most %d characters, so that %s_lock fits", o.Table, 48-len("_lock"), o.Table)
	}
	if o.Replication != "" {
		r := strings.TrimSpace(o.Replication)
		if !strings.HasPrefix(r, "{") || !strings.HasSuffix(r, "}") || strings.ContainsAny(r, ";") || !strings.Contains(r, "class") {
			return o, fmt.Errorf("migrations: replication %q: want a CQL map such as {'class': 'NetworkTopologyStrategy', 'dc1': 3}", o.Replication)
		}
		o.Replication = r
	}
	switch {
	case o.LockTTL == 0:
		o.LockTTL = DefaultLockTTL
	case o.LockTTL < 2*time.Second:
		return o, fmt.Errorf("migrations: lock TTL %s: at least 2s (it is renewed every quarter of it and trusted for TTL - 1s - TTL/10)", o.LockTTL)
	}
	if o.LockTimeout == 0 {
		o.LockTimeout = DefaultLockTimeout
	}
	if o.AgreementTimeout == 0 {
		o.AgreementTimeout = DefaultAgreementTimeout
	}
	if o.LockTimeout < 0 || o.AgreementTimeout < 0 {
		return o, errors.New("migrations: timeouts must not be negative")
	}
	if o.LocalSerial && o.LocalDC == "" {
		return o, errors.New("migrations: LocalSerial takes the lock in one datacenter: set Options.LocalDC to it (and route the session there first)")
	}
	if o.Consistency == 0 {
		o.Consistency = gocql.Quorum
		if o.LocalSerial {
			// QUORUM counts every DC's replicas: with a DC lost it fails as SERIAL does.
			o.Consistency = gocql.LocalQuorum
		}
	}
	if o.Host == "" {
		o.Host, _ = os.Hostname()
	}
	if o.PID == 0 {
		o.PID = os.Getpid()
	}
	if o.ToolVersion == "" {
		o.ToolVersion = "cqlsize " + version.Module()
	}
	return o, nil
}

// checkName accepts a keyspace or table name Cassandra accepts: 1-48 letters, digits or
// underscores. Mixed case is kept (and quoted in statements).
func checkName(name string) error {
	if name == "" || len(name) > 48 {
		return errors.New("want 1 to 48 characters")
	}
	for _, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return fmt.Errorf("character %q: only letters, digits and _ are allowed", c)
		}
	}
	return nil
}
