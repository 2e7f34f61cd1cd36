package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/cqlsize/cqlsize/internal/golden"
)

// The docs show what cqlsize prints in ```console blocks (docs/tests.md describes the
// notation). These tests run every such block offline and compare, so a page can never drift
// from the tool: a difference is either a stale page (go test ./internal/cli -run
// TestConsoleExamples -update rewrites it) or a bug in the command.

// repoRoot is the module root, two directories up from this package, as an absolute path:
// the examples run in other directories.
var repoRoot = func() string {
	abs, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		panic(err)
	}
	return abs
}()

// consoleCmd is one `$ ` line of a block (continuation lines joined) and the output the page
// shows for it: lines [from, to) of the file, without the block's indentation.
type consoleCmd struct {
	line     int // 1-based line of the `$ `, for messages
	text     string
	from, to int
	want     []string
}

// consoleBlock is one ```console block of a page.
type consoleBlock struct {
	file   string
	line   int
	indent string
	cmds   []consoleCmd
}

// docPages lists README.md and every Markdown page under docs/, relative to the root.
func docPages(t *testing.T) []string {
	t.Helper()
	pages := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(repoRoot, "docs"), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, err := filepath.Rel(repoRoot, p)
			if err != nil {
				return err
			}
			pages = append(pages, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(pages[1:])
	return pages
}

// parseConsoleBlocks reads the ```console blocks of one page. A block may be indented (inside
// a list item); its lines lose that indentation. A `$ ` line ending in a backslash continues
// on the next line, as in a shell.
func parseConsoleBlocks(file string, lines []string) ([]consoleBlock, error) {
	var blocks []consoleBlock
	for i := 0; i < len(lines); i++ {
		trimmed := strings.TrimLeft(lines[i], " ")
		if trimmed != "```console" {
			continue
		}
		b := consoleBlock{file: file, line: i + 1, indent: lines[i][:len(lines[i])-len(trimmed)]}
		i++
		for ; i < len(lines) && strings.TrimLeft(lines[i], " ") != "```"; i++ {
			l := strings.TrimPrefix(lines[i], b.indent)
			if strings.HasPrefix(l, "$ ") {
				c := consoleCmd{line: i + 1, text: strings.TrimPrefix(l, "$ ")}
				for strings.HasSuffix(c.text, "\\") && i+1 < len(lines) {
					i++
					c.text = strings.TrimSuffix(c.text, "\\") + " " + strings.TrimSpace(lines[i])
				}
				c.from, c.to = i+1, i+1
				b.cmds = append(b.cmds, c)
				continue
			}
			if len(b.cmds) == 0 {
				return nil, fmt.Errorf("%s:%d: a console block starts with a `$ ` command line", file, i+1)
			}
			c := &b.cmds[len(b.cmds)-1]
			c.want = append(c.want, l)
			c.to = i + 1
		}
		if i == len(lines) {
			return nil, fmt.Errorf("%s:%d: console block not closed", file, b.line)
		}
		blocks = append(blocks, b)
	}
	return blocks, nil
}

// shellWords splits a command line as a POSIX shell does for the subset the docs use: words
// separated by blanks, '…' and "…" quoting, and backslash escapes. Redirections, pipes and
// variables are not supported; a block that needs them is not a console example.
func shellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unclosed ' in %q", s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(`"\$`+"`", s[i+1]) >= 0 {
					i++
				} else if s[i] == '$' || s[i] == '`' {
					return nil, fmt.Errorf("variables and command substitution are not supported: %q", s)
				}
				cur.WriteByte(s[i])
			}
			if i == len(s) {
				return nil, fmt.Errorf("unclosed \" in %q", s)
			}
			inWord = true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case strings.IndexByte("|&;<>()$`*?", c) >= 0 || c == '#' && !inWord:
			return nil, fmt.Errorf("%q: shell syntax (%c) is not supported in a console example; show one cqlsize command a line", s, c)
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// envAssignment matches a NAME=value word before a command.
var envAssignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// needsCluster reports why a command line needs a cluster, or "" when it runs offline: it
// sets an environment variable naming hosts (CASSANDRA_HOSTS=…, CQLSIZE_RING_HOSTS=…), or it
// carries --hosts, --live or --container.
func needsCluster(text string) string {
	for _, w := range strings.Fields(text) {
		if envAssignment.MatchString(w) {
			if name := w[:strings.IndexByte(w, '=')]; strings.Contains(name, "HOSTS") {
				return name + "="
			}
			continue
		}
		for _, f := range []string{"--hosts", "--live", "--container"} {
			if w == f || strings.HasPrefix(w, f+"=") {
				return f
			}
		}
	}
	return ""
}

