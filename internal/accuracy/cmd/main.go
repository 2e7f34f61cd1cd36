// Command accuracy prints how far the sizing model and the classic formula are from what a
// real Cassandra 5.0 node writes, for every reference workload (make accuracy).
//
//	go run ./internal/accuracy/cmd [-hosts 127.0.0.1] [-scale 1] [-run name,name]
//
// It creates a keyspace of its own, writes each workload, flushes and compacts, measures every
// partition with sstablepartitions, prints the table and drops the keyspace. It needs the node
// scripts/cassandra runs on this machine (it reads the node's sstables).
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/cqlsize/cqlsize/internal/accuracy"
	"github.com/cqlsize/cqlsize/internal/connect"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "accuracy:", err)
		os.Exit(2)
	}
}

func run() error {
	hosts := flag.String("hosts", "", "contact points (default $CASSANDRA_HOSTS, else 127.0.0.1)")
	scale := flag.Float64("scale", 1, "multiply every reference's rows per partition")
	only := flag.String("run", "", "comma-separated reference names to run (default all)")
	flag.Parse()

	cfg := connect.Config{Consistency: "ONE", Timeout: 30 * time.Second}
	if *hosts != "" {
		cfg.Hosts, cfg.Source = connect.SplitHosts(*hosts), "-hosts"
	}
	cfg = cfg.FromEnv()
	if len(cfg.Hosts) == 0 {
		cfg.Hosts, cfg.Source = []string{"127.0.0.1"}, "default"
	}
	refs := accuracy.References
	if *only != "" {
		refs = nil
		for _, name := range strings.Split(*only, ",") {
			found := false
			for _, r := range accuracy.References {
				if r.Name == strings.TrimSpace(name) {
					refs, found = append(refs, r), true
				}
			}
			if !found {
				return fmt.Errorf("-run: no reference workload %q", name)
			}
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	admin, err := connect.Open(ctx, cfg)
	if err != nil {
		return err
	}
	defer admin.Close()
	var b [4]byte
	_, _ = rand.Read(b[:])
	ks := "accuracy_" + hex.EncodeToString(b[:])
	if err := admin.Query(`CREATE KEYSPACE ` + ks + ` WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`).WithContext(ctx).Exec(); err != nil {
		return fmt.Errorf("create keyspace %s: %w", ks, err)
	}
	defer func() {
		if err := admin.Query(`DROP KEYSPACE IF EXISTS ` + ks).Exec(); err != nil {
			fmt.Fprintf(os.Stderr, "accuracy: drop keyspace %s: %v\n", ks, err)
		}
	}()
	cfg.Keyspace = ks
	s, err := connect.Open(ctx, cfg)
	if err != nil {
		return err
	}
	defer s.Close()
	node, err := accuracy.OpenNode(ctx, s)
	if err != nil {
		return err
	}
	start := time.Now()
	results, err := accuracy.Run(ctx, s, ks, node, refs, accuracy.Options{Scale: *scale})
	if err != nil {
		return err
	}
	if err := accuracy.WriteTable(os.Stdout, results); err != nil {
		return err
	}
	fmt.Printf("(%s, scale %g, Cassandra at %s)\n", time.Since(start).Round(time.Second), *scale, strings.Join(cfg.Hosts, ","))
	return nil
}
