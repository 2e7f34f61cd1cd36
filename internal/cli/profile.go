package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gocql/gocql"
	"github.com/spf13/cobra"

	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/internal/report"
	"github.com/cqlsize/cqlsize/migrations"
	"github.com/cqlsize/cqlsize/profile"
)

// profileFlags are the flags of `cqlsize profile`.
type profileFlags struct {
	hosts, keyspace string
	tables          []string
	sample          int
	rate            string
	consistency     string
	full            bool
	pageSize        int
	timeout         time.Duration
	format, output  string
	seed            uint64
	reach           reachFlags
	localDC         string
}

func newProfileCmd(env *Env) *cobra.Command {
	f := &profileFlags{}
	cmd := &cobra.Command{
		Use:   "profile --keyspace K [--hosts H] [--table T] [--sample N] [--rate R]",
		Short: "Measure tables that already hold data and write the workload `estimate` reads",
		Long: `Profile samples each table of a keyspace across the token ring: whole partitions from
random start tokens, paged, at LOCAL_ONE (--consistency: any level a read takes, not ANY),
no faster than --rate (rows a second, or 2000/s, 100k/m, 5M/h). Per table it
measures rows per partition (p50, p99, max), each column's serialized size, null fraction and
collection items, TTLs and write times, the partition count (the whole table when the walk
covered it, else system.size_estimates, else the sample scaled by the share of the ring
walked), key skew (a Zipf exponent fitted to rows per partition, or uniform) and the tombstone
warnings the reads met; then projects each table's typical, p99 and largest partition at the
measured write rate: when it crosses ` + profile.LimitBytesName + ` and ` + profile.LimitValuesName + `, or its size when its bucket
ends.

--local-dc DC samples one data center: every read is routed to DC's nodes, at LOCAL_ONE
(or --consistency LOCAL_QUORUM), and the output says so (the workload file in its comments):
rows the other DCs hold that have not reached DC yet (hints, repair) are not counted.

Every table means every table but cqlsize migrate's own bookkeeping (cqlsize_migrations
and its _lock table), which a note names; --table profiles it when asked. The keyspace is
-k, folded to lower case as CQL folds an unquoted name (-k '"MixedCase"' keeps case), or
the keyspace of a --table given as keyspace.table.

By default it prints a workload file that cqlsize estimate takes unchanged, every field
commented with its source and sample size:

  cqlsize profile --keyspace app > workload.yaml
  cqlsize estimate --live --keyspace app --workload workload.yaml

--format text, json, markdown or html prints the profile itself (html with a growth chart).
The cluster is --hosts, or $CASSANDRA_HOSTS; the credentials come from the environment
(CASSANDRA_USERNAME, CASSANDRA_PASSWORD) as for estimate, TLS from the --tls-* flags. A progress bar is drawn on stderr when it is a terminal.

Exit status: 0 done; 2 bad flags, a keyspace or table that does not exist, a keyspace with
no table, a refusal (no SELECT permission on a table), or a login the cluster refuses:
nothing is printed; 3 the cluster was unreachable or a read timed out or found replicas
down: the profile printed is partial and says what it covers (safe to run again), and when
nothing at all could be read nothing is printed.`,
		Example: `  cqlsize profile --hosts 10.0.0.1 --keyspace app > workload.yaml
  cqlsize profile --keyspace app --table events --sample 5000 --rate 2000/s
  cqlsize profile --table app.events --consistency QUORUM --format text
  cqlsize profile --keyspace app --full --format html -o profile.html
  cqlsize profile --keyspace app --local-dc dc2 > workload.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runProfile(env, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.hosts, "hosts", "", "the cluster, host[:port],... (default $CASSANDRA_HOSTS)")
	fl.StringVarP(&f.keyspace, "keyspace", "k", "", "the keyspace to profile (required unless --table is keyspace.table); unquoted it is folded to lower case as CQL does, '\"MixedCase\"' keeps case")
	fl.StringSliceVar(&f.tables, "table", nil, "a table to profile, table or keyspace.table (repeatable, or comma-separated; default every table but cqlsize migrate's bookkeeping)")
	fl.IntVar(&f.sample, "sample", profile.DefaultSample, "partitions to read per table")
	fl.StringVar(&f.rate, "rate", "0", "at most this many rows read, over the whole run: a second (2000), or per unit (2000/s, 100k/m, 5M/h); 0: no limit")
	fl.StringVar(&f.consistency, "consistency", "LOCAL_ONE", "consistency of the reads: ONE, LOCAL_ONE, TWO, THREE, QUORUM, LOCAL_QUORUM, EACH_QUORUM or ALL")
	fl.BoolVar(&f.full, "full", false, "read every partition instead of a sample")
	fl.IntVar(&f.pageSize, "page-size", 500, "rows a page (never more than --rate)")
	fl.DurationVar(&f.timeout, "timeout", 30*time.Second, "timeout of each page read")
	fl.StringVar(&f.format, "format", "workload", "output: workload (YAML for estimate), text, json, markdown or html")
	fl.StringVarP(&f.output, "output", "o", "", "write to this file instead of standard output")
	fl.Uint64Var(&f.seed, "seed", 0, "seed of the random start tokens (0: from the clock), to repeat a walk")
	fl.StringVar(&f.localDC, "local-dc", "", "sample one data center: route every read to it, at LOCAL_ONE (or --consistency LOCAL_QUORUM)")
	f.reach.bind(fl)
	return cmd
}

func runProfile(env *Env, f *profileFlags) error {
	keyspace, tables, err := profileTargets(f.keyspace, f.tables)
	if err != nil {
		return err
	}
	if f.sample <= 0 {
		return Usagef("--sample %d: want at least 1 partition", f.sample)
	}
	rate, err := parseProfileRate(f.rate)
	if err != nil {
		return err
	}
	if f.pageSize <= 0 {
		return Usagef("--page-size %d: want at least 1 row", f.pageSize)
	}
	cons, err := parseReadConsistency(f.consistency)
	if err != nil {
		return err
	}
	if f.localDC != "" && cons != gocql.LocalOne && cons != gocql.LocalQuorum {
		// Any other level would read replicas in the other DCs too: the sample would not be
		// the one DC's.
		return Usagef("--consistency %s with --local-dc %s: that level reads replicas outside %s; use LOCAL_ONE (the default) or LOCAL_QUORUM", f.consistency, f.localDC, f.localDC)
	}
	if f.output != "" {
		// Before the reads, which may take minutes: the file is written after them.
		if fi, err := os.Stat(f.output); err == nil && fi.IsDir() {
			return Usagef("--output %s: is a directory", f.output)
		}
	}
	var render func(io.Writer, *profile.Result) error
	if f.format == "workload" || f.format == "yaml" {
		render = func(w io.Writer, r *profile.Result) error { return r.WriteWorkload(w) }
	} else if render, err = report.ProfileWriterFor(f.format); err != nil {
		return Usagef("--format: %v", err)
	}
	cfg, s, err := openInDC(env, f.hosts, "ONE", f.localDC, f.timeout, &f.reach)
	if err != nil {
		return err
	}
	defer s.Close()
	if f.localDC != "" {
		if err := checkLocalDC(env, s, f.localDC, cfg.Hosts); err != nil {
			return err
		}
	}

	bar := newProfileBar(env)
	res, err := profile.Run(env.Ctx, s, profile.Options{
		Keyspace: keyspace, Tables: tables, Sample: f.sample, Rate: rate, Consistency: cons,
		Full: f.full, PageSize: f.pageSize, Timeout: f.timeout, Progress: bar.update, Seed: f.seed,
		PerHost: perHost(cfg), LocalDC: f.localDC,
	})
	bar.finish()
	if err != nil {
		var nf *profile.NotFoundError
		var nt *profile.NoTableError
		if errors.As(err, &nf) || errors.As(err, &nt) {
			hint := ""
			if nf != nil && nf.What == "keyspace" && f.keyspace != "" && !strings.HasPrefix(strings.TrimSpace(f.keyspace), `"`) &&
				strings.TrimSpace(f.keyspace) != keyspace {
				hint = fmt.Sprintf(" (-k %s is folded to %s, as CQL folds an unquoted name; a keyspace created with quotes is -k '\"%s\"')",
					strings.TrimSpace(f.keyspace), keyspace, strings.TrimSpace(f.keyspace))
			}
			return Usagef("%v on %s%s", err, strings.Join(cfg.Hosts, ","), hint)
		}
		if notPermitted(err) {
			table := ""
			if g := grantFor(err.Error()); g != "" {
				table = strings.TrimSuffix(g, ";") + "; for all its tables "
			}
			return &ExitError{Code: ExitBadInput, Err: fmt.Errorf("%w; profile reads the rows it samples, so the role needs SELECT "+
				"on every table it profiles: %sGRANT SELECT ON KEYSPACE %s TO %s; or name the tables it may read with --table",
				err, table, keyspace, orUnnamed(cfg.Username))}
		}
		return InputErr(err)
	}
	if res.ReadNothing() {
		// A workload of nothing would stand in for tables that were not read: print none.
		return &ExitError{Code: ExitRetry, Err: fmt.Errorf("nothing could be read, so no profile is printed: %s",
			strings.Join(res.Problems, "; "))}
	}
	if len(res.Skipped) > 0 {
		fmt.Fprintf(env.Stderr, "cqlsize: note: %s\n", cliWords(profile.SkippedNote(keyspace, res.Skipped)))
	}
	var out bytes.Buffer
	if err := render(&out, res); err != nil {
		return err
	}
	if f.output != "" {
		if err := os.WriteFile(f.output, out.Bytes(), 0o644); err != nil {
			return Usagef("--output: %v", err)
		}
	} else if _, err := env.Stdout.Write(out.Bytes()); err != nil {
		return err
	}
	if res.Partial {
		return &ExitError{Code: ExitRetry, Err: fmt.Errorf("partial profile: %s", strings.Join(res.Problems, "; "))}
	}
	return nil
}

