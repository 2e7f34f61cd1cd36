package cli

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/internal/authtest"
	"github.com/cqlsize/cqlsize/internal/golden"
	"github.com/cqlsize/cqlsize/internal/tlstest"
)

// The ```console blocks that need a cluster (blockNeedsCluster) run in TestClusterConsoleExamples
// against the test nodes: the development node (cassandratest), the authentication node
// (authtest) and the TLS nodes (tlstest). Each page that has such blocks has an entry in
// clusterPages: its setup makes what the page's examples take as given (keyspaces, tables,
// rows, roles, migration files, certificates), each keyspace and role of the run's own, and
// its blocks are listed in page order, each run or skipped with a reason.
//
// A page names the keyspaces, roles and hosts a reader has (`-k bf_docs`, `--hosts
// 127.0.3.1`, `CASSANDRA_USERNAME=deployer`); the run's own stand in for them: a word of a
// command equal to a page's name (or the value of a NAME=value or --flag=value word) becomes
// the run's, and the output names the page's again. Then what varies from run to run (times,
// durations, rates, the client's port, the process that applied a migration, UUIDs, and the
// column widths those change) is normalized, in the page and in the output alike, before
// they are compared. TestClusterConsoleExamplesListed, offline, fails for a block that needs a
// cluster and has no entry.

// clusterBlock is one block of a page that needs a cluster, named by its first command as
// the page writes it; nth tells apart blocks that start with the same command (1 for the
// first, 2 for the next).
type clusterBlock struct {
	first string
	nth   int
	// skip is why the block is not run; "" runs it.
	skip string
	// form, when not "", is why only the form of the output is compared: the block records
	// a measurement whose figures are that run's, so it runs on rows of the test's own and
	// every number is normalized, and so are the fields that only a node with size
	// estimates gives (estimated_rows, estimated_bytes).
	form string
	// before runs ahead of the block's commands: steps the page tells in prose, and the
	// environment the reader's shell has for it (c.env).
	before func(t *testing.T, c *clusterRun)
}

// clusterPage is a page's cluster examples: setup runs once, in the page's sandbox, before
// its blocks, which run in page order and share what earlier blocks did.
type clusterPage struct {
	setup  func(t *testing.T, c *clusterRun)
	blocks []clusterBlock
}

// clusterRun is what a page's examples run with.
type clusterRun struct {
	dir string // the sandbox the commands run in
	// names maps a name of the page (keyspace, role, host) to the run's.
	names map[string]string
	// env is the environment the commands see besides their own assignments; before sets
	// it for a block, and it is cleared after the block.
	env map[string]string
	// password is the role deployer's, which the reader's shell exports; authAdmin the
	// superuser's session on the authentication node.
	password  string
	authAdmin *gocql.Session
}

// name records that the page's name stands for the run's actual one.
func (c *clusterRun) name(page, actual string) { c.names[page] = actual }

