package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"time"

	"github.com/gocql/gocql"
	"github.com/spf13/cobra"

	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/migrations"
)

// migrateFlags are the flags every migrate subcommand shares: where the files are, how
// to reach the cluster, and how to run safely next to other deploys.
type migrateFlags struct {
	dir  string
	conn connFlags

	bookkeepingKeyspace string
	table               string
	replication         string
	lockTTL             time.Duration
	lockTimeout         time.Duration
	agreementTimeout    time.Duration
	requireAllNodes     bool
	serial              string
	allowOutOfOrder     bool
	verbose             bool
	layout              string
	skipCalls           bool
	// createsTarget: the first file creates the target keyspace, so up may start before
	// it exists without --replication (set by up from the loaded files).
	createsTarget bool
}

// connFlags are the connection flags. The password is deliberately not one of them: it
// comes only from CASSANDRA_PASSWORD, so it never shows in a process list or shell history.
type connFlags struct {
	hosts       string
	port        int
	keyspace    string
	consistency string
	timeout     time.Duration
	username    string
	reach       reachFlags
	localDC     string
	// direct: reach the one host through its address only (a container's published port).
	direct bool
}

func (c *connFlags) bind(cmd *cobra.Command) {
	f := cmd.PersistentFlags()
	f.StringVar(&c.hosts, "hosts", "", "contact points, host[:port],... (default $"+connect.EnvHosts+")")
	f.IntVar(&c.port, "port", 9042, "CQL native port for hosts given without one")
	f.VarP((*cqlNameValue)(&c.keyspace), "keyspace", "k", "target keyspace: unqualified names in the files resolve to it, and its history is kept; unquoted it is folded to lower case as CQL does, '\"MixedCase\"' keeps case")
	f.StringVar(&c.consistency, "consistency", "LOCAL_QUORUM", "consistency of the statements in the files")
	f.DurationVar(&c.timeout, "timeout", 30*time.Second, "per-request timeout (DDL on a busy cluster takes seconds)")
	f.StringVar(&c.username, "username", "", "user name (default $"+connect.EnvUsername+"); the password is read only from $"+connect.EnvPassword)
	c.reach.bind(f)
	f.StringVar(&c.localDC, "local-dc", "", "route requests to this datacenter first")
}

// cqlNameValue is a flag naming a keyspace as CQL does (foldCQLName): -k MixedCase is the
// keyspace `CREATE KEYSPACE MixedCase` made (mixedcase), -k '"MixedCase"' the one made with
// quotes. Folded once, when the flag is set, so every migrate command means the same one.
type cqlNameValue string

func (v *cqlNameValue) String() string { return string(*v) }
func (v *cqlNameValue) Type() string   { return "name" }

func (v *cqlNameValue) Set(s string) error {
	if strings.TrimSpace(s) == "" {
		*v = ""
		return nil
	}
	name, err := foldCQLName(s)
	if err != nil {
		return err
	}
	*v = cqlNameValue(name)
	return nil
}

// config builds the connection configuration; hosts is false when none is given (for
// commands that also work offline).
func (c *connFlags) config(env *Env, cmd *cobra.Command, verbose bool) (cfg connect.Config, hosts bool, err error) {
	cfg = connect.Config{
		Port: c.port, Consistency: c.consistency, Timeout: c.timeout,
		Username: c.username, LocalDC: c.localDC, Direct: c.direct,
	}
	c.reach.apply(&cfg)
	if c.hosts != "" {
		cfg.Hosts, cfg.Source = connect.SplitHosts(c.hosts), "--hosts"
	}
	cfg = cfg.FromGetenv(env.Getenv)
	if len(cfg.Hosts) == 0 {
		return cfg, false, nil
	}
	if verbose {
		cfg.Logger = log.New(env.Stderr, "gocql: ", 0)
	} else {
		cfg.Logger = log.New(io.Discard, "", 0)
	}
	if err := cfg.Validate(); err != nil {
		return cfg, true, Usagef("%v", err)
	}
	return cfg, true, nil
}