// checkLocalDC refuses a --local-dc the cluster does not have: the driver would route to
// the other DCs instead, and the profile would claim a DC it never read.
func checkLocalDC(env *Env, s *gocql.Session, dc string, hosts []string) error {
	ctx, cancel := context.WithTimeout(env.Ctx, 20*time.Second)
	defer cancel()
	nodes, err := migrations.NodesPerDC(ctx, s)
	if err != nil {
		return InputErr(err)
	}
	if nodes[dc] > 0 {
		return nil
	}
	names := make([]string, 0, len(nodes))
	for n := range nodes {
		names = append(names, n)
	}
	sort.Strings(names)
	return Usagef("--local-dc %s: the cluster at %s has no such data center (it has %s)", dc, strings.Join(hosts, ","), strings.Join(names, ", "))
}

// orUnnamed is the role to name in a GRANT hint.
func orUnnamed(user string) string {
	if user == "" {
		return "<role>"
	}
	return user
}

// profileBar draws `[#####.....] 412/1000 partitions  events` on stderr when it is a
// terminal, in the style of migrate's bar; on a pipe or file it draws nothing.
type profileBar struct {
	termLine
	last time.Time
}

func newProfileBar(env *Env) *profileBar {
	return &profileBar{termLine: newTermLine(env)}
}

