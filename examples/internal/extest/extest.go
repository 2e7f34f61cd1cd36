// Package extest is the examples' shared test harness, and nothing else: it applies an
// example's migration files to a test's fresh keyspace, checks and runs every named query
// of its queries.cql on the node, sizes its workload.yaml, scrolls a timeline to its end,
// holds its README's Go code to the package's, and reaches the 3-node fault ring. None of
// it is code a service needs: what an example does (its models, writes, reads and
// buckets) is in the example's own non-test files, which import public packages only and
// can be copied out. It is internal so that these test conveniences, and the ring control
// under internal/, do not become part of the module's API.
package extest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/check"
	"github.com/cqlsize/cqlsize/cql/denorm"
	"github.com/cqlsize/cqlsize/migrations"
	"github.com/cqlsize/cqlsize/sizing"
	"github.com/cqlsize/cqlsize/workload"
)

// migrationFiles returns dir's NNNN_name.cql files in version order.
func migrationFiles(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	type file struct {
		version int64
		path    string
	}
	var files []file
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".cql") {
			continue
		}
		v, _, err := migrations.ParseName(e.Name())
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, file{v, filepath.Join(dir, e.Name())})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].version < files[j].version })
	if len(files) == 0 {
		t.Fatalf("no migrations in %s", dir)
	}
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.path
	}
	return out
}

// Migrate applies the migrations in dir to the session's keyspace, file by file in version
// order, statement by statement as the cql splitter cuts them.
func Migrate(t testing.TB, s *gocql.Session, dir string) {
	t.Helper()
	for _, path := range migrationFiles(t, dir) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		stmts, err := cql.SplitStatements(path, src)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range stmts {
			if err := execDDL(s, st.Text); err != nil {
				t.Fatalf("%s: %v", st.Pos, err)
			}
		}
	}
}

// execDDL runs a statement, waiting out a node too busy to answer in time (an index still
// building, a schema change that outlasts the client's timeout). A change that timed out
// may have been applied: the nodes are given time to agree before it is sent again, and an
// "already exists" answer to a second send is the first one having landed.
func execDDL(s *gocql.Session, stmt string) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if err = s.Query(stmt).Exec(); err == nil {
			return nil
		}
		var exists *gocql.RequestErrAlreadyExists
		if attempt > 0 && (errors.As(err, &exists) || strings.Contains(err.Error(), "already exist")) {
			return nil
		}
		var timeout *gocql.RequestErrWriteTimeout
		if !errors.As(err, &timeout) && !strings.Contains(err.Error(), "timeout") {
			return err
		}
		_ = s.AwaitSchemaAgreement(context.Background())
		time.Sleep(time.Second)
	}
	return err
}

// Queries loads the named queries of file and checks them against the schema with the
// query checker: each must be served without ALLOW FILTERING and without a finding at
// warn level or above.
func Queries(t testing.TB, schema *cql.Schema, file string) []check.Query {
	t.Helper()
	qs, err := check.LoadQueries(file)
	if err != nil {
		t.Fatal(err)
	}
	results, err := check.Check(schema, qs, check.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if r.NeedsFiltering || r.Filters {
			t.Errorf("%s: query %s needs ALLOW FILTERING", r.Query.Pos, r.Query.Name)
		}
		for _, f := range r.Findings {
			if f.Severity >= check.Warn {
				t.Errorf("%s: query %s: %s %s", r.Query.Pos, r.Query.Name, f.Code, f.Message)
			}
		}
	}
	return qs
}

// RunQueries runs every named query of file on the node, binding each marker by the name
// Cassandra gives it (the column it is compared with, or [limit]) from binds. Each query
// must succeed and return at least one row: the access pattern finds the data the test
// wrote. It returns the rows per query name.
func RunQueries(t testing.TB, s *gocql.Session, schema *cql.Schema, file string, binds map[string]any) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, q := range Queries(t, schema, file) {
		for _, tok := range lexUpper(q.Text) {
			if tok == "FILTERING" {
				t.Errorf("%s: query %s says ALLOW FILTERING", q.Pos, q.Name)
			}
		}
		iter := s.Bind(q.Text, func(info *gocql.QueryInfo) ([]any, error) {
			vals := make([]any, len(info.Args))
			for i, a := range info.Args {
				v, ok := binds[a.Name]
				if !ok {
					return nil, fmt.Errorf("no value for bind marker %d (%s): add %q to the test's binds", i+1, a.Name, a.Name)
				}
				vals[i] = v
			}
			return vals, nil
		}).Iter()
		n := iter.NumRows()
		if err := iter.Close(); err != nil {
			t.Errorf("%s: query %s: %v", q.Pos, q.Name, err)
			continue
		}
		if n == 0 {
			t.Errorf("%s: query %s returned no row: it does not find what the test wrote", q.Pos, q.Name)
		}
		out[q.Name] = n
	}
	return out
}

