// Command migratebench times `cqlsize migrate up` beside golang-migrate's CLI as a user runs
// them: whole commands (a process started, connected, migrating and exiting), on the same
// node and the same history, the two alternating in each round, each run in a keyspace of
// its own created just before it.
//
// It lives in a module of its own so that the project's go.mod does not depend on
// golang-migrate. Run it from the repository root with `make bench-migrate` (ARGS="-rounds
// 7" for more rounds), or here with `CASSANDRA_HOSTS=127.0.0.1 go run .`. It builds both
// commands first: cqlsize from this repository (./cmd/cqlsize), golang-migrate's CLI from
// the version this module requires, with its cassandra driver (-tags cassandra).
//
// The history is golang-migrate's layout, which both tools read: 1_setup.up.cql creates a
// table, then -files files of -inserts INSERTs each. Two cases are timed:
//
//   - fresh: the whole history into a new, empty keyspace (a first deploy, a CI job on a
//     fresh container): each tool creates its bookkeeping, then applies every file;
//   - one new file: the history is applied (untimed), one more file of -inserts INSERTs is
//     added, and the run that applies it is timed (a deploy of a service whose history is
//     already applied).
//
// The keyspace itself is created before the clock starts: golang-migrate's cassandra
// driver needs it to exist. After each timed run the rows are counted, so that both tools
// are seen to have done the same work.
//
// What the tools do in that time differs: cqlsize takes a cluster-wide lease (LWT), fences
// its bookkeeping to the run (LWT), records intents and progress with fenced LWTs, reads
// the live schema and the node's settings to check the pending statements before anything
// runs, and waits for schema agreement itself; golang-migrate holds a lock inside its
// process only and records the version with plain writes before and after each file.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gocql/gocql"
	// The CLI built below comes from this module's requirements: these imports keep them in
	// go.mod and go.sum (go mod tidy would drop a module nothing imports).
	_ "github.com/golang-migrate/migrate/v4"
	_ "github.com/golang-migrate/migrate/v4/database/cassandra"
	_ "github.com/golang-migrate/migrate/v4/source/file"

	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/internal/ddl"
)

func main() {
	rounds := flag.Int("rounds", 5, "rounds; each runs both tools on both cases, the first of them changing each round")
	files := flag.Int("files", 5, "files of INSERTs after the file that creates the table")
	inserts := flag.Int("inserts", 10, "INSERTs in each of those files (and in the new file)")
	flag.Parse()
	hosts := connect.SplitHosts(os.Getenv(connect.EnvHosts))
	if len(hosts) == 0 {
		fmt.Fprintln(os.Stderr, "migratebench: set CASSANDRA_HOSTS (make bench-migrate does)")
		os.Exit(2)
	}
	if *rounds < 1 || *files < 1 || *inserts < 1 {
		fmt.Fprintln(os.Stderr, "migratebench: -rounds, -files and -inserts must be at least 1")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Hour)
	defer cancel()
	if err := run(ctx, hosts, *rounds, *files, *inserts); err != nil {
		fmt.Fprintln(os.Stderr, "migratebench:", err)
		os.Exit(3)
	}
}

// tool is one command line that applies the folder dir to keyspace ks.
type tool struct {
	name string
	cmd  func(dir, ks string) *exec.Cmd
}

// scenario is one timed case: setup (untimed, may be nil) then the timed folder.
type scenario struct {
	name        string
	setup, dir  string // setup: "" when the timed run starts from an empty keyspace
	rows        int    // rows the table holds after the timed run
	description string
}

