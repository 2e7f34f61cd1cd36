package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cassandratest"
)

// The real binary under a pseudo-terminal (util-linux `script`) against the node: the bar is
// drawn on the terminal, cleared at the end, and the workload still comes out whole.
func TestProfileBarOnATerminal(t *testing.T) {
	hosts := cassandratest.Hosts(t)
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("util-linux script is not installed: no pseudo-terminal to run under")
	}
	s, ks := cassandratest.Keyspace(t)
	loadProfiled(t, s, ks)
	bin := filepath.Join(t.TempDir(), "cqlsize")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/cqlsize").CombinedOutput(); err != nil {
		t.Fatalf("build cqlsize: %v\n%s", err, out)
	}
	cmd := exec.Command("script", "-qec", bin+" profile --keyspace "+ks+" --sample 150 --rate 300", "/dev/null")
	cmd.Env = append(os.Environ(), "CASSANDRA_HOSTS="+strings.Join(hosts, ","))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("profile under a terminal: %v\n%q", err, out)
	}
	got := string(out)
	if !strings.Contains(got, "\x1b[K[") || !strings.Contains(got, "partitions  readings") {
		t.Errorf("no progress bar on a terminal:\n%q", got)
	}
	if !strings.Contains(got, ks+".readings:") || !strings.Contains(got, "rows_per_partition:") {
		t.Errorf("the workload is not whole under a terminal:\n%q", got)
	}
}

func TestProfileBarDraws(t *testing.T) {
	var b strings.Builder
	p := &profileBar{termLine: termLine{w: &b, tty: true}}
	p.update("events", 0, 10)
	p.update("events", 10, 10)
	p.finish()
	want := "\r\x1b[K[..............................] 0/10 partitions  events" +
		"\r\x1b[K[##############################] 10/10 partitions  events\r\x1b[K"
	if b.String() != want {
		t.Errorf("bar:\n%q\nwant\n%q", b.String(), want)
	}
	b.Reset()
	p = &profileBar{termLine: termLine{w: &b, tty: false}}
	p.update("events", 5, 10)
	p.finish()
	if b.Len() != 0 {
		t.Errorf("drawn on a pipe: %q", b.String())
	}
}