func lexUpper(text string) []string {
	toks, err := cql.Lex("query", []byte(text))
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(toks))
	for _, tk := range toks {
		out = append(out, strings.ToUpper(tk.Val))
	}
	return out
}

// Estimate sizes every table of dir/workload.yaml under the schema with the sizing model
// and fails on a finding at fail level (a partition over 100 MB or 100,000 values, a read
// over the tombstone failure threshold): the example's design must hold at its declared
// workload. It returns the estimates for the test to log or check further.
func Estimate(t testing.TB, schema *cql.Schema, dir string) []*sizing.Estimate {
	t.Helper()
	w, err := workload.Load(filepath.Join(dir, "workload.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ests, err := sizing.EstimateAll(schema, w, sizing.Options{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ests {
		t.Logf("%s: typical partition %s in %.0f rows, largest %s in %.0f rows",
			e.Table, sizing.FormatBytes(e.Typical.Bytes), e.Typical.Rows, sizing.FormatBytes(e.Largest.Bytes), e.Largest.Rows)
		for _, f := range e.Findings {
			if f.Severity >= sizing.Fail {
				t.Errorf("%s: %s %s: %s", f.Pos, f.Code, e.Table, f.Message)
			} else if f.Severity >= sizing.Warn {
				t.Logf("%s: %s %s: %s", f.Pos, f.Code, e.Table, f.Message)
			}
		}
	}
	return ests
}

// Timeline pages through tl from req to its end and returns column col of every row, in
// the order the pages gave them: what a client scrolling the whole timeline sees. A page
// that is short and still has a token must say it stopped early, and only such a page.
func Timeline[T any](t testing.TB, ctx context.Context, tl *denorm.Timeline, req denorm.PageRequest, col string) []T {
	t.Helper()
	var got []T
	for {
		p, err := tl.Page(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range p.Rows {
			v, ok := r[col].(T)
			if !ok {
				t.Fatalf("timeline column %s is %T, want %T", col, r[col], *new(T))
			}
			got = append(got, v)
		}
		// A short page with more to read must say why: it stopped early.
		if p.Next != "" && len(p.Rows) < req.Limit && !p.StoppedEarly {
			t.Errorf("a page of %d rows for a limit of %d has a token but does not say it stopped early", len(p.Rows), req.Limit)
		}
		if p.StoppedEarly && (p.Next == "" || len(p.Rows) == req.Limit) {
			t.Errorf("a page of %d rows for a limit of %d says it stopped early (token %q)", len(p.Rows), req.Limit, p.Next)
		}
		if req.Token = p.Next; req.Token == "" {
			return got
		}
	}
}

// shardAdvice matches SZ102's advice: "spread that key over 5 write shards".
var shardAdvice = regexp.MustCompile(`spread that key over (\d+) write shards`)

// ShardAdvice returns the write shards SZ102 asks for on table, or 0 when the estimate
// does not ask for any.
func ShardAdvice(t testing.TB, ests []*sizing.Estimate, table string) int {
	t.Helper()
	for _, e := range ests {
		if e.Table != table && !strings.HasSuffix(e.Table, "."+table) {
			continue
		}
		for _, f := range e.Findings {
			if f.Code != sizing.CodeShards {
				continue
			}
			m := shardAdvice.FindStringSubmatch(f.Message)
			if m == nil {
				t.Fatalf("%s: SZ102 no longer says how many shards: %s", table, f.Message)
			}
			n, err := strconv.Atoi(m[1])
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	return 0
}

// READMECode checks that every ```go block of README.md in the current directory is, line
// for line, in one of the directory's non-test .go files: the code a README shows is the
// code the package compiles and its tests run.
func READMECode(t testing.TB) {
	t.Helper()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var src [][]byte
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src = append(src, b)
	}
	blocks := 0
	rest := readme
	for {
		_, after, ok := bytes.Cut(rest, []byte("```go\n"))
		if !ok {
			break
		}
		block, after, ok := bytes.Cut(after, []byte("```"))
		if !ok {
			t.Fatal("README.md: a ```go block is not closed")
		}
		rest = after
		blocks++
		found := false
		for _, b := range src {
			if bytes.Contains(b, block) {
				found = true
				break
			}
		}
		if !found {
			first, _, _ := bytes.Cut(block, []byte("\n"))
			t.Errorf("README.md: the Go block starting %q is not in the package's code: copy it from there", first)
		}
	}
	if blocks == 0 {
		t.Error("README.md shows no ```go block of the package's code")
	}
}