func run(ctx context.Context, hosts []string, rounds, files, inserts int) error {
	tmp, err := os.MkdirTemp("", "migratebench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	cqlsizeBin, migrateBin, err := build(ctx, tmp)
	if err != nil {
		return err
	}
	history, err := writeHistory(filepath.Join(tmp, "history"), files, inserts, false)
	if err != nil {
		return err
	}
	plusOne, err := writeHistory(filepath.Join(tmp, "plus-one"), files, inserts, true)
	if err != nil {
		return err
	}
	admin, err := connect.Open(ctx, connect.Config{Hosts: hosts, Consistency: "QUORUM", Timeout: time.Minute, Logger: quiet{}})
	if err != nil {
		return err
	}
	defer admin.Close()

	env := append(os.Environ(), connect.EnvHosts+"="+strings.Join(hosts, ","))
	tools := []tool{
		{name: "cqlsize", cmd: func(dir, ks string) *exec.Cmd {
			c := exec.CommandContext(ctx, cqlsizeBin, "migrate", "up", "--dir", dir, "--keyspace", ks)
			c.Env = env
			return c
		}},
		{name: "golang-migrate", cmd: func(dir, ks string) *exec.Cmd {
			// Its cassandra driver takes one host; x-multi-statement splits a file on ";"
			// (Cassandra takes one statement a request).
			url := fmt.Sprintf("cassandra://%s/%s?x-multi-statement=true", hostPort(hosts[0]), ks)
			return exec.CommandContext(ctx, migrateBin, "-path", dir, "-database", url, "up")
		}},
	}
	scenarios := []scenario{
		{name: "fresh", dir: history, rows: files * inserts,
			description: fmt.Sprintf("the whole history (a table, then %d files of %d INSERTs) into a new keyspace", files, inserts)},
		{name: "one new file", setup: history, dir: plusOne, rows: (files + 1) * inserts,
			description: fmt.Sprintf("one more file of %d INSERTs on that history, applied", inserts)},
	}
	fmt.Printf("migratebench: %s and golang-migrate's CLI (%s), whole commands against %s; %d rounds, each run in a new keyspace; load average %s\n",
		filepath.Base(cqlsizeBin), migrateVersion(), strings.Join(hosts, ","), rounds, loadAverage())
	for _, sc := range scenarios {
		fmt.Printf("  %s: %s\n", sc.name, sc.description)
	}
	times := map[string]map[string][]time.Duration{} // scenario -> tool -> per round
	for _, sc := range scenarios {
		times[sc.name] = map[string][]time.Duration{}
	}
	for round := range rounds {
		var line []string
		for _, sc := range scenarios {
			order := slices.Clone(tools)
			if round%2 == 1 {
				slices.Reverse(order)
			}
			var parts []string
			for _, t := range order {
				d, err := attempts(ctx, admin, t, sc, round)
				if err != nil {
					return fmt.Errorf("%s, round %d, %s: %w", sc.name, round+1, t.name, err)
				}
				times[sc.name][t.name] = append(times[sc.name][t.name], d)
				parts = append(parts, fmt.Sprintf("%s %s", t.name, secs(d)))
			}
			line = append(line, sc.name+": "+strings.Join(parts, ", "))
		}
		fmt.Printf("  round %d (load %s): %s\n", round+1, loadAverage(), strings.Join(line, "; "))
	}
	for _, sc := range scenarios {
		c, g := times[sc.name]["cqlsize"], times[sc.name]["golang-migrate"]
		lo, hi := ratioRange(c, g)
		fmt.Printf("  %s, median of %d (min-max): cqlsize %s (%s-%s), golang-migrate %s (%s-%s); cqlsize / golang-migrate %.2fx (rounds %.2f-%.2f)\n",
			sc.name, rounds, secs(median(c)), secs(slices.Min(c)), secs(slices.Max(c)),
			secs(median(g)), secs(slices.Min(g)), secs(slices.Max(g)),
			float64(median(c))/float64(median(g)), lo, hi)
	}
	fmt.Printf("  load average at the end %s\n", loadAverage())
	return nil
}

// build compiles both commands into dir.
func build(ctx context.Context, dir string) (cqlsize, migrate string, err error) {
	root, err := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}}", "github.com/cqlsize/cqlsize").Output()
	if err != nil {
		return "", "", fmt.Errorf("find the cqlsize module: %w", err)
	}
	cqlsize, migrate = filepath.Join(dir, "cqlsize"), filepath.Join(dir, "migrate")
	for _, args := range [][]string{
		{"-C", strings.TrimSpace(string(root)), "-o", cqlsize, "./cmd/cqlsize"},
		{"-tags", "cassandra", "-o", migrate, "github.com/golang-migrate/migrate/v4/cmd/migrate"},
	} {
		c := exec.CommandContext(ctx, "go", append([]string{"build"}, args...)...)
		if out, err := c.CombinedOutput(); err != nil {
			return "", "", fmt.Errorf("go build %s: %w\n%s", strings.Join(args, " "), err, out)
		}
	}
	return cqlsize, migrate, nil
}

