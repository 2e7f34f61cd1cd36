// Command postsvc is the posts example as an HTTP service: create, read and delete posts,
// and page through a user's or a hashtag's timeline. It applies the example's migrations
// at start-up (safe when several instances start at once) and writes every post to its
// three tables with cql/denorm, on a session configured by denorm.ConfigureCluster so that
// a write whose coordinator dies is retried through another replica.
//
//	postsvc -hosts 127.0.0.1 -keyspace posts -replication "{'class': 'SimpleStrategy', 'replication_factor': 1}"
//
// A deployment that starts without hashtag timelines and adds them later runs with
// -hashtag-stage: old-only (posts_by_hashtag neither written nor read), dual-write (written,
// while a backfill copies the older posts), read-new (served), new-only (the same, the end
// of the transition). Left empty, every table is written and read.
//
// Page tokens are signed with POSTSVC_TOKEN_SECRET; without it a random secret is used and
// tokens do not survive a restart.
package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/cql/denorm"
	"github.com/cqlsize/cqlsize/examples/posts"
	"github.com/cqlsize/cqlsize/migrations"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "postsvc:", err)
		os.Exit(2)
	}
}

// run serves until ctx is done.
func run(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("postsvc", flag.ContinueOnError)
	fs.SetOutput(stderr)
	hosts := fs.String("hosts", "", "Cassandra contact points, comma-separated (default $CASSANDRA_HOSTS)")
	keyspace := fs.String("keyspace", "posts", "keyspace of the posts tables")
	replication := fs.String("replication", "", "create the keyspace if missing with this replication map, e.g. {'class': 'SimpleStrategy', 'replication_factor': 1}")
	consistency := fs.String("consistency", "LOCAL_QUORUM", "consistency of reads and writes")
	listen := fs.String("listen", "127.0.0.1:8080", "address to serve HTTP on")
	hashtagStage := fs.String("hashtag-stage", "", "posts_by_hashtag in a transition at this stage: old-only, dual-write, read-new or new-only (empty: no transition)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	var transitions []denorm.Transition
	if *hashtagStage != "" {
		stage, err := denorm.ParseStage(*hashtagStage)
		if err != nil {
			return fmt.Errorf("-hashtag-stage: %w", err)
		}
		transitions = append(transitions, denorm.Transition{New: posts.HashtagTable, Stage: stage})
	}

	cfg := connect.Config{Hosts: connect.SplitHosts(*hosts), Source: "-hosts", Consistency: *consistency}.FromEnv()
	cons, err := connect.ParseConsistency(*consistency)
	if err != nil {
		return err
	}
	// Schema work (the keyspace, the migrations) runs on sessions with connect's settings,
	// whose request timeout leaves DDL the seconds it can take; serving runs on one
	// configured by denorm.ConfigureCluster, which retries idempotent writes on another
	// replica when a node goes away.
	admin, err := connect.Open(ctx, cfg)
	if err != nil {
		return err
	}
	if *replication != "" {
		if err := migrations.EnsureKeyspace(ctx, admin, *keyspace, *replication, time.Minute); err != nil {
			admin.Close()
			return err
		}
	}
	admin.Close()
	cfg.Keyspace = *keyspace
	if err := migrate(ctx, cfg, log); err != nil {
		return err
	}
	session, err := posts.Open(ctx, cfg, denorm.ClusterOptions{})
	if err != nil {
		return err
	}
	defer session.Close()

	secret := []byte(os.Getenv("POSTSVC_TOKEN_SECRET"))
	if len(secret) == 0 {
		secret = make([]byte, 32)
		_, _ = rand.Read(secret)
		log.Warn("POSTSVC_TOKEN_SECRET is not set: page tokens will not survive a restart")
	}
	store, err := posts.NewStore(session, *keyspace, denorm.Options{Consistency: cons, Logger: log, Transitions: transitions}, secret)
	if err != nil {
		return err
	}
	srv := &http.Server{Addr: *listen, Handler: posts.Handler(store, log), ReadHeaderTimeout: 5 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	log.Info("serving", "addr", *listen)
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// migrate applies the example's migrations to cfg.Keyspace (safe when several instances
// start at once).
func migrate(ctx context.Context, cfg connect.Config, log *slog.Logger) error {
	s, err := connect.Open(ctx, cfg)
	if err != nil {
		return err
	}
	defer s.Close()
	set, err := posts.LoadMigrations() // the parse posts.NewStore plans from
	if err != nil {
		return err
	}
	mig, err := migrations.New(s, set.Migrations, migrations.Options{Keyspace: cfg.Keyspace})
	if err != nil {
		return err
	}
	res, err := mig.Up(ctx)
	if err != nil {
		return fmt.Errorf("apply migrations: %w", err)
	}
	log.Info("schema up to date", "applied", len(res.Applied))
	return nil
}
