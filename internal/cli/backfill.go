package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gocql/gocql"
	"github.com/spf13/cobra"

	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/derive"
	"github.com/cqlsize/cqlsize/cql/liveschema"
	"github.com/cqlsize/cqlsize/evolve/backfill"
	"github.com/cqlsize/cqlsize/sizing"
)

// backfillFlags are the flags of `cqlsize backfill`.
type backfillFlags struct {
	hosts, keyspace, from, to string
	reach                     reachFlags
	derive                    []string
	rate, split               string
	consistency, writeCons    string
	restart, verify, full     bool
	sample, workers, ranges   int
	pageSize                  int
	timeout, lease, retryFor  time.Duration
	format                    string
	progress                  string
	progressEvery             time.Duration
	localDC, verifyDC         string
}

func newBackfillCmd(env *Env) *cobra.Command {
	f := &backfillFlags{}
	cmd := &cobra.Command{
		Use:   "backfill --keyspace K --from SRC --to DST [--derive COL=EXPR]... [--rate N/s] [--split I/N]",
		Short: "Copy an existing table into a new query table, with every cell's write time and TTL",
		Long: `Backfill copies every row of --from into --to, the new table a changed access pattern needs,
while the service keeps writing both (dual writes). Columns of --to are taken from --from by
name; --derive fills the others:

  COL=SRC            the value of another column
  COL=year(SRC)      the bucket of a timestamp, date or timeuuid: its label in a text column
  COL=month(SRC)     (2024, 2024-01, 2024-W03, 2024-01-15, 2024-01-15T10, 2024-01-15T10:04), its start in a
  COL=week(SRC)      timestamp or date column, the year number in an int or bigint; UTC
  COL=day(SRC)
  COL=hour(SRC)
  COL=minute(SRC)
  COL=shard(SRC, N)  the write shard 0..N-1 (FNV-1a of the value, as bucket.Shard)
  COL=each(SRC)      one target row per element of a set or list

Every target cell is written with its source cell's write time (USING TIMESTAMP) and
remaining TTL, so a row the service deletes or updates while the copy runs stays deleted or
updated. The ring is read in --ranges token ranges, --workers at a time, paged, at
LOCAL_ONE (--consistency), no faster than --rate; a range whose read fails is split and
read again. Each range copied is recorded in cqlsize_backfill in the target's keyspace: a
run that was stopped continues where it stopped (--restart starts over), and --split I/N
takes the I-th of N shares of the ranges, so N processes divide one backfill with no
coordinator. Two runs never copy one range at once (LWT leases in cqlsize_backfill_lease).

--verify copies nothing: it reads --sample source rows (all with --full) and checks that
each one's target rows exist with the same values and write times.

Across datacenters: --local-dc DC copies through DC (reads at LOCAL_ONE and writes at
LOCAL_QUORUM there, range leases at LOCAL_SERIAL): it keeps copying through the loss of
another DC, whose replicas get the rows by repair once it returns. --verify --verify-dc DC
reads through DC's nodes alone, so it sees what that DC holds; --verify-dc each checks
every DC in turn (a LOCAL_QUORUM read elsewhere sees one DC only, whichever answers).

Exit status: 0 done (or verified clean); 1 --verify found missing or different rows; 2 bad
flags, an unknown table or column, a derive that does not fit the column types, a target
key column neither in the source nor derived, the same table twice, or a checkpoint made
with other rules: nothing is read; 2 also when the node refused a permission (the GRANT is
printed; run it again once granted and it continues); 3 cluster trouble or ranges left
uncopied: run it again and it continues.`,
		Example: `  cqlsize backfill -k app --from posts --to posts_by_user --derive 'month=month(created_at)'
  cqlsize backfill -k app --from posts --to posts_by_hashtag --derive 'hashtag=each(hashtags)' --derive 'day=day(created_at)' --rate 5000/s
  cqlsize backfill -k app --from posts --to posts_by_user --derive 'month=month(created_at)' --split 2/3
  cqlsize backfill -k app --from posts --to posts_by_user --derive 'month=month(created_at)' --verify --full`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runBackfill(env, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.hosts, "hosts", "", "the cluster, host[:port],... (default $CASSANDRA_HOSTS)")
	f.reach.bind(fl)
	fl.StringVarP(&f.keyspace, "keyspace", "k", "", "the keyspace of --from and --to when they are not keyspace.table")
	fl.StringVar(&f.from, "from", "", "the source table, table or keyspace.table")
	fl.StringVar(&f.to, "to", "", "the target table, table or keyspace.table")
	fl.StringArrayVar(&f.derive, "derive", nil, "COL=EXPR: how a column of --to is filled (repeatable; see above)")
	fl.StringVar(&f.rate, "rate", "0", "at most this many source rows read: a second (2000), or per unit (2000/s, 100k/m, 5M/h); 0: no limit")
	fl.StringVar(&f.split, "split", "1/1", "I/N: copy the I-th of N equal shares of the ranges")
	fl.StringVar(&f.consistency, "consistency", "LOCAL_ONE", "consistency of the source reads: ONE, LOCAL_ONE, TWO, THREE, QUORUM, LOCAL_QUORUM, EACH_QUORUM or ALL")
	fl.StringVar(&f.writeCons, "write-consistency", "LOCAL_QUORUM", "consistency of the target writes and the checkpoint")
	fl.BoolVar(&f.restart, "restart", false, "forget the checkpoint and copy every range again")
	fl.BoolVar(&f.verify, "verify", false, "copy nothing: check that the source rows' target rows exist with the same values and write times")
	fl.BoolVar(&f.full, "full", false, "with --verify: check every source row instead of a sample")
	fl.IntVar(&f.sample, "sample", 1000, "with --verify: source rows to check")
	fl.IntVar(&f.workers, "workers", 8, "token ranges copied at once")
	fl.IntVar(&f.ranges, "ranges", 256, "token ranges the ring is cut into (kept by the checkpoint)")
	fl.IntVar(&f.pageSize, "page-size", 1000, "source rows a page")
	fl.DurationVar(&f.timeout, "timeout", 30*time.Second, "timeout of each request")
	fl.DurationVar(&f.lease, "lease", 30*time.Second, "how long a range stays claimed by a run that stopped renewing it")
	fl.DurationVar(&f.retryFor, "retry-for", time.Minute, "how long a write, lease claim or checkpoint failing with a timeout or a lost node is retried before its range fails; with --verify, how long a read is")
	fl.StringVar(&f.format, "format", "text", "output: text or json")
	fl.StringVar(&f.progress, "progress", "", "progress on stderr: auto (a bar on a terminal, else a line every --progress-every), text, json (JSON lines) or none (default $CQLSIZE_PROGRESS or auto)")
	fl.DurationVar(&f.progressEvery, "progress-every", 5*time.Second, "how often a progress line is printed when no terminal watches (or with --progress text or json)")
	fl.StringVar(&f.localDC, "local-dc", "", "copy through this datacenter: requests go to its nodes first, LOCAL_ONE/LOCAL_QUORUM mean it, and the range leases take LOCAL_SERIAL, so the loss of another DC does not stop the copy")
	fl.StringVar(&f.verifyDC, "verify-dc", "", "with --verify: check what this datacenter's replicas hold (a DC name, or each: every DC in turn), read at --write-consistency through that DC's nodes alone")
	return cmd
}

// parseSplit reads --split I/N.
func parseSplit(s string) (int, int, error) {
	i, n, ok := strings.Cut(strings.TrimSpace(s), "/")
	a, err1 := strconv.Atoi(strings.TrimSpace(i))
	b, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil || b < 1 || a < 1 || a > b {
		return 0, 0, Usagef("--split %q: want I/N with 1 <= I <= N, such as 1/3", s)
	}
	return a, b, nil
}

// backfillInput is everything checked before the cluster is asked anything.
type backfillInput struct {
	srcKS, src, dstKS, dst string
	rules                  []derive.Rule
	rate                   float64
	share, shares          int
	read, write            gocql.Consistency
}

func checkBackfillFlags(f *backfillFlags) (*backfillInput, error) {
	in := &backfillInput{}
	ks := ""
	if f.keyspace != "" {
		k, err := foldCQLName(f.keyspace)
		if err != nil {
			return nil, Usagef("--keyspace: %v", err)
		}
		ks = k
	}
	name := func(flag, raw string) (string, string, error) {
		if strings.TrimSpace(raw) == "" {
			return "", "", Usagef("--%s is required: the %s table", flag, map[string]string{"from": "source", "to": "target"}[flag])
		}
		parts, err := splitCQLName(raw)
		if err != nil {
			return "", "", Usagef("--%s: %v", flag, err)
		}
		switch {
		case len(parts) == 2:
			return parts[0], parts[1], nil
		case len(parts) == 1 && ks != "":
			return ks, parts[0], nil
		case len(parts) == 1:
			return "", "", Usagef("--%s %s: name its keyspace with --keyspace or as keyspace.table", flag, raw)
		}
		return "", "", Usagef("--%s %s: want table or keyspace.table", flag, raw)
	}
	var err error
	if in.srcKS, in.src, err = name("from", f.from); err != nil {
		return nil, err
	}
	if in.dstKS, in.dst, err = name("to", f.to); err != nil {
		return nil, err
	}
	if in.srcKS == in.dstKS && in.src == in.dst {
		return nil, Usagef("--from and --to are the same table %s.%s: a backfill copies one table into another", in.srcKS, in.src)
	}
	for _, text := range f.derive {
		r, err := derive.ParseRule(text)
		if err != nil {
			return nil, Usagef("--derive %q: %v", text, err)
		}
		in.rules = append(in.rules, r)
	}
	if in.rate, err = parseProfileRate(f.rate); err != nil {
		return nil, err
	}
	if in.share, in.shares, err = parseSplit(f.split); err != nil {
		return nil, err
	}
	for _, c := range []struct {
		flag string
		n    int
	}{{"workers", f.workers}, {"ranges", f.ranges}, {"page-size", f.pageSize}, {"sample", f.sample}} {
		if c.n < 1 {
			return nil, Usagef("--%s %d: want at least 1", c.flag, c.n)
		}
	}
	if f.ranges > maxBackfillRanges {
		// Each range is a checkpoint row and a lightweight transaction to claim it.
		return nil, Usagef("--ranges %d: want at most %d (each range is a checkpoint row and a claim on the node)", f.ranges, maxBackfillRanges)
	}
	if f.timeout <= 0 {
		return nil, Usagef("--timeout %s: want a duration above zero", f.timeout)
	}
	if in.shares > f.ranges {
		return nil, Usagef("--split %s: more shares than --ranges %d", f.split, f.ranges)
	}
	if in.read, err = parseReadConsistency(f.consistency); err != nil {
		return nil, Usagef("--consistency %q: backfill reads the source at one of %s", f.consistency, strings.Join(readLevels, ", "))
	}
	if in.write, err = connect.ParseConsistency(strings.ToUpper(strings.TrimSpace(f.writeCons))); err != nil {
		return nil, Usagef("--write-consistency: %v", err)
	}
	switch {
	case f.retryFor < 0:
		return nil, Usagef("--retry-for %s: must not be negative", f.retryFor)
	case f.lease < 4*time.Second:
		return nil, Usagef("--lease %s: want at least 4s", f.lease)
	case f.format != "text" && f.format != "json":
		return nil, Usagef("--format %q: want text or json", f.format)
	case f.full && !f.verify:
		return nil, Usagef("--full goes with --verify: a backfill always copies every row")
	case f.verifyDC != "" && !f.verify:
		return nil, Usagef("--verify-dc goes with --verify: it names the datacenter to check")
	}
	return in, nil
}

// maxBackfillRanges bounds --ranges: 65,536 ranges already cut a ring of 100 TB into
// ranges of 1.5 GB.
const maxBackfillRanges = 1 << 16

func runBackfill(env *Env, f *backfillFlags) error {
	in, err := checkBackfillFlags(f)
	if err != nil {
		return err
	}
	mode, err := checkProgressFlag(env, f.progress, f.progressEvery)
	if err != nil {
		return err
	}
	cfg, s, err := openInDC(env, f.hosts, "LOCAL_QUORUM", f.localDC, f.timeout, &f.reach)
	if err != nil {
		return err
	}
	defer s.Close()
	p, err := backfillProgram(env.Ctx, s, in, cfg)
	if err != nil {
		return err
	}
	for _, c := range p.Unset() {
		fmt.Fprintf(env.Stderr, "cqlsize: note: column %s of %s.%s is not in %s.%s and no --derive fills it: it is left unset\n",
			c, in.dstKS, in.dst, in.srcKS, in.src)
	}
	if f.verify {
		return verifyDCs(env, f, cfg, s, p, in)
	}
	serial := gocql.Serial
	if f.localDC != "" {
		serial = gocql.LocalSerial
	}
	// The copy's live heap is small and flat (a page and the writes in flight a range), and
	// its garbage is most of its CPU after the driver's: collecting at 5 times the live heap
	// rather than twice takes a fifth off the CPU a row (measured by make bench-backfill),
	// CPU the copy shares with the node on a small machine, for a peak still under 40 MB.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	bar := newBackfillProgress(env, mode, f.progressEvery, fmt.Sprintf("%s.%s -> %s.%s", in.srcKS, in.src, in.dstKS, in.dst))
	res, err := backfill.Run(env.Ctx, s, p, backfill.Options{
		ReadConsistency: in.read, WriteConsistency: in.write, Rate: in.rate, Workers: f.workers, Ranges: f.ranges,
		PageSize: f.pageSize, Share: in.share, Shares: in.shares, Restart: f.restart, Lease: f.lease, RetryFor: noneIfZero(f.retryFor),
		Progress: bar.update, PerHost: perHost(cfg), SerialConsistency: serial,
	})
	bar.finish()
	var mismatch *backfill.MismatchError
	if errors.As(err, &mismatch) {
		return Usagef("%s", cliWords(err.Error()))
	}
	if res != nil {
		if perr := printBackfill(env.Stdout, f.format, res); perr != nil {
			return perr
		}
		for _, w := range res.Warnings {
			fmt.Fprintf(env.Stderr, "cqlsize: warning: %s\n", w)
		}
	}
	var partial *backfill.Error
	if errors.As(err, &partial) {
		if refusedByNode(err) {
			// A refusal comes again on every run: a permission the role lacks (the role must
			// change first), or a write the node rejects as invalid (the tables must).
			var req gocql.RequestError
			if errors.As(err, &req) && req.Code() != gocql.ErrCodeUnauthorized {
				return &ExitError{Code: ExitBadInput, Err: fmt.Errorf("%w (the node refuses the write as written: running it again unchanged is refused again)", err)}
			}
			return &ExitError{Code: ExitBadInput, Err: fmt.Errorf("%w (once the role may, run it again: it continues with the ranges left)", err)}
		}
		return &ExitError{Code: ExitRetry, Err: fmt.Errorf("%w (run it again: it continues with the ranges left)", err)}
	}
	if err != nil && errors.Is(err, context.Canceled) && env.Ctx.Err() != nil && res != nil {
		// Interrupted (Ctrl-C, SIGTERM): the ranges copied are recorded, the rest wait.
		return &ExitError{Code: ExitRetry, Err: fmt.Errorf("backfill %s interrupted: %d of %d ranges left (run it again: it continues with them)",
			res.Backfill, res.Ranges-res.RangesCopied-res.RangesDone, res.Ranges)}
	}
	if err != nil {
		return InputErr(err)
	}
	return nil
}

// openFor opens a session to --hosts (or $CASSANDRA_HOSTS) with the environment's
// credentials and TLS, at the given default consistency.
func openFor(env *Env, hosts, consistency string, timeout time.Duration, reach *reachFlags) (connect.Config, *gocql.Session, error) {
	return openInDC(env, hosts, consistency, "", timeout, reach)
}

// openInDC is openFor with requests routed to data center localDC first ("" for none).
func openInDC(env *Env, hosts, consistency, localDC string, timeout time.Duration, reach *reachFlags) (connect.Config, *gocql.Session, error) {
	cfg := readerConfig(env, hosts, consistency, timeout, reach)
	cfg.LocalDC = localDC
	if err := reach.check(); err != nil {
		return cfg, nil, err
	}
	if len(cfg.Hosts) == 0 {
		return cfg, nil, Usagef("no cluster: pass --hosts or set $%s", connect.EnvHosts)
	}
	if err := cfg.Validate(); err != nil {
		return cfg, nil, Usagef("%v", err)
	}
	ctx, cancel := context.WithTimeout(env.Ctx, cfg.ConnectTimeout+5*time.Second)
	defer cancel()
	s, err := connect.Open(ctx, cfg)
	if err != nil {
		return cfg, nil, InputErr(err)
	}
	return cfg, s, nil
}

// backfillProgram reads the two tables from the cluster and compiles the rules against
// them: an unknown table or column, or a rule that does not fit, is bad input.
func backfillProgram(ctx context.Context, s *gocql.Session, in *backfillInput, cfg connect.Config) (*derive.Program, error) {
	schema, err := liveschema.Read(ctx, s, in.srcKS, in.dstKS)
	if err != nil {
		return nil, InputErr(fmt.Errorf("read the schema: %w", err))
	}
	find := func(flag, ks, name string) (*cql.Table, error) {
		k := schema.Keyspaces[ks]
		if k == nil {
			return nil, Usagef("--%s %s.%s: keyspace %s does not exist on %s", flag, ks, name, ks, strings.Join(cfg.Hosts, ","))
		}
		if t := k.Tables[name]; t != nil {
			return t, nil
		}
		var have []string
		for n := range k.Tables {
			have = append(have, n)
		}
		sort.Strings(have)
		return nil, Usagef("--%s %s.%s: no such table (the keyspace has %s)", flag, ks, name, strings.Join(have, ", "))
	}
	src, err := find("from", in.srcKS, in.src)
	if err != nil {
		return nil, err
	}
	dst, err := find("to", in.dstKS, in.dst)
	if err != nil {
		return nil, err
	}
	p, err := derive.Compile(src, dst, in.rules)
	if err != nil {
		var de *derive.Error
		if errors.As(err, &de) && de.Rule >= 0 {
			return nil, Usagef("--derive %q: %v", in.rules[de.Rule].Text, err)
		}
		return nil, Usagef("--from %s.%s --to %s.%s: %v", in.srcKS, in.src, in.dstKS, in.dst, err)
	}
	return p, nil
}

// verifyDCs runs the verify once, or with --verify-dc once per datacenter named, each
// through a session whose queries go to that DC's nodes alone. In JSON each result names its
// DC, and --verify-dc each prints one array of them: one document, whatever the DCs.
func verifyDCs(env *Env, f *backfillFlags, cfg connect.Config, s *gocql.Session, p *derive.Program, in *backfillInput) error {
	if f.verifyDC == "" {
		r, err := runVerify(env, f, s, p, in, "")
		if err != nil {
			return err
		}
		return verifyOutcome(env, f, r, []*dcVerify{r})
	}
	dcs, err := dataCenters(env.Ctx, s)
	if err != nil {
		return InputErr(err)
	}
	want := []string{f.verifyDC}
	if f.verifyDC == "each" {
		want = dcs
	} else if !slices.Contains(dcs, f.verifyDC) {
		return Usagef("--verify-dc %s: no such datacenter (the cluster has %s; or each)", f.verifyDC, strings.Join(dcs, ", "))
	}
	var all []*dcVerify
	for _, dc := range want {
		c := cfg
		c.LocalDC = dc
		ds, err := connect.OpenWith(env.Ctx, c, func(cc *gocql.ClusterConfig) (*gocql.ClusterConfig, error) {
			cc.HostFilter = gocql.DataCentreHostFilter(dc)
			return cc, nil
		})
		if err != nil {
			return InputErr(fmt.Errorf("--verify-dc %s: connect to its nodes: %w", dc, err))
		}
		r, err := runVerify(env, f, ds, p, in, dc)
		ds.Close()
		if err != nil {
			return err
		}
		all = append(all, r)
	}
	if f.verifyDC == "each" {
		return verifyOutcome(env, f, all, all)
	}
	return verifyOutcome(env, f, all[0], all)
}

// dcVerify is one verify's result and the datacenter it read ("" without --verify-dc).
type dcVerify struct {
	DC string `json:"dc,omitempty"`
	*backfill.VerifyResult
}

// verifyOutcome prints doc in JSON (text was printed as each verify ended) and returns
// the findings status when any result found rows missing, different or extra.
func verifyOutcome(env *Env, f *backfillFlags, doc any, results []*dcVerify) error {
	if f.format == "json" {
		if err := writeJSON(env.Stdout, doc); err != nil {
			return err
		}
	}
	for _, r := range results {
		if !r.OK() {
			return Findings()
		}
	}
	return nil
}

// dataCenters lists the cluster's datacenters, sorted, from the answering node's
// system.local and system.peers.
func dataCenters(ctx context.Context, s *gocql.Session) ([]string, error) {
	seen := map[string]bool{}
	for _, q := range []string{"SELECT data_center FROM system.local", "SELECT data_center FROM system.peers"} {
		it := s.Query(q).WithContext(ctx).Consistency(gocql.One).Iter()
		var dc string
		for it.Scan(&dc) {
			seen[dc] = true
		}
		if err := it.Close(); err != nil {
			return nil, fmt.Errorf("read the datacenters: %w", err)
		}
	}
	out := make([]string, 0, len(seen))
	for dc := range seen {
		out = append(out, dc)
	}
	sort.Strings(out)
	return out, nil
}

// runVerify verifies through s (the session of DC dc, or "" for the cluster) and prints the
// result as text unless the format is JSON.
func runVerify(env *Env, f *backfillFlags, s *gocql.Session, p *derive.Program, in *backfillInput, dc string) (*dcVerify, error) {
	res, err := backfill.Verify(env.Ctx, s, p, backfill.VerifyOptions{Consistency: in.write, Sample: f.sample, Full: f.full,
		Workers: f.workers, Rate: in.rate, RetryFor: noneIfZero(f.retryFor)})
	if err != nil {
		return nil, InputErr(err)
	}
	if f.format != "json" {
		what := "a sample of"
		if res.Full {
			what = "all"
		}
		where := ""
		if dc != "" {
			where = " in " + dc
		}
		fmt.Fprintf(env.Stdout, "verify %s.%s -> %s.%s%s (%s the source rows): %d source rows, %d target rows checked: %d missing, %d different\n",
			in.srcKS, in.src, in.dstKS, in.dst, where, what, res.SourceRows, res.TargetRows, res.Missing, res.Different)
		if res.ExtraUnchecked != "" {
			fmt.Fprintf(env.Stdout, "  extra target rows not looked for: %s\n", res.ExtraUnchecked)
		} else {
			fmt.Fprintf(env.Stdout, "  %d target rows walked: %d extra (no source row gives them)\n", res.TargetRowsScanned, res.Extra)
		}
		if res.Rechecked > 0 {
			fmt.Fprintf(env.Stdout, "  %d rows were wrong at first and right when read again (written by the service meanwhile)\n", res.Rechecked)
		}
		for _, e := range res.Examples {
			fmt.Fprintf(env.Stdout, "  %s\n", e)
		}
	}
	return &dcVerify{DC: dc, VerifyResult: res}, nil
}

func printBackfill(w io.Writer, format string, r *backfill.Result) error {
	if format == "json" {
		return writeJSON(w, r)
	}
	share := ""
	if r.Shares > 1 {
		share = fmt.Sprintf(" (share %d/%d)", r.Share, r.Shares)
	}
	fmt.Fprintf(w, "backfill %s%s: %d of %d ranges copied by this run, %d done before or by another run, %d left\n",
		r.Backfill, share, r.RangesCopied, r.Ranges, r.RangesDone, r.Ranges-r.RangesCopied-r.RangesDone)
	fmt.Fprintf(w, "  %d source rows read (%s), %d target rows written in %d statements, in %.1fs (%.0f rows/s)\n",
		r.Rows, sizing.FormatBytes(float64(r.Bytes)), r.TargetRows, r.Statements, r.ElapsedSeconds, r.RowsPerSecond)
	if r.RefusedRows > 0 {
		fmt.Fprintf(w, "  %d target rows refused by the node (not written, or in doubt; not counted above)\n", r.RefusedRows)
	}
	if r.KeyOnlyRows > 0 || r.SkippedRows > 0 || r.Splits > 0 {
		fmt.Fprintf(w, "  %d rows with key columns only, %d rows giving no target row, %d range splits after failed reads\n",
			r.KeyOnlyRows, r.SkippedRows, r.Splits)
	}
	if r.LeasesLost > 0 {
		fmt.Fprintf(w, "  %d ranges stopped when their lease was lost (another run may copy them; run again to finish)\n", r.LeasesLost)
	}
	for _, f := range r.Failures {
		fmt.Fprintf(w, "  not copied: %s\n", f)
	}
	return nil
}

// writeJSON prints v indented, with -> as it is (not \u003e).
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// backfillBar draws `[#####.....] 41%  82113 rows  12.9 MB  ETA 1m20s` on stderr when it
// is a terminal, like profile's bar; on a pipe or file it draws nothing.
type backfillBar struct {
	termLine
}

func newBackfillBar(env *Env) *backfillBar {
	return &backfillBar{termLine: newTermLine(env)}
}

func (b *backfillBar) update(p backfill.Progress) {
	if !b.tty {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	fmt.Fprint(b.w, "\r\x1b[K"+backfillLine(p))
	b.bar = true
}

// backfillLine renders one progress line.
func backfillLine(p backfill.Progress) string {
	line := fmt.Sprintf("%s %3.0f%%  %d/%d ranges  %d rows", gauge(int(p.Fraction*gaugeWidth)),
		100*p.Fraction, p.RangesDone, p.Ranges, p.Rows)
	if p.TotalRows > 0 {
		line += fmt.Sprintf(" of ~%.0f", p.TotalRows)
	}
	line += "  " + sizing.FormatBytes(float64(p.Bytes))
	if p.TotalBytes > 0 {
		line += " of ~" + sizing.FormatBytes(p.TotalBytes)
	}
	if p.ETA > 0 {
		line += "  ETA " + p.ETA.Round(time.Second).String()
	}
	if p.HeldByOther > 0 {
		line += fmt.Sprintf("  (%d ranges held by another run)", p.HeldByOther)
	}
	return line
}

// noneIfZero maps a flag's 0 (no retries) to the library's negative (its 0 is the default).
func noneIfZero(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}