// writeHistory writes the history in golang-migrate's layout: 1_setup.up.cql, then files
// of inserts INSERTs each, and with extra one more such file.
func writeHistory(dir string, files, inserts int, extra bool) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	write := func(name, text string) error { return os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644) }
	if err := write("1_setup.up.cql", "CREATE TABLE rows (k text PRIMARY KEY, v int);\n"); err != nil {
		return "", err
	}
	n := files
	if extra {
		n++
	}
	for f := 2; f <= n+1; f++ {
		var b strings.Builder
		for i := range inserts {
			fmt.Fprintf(&b, "INSERT INTO rows (k, v) VALUES ('f%d_%d', %d);\n", f, i, i)
		}
		if err := write(fmt.Sprintf("%d_inserts.up.cql", f), b.String()); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// attempts runs once up to five times: on a shared, loaded node a schema change can miss
// a client's timeout. A failed attempt is said and its keyspace dropped, and the run starts
// again in a new one.
func attempts(ctx context.Context, admin *gocql.Session, t tool, sc scenario, round int) (time.Duration, error) {
	var err error
	for attempt := 1; attempt <= 5; attempt++ {
		var d time.Duration
		if d, err = once(ctx, admin, t, sc, round); err == nil {
			return d, nil
		}
		fmt.Printf("  round %d, %s, %s, attempt %d failed (run again in a new keyspace): %v\n", round+1, sc.name, t.name, attempt, err)
	}
	return 0, err
}

// once creates a keyspace, applies the setup folder (untimed), times the run on the timed
// folder, counts the rows and drops the keyspace.
func once(ctx context.Context, admin *gocql.Session, t tool, sc scenario, round int) (time.Duration, error) {
	ks := fmt.Sprintf("migbench_%s_%s_%d_%d", strings.ReplaceAll(sc.name, " ", ""), strings.ReplaceAll(t.name, "-", ""), round+1, time.Now().UnixNano()%1e6)
	// A creation whose answer misses the timeout on a loaded node is checked and sent again
	// (internal/ddl), rather than costing the attempt.
	stmt := "CREATE KEYSPACE IF NOT EXISTS " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"
	if err := ddl.CreateKeyspace(ctx, admin, ks, stmt, ddl.Options{Budget: 5 * time.Minute}); err != nil {
		return 0, err
	}
	defer func() { _ = admin.Query("DROP KEYSPACE IF EXISTS " + ks).WithContext(ctx).Exec() }()
	if sc.setup != "" {
		if _, err := command(t.cmd(sc.setup, ks)); err != nil {
			return 0, fmt.Errorf("the history before the timed run: %w", err)
		}
	}
	d, err := command(t.cmd(sc.dir, ks))
	if err != nil {
		return 0, err
	}
	var n int
	if err := admin.Query("SELECT count(*) FROM " + ks + ".rows").WithContext(ctx).Scan(&n); err != nil {
		return 0, fmt.Errorf("count the rows: %w", err)
	}
	if n != sc.rows {
		return 0, fmt.Errorf("%d rows after the run, want %d", n, sc.rows)
	}
	return d, nil
}

// command runs c and returns how long it took, from start to exit.
func command(c *exec.Cmd) (time.Duration, error) {
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	t0 := time.Now()
	err := c.Run()
	d := time.Since(t0)
	if err != nil {
		return d, fmt.Errorf("%s: %w\n%s", strings.Join(c.Args, " "), err, strings.TrimSpace(out.String()))
	}
	return d, nil
}

// hostPort adds the native port to a host given without one.
func hostPort(h string) string {
	if strings.Contains(h, ":") {
		return h
	}
	return h + ":9042"
}

func migrateVersion() string {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "github.com/golang-migrate/migrate/v4").Output()
	if err != nil {
		return "version unknown"
	}
	return strings.TrimSpace(string(out))
}

// loadAverage is the 1-minute load average, from /proc/loadavg ("?" elsewhere).
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}

func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

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

// quiet discards the driver's log.
type quiet struct{}

func (quiet) Print(...any)          {}
func (quiet) Printf(string, ...any) {}
func (quiet) Println(...any)        {}
