package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/cqlsize/cqlsize/internal/nodecontainer"
	"github.com/cqlsize/cqlsize/migrations"
)

// startContainer starts a throwaway node from image for a --container run and points the
// connection flags at it (its published port, reached directly). The caller removes it.
func startContainer(ctx context.Context, env *Env, cmd *cobra.Command, mf *migrateFlags, image string) (*nodecontainer.Node, error) {
	if mf.conn.hosts != "" {
		return nil, Usagef("--container starts its own node: drop --hosts")
	}
	if mf.verbose {
		nodecontainer.LogTo(env.Stderr)
	} else {
		nodecontainer.LogTo(nil)
	}
	if !nodecontainer.EngineAnswers(ctx) {
		return nil, InputErr(fmt.Errorf("--container needs a Docker engine, and none answers here (is dockerd running? `docker info` says why); " +
			"or use an existing cluster: CASSANDRA_HOSTS=127.0.0.1 cqlsize migrate ... (this repository's `make cassandra-up` starts a local node without Docker)"))
	}
	if err := nodecontainer.EnsureImage(ctx, image, env.Stderr); err != nil {
		var pe *nodecontainer.PullError
		switch {
		case errors.As(err, &pe) && pe.Missing:
			return nil, Usagef("--container %s: %v; check the name and tag (`docker images` lists the images on this machine)", image, err)
		case errors.As(err, &pe):
			return nil, &ExitError{Code: ExitRetry, Err: fmt.Errorf("--container %s: %w; run again when the registry answers, or put the image on this machine first (docker load, docker build)", image, err)}
		default:
			return nil, InputErr(fmt.Errorf("--container %s: %w", image, err))
		}
	}
	start := time.Now()
	fmt.Fprintf(env.Stderr, "starting %s (heap %s)\n", image, nodecontainer.Heap["MAX_HEAP_SIZE"])
	sctx, cancel := context.WithTimeout(ctx, nodecontainer.StartTimeout+time.Minute)
	defer cancel()
	n, err := nodecontainer.Start(sctx, image)
	if err != nil {
		if ctx.Err() != nil {
			return nil, &ExitError{Code: ExitRetry, Err: fmt.Errorf("interrupted while starting %s: nothing left running", image)}
		}
		return nil, &ExitError{Code: ExitRetry, Err: fmt.Errorf("%w (nothing left running)", err)}
	}
	fmt.Fprintf(env.Stderr, "started %s in %s: container %.12s, CQL at %s\n", image, time.Since(start).Round(100*time.Millisecond), n.ID, n.Endpoint)
	mf.conn.hosts = n.Endpoint
	mf.conn.direct = true
	if f := cmd.Flag("connect-timeout"); f != nil && !f.Changed {
		// A node that has just come up takes a while to take sessions.
		mf.conn.reach.connectTimeout = 2 * time.Minute
	}
	if mf.replication == "" {
		mf.replication = "{'class': 'SimpleStrategy', 'replication_factor': 1}"
	}
	return n, nil
}

// runWithContainer starts a Cassandra container, applies the migrations to it and says how
// to connect; it keeps the container until Ctrl-C, then removes it, or leaves it running
// with --keep.
func runWithContainer(ctx context.Context, env *Env, cmd *cobra.Command, mf *migrateFlags, f *migrateUpFlags, migs []*migrations.Migration, to int64) error {
	if mf.conn.keyspace == "" {
		return Usagef("no target keyspace: pass --keyspace")
	}
	if f.keep {
		// The reaper removes this process's containers when it exits; --keep must outlive it.
		os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	}
	n, err := startContainer(ctx, env, cmd, mf, f.container)
	if err != nil {
		return err
	}
	remove := func() {
		if err := n.Remove(); err != nil {
			fmt.Fprintf(env.Stderr, "cqlsize: remove container %.12s: %v; remove it and its data volume with `docker rm -f -v %.12s`\n", n.ID, err, n.ID)
			return
		}
		fmt.Fprintf(env.Stderr, "removed container %.12s\n", n.ID)
	}
	if err := migrateUp(ctx, env, cmd, mf, f, migs, to); err != nil {
		remove()
		return err
	}
	fmt.Fprintf(env.Stdout, "Cassandra (%s) is running at %s with keyspace %s migrated. Connect with:\n"+
		"  cqlsh %s %s\n  cqlsize migrate status --hosts %s -k %s -d %s\n",
		f.container, n.Endpoint, mf.conn.keyspace, n.Host(), n.Port(), n.Endpoint, mf.conn.keyspace, mf.dir)
	if f.keep {
		fmt.Fprintf(env.Stdout, "left running (--keep): remove it and its data volume with `docker rm -f -v %.12s`\n", n.ID)
		return nil
	}
	fmt.Fprintf(env.Stdout, "press Ctrl-C to stop and remove it\n")
	<-ctx.Done()
	remove()
	return nil
}
