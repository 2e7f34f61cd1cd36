package migrations

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
)

// benchStatements are the statements of one benchmark round: n small schema changes (a
// CREATE TABLE IF NOT EXISTS, then four ALTER TABLE ... ADD on it, over and over) or n
// INSERTs into one table. prefix keeps each round's tables apart.
func benchStatements(kind, prefix string, n int) []string {
	out := make([]string, 0, n)
	for i := 0; len(out) < n; i++ {
		if kind == "dml" {
			out = append(out, fmt.Sprintf("INSERT INTO bench_rows (k, v) VALUES ('%s-%d', %d)", prefix, i, i))
			continue
		}
		table := fmt.Sprintf("%s_t%d", prefix, i/5)
		if i%5 == 0 {
			out = append(out, fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s (k int PRIMARY KEY, v0 int)", table))
		} else {
			out = append(out, fmt.Sprintf("ALTER TABLE %s ADD c%d text", table, i%5))
		}
	}
	return out
}

// BenchmarkBookkeepingPerStatement is what the Migrator's bookkeeping costs each statement:
// the intents and done records of progress.go, lightweight transactions fenced on the lock
// owner (one for a run of INSERTs, one per schema change). Each round applies n statements
// twice, side by side: as one migration file through Migrator.Up (lock, bookkeeping,
// agreement after each schema change), and bare, one after another through a second
// session configured the same way (the driver's own agreement wait off, as `cqlsize
// migrate` sets it), waiting for schema agreement after each schema change as the Migrator
// does. Rounds alternate which goes first. The metrics are milliseconds per statement both
// ways, their difference (what the bookkeeping adds to a statement, the file's start and
// finish and the lock included) and their ratio. Each round then times the file's
// bookkeeping writes alone, as the same holder, without the statements (ms/stmt-lwts):
// schema changes on a shared node vary by hundreds of milliseconds from one statement to
// the next, the LWTs far less. A log line per round splits each side's request time by
// kind: the statements, the LWTs, the agreement's reads, the rest.
// CQLSIZE_BENCH_STATEMENTS sets n (default 50). `make bench-migrate` compares the whole run
// with golang-migrate's.
//
//	CASSANDRA_HOSTS=127.0.0.1 go test -run '^$' -bench BookkeepingPerStatement -benchtime 3x ./migrations
func BenchmarkBookkeepingPerStatement(b *testing.B) {
	n := 50
	if v := os.Getenv("CQLSIZE_BENCH_STATEMENTS"); v != "" {
		if _, err := fmt.Sscan(v, &n); err != nil || n < 1 || n > 1000 {
			b.Fatalf("CQLSIZE_BENCH_STATEMENTS=%q: want 1 to 1000", v)
		}
	}
	for _, kind := range []string{"ddl", "dml"} {
		b.Run(kind, func(b *testing.B) {
			_, ks := cassandratest.Keyspace(b)
			benchBookkeeping(b, ks, kind, n)
		})
	}
}

// timeByKind sums the time of a session's requests by what they are: the statements
// themselves, the bookkeeping's LWTs, the agreement's reads of gossip and peers, the rest.
type timeByKind struct {
	mu sync.Mutex
	d  map[string]time.Duration
}

func (o *timeByKind) ObserveQuery(_ context.Context, q gocql.ObservedQuery) {
	kind := "other"
	switch text := strings.ToUpper(q.Statement); {
	case strings.HasPrefix(text, "CREATE TABLE IF NOT EXISTS M"), strings.HasPrefix(text, "CREATE TABLE IF NOT EXISTS S"),
		strings.HasPrefix(text, "ALTER TABLE M"), strings.HasPrefix(text, "ALTER TABLE S"), strings.HasPrefix(text, "INSERT INTO BENCH_ROWS"):
		kind = "statement" // before the LWT test: CREATE TABLE IF NOT EXISTS has an IF too
	case strings.Contains(text, " IF "):
		kind = "lwt"
	case strings.Contains(text, "SYSTEM_VIEWS.GOSSIP_INFO"), strings.Contains(text, "SYSTEM.PEERS"), strings.Contains(text, "SYSTEM.LOCAL"):
		kind = "agreement"
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.d == nil {
		o.d = map[string]time.Duration{}
	}
	o.d[kind] += q.End.Sub(q.Start)
}

// take returns the sums so far, per statement of n, and starts again.
func (o *timeByKind) take(n int) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var parts []string
	for _, k := range []string{"statement", "lwt", "agreement", "other"} {
		if d, ok := o.d[k]; ok {
			parts = append(parts, fmt.Sprintf("%s %.1f", k, perStatement(d, n)))
		}
	}
	o.d = nil
	return strings.Join(parts, ", ")
}

// observedSession connects to keyspace ks as the CLI's migrate does (the driver's own
// agreement wait off: the Migrator waits itself, counting the nodes that are up).
func observedSession(b *testing.B, ks string, o gocql.QueryObserver) *gocql.Session {
	cfg := cassandratest.Config(b)
	cfg.Keyspace = ks
	cfg.DriverAgreementWait = -1
	cc, err := cfg.ClusterConfig()
	if err != nil {
		b.Fatal(err)
	}
	cc.QueryObserver = o
	cc.Logger = quiet{} // with its wait off, the driver logs "schema versions not consistent" after every DDL statement
	s, err := cc.CreateSession()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Close)
	return s
}