// blockNeedsCluster is the first command of b that needs a cluster, and why.
func blockNeedsCluster(b consoleBlock) (consoleCmd, string) {
	for _, c := range b.cmds {
		if why := needsCluster(c.text); why != "" {
			return c, why
		}
	}
	return consoleCmd{}, ""
}

// offlineEnv is the environment an example runs in: none at all, so CASSANDRA_HOSTS or
// credentials of the shell running the tests cannot reach a command.
func offlineEnv(string) string { return "" }

// runConsole runs one cqlsize command line in process and returns what the page shows for
// it: stdout, then stderr, then "[exit N]" when the status is not 0, as lines.
func runConsole(text string) ([]string, error) {
	assign, args, err := consoleWords(text)
	if err != nil {
		return nil, err
	}
	if len(assign) > 0 {
		return nil, fmt.Errorf("%q: a console example runs cqlsize (put other commands in a ```sh block)", text)
	}
	return consoleOutput(args, offlineEnv), nil
}

// consoleWords splits a command line into the NAME=value assignments before the command
// (in their order) and cqlsize's arguments. It refuses a line that runs another program, and
// one that names an absolute path.
func consoleWords(text string) (assign, args []string, err error) {
	words, err := shellWords(text)
	if err != nil {
		return nil, nil, err
	}
	for len(words) > 0 && envAssignment.MatchString(words[0]) {
		assign, words = append(assign, words[0]), words[1:]
	}
	if len(words) == 0 || words[0] != "cqlsize" {
		return nil, nil, fmt.Errorf("%q: a console example runs cqlsize (put other commands in a ```sh block)", text)
	}
	for _, w := range words[1:] {
		if _, v, ok := strings.Cut(w, "="); ok && strings.HasPrefix(w, "-") {
			w = v
		}
		if filepath.IsAbs(w) {
			return nil, nil, fmt.Errorf("%q: %s is outside the repository: an example names paths relative to the root, so it reads what the reader has and writes into its own directory", text, w)
		}
	}
	return assign, words[1:], nil
}

// consoleOutput runs cqlsize with args in process and returns what a page shows for it:
// stdout, then stderr, then "[exit N]" when the status is not 0, as lines.
func consoleOutput(args []string, getenv func(string) string) []string {
	var out, errOut bytes.Buffer
	code := DoContext(context.Background(), args, strings.NewReader(""), &out, &errOut, getenv)
	got := strings.TrimSuffix(out.String()+errOut.String(), "\n")
	var lines []string
	if got != "" {
		lines = strings.Split(got, "\n")
	}
	if code != 0 {
		lines = append(lines, fmt.Sprintf("[exit %d]", code))
	}
	return lines
}

// sandbox is a fresh directory that looks like the repository root: a symlink to each of the
// root's entries. A block runs there, so a command that writes a file (migrate new, --output)
// writes it in the sandbox, and the paths it prints are the ones a reader at the root sees.
func sandbox(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	root := repoRoot
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == ".git" {
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestConsoleExamples runs every ```console block of README.md and docs/ that needs no
// cluster (TestClusterConsoleExamples runs the others) and compares what each command
// prints, and its exit status, with the page. With
// -update it rewrites the pages' outputs instead; review the diff: each change is a stale page
// or a bug.
func TestConsoleExamples(t *testing.T) {
	ran, skipped := 0, 0
	for _, page := range docPages(t) {
		path := filepath.Join(repoRoot, page)
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(src), "\n")
		blocks, err := parseConsoleBlocks(page, lines)
		if err != nil {
			t.Error(err)
			continue
		}
		rewrite := map[int]consoleCmd{} // by the output's first line, for -update
		for _, b := range blocks {
			if c, why := blockNeedsCluster(b); why != "" {
				skipped++
				t.Logf("%s:%d: skipped: %q needs a cluster (%s): TestClusterConsoleExamples runs it or says why not", page, c.line, c.text, why)
				continue
			}
			ran++
			t.Run(fmt.Sprintf("%s:%d", page, b.line), func(t *testing.T) { runBlock(t, b, rewrite) })
		}
		if *golden.Update && len(rewrite) > 0 {
			writeOutputs(t, path, lines, rewrite)
		}
	}
	t.Logf("console examples: %d blocks run, %d skipped because they need a cluster", ran, skipped)
	if ran == 0 {
		t.Error("no console example ran: the docs show what the tool prints in ```console blocks")
	}
}