// write puts a file into the sandbox (its folders made; a folder that is a link to the
// repository's is replaced by an empty real one first, so nothing is written into the repository).
func (c *clusterRun) write(t *testing.T, rel, content string) {
	t.Helper()
	path := filepath.Join(c.dir, rel)
	top := filepath.Join(c.dir, strings.SplitN(filepath.ToSlash(rel), "/", 2)[0])
	if fi, err := os.Lstat(top); err == nil && fi.Mode()&os.ModeSymlink != 0 && top != path {
		if err := os.Remove(top); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// link puts a link to target into the sandbox at rel.
func (c *clusterRun) link(t *testing.T, rel, target string) {
	t.Helper()
	path := filepath.Join(c.dir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

// cqlsize runs a hidden step (one the page tells, not shows) with the run's names and
// fails t unless it exits 0.
func (c *clusterRun) cqlsize(t *testing.T, env map[string]string, args ...string) {
	t.Helper()
	out := consoleOutput(c.actualWords(args), func(k string) string { return env[k] })
	if len(out) > 0 && strings.HasPrefix(out[len(out)-1], "[exit ") {
		t.Fatalf("cqlsize %s:\n%s", strings.Join(args, " "), strings.Join(out, "\n"))
	}
}

// actualWords puts the run's names for the page's into words (whole words, and the values of
// NAME=value and --flag=value words).
func (c *clusterRun) actualWords(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = w
		if a, ok := c.names[w]; ok {
			out[i] = a
		} else if k, v, ok := strings.Cut(w, "="); ok {
			if a, ok := c.names[v]; ok {
				out[i] = k + "=" + a
			}
		}
	}
	return out
}

// pageNames puts the page's names back into a command's output.
func (c *clusterRun) pageNames(lines []string) []string {
	var pairs [][2]string
	for page, actual := range c.names {
		if page != actual {
			pairs = append(pairs, [2]string{actual, page})
		}
	}
	// The longest first, so that a name that contains another is replaced whole.
	sort.Slice(pairs, func(i, j int) bool { return len(pairs[i][0]) > len(pairs[j][0]) })
	var old []string
	for _, p := range pairs {
		old = append(old, p[0], p[1])
	}
	r := strings.NewReplacer(old...)
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = r.Replace(l)
	}
	return out
}

// run runs one command line of a page and returns its output with the page's names.
func (c *clusterRun) run(text string) ([]string, error) {
	assign, args, err := consoleWords(text)
	if err != nil {
		return nil, err
	}
	// A backfill's progress lines come every few seconds when no terminal watches: how many
	// depends on the machine's speed, so the pages show none (they describe them in words).
	env := map[string]string{envProgress: progressNone}
	for k, v := range c.env {
		env[k] = v
	}
	for _, a := range c.actualWords(assign) {
		k, v, _ := strings.Cut(a, "=")
		env[k] = v
	}
	return c.pageNames(consoleOutput(c.actualWords(args), func(k string) string { return env[k] })), nil
}

// varies lists what differs from one run to the next, and what each becomes for comparing.
var varies = []struct {
	re  *regexp.Regexp
	rep string
}{
	{regexp.MustCompile(`\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z\b`), "TIME"},
	{regexp.MustCompile(`\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`), "UUID"},
	// durations as Go prints them (2.786s, 450ms, 1m12.5s) and in seconds with one decimal
	{regexp.MustCompile(`\b(\d+h)?(\d+m)?\d+(\.\d+)?(ns|µs|us|ms|s)\b`), "DURATION"},
	// how many connection attempts a refusal took: a loaded node answers the first one late
	{regexp.MustCompile(` \(\d+ attempts in DURATION\)`), ""},
	{regexp.MustCompile(`\(\d+(\.\d+)? rows/s\)`), "(RATE rows/s)"},
	{regexp.MustCompile(`"(elapsed_seconds|rows_per_second)": [0-9.e+-]+`), `"$1": N`},
	// the client's own port of a connection the driver reports
	{regexp.MustCompile(`tcp ([0-9.]+|\[[0-9a-f:]+\]):\d+->`), "tcp $1:PORT->"},
	// who applied a migration: the host's name and the process
	{regexp.MustCompile(`\S+ pid \d+`), "HOST pid PID"},
	// tables align their columns to what varies
	{regexp.MustCompile(`[ \t]+`), " "},
}

// normalize replaces in lines what varies from run to run, for comparing.
func normalize(lines []string) string {
	out := make([]string, len(lines))
	for i, l := range lines {
		for _, v := range varies {
			l = v.re.ReplaceAllString(l, v.rep)
		}
		out[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(out, "\n")
}

// number is any number of an output, and sizeEstimates a field only a node that has size
// estimates for the table gives; normalizeForm drops both.
var (
	number        = regexp.MustCompile(`\b\d+(\.\d+)?([eE][+-]?\d+)?\b`)
	sizeEstimates = regexp.MustCompile(`^\s*"estimated_(rows|bytes)": `)
)

// normalizeForm is normalize, then every number N and the size estimates' fields left out:
// the form of an output, for a block that records a measurement.
func normalizeForm(lines []string) string {
	var kept []string
	for _, l := range lines {
		if !sizeEstimates.MatchString(l) {
			kept = append(kept, l)
		}
	}
	return number.ReplaceAllString(normalize(kept), "N")
}

// clusterBlocksOf lists the blocks of a page that need a cluster, each with its key
// (first command, nth).
func clusterBlocksOf(t *testing.T, page string) (lines []string, blocks []consoleBlock, keys []clusterBlock) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(repoRoot, page))
	if err != nil {
		t.Fatal(err)
	}
	lines = strings.Split(string(src), "\n")
	all, err := parseConsoleBlocks(page, lines)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, b := range all {
		if _, why := blockNeedsCluster(b); why == "" {
			continue
		}
		seen[b.cmds[0].text]++
		blocks = append(blocks, b)
		keys = append(keys, clusterBlock{first: b.cmds[0].text, nth: seen[b.cmds[0].text]})
	}
	return lines, blocks, keys
}

// entryFor finds the entry of a page's block; nth 0 in an entry is 1.
func entryFor(p clusterPage, key clusterBlock) (clusterBlock, bool) {
	for _, e := range p.blocks {
		n := e.nth
		if n == 0 {
			n = 1
		}
		if e.first == key.first && n == key.nth {
			return e, true
		}
	}
	return clusterBlock{}, false
}

// TestClusterConsoleExamplesListed fails for a block that needs a cluster and is neither run
// by TestClusterConsoleExamples nor listed as skipped with a reason, and for an entry of
// clusterPages that no block of its page matches (the page changed).
func TestClusterConsoleExamplesListed(t *testing.T) {
	pagesWith := map[string]bool{}
	for _, page := range docPages(t) {
		_, blocks, keys := clusterBlocksOf(t, page)
		if len(blocks) == 0 {
			continue
		}
		pagesWith[page] = true
		p, ok := clusterPages[page]
		if !ok {
			t.Errorf("%s has %d console blocks that need a cluster and no entry in clusterPages (docs_cluster_test.go): run them there, or list each as skipped with a reason", page, len(blocks))
			continue
		}
		matched := 0
		for i, b := range blocks {
			e, ok := entryFor(p, keys[i])
			if !ok {
				t.Errorf("%s:%d: $ %s needs a cluster, and clusterPages[%q] neither runs it nor lists it as skipped with a reason", page, b.line, b.cmds[0].text, page)
				continue
			}
			matched++
			if e.skip == "" && e.before == nil && p.setup == nil {
				t.Errorf("%s:%d: nothing prepares the cluster for it", page, b.line)
			}
		}
		if matched != len(p.blocks) {
			t.Errorf("clusterPages[%q] has %d entries, %d of them for a block of the page: an entry names a block's first command as the page writes it", page, len(p.blocks), matched)
		}
	}
	for page := range clusterPages {
		if !pagesWith[page] {
			t.Errorf("clusterPages[%q]: the page has no console block that needs a cluster", page)
		}
	}
}

// TestClusterConsoleExamples runs the console blocks that need a cluster against the test
// nodes and compares what each command prints, normalized, with the page. With -update it
// rewrites a page's output that differs (after normalizing) with this run's.
func TestClusterConsoleExamples(t *testing.T) {
	cassandratest.Hosts(t)
	pages := make([]string, 0, len(clusterPages))
	for page := range clusterPages {
		pages = append(pages, page)
	}
	sort.Strings(pages)
	for _, page := range pages {
		t.Run(page, func(t *testing.T) {
			p := clusterPages[page]
			lines, blocks, keys := clusterBlocksOf(t, page)
			c := &clusterRun{dir: sandbox(t), names: map[string]string{}}
			t.Chdir(c.dir)
			if p.setup != nil {
				p.setup(t, c)
			}
			rewrite := map[int]consoleCmd{}
			for i, b := range blocks {
				e, ok := entryFor(p, keys[i])
				if !ok {
					t.Errorf("%s:%d: not listed in clusterPages (TestClusterConsoleExamplesListed)", page, b.line)
					continue
				}
				if e.skip != "" {
					t.Logf("%s:%d: skipped: %s", page, b.line, e.skip)
					continue
				}
				if e.form != "" {
					t.Logf("%s:%d: the form of the output only: %s", page, b.line, e.form)
				}
				t.Run(fmt.Sprint(b.line), func(t *testing.T) {
					c.env = nil
					if e.before != nil {
						e.before(t, c)
					}
					for _, problem := range c.checkBlock(b, e.form != "", *golden.Update, rewrite) {
						t.Error(problem)
					}
				})
			}
			if *golden.Update && len(rewrite) > 0 {
				writeOutputs(t, filepath.Join(repoRoot, page), lines, rewrite)
			}
		})
	}
}

// checkBlock runs b's commands and returns what differs from the page once normalized; with
// update, a differing output goes into rewrite instead.
func (c *clusterRun) checkBlock(b consoleBlock, form, update bool, rewrite map[int]consoleCmd) []string {
	var problems []string
	for _, cmd := range b.cmds {
		got, err := c.run(cmd.text)
		if err != nil {
			return append(problems, fmt.Sprintf("%s:%d: %v", b.file, cmd.line, err))
		}
		norm := normalize
		if form {
			norm = normalizeForm
		}
		if norm(got) == norm(cmd.want) {
			continue
		}
		if update {
			// A line that differs only in what varies keeps the page's words, so that the
			// diff shows what changed.
			for i := range got {
				if len(got) == len(cmd.want) && norm(got[i:i+1]) == norm(cmd.want[i:i+1]) {
					got[i] = cmd.want[i]
				}
				if got[i] != "" {
					got[i] = b.indent + got[i]
				}
			}
			cmd.want = got
			rewrite[cmd.from] = cmd
			continue
		}
		problems = append(problems, fmt.Sprintf("%s:%d: $ %s\nprints what the page does not show, once times, durations, rates, ports, hosts and UUIDs are normalized (go test ./internal/cli -run TestClusterConsoleExamples -update rewrites it; review the diff):\n%s",
			b.file, cmd.line, cmd.text, golden.Diff(norm(cmd.want), norm(got))))
	}
	return problems
}

func TestNormalizeConsoleOutput(t *testing.T) {
	for _, tc := range []struct{ a, b string }{
		{"applied 0001_a.cql (1 statement) in 2.786s", "applied 0001_a.cql (1 statement) in 350ms"},
		{"  5000 source rows read (222.5 KiB), 5000 target rows written in 5000 statements, in 1.9s (2637 rows/s)",
			"  5000 source rows read (222.5 KiB), 5000 target rows written in 5000 statements, in 12.0s (416.5 rows/s)"},
		{`  "elapsed_seconds": 0.946462257,`, `  "elapsed_seconds": 12,`},
		{"read tcp 127.0.0.1:50370->127.0.3.1:9042: read", "read tcp 127.0.0.1:41234->127.0.3.1:9042: read"},
		{"1   m.cql  applied  1/1   2026-11-26T01:31:12Z  vm pid 15928  ", "1 m.cql applied 1/1 2027-01-02T03:04:05Z runner-7 pid 2"},
	} {
		if normalize([]string{tc.a}) != normalize([]string{tc.b}) {
			t.Errorf("%q and %q differ once normalized: %q, %q", tc.a, tc.b, normalize([]string{tc.a}), normalize([]string{tc.b}))
		}
	}
	for _, tc := range []struct{ a, b string }{
		{"5000 source rows", "4999 source rows"},
		{"0 missing, 0 different", "1 missing, 0 different"},
		{"(222.5 KiB)", "(222.6 KiB)"},
		{"at version 1, 1 applied", "at version 2, 1 applied"},
	} {
		if normalize([]string{tc.a}) == normalize([]string{tc.b}) {
			t.Errorf("%q and %q are the same once normalized", tc.a, tc.b)
		}
	}
}

func TestNormalizeForm(t *testing.T) {
	page := []string{"{", `  "rows": 200000,`, `  "elapsed_seconds": 71.541584787,`, `  "estimated_rows": 200064,`, `  "read_consistency": "LOCAL_ONE"`, "}"}
	run := []string{"{", `  "rows": 500,`, `  "elapsed_seconds": 1.2,`, `  "read_consistency": "LOCAL_ONE"`, "}"}
	if normalizeForm(page) != normalizeForm(run) {
		t.Errorf("same form, normalized apart:\n%s\n%s", normalizeForm(page), normalizeForm(run))
	}
	if other := []string{"{", `  "rows": 500,`, `  "refused_rows": 0,`, `  "elapsed_seconds": 1.2,`, `  "read_consistency": "LOCAL_ONE"`, "}"}; normalizeForm(page) == normalizeForm(other) {
		t.Error("a field more is the same form")
	}
}

// A time UUID made from a time gives that time back, and the same UUID each time.
func TestFixedTimeUUID(t *testing.T) {
	at := time.Date(2026, 1, 1, 2, 37, 0, 0, time.UTC)
	u := fixedTimeUUID(at)
	if u.Version() != 1 || !u.Time().Equal(at) || u != fixedTimeUUID(at) {
		t.Errorf("fixedTimeUUID(%v) = %v: version %d, time %v", at, u, u.Version(), u.Time())
	}
}

// clusterPages holds every page with console blocks that need a cluster.
var clusterPages = map[string]clusterPage{
	"docs/backfill.md": {
		setup: backfillDocsSetup,
		blocks: []clusterBlock{
			{first: "cqlsize backfill --hosts 127.0.0.1 -k bf_docs --from posts --to posts_by_user --derive 'month=month(body)'"},
			{first: "cqlsize backfill --hosts 127.0.0.1 -k bf_docs --from posts --to posts_by_user --derive 'month=month(created_at)'"},
			{first: "cqlsize backfill --hosts 127.0.0.1 -k bf_docs --from posts --to posts_by_user --derive 'month=month(created_at)'", nth: 2},
			{first: "cqlsize backfill --hosts 127.0.0.1 -k bf_docs --from posts --to posts_by_hashtag --derive 'hashtag=each(hashtags)' --derive 'day=day(created_at)' --split 1/2 --format json"},
			{first: "cqlsize backfill --hosts 127.0.0.1 -k bf_docs --from posts --to posts_by_hashtag --derive 'hashtag=each(hashtags)' --derive 'day=day(created_at)' --verify --full",
				// The check is of a finished copy: the share the JSON example left is copied too.
				before: func(t *testing.T, c *clusterRun) {
					c.cqlsize(t, nil, "backfill", "--hosts", "127.0.0.1", "-k", "bf_docs", "--from", "posts", "--to", "posts_by_hashtag",
						"--derive", "hashtag=each(hashtags)", "--derive", "day=day(created_at)", "--split", "2/2")
				}},
		},
	},
	"docs/evolve.md": {
		blocks: []clusterBlock{
			{first: "CASSANDRA_HOSTS=127.0.0.1 go test -count=1 -run TestEvolveAddHashtagTable -v ./examples/posts/",
				skip: "it runs go test, not cqlsize: the test it shows runs in the cluster suite of ./examples/posts"},
			{first: "cqlsize backfill --hosts 127.0.0.1 -k evolve_rate --from posts_by_id --to posts_by_hashtag --derive 'hashtag=each(hashtags)' --derive 'month=month(post_id)' --format json",
				form:   "the record of the measurement --copy-rate's default rests on (200,000 rows, 71 s on the dev node): its figures are that run's",
				before: evolveRateBefore},
		},
	},
	"docs/migrate.md": {
		blocks: []clusterBlock{
			{first: "CASSANDRA_HOSTS=127.0.0.1 cqlsize migrate validate -d d -k app", before: migrateValidateBefore},
			{first: "CASSANDRA_HOSTS=127.0.0.1 cqlsize migrate up -d . -k shop_demo", before: migrateSettingsBefore},
		},
	},
	"docs/security.md": {
		setup: securityDocsSetup,
		blocks: []clusterBlock{
			{first: "cqlsize migrate status -k app --hosts 127.0.3.1"},
			{first: "cqlsize migrate status -k app --hosts 127.0.0.1 --tls-ca certs/ca.pem"},
			{first: "cqlsize migrate status -k app --hosts 127.0.3.1 --tls-ca certs/other-ca.pem"},
			{first: "cqlsize migrate status -k app --hosts 127.0.0.1:19042 --tls-ca certs/ca.pem"},
			{first: "cqlsize migrate status -k app --hosts 127.0.4.1 --tls-ca certs/mtls-ca.pem"},
			{first: "CASSANDRA_USERNAME=deployer cqlsize migrate status -k docs_app --hosts 127.0.2.1", before: deployerPassword},
			{first: "CASSANDRA_USERNAME=deployer cqlsize migrate up -k docs_app --hosts 127.0.2.1",
				before: func(t *testing.T, c *clusterRun) {
					deployerPassword(t, c)
					c.write(t, "migrations/0002_note.cql", "ALTER TABLE events ADD note text;\n")
					for _, table := range []string{"cqlsize_migrations", "cqlsize_migrations_lock"} {
						authtest.Grant(t, c.authAdmin, "SELECT", "TABLE "+c.names["docs_app"]+"."+table, c.names["deployer"])
					}
				}},
			{first: "CASSANDRA_USERNAME=deployer CASSANDRA_PASSWORD=wrong cqlsize migrate status -k docs_app --hosts 127.0.2.1"},
		},
	},
}

// devNode names the development node 127.0.0.1, as the pages do.
func devNode(t *testing.T, c *clusterRun) {
	c.name("127.0.0.1", strings.Join(cassandratest.Hosts(t), ","))
}

// dropAfter drops keyspace ks through s when t ends (a keyspace a command created).
func dropAfter(t *testing.T, s *gocql.Session, ks string) {
	t.Cleanup(func() {
		if err := s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec(); err != nil {
			t.Logf("drop keyspace %s: %v", ks, err)
		}
	})
}

// backfillDocsSetup makes backfill.md's keyspace: the three tables the page shows and 5,000
// posts, the same every run (time UUIDs from fixed times and a fixed node), so that a share
// of the ring holds the same rows each time; every third post has two hashtags, the others one.
func backfillDocsSetup(t *testing.T, c *clusterRun) {
	devNode(t, c)
	s, ks := cassandratest.Keyspace(t)
	c.name("bf_docs", ks)
	cassandratest.DDL(t, s, ks,
		"CREATE TABLE posts (post_id timeuuid PRIMARY KEY, user_id text, created_at timestamp, body text, hashtags set<text>)",
		"CREATE TABLE posts_by_user (user_id text, month text, post_id timeuuid, body text, PRIMARY KEY ((user_id, month), post_id)) WITH CLUSTERING ORDER BY (post_id DESC)",
		"CREATE TABLE posts_by_hashtag (hashtag text, day date, post_id timeuuid, user_id text, body text, PRIMARY KEY ((hashtag, day), post_id))",
	)
	const posts, workers = 5000, 8
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < posts; i += workers {
				at := base.Add(time.Duration(i) * 97 * time.Minute)
				tags := []string{fmt.Sprintf("tag%d", i%7)}
				if i%3 == 0 {
					tags = append(tags, fmt.Sprintf("tag%d", 7+i%5))
				}
				body := fmt.Sprintf("post %d by user %d: %s", i, i%50, strings.Repeat("words ", 3+i%5))
				if err := s.Query("INSERT INTO posts (post_id, user_id, created_at, body, hashtags) VALUES (?, ?, ?, ?, ?)",
					fixedTimeUUID(at), fmt.Sprintf("user%d", i%50), at, body, tags).Exec(); err != nil {
					errs <- fmt.Errorf("insert post %d: %w", i, err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// fixedTimeUUID is the version 1 UUID of at with clock sequence 0 and a fixed node: the same
// for the same time, unlike gocql.UUIDFromTime's random clock sequence and node.
func fixedTimeUUID(at time.Time) gocql.UUID {
	// 100 ns intervals since 1582-10-15, the UUID epoch, which is 0x01B21DD213814000 of them
	// before the Unix epoch
	ts := uint64(at.UnixNano()/100) + 0x01B21DD213814000
	var u gocql.UUID
	binary.BigEndian.PutUint32(u[0:], uint32(ts))
	binary.BigEndian.PutUint16(u[4:], uint16(ts>>32))
	binary.BigEndian.PutUint16(u[6:], uint16(ts>>48)&0x0fff|0x1000)
	u[8], u[9] = 0x80, 0x00
	copy(u[10:], []byte{0x02, 0x42, 0xac, 0x11, 0x00, 0x02})
	return u
}

// migrateValidateBefore makes migrate.md's history: 0001 and 0002 applied to the keyspace
// app, and 0003 pending, which drops the table 0001 created.
func migrateValidateBefore(t *testing.T, c *clusterRun) {
	devNode(t, c)
	_, ks := cassandratest.Keyspace(t)
	c.name("app", ks)
	c.write(t, "d/0001_items.cql", "CREATE TABLE items (id int PRIMARY KEY, name text);\n")
	c.write(t, "d/0002_orders.cql", "CREATE TABLE orders (id int PRIMARY KEY, item int);\n")
	c.cqlsize(t, map[string]string{connect.EnvHosts: c.names["127.0.0.1"]}, "migrate", "up", "-d", "d", "-k", "app")
	c.write(t, "d/0003_drop.cql", "DROP TABLE items;\n")
}

// migrateSettingsBefore writes the history of migrate.md's node-settings example into the
// sandbox's root: the first file creates shop_demo, the second masks a column, the third
// makes a SASI index.
func migrateSettingsBefore(t *testing.T, c *clusterRun) {
	devNode(t, c)
	ks := cassandratest.KeyspaceName(t.Name())
	c.name("shop_demo", ks)
	dropAfter(t, cassandratest.Session(t), ks)
	c.write(t, "V1__keyspace.cql", "CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\n")
	c.write(t, "V2__users.cql", "CREATE TABLE users (\n  id uuid PRIMARY KEY,\n  email text MASKED WITH mask_default()\n);\n")
	c.write(t, "V3__search.cql", "CREATE TABLE posts (id uuid PRIMARY KEY, body text);\n"+
		"CREATE CUSTOM INDEX posts_body ON posts (body) USING 'org.apache.cassandra.index.sasi.SASIIndex';\n")
}

// securityDocsSetup makes what security.md's examples take as given: the certificates in
// certs/ (the TLS node's CA, the mutual node's CA and a client certificate it signed, a CA no
// node trusts), a forwarder to the TLS node at an address its certificate does not cover,
// migrations/0001_events.cql applied to the keyspace app on the TLS node and to docs_app on
// the authentication node, and a role deployer there that holds no permission.
func securityDocsSetup(t *testing.T, c *clusterRun) {
	server, mutual := tlstest.Server(t), tlstest.Mutual(t)
	authHosts := authtest.Hosts(t)
	devNode(t, c)
	c.name("127.0.3.1", server.Hosts[0])
	c.name("127.0.4.1", mutual.Hosts[0])
	c.name("127.0.2.1", authHosts[0])
	c.name("127.0.0.1:19042", tlstest.Forward(t, net.JoinHostPort(server.Hosts[0], "9042")))
	otherCA, _, _ := tlstest.OtherCA(t)
	c.link(t, "certs/ca.pem", server.CA)
	c.link(t, "certs/other-ca.pem", otherCA)
	c.link(t, "certs/mtls-ca.pem", mutual.CA)
	c.link(t, "certs/client.pem", mutual.ClientCert)
	c.link(t, "certs/client.key", mutual.ClientKey)
	c.write(t, "migrations/0001_events.cql", "CREATE TABLE events (id int, seq int, body text, PRIMARY KEY (id, seq));\n")

	app := cassandratest.KeyspaceName(t.Name() + "_app")
	c.name("app", app)
	for _, n := range []struct {
		node   tlstest.Node
		mutual bool
	}{{server, false}, {mutual, true}} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		s, err := connect.Open(ctx, n.node.Config(n.mutual))
		cancel()
		if err != nil {
			t.Fatalf("connect to the TLS node %s: %v", n.node.Hosts[0], err)
		}
		t.Cleanup(s.Close)
		dropAfter(t, s, app)
	}
	c.cqlsize(t, nil, "migrate", "up", "-k", "app", "--hosts", "127.0.3.1", "--tls-ca", "certs/ca.pem",
		"--replication", "{'class': 'SimpleStrategy', 'replication_factor': 1}")

	admin := authtest.Open(t, authtest.SuperUser, authtest.SuperPassword, "")
	docsApp := cassandratest.KeyspaceName(t.Name() + "_docs_app")
	c.name("docs_app", docsApp)
	dropAfter(t, admin, docsApp)
	c.cqlsize(t, map[string]string{connect.EnvUsername: authtest.SuperUser, connect.EnvPassword: authtest.SuperPassword},
		"migrate", "up", "-k", "docs_app", "--hosts", "127.0.2.1",
		"--replication", "{'class': 'SimpleStrategy', 'replication_factor': 1}")
	role, password := authtest.Role(t, admin, "deployer")
	c.name("deployer", role)
	c.password, c.authAdmin = password, admin
}

// deployerPassword is the reader's shell exporting the password of deployer
// (CASSANDRA_PASSWORD is never written on a command line).
func deployerPassword(t *testing.T, c *clusterRun) {
	c.env = map[string]string{connect.EnvPassword: c.password}
}

// evolveRateBefore makes evolve.md's keyspace evolve_rate: posts_by_id and posts_by_hashtag
// as examples/posts has them, and 500 posts of about 200 bytes of content and two hashtags.
func evolveRateBefore(t *testing.T, c *clusterRun) {
	devNode(t, c)
	s, ks := cassandratest.Keyspace(t)
	c.name("evolve_rate", ks)
	cassandratest.DDL(t, s, ks,
		"CREATE TABLE posts_by_id (post_id timeuuid PRIMARY KEY, user_id uuid, content text, hashtags frozen<set<text>>, created_at timestamp)",
		"CREATE TABLE posts_by_hashtag (hashtag text, month text, post_id timeuuid, user_id uuid, content text, PRIMARY KEY ((hashtag, month), post_id)) WITH CLUSTERING ORDER BY (post_id DESC)",
	)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 500; i++ {
		at := base.Add(time.Duration(i) * time.Hour)
		if err := s.Query("INSERT INTO posts_by_id (post_id, user_id, content, hashtags, created_at) VALUES (?, ?, ?, ?, ?)",
			fixedTimeUUID(at), fixedTimeUUID(base.Add(time.Duration(i%20)*time.Second)), strings.Repeat("x", 200),
			[]string{fmt.Sprint("tag", i%9), fmt.Sprint("topic", i%4)}, at).Exec(); err != nil {
			t.Fatalf("insert post %d: %v", i, err)
		}
	}
}
