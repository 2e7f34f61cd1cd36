package connect_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/connect"
)

// logLines collects the driver's log lines.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) Print(v ...any)                 { l.add(fmt.Sprint(v...)) }
func (l *logLines) Printf(format string, v ...any) { l.add(fmt.Sprintf(format, v...)) }
func (l *logLines) Println(v ...any)               { l.add(fmt.Sprintln(v...)) }
func (l *logLines) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, s)
}

// logWriter feeds the standard log package's lines to logLines.
type logWriter struct{ l *logLines }

func (w logWriter) Write(p []byte) (int, error) {
	w.l.add(string(p))
	return len(p), nil
}

func (l *logLines) has(sub string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.lines {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// TestAggregateWithoutFinalFuncKeepsTheProcessUp: a keyspace that holds a user-defined
// aggregate without FINALFUNC (valid CQL) makes gocql v1.7.0's metadata compilation
// dereference a nil pointer whenever the token-aware policy looks at that keyspace. Unguarded,
// the event of the next change to the keyspace itself kills the process from a driver
// goroutine (the test binary dies); guarded, every session keeps working and the log says why routing lost its
// token awareness. A session bound to that keyspace opens too.
func TestAggregateWithoutFinalFuncKeepsTheProcessUp(t *testing.T) {
	logs := &logLines{}
	// The keyspace's own session (cassandratest's, opened earlier) logs through the driver's
	// default logger, the standard log package: whichever session meets the event first
	// says so in logs.
	log.SetOutput(io.MultiWriter(os.Stderr, logWriter{logs}))
	defer log.SetOutput(os.Stderr)
	_, ks := cassandratest.Keyspace(t)
	cfg := cassandratest.Config(t)
	cfg.Logger = logs
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s, err := connect.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cassandratest.DDL(t, s, ks,
		`CREATE FUNCTION `+ks+`.add_up(acc int, v int) CALLED ON NULL INPUT RETURNS int LANGUAGE java AS 'return (acc == null ? 0 : acc) + (v == null ? 0 : v);'`,
		`CREATE AGGREGATE `+ks+`.total(int) SFUNC add_up STYPE int INITCOND 0`,
		`CREATE TABLE `+ks+`.t (k int PRIMARY KEY, v int)`,
		// A keyspace-level change: the event on which the policy compiles its metadata. It
		// must change something: a node sends no event for an ALTER that leaves the keyspace
		// as it was.
		`ALTER KEYSPACE `+ks+` WITH durable_writes = false`,
	)
	// The driver debounces schema events for a second before it handles them. An event is
	// pushed once, on the control connection: one that connection missed (it was
	// reconnecting) is not sent again, so the change is made again until an event arrives.
	deadline := time.Now().Add(3 * time.Minute)
	next := time.Now().Add(20 * time.Second)
	durable := true
	for !logs.has("could not compile the schema metadata") {
		if time.Now().After(deadline) {
			t.Fatalf("no schema event reached the policy within 3 minutes of keyspace changes; log:\n%s", strings.Join(logs.lines, "\n"))
		}
		if time.Now().After(next) {
			next = time.Now().Add(20 * time.Second)
			if err := s.Query(fmt.Sprintf("ALTER KEYSPACE %s WITH durable_writes = %t", ks, durable)).WithContext(ctx).Exec(); err != nil {
				t.Logf("the keyspace change again: %v", err)
			}
			durable = !durable
		}
		time.Sleep(200 * time.Millisecond)
	}
	var total int
	if err := s.Query(`INSERT INTO ` + ks + `.t (k, v) VALUES (1, 41)`).WithContext(ctx).Exec(); err != nil {
		t.Fatal(err)
	}
	if err := s.Query(`SELECT ` + ks + `.total(v) FROM ` + ks + `.t`).WithContext(ctx).Scan(&total); err != nil || total != 41 {
		t.Fatalf("total: %d, %v; want 41", total, err)
	}
	bound := cassandratest.Config(t)
	bound.Keyspace = ks
	b, err := connect.Open(ctx, bound)
	if err != nil {
		t.Fatalf("a session bound to the keyspace: %v", err)
	}
	defer b.Close()
	if err := b.Query(`SELECT v FROM t WHERE k = 1`).WithContext(ctx).Scan(&total); err != nil || total != 41 {
		t.Fatalf("bound session: %d, %v; want 41", total, err)
	}
}