// runBlock runs a block's commands in order in one sandbox and compares each output with the
// page; with -update it records the outputs that differ in rewrite.
func runBlock(t *testing.T, b consoleBlock, rewrite map[int]consoleCmd) {
	t.Helper()
	t.Chdir(sandbox(t))
	for _, problem := range checkBlock(b, *golden.Update, rewrite) {
		t.Error(problem)
	}
}

// checkBlock runs b's commands in the current directory and returns what differs from the
// page. With update, a differing output goes into rewrite (indented as the block is) instead.
func checkBlock(b consoleBlock, update bool, rewrite map[int]consoleCmd) []string {
	var problems []string
	for _, c := range b.cmds {
		got, err := runConsole(c.text)
		if err != nil {
			return append(problems, fmt.Sprintf("%s:%d: %v", b.file, c.line, err))
		}
		if strings.Join(got, "\n") == strings.Join(c.want, "\n") {
			continue
		}
		if update {
			c.want = got
			for i := range c.want {
				if c.want[i] != "" {
					c.want[i] = b.indent + c.want[i]
				}
			}
			rewrite[c.from] = c
			continue
		}
		problems = append(problems, fmt.Sprintf("%s:%d: $ %s\nprints what the page does not show (go test ./internal/cli -run TestConsoleExamples -update rewrites it; review the diff):\n%s",
			b.file, c.line, c.text, golden.Diff(strings.Join(c.want, "\n"), strings.Join(got, "\n"))))
	}
	return problems
}

// writeOutputs replaces the outputs in rewrite (already indented) and writes the page.
func writeOutputs(t *testing.T, path string, lines []string, rewrite map[int]consoleCmd) {
	t.Helper()
	var out []string
	for i := 0; i < len(lines); {
		if c, ok := rewrite[i]; ok {
			out = append(out, c.want...)
			if c.to > c.from {
				i = c.to
				continue
			}
		}
		if i < len(lines) {
			out = append(out, lines[i])
		}
		i++
	}
	if err := os.WriteFile(path, []byte(strings.Join(out, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// commandPaths lists every command a user runs: each runnable command of the cobra tree
// except cobra's own help and completion, as "cqlsize migrate up".
func commandPaths() []string {
	var paths []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "help" || sub.Name() == "completion" {
				continue
			}
			if sub.Runnable() {
				paths = append(paths, sub.CommandPath())
			}
			walk(sub)
		}
	}
	walk(newRootCmd(&Env{Getenv: offlineEnv}))
	sort.Strings(paths)
	return paths
}

// TestEveryCommandHasAConsoleExample fails for each command of the CLI that no offline console
// example of the docs runs: a new command is documented with what it prints, or this fails. A
// command that needs a cluster still has one (its --help, or a refusal of bad input).
func TestEveryCommandHasAConsoleExample(t *testing.T) {
	root := newRootCmd(&Env{Getenv: offlineEnv})
	covered := map[string]string{}
	for _, page := range docPages(t) {
		src, err := os.ReadFile(filepath.Join(repoRoot, page))
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := parseConsoleBlocks(page, strings.Split(string(src), "\n"))
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range blocks {
			if _, why := blockNeedsCluster(b); why != "" {
				continue
			}
			for _, c := range b.cmds {
				words, err := shellWords(c.text)
				if err != nil || len(words) == 0 || words[0] != "cqlsize" {
					continue // TestConsoleExamples reports it
				}
				cmd, _, err := root.Find(words[1:])
				if err == nil && cmd != nil {
					if _, ok := covered[cmd.CommandPath()]; !ok {
						covered[cmd.CommandPath()] = page + ":" + strconv.Itoa(c.line)
					}
				}
			}
		}
	}
	for _, p := range commandPaths() {
		if _, ok := covered[p]; !ok {
			t.Errorf("%s has no offline console example in README.md or docs/ (its --help, or a refusal of bad input, runs offline)", p)
		}
	}
}

func TestShellWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		err  bool
	}{
		{in: `cqlsize estimate --schema a.cql`, want: []string{"cqlsize", "estimate", "--schema", "a.cql"}},
		{in: `cqlsize migrate new "create users"`, want: []string{"cqlsize", "migrate", "new", "create users"}},
		{in: `cqlsize x --replication "{'class': 'SimpleStrategy'}" -k '"App"'`, want: []string{"cqlsize", "x", "--replication", "{'class': 'SimpleStrategy'}", "-k", `"App"`}},
		{in: `cqlsize a\ b "q\"x"`, want: []string{"cqlsize", "a b", `q"x`}},
		{in: `cqlsize profile > w.yaml`, err: true},
		{in: `cqlsize estimate | head`, err: true},
		{in: `echo $?`, err: true},
		{in: `cqlsize "unclosed`, err: true},
		{in: `cqlsize --schema *.cql`, err: true},
	} {
		got, err := shellWords(c.in)
		if (err != nil) != c.err || !c.err && strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("shellWords(%q) = %q, %v; want %q (error: %v)", c.in, got, err, c.want, c.err)
		}
	}
}

