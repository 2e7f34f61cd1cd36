// Command migratebench times `cqlsize migrate`'s library (migrations.Migrator) beside
// golang-migrate's Cassandra driver and the bare statements, on the same node and the same
// history, alternating the three in each round, each round in fresh keyspaces.
//
// It lives in a module of its own so that the project's go.mod does not depend on
// golang-migrate. Run it from the repository root with `make bench-migrate` (ARGS="-rounds
// 3" for fewer rounds), or here with `CASSANDRA_HOSTS=127.0.0.1 go run .`.
//
// The history is golang-migrate's layout, which both tools read: 1_setup.up.cql creates the
// tables, and is applied before the clock starts, so that each tool's own bookkeeping
// exists as it does at every deploy after the first; 2_*.up.cql is what is timed, from
// loading the folder to the end of the run, through a new instance of each tool as a new
// process would make. The history is dml (-inserts INSERTs); -ddl N adds a second one of N
// schema changes (a CREATE TABLE then ALTER TABLE ... ADD, repeated), off by default: on a
// shared node a schema change takes from 0.1 s to tens of seconds, which drowns what the
// bookkeeping costs.
//
// The tools do different things for that time: cqlsize takes a cluster-wide lease (LWT),
// fences its bookkeeping to the run (LWT), records intents and progress with fenced LWTs,
// and waits for schema agreement itself, counting the nodes that are up; golang-migrate
// holds a lock inside its process only and records the version before and after each file
// with plain writes, and the driver waits for schema agreement after each DDL statement.
// The bare run sends the same statements through one session (with the driver's agreement
// wait after DDL), with no bookkeeping at all.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gocql/gocql"
	"github.com/golang-migrate/migrate/v4"
	gmcassandra "github.com/golang-migrate/migrate/v4/database/cassandra"
	_ "github.com/golang-migrate/migrate/v4/source/file"

	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/migrations"
)