func (p *profileBar) update(table string, done, total int) {
	if !p.tty {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if now := time.Now(); now.Sub(p.last) < 100*time.Millisecond && done != total {
		return
	} else {
		p.last = now
	}
	if total <= 0 {
		fmt.Fprintf(p.w, "\r\x1b[K%d partitions  %s (full scan)", done, table)
	} else {
		fmt.Fprintf(p.w, "\r\x1b[K%s %d/%d partitions  %s", gauge(done*gaugeWidth/total), done, total, table)
	}
	p.bar = true
}

// termLine is a progress line redrawn in place on a terminal's stderr: migrate's, profile's
// and backfill's bars share its state and how it is cleared.
type termLine struct {
	mu  sync.Mutex
	w   io.Writer
	tty bool
	bar bool // a line is drawn and must be cleared before anything else is printed
}

func newTermLine(env *Env) termLine { return termLine{w: env.Stderr, tty: isTerminal(env.Stderr)} }

// finish clears the line, if one is drawn.
func (l *termLine) finish() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.clear()
}

// clear erases the drawn line, if any; the caller holds mu.
func (l *termLine) clear() {
	if l.bar {
		fmt.Fprint(l.w, "\r\x1b[K")
		l.bar = false
	}
}

// gaugeWidth is how many cells a progress bar has.
const gaugeWidth = 30

// gauge is a bar of gaugeWidth cells, filled cells of them drawn as '#': [#####.....].
func gauge(filled int) string {
	filled = min(max(filled, 0), gaugeWidth)
	return "[" + strings.Repeat("#", filled) + strings.Repeat(".", gaugeWidth-filled) + "]"
}

// perHost opens sessions pinned to one node (the driver's host filter, no peer discovery),
// with the same credentials, TLS and port as the main one, so profile can read each node's
// own system.size_estimates.
func perHost(cfg connect.Config) profile.HostOpener {
	port := ""
	if len(cfg.Hosts) > 0 {
		if _, p, err := net.SplitHostPort(cfg.Hosts[0]); err == nil {
			port = p
		}
	}
	return func(ctx context.Context, addr string) (*gocql.Session, error) {
		c := cfg
		c.Hosts = []string{addr}
		if port != "" {
			c.Hosts = []string{net.JoinHostPort(addr, port)}
		}
		c.ConnectTimeout = 5 * time.Second
		return connect.OpenWith(ctx, c, func(cc *gocql.ClusterConfig) (*gocql.ClusterConfig, error) {
			cc.HostFilter = gocql.WhiteListHostFilter(addr)
			cc.DisableInitialHostLookup = true
			return cc, nil
		})
	}
}