func benchBookkeeping(b *testing.B, ks, kind string, n int) {
	var mobs, sobs timeByKind
	s, ms := observedSession(b, ks, &sobs), observedSession(b, ks, &mobs)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	cassandratest.DDL(b, s, ks, "CREATE TABLE bench_rows (k text PRIMARY KEY, v int)")
	opt := Options{Keyspace: ks, Table: "bench_migrations"}
	// Version 1 creates the bookkeeping tables, outside the timing: every later round
	// finds them, as a deploy does.
	warm, err := Parse("0001_warm.cql", []byte("CREATE TABLE IF NOT EXISTS warm (k int PRIMARY KEY);\n"))
	if err != nil {
		b.Fatal(err)
	}
	migs := []*Migration{warm}
	if err := upAll(ctx, ms, migs, opt, 1); err != nil {
		b.Fatal(err)
	}
	mobs.take(1)
	bare := agreement{timeout: DefaultAgreementTimeout, track: newTracker()}
	var viaMigrator, viaSession, viaLWT time.Duration
	b.ResetTimer()
	for round := range b.N {
		version := int64(round + 2)
		mstmts := benchStatements(kind, fmt.Sprintf("m%d", round), n)
		mg, err := Parse(fmt.Sprintf("%04d_bench.cql", version), []byte(strings.Join(mstmts, ";\n")+";\n"))
		if err != nil {
			b.Fatal(err)
		}
		migs = append(migs, mg)
		runMigrator := func() time.Duration {
			t0 := time.Now()
			if err := upAll(ctx, ms, migs, opt, 1); err != nil {
				b.Fatalf("round %d through the Migrator: %v", round, err)
			}
			return time.Since(t0)
		}
		runBare := func() time.Duration {
			t0 := time.Now()
			for i, text := range benchStatements(kind, fmt.Sprintf("s%d", round), n) {
				if err := s.Query(text).WithContext(ctx).Idempotent(false).Exec(); err != nil {
					b.Fatalf("round %d, bare statement %d: %v", round, i+1, err)
				}
				if kind == "ddl" {
					if err := bare.wait(ctx, s, fmt.Sprintf("bare statement %d", i+1)); err != nil {
						b.Fatal(err)
					}
				}
			}
			return time.Since(t0)
		}
		var dm, ds time.Duration
		if round%2 == 0 {
			dm, ds = runMigrator(), runBare()
		} else {
			ds, dm = runBare(), runMigrator()
		}
		mt, st := mobs.take(n), sobs.take(n)
		dl := fencedPairs(ctx, b, ms, opt, mg)
		mobs.take(n)
		viaMigrator, viaSession, viaLWT = viaMigrator+dm, viaSession+ds, viaLWT+dl
		b.Logf("%s round %d of %d: %d statements: Migrator %s (%.1f ms/statement), bare %s (%.1f ms/statement), the bookkeeping writes alone %s (%.1f ms/statement)",
			kind, round+1, b.N, n, dm.Round(time.Millisecond), perStatement(dm, n), ds.Round(time.Millisecond), perStatement(ds, n),
			dl.Round(time.Millisecond), perStatement(dl, n))
		b.Logf("%s round %d of %d: request time, ms per statement: Migrator %s; bare %s", kind, round+1, b.N, mt, st)
	}
	b.StopTimer()
	m, bs := perStatement(viaMigrator, b.N*n), perStatement(viaSession, b.N*n)
	b.ReportMetric(m, "ms/stmt-migrator")
	b.ReportMetric(bs, "ms/stmt-bare")
	b.ReportMetric(m-bs, "ms/stmt-bookkeeping")
	b.ReportMetric(perStatement(viaLWT, b.N*n), "ms/stmt-lwts")
	b.ReportMetric(m/bs, "ratio")
}

// fencedPairs times the fenced writes the Migrator makes for mg (its intents, the done
// records written at once, the finish), as the holder that applied it, without sending the
// statements: the bookkeeping's own cost, measured apart from the statements' noise. The
// record ends as it was (every statement done).
func fencedPairs(ctx context.Context, b *testing.B, s *gocql.Session, opt Options, mg *Migration) time.Duration {
	b.Helper()
	o, err := opt.withDefaults()
	if err != nil {
		b.Fatal(err)
	}
	st := newStore(s, o)
	owner, err := st.fenceOwner(ctx)
	if err != nil || owner == nil {
		b.Fatalf("lock_owner after the run: %v, %v", owner, err)
	}
	run, err := gocql.RandomUUID()
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Now()
	f := st.newFileRecorder(*owner, mg, run, true, 0)
	for a := 1; a <= len(mg.Statements); {
		end := groupEnd(mg, a, o.Keyspace)
		if err := f.intent(ctx, a, end); err != nil {
			b.Fatal(err)
		}
		for i := a; i <= end; i++ {
			f.ran(i)
			if recordAtOnce(mg, i, o.Keyspace) {
				if err := f.doneNow(ctx, i); err != nil {
					b.Fatal(err)
				}
			}
		}
		a = end + 1
	}
	if err := f.finish(ctx); err != nil {
		b.Fatal(err)
	}
	return time.Since(t0)
}

// upAll applies migs through a fresh Migrator, which must apply exactly want files.
func upAll(ctx context.Context, s *gocql.Session, migs []*Migration, opt Options, want int) error {
	m, err := New(s, migs, opt)
	if err != nil {
		return err
	}
	res, err := m.Up(ctx)
	if err != nil {
		return err
	}
	if len(res.Applied) != want {
		return fmt.Errorf("applied %d files, want %d", len(res.Applied), want)
	}
	return nil
}

func perStatement(d time.Duration, n int) float64 {
	return float64(d) / float64(time.Millisecond) / float64(n)
}

// quiet discards the driver's log.
type quiet struct{}

func (quiet) Print(...any)          {}
func (quiet) Printf(string, ...any) {}
func (quiet) Println(...any)        {}
