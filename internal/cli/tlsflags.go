package cli

import (
	"io"
	"log"
	"time"

	"github.com/spf13/pflag"

	"github.com/cqlsize/cqlsize/connect"
)

// tlsFlags are the TLS flags of every command that connects. The key is a file the
// command reads, never its contents on the command line.
type tlsFlags struct {
	ca, cert, key, serverName string
}

func (t *tlsFlags) bind(f *pflag.FlagSet) {
	f.StringVar(&t.ca, "tls-ca", "", "TLS: CA bundle (PEM) that signs the nodes' certificates; turns TLS on")
	f.StringVar(&t.cert, "tls-cert", "", "TLS: client certificate (PEM) for nodes that require one (mutual TLS), with --tls-key")
	f.StringVar(&t.key, "tls-key", "", "TLS: client private key (PEM), with --tls-cert")
	f.StringVar(&t.serverName, "tls-server-name", "", "TLS: check the nodes' certificates against this name instead of the address connected to (the chain is still verified)")
}

// apply copies the TLS settings into a connection configuration.
func (t *tlsFlags) apply(cfg *connect.Config) {
	cfg.CAFile, cfg.CertFile, cfg.KeyFile, cfg.ServerName = t.ca, t.cert, t.key, t.serverName
}

// readerConfig is the connection of profile, estimate and backfill: 10s to reach the
// cluster, the driver's log discarded, the cluster from --hosts (or $CASSANDRA_HOSTS), TLS
// from the flags, credentials from the environment. Hosts is empty when neither names a
// cluster.
func readerConfig(env *Env, hosts, consistency string, timeout time.Duration, t *tlsFlags) connect.Config {
	cfg := connect.Config{Consistency: consistency, Timeout: timeout, ConnectTimeout: 10 * time.Second,
		Logger: log.New(io.Discard, "", 0)}
	t.apply(&cfg)
	if hosts != "" {
		cfg.Hosts, cfg.Source = connect.SplitHosts(hosts), "--hosts"
	}
	return cfg.FromGetenv(env.Getenv)
}