func newMigrateCmd(env *Env) *cobra.Command {
	f := &migrateFlags{}
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Apply versioned .cql migrations safely from every deploy at once",
		Long: `Apply versioned migration files (NNNN_name.cql, in version order) to a keyspace.
Other runners' layouts are read as they write them: golang-migrate's {version}_{title}.up.cql
(the .down.cql files beside them are ignored: cqlsize does not run down migrations), Flyway's
V<version>__<description>.cql (dotted versions in numeric order), version folders with a
manifest.json (--layout manifest, detected), and gocqlx's folder of *.cql files in name order
with its -- CALL lines (--layout gocqlx, never detected). One folder in two layouts is
refused. A folder with no migration file is an error (exit 2).
` + "`migrate baseline --from golang-migrate|gocqlx|flyway`" + ` adopts another tool's history.

Every pending file is lexed, parsed and linted before anything runs. A cluster-wide lease
(a lightweight transaction with a TTL) lets one process migrate while the others wait and
then find the work done; each statement is recorded before and after it runs, so a run
killed halfway through a file is finished by the next one from the next statement; the
run waits for schema agreement after every DDL statement and names the nodes that lag.

The bookkeeping table (cqlsize_migrations, in the target keyspace unless
--bookkeeping-keyspace says otherwise) records each file's sha256, its statements'
progress, when and by whom (host, pid, cqlsize version) it was applied. A file changed
after it was applied is refused until ` + "`migrate accept-checksum`" + ` accepts the change.

The connection comes from the flags and the environment: CASSANDRA_HOSTS,
CASSANDRA_USERNAME and CASSANDRA_PASSWORD (the password is never a flag).`,
		Example: `  # apply everything pending in ./migrations to keyspace app
  CASSANDRA_HOSTS=10.0.0.1,10.0.0.2 cqlsize migrate up --keyspace app
  # what would run, with file:line, without running it
  cqlsize migrate plan --keyspace app --dir db/migrations
  # offline: parse, lint; in CI
  cqlsize migrate validate --dir db/migrations`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return Usagef("migrate needs a subcommand: up, status, validate, plan, new, baseline, accept-checksum, repair, resolve or dcs")
		},
	}
	pf := cmd.PersistentFlags()
	pf.StringVarP(&f.dir, "dir", "d", "migrations", "folder of NNNN_name.cql migration files")
	f.conn.bind(cmd)
	pf.StringVar(&f.bookkeepingKeyspace, "bookkeeping-keyspace", "", "keyspace of the bookkeeping and lock tables (default: the target keyspace)")
	pf.StringVar(&f.table, "table", migrations.DefaultTable, "bookkeeping table name (the lock table is <table>_lock)")
	pf.StringVar(&f.replication, "replication", "", "create a missing target or bookkeeping keyspace with this replication, e.g. \"{'class': 'NetworkTopologyStrategy', 'dc1': 3}\"")
	pf.DurationVar(&f.lockTTL, "lock-ttl", migrations.DefaultLockTTL, "lease time of the migration lock: a process that dies holding it blocks others this long at most")
	pf.DurationVar(&f.lockTimeout, "lock-timeout", migrations.DefaultLockTimeout, "how long to wait for another process's migration lock")
	pf.DurationVar(&f.agreementTimeout, "agreement-timeout", migrations.DefaultAgreementTimeout, "how long to wait for schema agreement after each DDL statement")
	pf.BoolVar(&f.requireAllNodes, "require-all-nodes", false, "schema agreement waits for every node, down ones included (default: the nodes that are up; the down ones are named in a warning)")
	pf.StringVar(&f.serial, "serial", "cluster", "serial consistency of the migration lock: cluster (SERIAL, a quorum of every DC's replicas) or local (LOCAL_SERIAL in --local-dc; only when no process in another DC runs migrations meanwhile: two DCs could each hold the lock)")
	pf.BoolVar(&f.allowOutOfOrder, "allow-out-of-order", false, "apply a pending file numbered below an applied one")
	pf.BoolVarP(&f.verbose, "verbose", "v", false, "print every statement as it completes, and the driver's log")
	pf.StringVar(&f.layout, "layout", "auto", "how the folder names its files: auto, cqlsize, flyway, golang-migrate, gocqlx (every *.cql in name order; never detected) or manifest (version folders with manifest.json)")
	pf.BoolVar(&f.skipCalls, "skip-calls", false, "apply gocqlx files without their `-- CALL name;` lines (the CLI cannot run Go code; each skipped call is named)")

	cmd.AddCommand(
		newMigrateUpCmd(env, f),
		newMigrateStatusCmd(env, f),
		newMigrateValidateCmd(env, f),
		newMigratePlanCmd(env, f),
		newMigrateNewCmd(env, f),
		newMigrateBaselineCmd(env, f),
		newMigrateAcceptCmd(env, f),
		newMigrateRepairCmd(env, f),
		newMigrateResolveCmd(env, f),
		newMigrateDCsCmd(env, f),
	)
	return cmd
}

