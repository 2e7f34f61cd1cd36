package cli

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/testcontainers/testcontainers-go"
	tccassandra "github.com/testcontainers/testcontainers-go/modules/cassandra"

	"github.com/cqlsize/cqlsize/migrations"
)

// runWithContainer starts a Cassandra container, applies the migrations to it and says how
// to connect; it keeps the container until Ctrl-C, or leaves it running with --keep.
func runWithContainer(ctx context.Context, env *Env, cmd *cobra.Command, mf *migrateFlags, f *migrateUpFlags, migs []*migrations.Migration, to int64) error {
	if mf.conn.hosts != "" {
		return Usagef("--container starts its own cluster: drop --hosts")
	}
	if mf.conn.keyspace == "" {
		return Usagef("no target keyspace: pass --keyspace")
	}
	if !dockerAnswers(ctx) {
		return InputErr(fmt.Errorf("--container needs a Docker engine, and none answers here; use an existing cluster instead: "+
			"CASSANDRA_HOSTS=127.0.0.1 cqlsize migrate up --keyspace %s (the repository's `make cassandra-up` starts a local node without Docker)",
			mf.conn.keyspace))
	}
	if f.keep {
		// The reaper removes containers when this process exits; --keep must outlive it.
		os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	}
	fmt.Fprintf(env.Stderr, "starting %s (the first start pulls the image and takes a minute or two)\n", f.container)
	sctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	c, err := tccassandra.Run(sctx, f.container)
	if err != nil {
		return InputErr(fmt.Errorf("start %s: %w", f.container, err))
	}
	stop := func() {
		tctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = c.Terminate(tctx)
	}
	host, err := c.ConnectionHost(sctx)
	if err != nil {
		stop()
		return InputErr(fmt.Errorf("address of the %s container: %w", f.container, err))
	}
	mf.conn.hosts = host
	if mf.replication == "" {
		mf.replication = "{'class': 'SimpleStrategy', 'replication_factor': 1}"
	}
	if err := migrateUp(ctx, env, cmd, mf, f, migs, to); err != nil {
		stop()
		return err
	}
	fmt.Fprintf(env.Stdout, "Cassandra (%s) is running at %s with keyspace %s migrated. Connect with:\n"+
		"  export CASSANDRA_HOSTS=%s\n  cqlsize migrate status --keyspace %s --dir %s\n  cqlsh %s\n",
		f.container, host, mf.conn.keyspace, host, mf.conn.keyspace, mf.dir, hostForCqlsh(host))
	if f.keep {
		fmt.Fprintf(env.Stdout, "left running (--keep): remove it with `docker rm -f %s`\n", c.GetContainerID())
		return nil
	}
	fmt.Fprintf(env.Stdout, "press Ctrl-C to stop and remove it\n")
	<-ctx.Done()
	stop()
	return nil
}

func hostForCqlsh(hostport string) string {
	for i := len(hostport) - 1; i >= 0; i-- {
		if hostport[i] == ':' {
			return hostport[:i] + " " + hostport[i+1:]
		}
	}
	return hostport
}

// dockerAnswers reports whether a Docker engine responds, without panicking on the broken
// setups where testcontainers does.
func dockerAnswers(ctx context.Context) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	p, err := testcontainers.ProviderDocker.GetProvider()
	if err != nil {
		return false
	}
	defer p.Close()
	hctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return p.Health(hctx) == nil
}
