// Command accuracy prints how far the sizing model and the classic formula are from what a
// real Cassandra 5.0 node writes, for every reference workload (make accuracy); then how far
// `cqlsize profile` and the estimate from its workload file are from the truth of the profile
// tables, and the 1M-row run: the time a rate-limited profile takes and the node's read
// latency before and during it.
//
//	go run ./internal/accuracy/cmd [-hosts 127.0.0.1] [-scale 1] [-run name,name]
//	    [-profile-scale 5] [-sample 1000] [-million 1] [-rate 5000] [-only model|profile|million]
//
// It creates a keyspace of its own, writes each workload, flushes and compacts, measures every
// partition with sstablepartitions, prints the tables and drops the keyspace. It needs the node
// scripts/cassandra runs on this machine (it reads the node's sstables). With
// CQLSIZE_RECORD_FIGURES=1 it records the model's and the profile's figures in
// internal/figures/runs (docs/figures.md).
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

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/internal/accuracy"
	"github.com/cqlsize/cqlsize/internal/figures"
	"github.com/cqlsize/cqlsize/profile"
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
	pscale := flag.Float64("profile-scale", 5, "multiply the profile tables' keys (or rows, for the wide table)")
	sample := flag.Int("sample", 1000, "partitions the profile samples per table")
	million := flag.Float64("million", 1, "the 1M-row run's size in millions of rows (0: skip it)")
	rate := flag.Float64("rate", 5000, "the 1M-row run's profile --rate, rows per second")
	part := flag.String("only", "", "run one part: model, profile or million (default all)")
	flag.Parse()
	switch *part {
	case "", "model", "profile", "million":
	default:
		return fmt.Errorf("-only %q: want model, profile or million", *part)
	}

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

	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Minute)
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
	if *part == "" || *part == "model" {
		start := time.Now()
		results, err := accuracy.Run(ctx, s, ks, node, refs, accuracy.Options{Scale: *scale})
		if err != nil {
			return err
		}
		if err := accuracy.WriteTable(os.Stdout, results); err != nil {
			return err
		}
		fmt.Printf("(%s, scale %g, Cassandra at %s)\n", time.Since(start).Round(time.Second), *scale, strings.Join(cfg.Hosts, ","))
		if figures.Recording() && *only == "" {
			held, shown, why := accuracy.ModelFigures(results)
			if err := save(figures.Run{Test: fmt.Sprintf("accuracy-model-scale-%g", *scale), Started: start, Figures: held, Shown: shown, ShownWhy: why}); err != nil {
				return err
			}
		}
	}
	if *part == "" || *part == "profile" {
		if err := profileTables(ctx, s, ks, node, *pscale, *sample); err != nil {
			return err
		}
	}
	if (*part == "" || *part == "million") && *million > 0 {
		fmt.Printf("\n1M-row run (Cassandra at %s)\n", strings.Join(cfg.Hosts, ","))
		m, err := accuracy.RunMillion(ctx, s, ks, node, accuracy.MillionOptions{Scale: *million, Rate: *rate, Sample: *sample})
		if err != nil {
			return err
		}
		if err := accuracy.WriteMillion(os.Stdout, m); err != nil {
			return err
		}
	}
	return nil
}

// profileTables loads the profile tables, profiles them (sampled; the Zipf tables also read
// whole) and prints truth, profile and estimate side by side.
func profileTables(ctx context.Context, s *gocql.Session, ks string, node *accuracy.Node, scale float64, sample int) error {
	start := time.Now()
	loaded, err := accuracy.LoadProfileTables(ctx, s, ks, node, accuracy.ProfileTables, accuracy.LoadOptions{Scale: scale})
	if err != nil {
		return err
	}
	var names []string
	rows := 0
	var skewed []accuracy.Loaded
	for _, l := range loaded {
		names = append(names, l.Table.Name)
		rows += l.Total
		if l.Table.Skew > 0 {
			skewed = append(skewed, l)
		}
	}
	fmt.Printf("\nprofile tables: %d rows in %d tables loaded, flushed and compacted in %s (-profile-scale %g)\n",
		rows, len(loaded), time.Since(start).Round(time.Second), scale)
	truths, err := accuracy.ReadTruths(ctx, s, node, ks, names)
	if err != nil {
		return err
	}
	sampled, err := accuracy.CheckProfile(ctx, s, ks, loaded, truths, profile.Options{Sample: sample, Seed: 1})
	if err != nil {
		return err
	}
	full, err := accuracy.CheckProfile(ctx, s, ks, skewed, truths, profile.Options{Full: true, Seed: 1})
	if err != nil {
		return err
	}
	for _, run := range []*accuracy.ProfileRun{sampled, full} {
		fmt.Println()
		if err := accuracy.WriteProfileTable(os.Stdout, run); err != nil {
			return err
		}
	}
	if !figures.Recording() {
		return nil
	}
	held, shown, why := accuracy.ProfileFigures(sampled, full)
	return save(figures.Run{Test: fmt.Sprintf("accuracy-profile-scale-%g-sample-%d", scale, sample), Started: start,
		Figures: held, Shown: shown, ShownWhy: why})
}

// save records a run in internal/figures/runs (CQLSIZE_RECORD_FIGURES=1) and says where.
func save(r figures.Run) error {
	p, err := figures.Save(r)
	if err != nil {
		return err
	}
	fmt.Printf("(figures recorded in %s)\n", p)
	return nil
}