// loadMigrations reads and lexes every file of --dir; a broken file is bad input (exit 2)
// with its file:line:col, and so is a folder with no migration in it (a job pointed at the
// wrong folder must not pass having applied nothing). What the load leaves out (golang-
// migrate's .down.cql files) is said on stderr, once.
func (f *migrateFlags) loadMigrations(env *Env) ([]*migrations.Migration, error) {
	layout, err := migrations.ParseLayout(f.layout)
	if err != nil {
		return nil, Usagef("--layout %v", err)
	}
	set, err := migrations.LoadSetDirAs(f.dir, layout)
	if err != nil {
		return nil, InputErr(err)
	}
	for _, note := range set.Notes() {
		fmt.Fprintf(env.Stderr, "%s: %s\n", f.dir, note)
	}
	return set.Migrations, nil
}

// loadRunnable is loadMigrations for the commands that apply or judge the files (up,
// validate, plan): a file with no statement (an unfilled `migrate new` template, an empty
// file) is bad input, named, rather than applied as nothing and recorded as done; a file of
// comments only is a no-op version, and said to be one.
func (f *migrateFlags) loadRunnable(env *Env) ([]*migrations.Migration, error) {
	migs, err := f.loadMigrations(env)
	if err != nil {
		return nil, err
	}
	if err := migrations.Empty(migs); err != nil {
		return nil, InputErr(err)
	}
	bk := f.bookkeepingKeyspace
	if bk == "" {
		bk = f.conn.keyspace
	}
	if err := migrations.CheckBookkeeping(migs, bk); err != nil {
		return nil, InputErr(err)
	}
	if bk == "" {
		for ks, pos := range migrations.DroppedKeyspaces(migs) {
			fmt.Fprintf(env.Stderr, "cqlsize: warning: %s: the history drops keyspace %s: run it with its bookkeeping elsewhere (--bookkeeping-keyspace), never in %s (-k %s alone would lose the run's record and lock at this statement)\n",
				pos, ks, ks, ks)
		}
	}
	for _, m := range migs {
		if m.NoOp() {
			fmt.Fprintf(env.Stderr, "%s: %s: a no-op version, recorded as applied with nothing sent\n", m.File, m.NoOpKind())
		}
		for _, c := range m.Calls {
			if f.skipCalls {
				fmt.Fprintf(env.Stderr, "%s: -- CALL %s; is skipped (--skip-calls)\n", c.Pos, c.Name)
			} else {
				fmt.Fprintf(env.Stderr, "%s: -- CALL %s; runs Go code, which the CLI cannot: up refuses this file unless --skip-calls (a program registers it in migrations.Options.Calls)\n", c.Pos, c.Name)
			}
		}
	}
	return migs, nil
}

// checkDurations refuses a negative duration flag by its name, before the library's and
// the driver's own checks, which do not know the flags' names.
func (f *migrateFlags) checkDurations() error {
	if err := f.conn.reach.check(); err != nil {
		return err
	}
	for _, d := range []struct {
		flag string
		v    time.Duration
	}{
		{"--timeout", f.conn.timeout},
		{"--lock-timeout", f.lockTimeout}, {"--agreement-timeout", f.agreementTimeout},
	} {
		if d.v < 0 {
			return Usagef("%s %s: must not be negative", d.flag, d.v)
		}
	}
	return nil
}

func (f *migrateFlags) options(env *Env, onEvent func(migrations.Event)) migrations.Options {
	return migrations.Options{
		Keyspace: f.conn.keyspace, BookkeepingKeyspace: f.bookkeepingKeyspace, Table: f.table,
		Replication: f.replication, LockTTL: f.lockTTL, LockTimeout: f.lockTimeout,
		AgreementTimeout: f.agreementTimeout, RequireAllNodes: f.requireAllNodes, AllowOutOfOrder: f.allowOutOfOrder, OnEvent: onEvent,
		LocalSerial: f.serial == "local", LocalDC: f.conn.localDC,
		SkipCalls: f.skipCalls,
	}
}

// session is an open connection for a migrate command.
type session struct {
	s   *gocql.Session
	cfg connect.Config
}

func (s *session) Close() {
	if s != nil && s.s != nil {
		s.s.Close()
	}
}