func main() {
	rounds := flag.Int("rounds", 5, "rounds; each runs the three in turn, the first of them changing each round")
	inserts := flag.Int("inserts", 50, "INSERTs in the dml history's timed file")
	ddl := flag.Int("ddl", 0, "schema changes in a second history's timed file (0: none)")
	flag.Parse()
	hosts := connect.SplitHosts(os.Getenv(connect.EnvHosts))
	if len(hosts) == 0 {
		fmt.Fprintln(os.Stderr, "migratebench: set CASSANDRA_HOSTS (make bench-migrate does)")
		os.Exit(2)
	}
	if *rounds < 1 || *inserts < 1 || *ddl < 0 {
		fmt.Fprintln(os.Stderr, "migratebench: -rounds and -inserts must be at least 1, -ddl at least 0")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	b := &bench{hosts: hosts, rounds: *rounds}
	histories := []history{dmlHistory(*inserts)}
	if *ddl > 0 {
		histories = append(histories, ddlHistory(*ddl))
	}
	for _, h := range histories {
		if err := b.run(ctx, h); err != nil {
			fmt.Fprintln(os.Stderr, "migratebench:", err)
			os.Exit(3)
		}
	}
}

// history is a migrations folder in golang-migrate's layout.
type history struct {
	name  string
	setup string   // 1_setup.up.cql
	timed []string // the statements of 2_<name>.up.cql
}

func dmlHistory(n int) history {
	h := history{name: "dml", setup: "CREATE TABLE rows (k text PRIMARY KEY, v int);\n"}
	for i := range n {
		h.timed = append(h.timed, fmt.Sprintf("INSERT INTO rows (k, v) VALUES ('k%d', %d)", i, i))
	}
	return h
}

func ddlHistory(n int) history {
	h := history{name: "ddl", setup: "CREATE TABLE rows (k text PRIMARY KEY, v int);\n"}
	for i := range n {
		table := fmt.Sprintf("t%d", i/5)
		if i%5 == 0 {
			h.timed = append(h.timed, fmt.Sprintf("CREATE TABLE %s (k int PRIMARY KEY, v0 int)", table))
		} else {
			h.timed = append(h.timed, fmt.Sprintf("ALTER TABLE %s ADD c%d text", table, i%5))
		}
	}
	return h
}

// write puts the history in a new folder.
func (h history) write() (string, error) {
	dir, err := os.MkdirTemp("", "migratebench-")
	if err != nil {
		return "", err
	}
	files := map[string]string{
		"1_setup.up.cql":            h.setup,
		"2_" + h.name + ".up.cql":   strings.Join(h.timed, ";\n") + ";\n",
		"1_setup.down.cql":          "DROP TABLE rows;\n",
		"2_" + h.name + ".down.cql": "SELECT k FROM rows;\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}

type bench struct {
	hosts  []string
	rounds int
	// gmStart: how long the last golang-migrate run spent in its driver's start
	// (WithInstance: CREATE TABLE IF NOT EXISTS, a schema statement at every start, and a read).
	gmStart time.Duration
}

// tool is one way of applying the history through a session bound to the keyspace: setup
// brings it to version 1 (untimed), apply applies version 2 (timed).
type tool struct {
	name string
	// ownAgreement: the session's driver does not wait for schema agreement (see session).
	ownAgreement bool
	setup, apply func(ctx context.Context, s *gocql.Session, ks, dir string) error
}

func (b *bench) run(ctx context.Context, h history) error {
	dir, err := h.write()
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	admin, err := b.session(ctx, "", false)
	if err != nil {
		return err
	}
	defer admin.Close()
	tools := []tool{b.cqlsize(), b.golangMigrate(), b.bare(h)}
	times := map[string][]time.Duration{}
	var gRun []time.Duration
	fmt.Printf("%s history: 2_%s.up.cql, %d statements; %d rounds, fresh keyspaces each\n", h.name, h.name, len(h.timed), b.rounds)
	for round := range b.rounds {
		order := slices.Clone(tools)
		for range round % len(tools) {
			order = append(order[1:], order[0])
		}
		var line []string
		for _, t := range order {
			d, err := b.attempts(ctx, admin, t, h, dir, round)
			if err != nil {
				return fmt.Errorf("%s history, round %d, %s: %w", h.name, round+1, t.name, err)
			}
			times[t.name] = append(times[t.name], d)
			line = append(line, fmt.Sprintf("%s %s", t.name, ms(d)))
			if t.name == "golang-migrate" {
				// golang-migrate without its start: what its bookkeeping around the file costs,
				// apart from a schema statement whose time depends on the node's other schema
				// changes.
				gRun = append(gRun, d-b.gmStart)
			}
		}
		fmt.Printf("  round %d: %s\n", round+1, strings.Join(line, ", "))
	}
	c, g, s := median(times["cqlsize"]), median(times["golang-migrate"]), median(times["bare"])
	lo, hi := ratioRange(times["cqlsize"], times["golang-migrate"])
	gr := median(gRun)
	rlo, rhi := ratioRange(times["cqlsize"], gRun)
	fmt.Printf("  median: cqlsize %s (%s/statement), golang-migrate %s (%s of it after its start), bare %s\n",
		ms(c), ms(c/time.Duration(len(h.timed))), ms(g), ms(gr), ms(s))
	fmt.Printf("  cqlsize / golang-migrate: %.2fx (median; rounds %.2f-%.2f); without golang-migrate's start: %.2fx (rounds %.2f-%.2f)\n",
		float64(c)/float64(g), lo, hi, float64(c)/float64(gr), rlo, rhi)
	fmt.Printf("  cqlsize / bare: %.2fx; golang-migrate / bare: %.2fx, %.2fx without its start\n",
		float64(c)/float64(s), float64(g)/float64(s), float64(gr)/float64(s))
	return nil
}

// attempts runs once up to three times: on a shared node a schema change of the setup (or
// of the timed ddl file) can miss the client's timeout; a failed attempt is said and its
// keyspace dropped, and the round starts again in a new one.
func (b *bench) attempts(ctx context.Context, admin *gocql.Session, t tool, h history, dir string, round int) (time.Duration, error) {
	var err error
	for attempt := 1; attempt <= 3; attempt++ {
		var d time.Duration
		if d, err = b.once(ctx, admin, t, h, dir, round); err == nil {
			return d, nil
		}
		fmt.Printf("  round %d, %s, attempt %d failed (run again in a new keyspace): %v\n", round+1, t.name, attempt, err)
	}
	return 0, err
}

// once runs one tool in a fresh keyspace and returns the time of the timed file. The
// session is opened before the clock starts: connecting is the same for every tool.
func (b *bench) once(ctx context.Context, admin *gocql.Session, t tool, h history, dir string, round int) (time.Duration, error) {
	ks := fmt.Sprintf("migbench_%s_%s_%d_%d", h.name, strings.ReplaceAll(t.name, "-", ""), round+1, time.Now().UnixNano()%1e6)
	if err := admin.Query("CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}").WithContext(ctx).Exec(); err != nil {
		return 0, fmt.Errorf("create keyspace %s: %w", ks, err)
	}
	defer func() { _ = admin.Query("DROP KEYSPACE IF EXISTS " + ks).WithContext(ctx).Exec() }()
	s, err := b.session(ctx, ks, t.ownAgreement)
	if err != nil {
		return 0, fmt.Errorf("connect to %s: %w", ks, err)
	}
	defer s.Close()
	if err := t.setup(ctx, s, ks, dir); err != nil {
		return 0, fmt.Errorf("version 1: %w", err)
	}
	t0 := time.Now()
	if err := t.apply(ctx, s, ks, dir); err != nil {
		return 0, err
	}
	return time.Since(t0), nil
}

// session opens a session bound to ks; ownAgreement turns the driver's schema agreement wait
// off, as `cqlsize migrate` does (the Migrator waits itself, counting the nodes that are up).
func (b *bench) session(ctx context.Context, ks string, ownAgreement bool) (*gocql.Session, error) {
	// A minute a request: DDL on a busy shared node can take tens of seconds.
	cfg := connect.Config{Hosts: b.hosts, Keyspace: ks, Consistency: "QUORUM", Timeout: time.Minute, Logger: quiet{}}
	if ownAgreement {
		cfg.DriverAgreementWait = -1
	}
	return connect.Open(ctx, cfg)
}

func (b *bench) cqlsize() tool {
	up := func(ctx context.Context, s *gocql.Session, ks, dir string, to int64) error {
		migs, err := migrations.LoadDir(dir)
		if err != nil {
			return err
		}
		m, err := migrations.New(s, migs, migrations.Options{Keyspace: ks})
		if err != nil {
			return err
		}
		res, err := m.UpTo(ctx, to)
		if err == nil && len(res.Applied) != 1 {
			err = fmt.Errorf("applied %d files, want 1", len(res.Applied))
		}
		return err
	}
	return tool{name: "cqlsize", ownAgreement: true,
		setup: func(ctx context.Context, s *gocql.Session, ks, dir string) error { return up(ctx, s, ks, dir, 1) },
		apply: func(ctx context.Context, s *gocql.Session, ks, dir string) error { return up(ctx, s, ks, dir, 0) },
	}
}

// golangMigrate runs golang-migrate as its Cassandra driver documents, with
// x-multi-statement on (Cassandra takes one statement a request). Its driver's Close closes
// the session, so it is not called; the session is closed by once.
func (b *bench) golangMigrate() tool {
	up := func(s *gocql.Session, ks, dir string, to uint) error {
		t0 := time.Now()
		drv, err := gmcassandra.WithInstance(s, &gmcassandra.Config{KeyspaceName: ks, MultiStatementEnabled: true})
		if err != nil {
			return err
		}
		b.gmStart = time.Since(t0)
		m, err := migrate.NewWithDatabaseInstance("file://"+dir, "cassandra", drv)
		if err != nil {
			return err
		}
		if to > 0 {
			err = m.Migrate(to)
		} else {
			err = m.Up()
		}
		if errors.Is(err, migrate.ErrNoChange) {
			err = fmt.Errorf("nothing applied")
		}
		return err
	}
	return tool{name: "golang-migrate",
		setup: func(_ context.Context, s *gocql.Session, ks, dir string) error { return up(s, ks, dir, 1) },
		apply: func(_ context.Context, s *gocql.Session, ks, dir string) error { return up(s, ks, dir, 0) },
	}
}

// bare sends the timed statements one after another, the driver waiting for schema
// agreement after DDL as it does for golang-migrate.
func (b *bench) bare(h history) tool {
	return tool{name: "bare",
		setup: func(ctx context.Context, s *gocql.Session, _, _ string) error {
			return s.Query(strings.TrimSuffix(strings.TrimSpace(h.setup), ";")).WithContext(ctx).Exec()
		},
		apply: func(ctx context.Context, s *gocql.Session, _, _ string) error {
			for i, text := range h.timed {
				if err := s.Query(text).WithContext(ctx).Exec(); err != nil {
					return fmt.Errorf("statement %d: %w", i+1, err)
				}
			}
			return nil
		},
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// ratioRange is the lowest and highest ratio a/b of one round.
func ratioRange(a, b []time.Duration) (lo, hi float64) {
	for i := range a {
		r := float64(a[i]) / float64(b[i])
		if i == 0 || r < lo {
			lo = r
		}
		if i == 0 || r > hi {
			hi = r
		}
	}
	return lo, hi
}

// quiet discards the driver's log (with its agreement wait off it logs "schema versions not
// consistent" after every DDL statement).
type quiet struct{}

func (quiet) Print(...any)          {}
func (quiet) Printf(string, ...any) {}
func (quiet) Println(...any)        {}