func TestNeedsCluster(t *testing.T) {
	for in, want := range map[string]string{
		"cqlsize estimate --schema s.cql":                             "",
		"CASSANDRA_HOSTS=127.0.0.1 cqlsize migrate up":                "CASSANDRA_HOSTS=",
		"CQLSIZE_RING_HOSTS=127.0.1.1 go test ./migrations":           "CQLSIZE_RING_HOSTS=",
		"cqlsize profile --hosts 10.0.0.1 -k app":                     "--hosts",
		"cqlsize estimate --live -k app":                              "--live",
		"cqlsize migrate up --container=cassandra:5.0":                "--container",
		"CQLSIZE_HEAP=1G cqlsize estimate --schema s.cql --hostsfile": "",
	} {
		if got := needsCluster(in); got != want {
			t.Errorf("needsCluster(%q) = %q, want %q", in, got, want)
		}
	}
}

// The comparison fails a page that shows the wrong output or the wrong exit status, and
// -update writes what the command prints, indented as the block is.
func TestConsoleBlockComparison(t *testing.T) {
	page := strings.Split(strings.Join([]string{
		"- a list item:",
		"  ```console",
		"  $ cqlsize migrate",
		"  cqlsize: migrate needs a subcommand: up, status, validate, plan, new, baseline, accept-checksum, repair, resolve or dcs",
		"  [exit 2]",
		"  $ cqlsize version \\",
		"      now",
		"  what it used to print",
		"  ```",
	}, "\n"), "\n")
	blocks, err := parseConsoleBlocks("page.md", page)
	if err != nil || len(blocks) != 1 || len(blocks[0].cmds) != 2 {
		t.Fatalf("parse: %+v, %v", blocks, err)
	}
	if got := blocks[0].cmds[1].text; got != "cqlsize version  now" {
		t.Errorf("continued line read as %q", got)
	}
	problems := checkBlock(blocks[0], false, nil)
	if len(problems) != 1 || !strings.Contains(problems[0], "page.md:6:") {
		t.Fatalf("want one difference, at page.md:6 (the second command): %q", problems)
	}
	rewrite := map[int]consoleCmd{}
	if p := checkBlock(blocks[0], true, rewrite); len(p) != 0 {
		t.Fatal(p)
	}
	writeDir := t.TempDir()
	path := filepath.Join(writeDir, "page.md")
	writeOutputs(t, path, page, rewrite)
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join(append(page[:7:7], `  cqlsize: unknown command "now" for "cqlsize version"`,
		"  Run 'cqlsize version --help' for usage.", "  [exit 2]", "  ```"), "\n")
	if string(got) != want {
		t.Errorf("-update wrote\n%s\nwant\n%s", got, want)
	}
	if _, err := parseConsoleBlocks("open.md", []string{"```console", "$ cqlsize version"}); err == nil {
		t.Error("an unclosed block is not an error")
	}
}

// An example that names an absolute path is refused: what it writes would outlive the run,
// and the next run would find it (a second `design --out /tmp/x` numbers its migration 0002).
func TestConsoleExampleRefusesAbsolutePaths(t *testing.T) {
	for _, text := range []string{"cqlsize design --out /tmp/x", "cqlsize estimate --schema=/etc/schema.cql"} {
		if _, err := runConsole(text); err == nil || !strings.Contains(err.Error(), "outside the repository") {
			t.Errorf("%q: %v, want a refusal naming the path", text, err)
		}
	}
}
