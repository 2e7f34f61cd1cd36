package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/migrations"
)

// The bar is redrawn in place and cleared before every line, so a terminal shows the
// progress lines intact with one live bar under them.
func TestProgressBarRedrawsAndClears(t *testing.T) {
	var buf bytes.Buffer
	p := &progress{termLine: termLine{w: &buf, tty: true}, total: 2, ctx: context.Background()}
	m := &migrations.Migration{Version: 1, Name: "users", File: "0001_users.cql"}
	p.on(migrations.Event{Kind: migrations.MigrationStart, Migration: m, From: 1, Total: 2})
	p.on(migrations.Event{Kind: migrations.StatementDone, Migration: m, Statement: 1, Total: 2})
	p.on(migrations.Event{Kind: migrations.StatementDone, Migration: m, Statement: 2, Total: 2})
	p.on(migrations.Event{Kind: migrations.MigrationDone, Migration: m, Total: 2, Duration: 1500 * time.Millisecond})
	p.finish()
	out := buf.String()
	for _, want := range []string{
		"\r\x1b[K[..............................] 0/2 statements",
		"\r\x1b[K[###############...............] 1/2 statements",
		"\r\x1b[K[##############################] 2/2 statements",
		"\r\x1b[Kapplied ", // the bar is cleared before the line
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%q", want, out)
		}
	}
	if !strings.Contains(out, "(2 statements) in 1.5s\n") {
		t.Errorf("no progress line with the duration:\n%q", out)
	}

	// Not a terminal: lines only, no escape codes.
	buf.Reset()
	p = &progress{termLine: termLine{w: &buf, tty: false}, total: 2, ctx: context.Background()}
	p.on(migrations.Event{Kind: migrations.StatementDone, Migration: m, Statement: 1, Total: 2})
	p.on(migrations.Event{Kind: migrations.MigrationDone, Migration: m, Total: 2, Duration: time.Second})
	if strings.Contains(buf.String(), "\x1b") || strings.Contains(buf.String(), "\r") {
		t.Errorf("escape codes written to a pipe: %q", buf.String())
	}
}

// The real binary under a pseudo-terminal (util-linux `script`) against the node: the bar
// appears on a terminal, and the same run on a pipe has none.
func TestProgressBarOnATerminal(t *testing.T) {
	hosts := cassandratest.Hosts(t)
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("util-linux script is not installed: no pseudo-terminal to run under")
	}
	_, ks := cassandratest.Keyspace(t)
	bin := filepath.Join(t.TempDir(), "cqlsize")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/cqlsize").CombinedOutput(); err != nil {
		t.Fatalf("build cqlsize: %v\n%s", err, out)
	}
	dir := migDir(t, goodSet)
	cmd := exec.Command("script", "-qec", bin+" migrate up --dir "+dir+" --keyspace "+ks, "/dev/null")
	cmd.Env = append(os.Environ(), "CASSANDRA_HOSTS="+strings.Join(hosts, ","))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("migrate up under a terminal: %v\n%q", err, out)
	}
	s := string(out)
	if !strings.Contains(s, "\x1b[K[") || !strings.Contains(s, "3/3 statements") {
		t.Errorf("no progress bar on a terminal:\n%q", s)
	}
	if !strings.Contains(s, "(2 statements) in ") {
		t.Errorf("no progress line with the duration:\n%q", s)
	}
}
