package cli

import (
	"cmp"
	"io"
	"log"
	"time"

	"github.com/spf13/pflag"

	"github.com/cqlsize/cqlsize/connect"
)

// reachFlags are how every command that connects reaches the cluster: TLS, and how long to
// keep trying. One set, so that profile, estimate, evolve, tier, backfill and migrate take
// the same flags with the same defaults. The key is a file the command reads, never its
// contents on the command line.
type reachFlags struct {
	ca, cert, key, serverName string
	// connectTimeout is the whole budget for reaching the cluster, attempts and backoff
	// included; a cluster behind a slow link or under load needs more than the default.
	connectTimeout time.Duration
}

func (t *reachFlags) bind(f *pflag.FlagSet) {
	f.DurationVar(&t.connectTimeout, "connect-timeout", connect.DefaultConnectTimeout, "how long to keep trying to reach the cluster (attempts are repeated with backoff); then exit 3")
	f.StringVar(&t.ca, "tls-ca", "", "TLS: CA bundle (PEM) that signs the nodes' certificates; turns TLS on")
	f.StringVar(&t.cert, "tls-cert", "", "TLS: client certificate (PEM) for nodes that require one (mutual TLS), with --tls-key")
	f.StringVar(&t.key, "tls-key", "", "TLS: client private key (PEM), with --tls-cert")
	f.StringVar(&t.serverName, "tls-server-name", "", "TLS: check the nodes' certificates against this name instead of the address connected to (the chain is still verified)")
}

// check refuses a negative --connect-timeout by the flag's name, before connect's own
// check, which does not know it. Zero is the default budget, as in connect.Config.
func (t *reachFlags) check() error {
	if t.connectTimeout < 0 {
		return Usagef("--connect-timeout %s: must not be negative", t.connectTimeout)
	}
	return nil
}

// apply copies the settings into a connection configuration, zero --connect-timeout as
// the default it stands for, so a caller can bound the whole open by cfg.ConnectTimeout.
func (t *reachFlags) apply(cfg *connect.Config) {
	cfg.CAFile, cfg.CertFile, cfg.KeyFile, cfg.ServerName = t.ca, t.cert, t.key, t.serverName
	cfg.ConnectTimeout = cmp.Or(t.connectTimeout, connect.DefaultConnectTimeout)
}

// readerConfig is the connection of profile, estimate, evolve, tier and backfill: the
// driver's log discarded, the cluster from --hosts (or $CASSANDRA_HOSTS), TLS and the
// connect budget from the flags, credentials from the environment. Hosts is empty when
// neither names a cluster.
func readerConfig(env *Env, hosts, consistency string, timeout time.Duration, t *reachFlags) connect.Config {
	cfg := connect.Config{Consistency: consistency, Timeout: timeout, Logger: log.New(io.Discard, "", 0)}
	t.apply(&cfg)
	if hosts != "" {
		cfg.Hosts, cfg.Source = connect.SplitHosts(hosts), "--hosts"
	}
	return cfg.FromGetenv(env.Getenv)
}