// open connects to the cluster. bound binds the session to the target keyspace (creating
// it first when --replication is given); commands that only read or write the
// bookkeeping use an unbound session, so they work before the keyspace exists.
func (f *migrateFlags) open(ctx context.Context, env *Env, cmd *cobra.Command, bound bool) (*session, error) {
	if f.conn.keyspace == "" {
		return nil, Usagef("no target keyspace: pass --keyspace")
	}
	if err := f.checkDurations(); err != nil {
		return nil, err
	}
	switch f.serial {
	case "cluster", "local":
	default:
		return nil, Usagef("--serial %q: want cluster (SERIAL, the default) or local (LOCAL_SERIAL in --local-dc)", f.serial)
	}
	if f.serial == "local" && f.conn.localDC == "" {
		return nil, Usagef("--serial local takes the lock in one datacenter: name it with --local-dc")
	}
	if err := f.options(env, nil).Validate(); err != nil {
		return nil, Usagef("%v", err)
	}
	cfg, ok, err := f.conn.config(env, cmd, f.verbose)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, Usagef("%v", connect.ErrNoHosts)
	}
	// The migrator waits for agreement after each DDL statement itself, counting the nodes
	// that are up; the driver's own wait would count the down ones and stall on each.
	cfg.DriverAgreementWait = -1
	// connect.Open keeps trying until --connect-timeout: one refused attempt is not an
	// unreachable cluster when eight deploys connect at once or a node restarts.
	s, err := connect.Open(ctx, cfg)
	if err != nil {
		return nil, InputErr(err)
	}
	if !bound {
		return &session{s: s, cfg: cfg}, nil
	}
	// No warning hook: the run that follows names the nodes that are down, once.
	err = migrations.EnsureKeyspaceWith(ctx, s, f.options(env, nil))
	if err != nil && f.createsTarget && errors.Is(err, migrations.ErrNoKeyspace) {
		// The first file creates the keyspace: the migrator runs it first, on this unbound
		// session (it qualifies the files' names with the target keyspace).
		return &session{s: s, cfg: cfg}, nil
	}
	s.Close()
	if err != nil {
		return nil, InputErr(err)
	}
	cfg.Keyspace = f.conn.keyspace
	s, err = connect.Open(ctx, cfg)
	if err != nil {
		return nil, InputErr(err)
	}
	return &session{s: s, cfg: cfg}, nil
}

// parseToVersion is parseVersion for --to, where the library reads 0 as "every version":
// a history that starts at version 0 cannot stop after it yet, and says so.
func parseToVersion(migs []*migrations.Migration, arg string) (int64, error) {
	v, err := parseVersion(migs, arg)
	if err == nil && v == 0 {
		return 0, Usagef("--to %s: version %q is the first version; --to stops after a later one (1 or more)", arg, arg)
	}
	return v, err
}

// parseVersion reads a version argument: "3" or "0003", a file name such as
// 0003_add_tags.cql, or a version as a file of the folder writes it where that is not a
// plain number (Flyway's 1.46, a gocqlx file's name, a manifest folder's 0.2).
func parseVersion(migs []*migrations.Migration, arg string) (int64, error) {
	a := strings.TrimSpace(arg)
	for _, m := range migs {
		if m.Label != "" && (m.Label == a || m.Label+".cql" == a || "V"+m.Label == a) {
			return m.Version, nil
		}
	}
	if v, _, err := migrations.ParseName(a); err == nil {
		return v, nil
	}
	v, _, err := migrations.ParseName(a + ".cql")
	if err != nil {
		return 0, Usagef("version %q: want a number such as 3 or 0003, or a version as the folder's files write it", arg)
	}
	return v, nil
}

// migrateErr maps a library error to an exit status (see classify): bad input 2, cluster
// trouble that is safe to retry 3, a statement in doubt 4.
func migrateErr(err error) error { return InputErr(err) }

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// dirArgument takes a folder given as the positional argument (`migrate validate DIR`) as
// --dir, which is what a user typing it means; both at once is refused, naming both.
func dirArgument(cmd *cobra.Command, mf *migrateFlags, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if cmd.Flags().Changed("dir") {
		return Usagef("the folder is given twice, as %q and as --dir %q: give one", args[0], mf.dir)
	}
	if st, err := os.Stat(args[0]); err != nil || !st.IsDir() {
		return Usagef("%q is not a folder: the argument is the migrations folder (the same as --dir)", args[0])
	}
	mf.dir = args[0]
	return nil
}
