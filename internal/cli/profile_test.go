package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/connect"
)

// loadProfiled creates a table of 200 partitions of 1 to 10 rows with a text value, a set and
// a TTL in keyspace ks (the session's), for the profile tests.
func loadProfiled(t *testing.T, s *gocql.Session, ks string) {
	t.Helper()
	cassandratest.DDL(t, s, ks, `CREATE TABLE readings (sensor int, at int, v text, tags set<text>, PRIMARY KEY (sensor, at))`)
	for k := 0; k < 200; k++ {
		b := s.NewBatch(gocql.UnloggedBatch)
		for r := 0; r <= k%10; r++ {
			b.Query(`INSERT INTO readings (sensor, at, v, tags) VALUES (?, ?, 'twenty bytes of text', {'a', 'bb'}) USING TTL 3600`, k, r)
		}
		if err := s.ExecuteBatch(b); err != nil {
			t.Fatal(err)
		}
	}
}

func hostsEnv(t *testing.T) func(string) string {
	hosts := strings.Join(cassandratest.Hosts(t), ",")
	return func(k string) string {
		if k == connect.EnvHosts {
			return hosts
		}
		return ""
	}
}

// TestProfileThenEstimate runs exactly what docs/profile.md shows: `cqlsize profile > workload.yaml`
// then `cqlsize estimate --live --workload workload.yaml`, on the node.
func TestProfileThenEstimate(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	loadProfiled(t, s, ks)
	getenv := hostsEnv(t)
	var out, errOut bytes.Buffer
	code := DoContext(context.Background(), []string{"profile", "--keyspace", ks, "--sample", "100", "--seed", "7"},
		strings.NewReader(""), &out, &errOut, getenv)
	if code != ExitOK {
		t.Fatalf("profile: exit %d; stderr %s", code, errOut.String())
	}
	if errOut.Len() != 0 {
		t.Errorf("profile wrote on stderr (not a terminal, so no bar): %q", errOut.String())
	}
	path := filepath.Join(t.TempDir(), "workload.yaml")
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("workload:\n%s", out.String())
	var est, estErr bytes.Buffer
	code = DoContext(context.Background(), []string{"estimate", "--live", "--keyspace", ks, "--workload", path, "--format", "json", "--fail-on", "never"},
		strings.NewReader(""), &est, &estErr, getenv)
	if code != ExitOK {
		t.Fatalf("estimate of the profile's workload: exit %d; stderr %s", code, estErr.String())
	}
	var r struct {
		Tables []struct {
			Name       string
			Partitions float64
			Typical    struct{ Rows float64 }
			TotalBytes float64 `json:"total_bytes"`
			DiskBytes  float64 `json:"disk_bytes"`
		}
	}
	if err := json.Unmarshal(est.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Tables) != 1 || r.Tables[0].Name != ks+".readings" {
		t.Fatalf("estimate tables: %+v", r.Tables)
	}
	t.Logf("estimate: %+v", r.Tables[0])
	if tb := r.Tables[0]; !(tb.DiskBytes > 0 && tb.DiskBytes < tb.TotalBytes) {
		t.Errorf("estimate shows %.0f bytes on disk for %.0f uncompressed: want the profile's compression ratio applied", tb.DiskBytes, tb.TotalBytes)
	}
}

func TestProfileFormatsAndErrors(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	loadProfiled(t, s, ks)
	getenv := hostsEnv(t)
	for _, tc := range []struct {
		args     []string
		code     int
		contains string
	}{
		{[]string{"--format", "text", "--full"}, ExitOK, "every partition read"},
		{[]string{"--format", "json", "--full"}, ExitOK, `"partitions_seen": 200`},
		{[]string{"--format", "markdown", "--full"}, ExitOK, "| " + ks + ".readings | 200 (every partition read)"},
		{[]string{"--format", "html", "--full"}, ExitOK, "<svg"},
		{[]string{"--table", "nope"}, ExitBadInput, "table " + ks + ".nope does not exist (the keyspace has readings)"},
		{[]string{"--format", "pdf"}, ExitBadInput, "unknown format"},
		{[]string{"--consistency", "most"}, ExitBadInput, "--consistency"},
	} {
		var out, errOut bytes.Buffer
		args := append([]string{"profile", "--keyspace", ks}, tc.args...)
		code := DoContext(context.Background(), args, strings.NewReader(""), &out, &errOut, getenv)
		if code != tc.code || !strings.Contains(out.String()+errOut.String(), tc.contains) {
			t.Errorf("%v: exit %d, want %d with %q; stdout %.300s; stderr %s", tc.args, code, tc.code, tc.contains, out.String(), errOut.String())
		}
	}
	var out, errOut bytes.Buffer
	absent := cassandratest.KeyspaceName("absent") // a name no one has created
	code := DoContext(context.Background(), []string{"profile", "--keyspace", absent}, strings.NewReader(""), &out, &errOut, getenv)
	if code != ExitBadInput || !strings.Contains(errOut.String(), "keyspace "+absent+" does not exist") || out.Len() != 0 {
		t.Errorf("missing keyspace: exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
}

// unauthorized is the error gocql returns for a node's Unauthorized answer (code 0x2100),
// built here because the development node runs with AllowAllAuthorizer: no real read is ever
// refused there.
type unauthorized struct{}

func (unauthorized) Code() int { return gocql.ErrCodeUnauthorized }
func (unauthorized) Message() string {
	return "User app has no SELECT permission on <table shop.orders> or any of its parents"
}
func (e unauthorized) Error() string { return e.Message() }

// TestProfileExitStatus: no permission is bad input (2: running it again changes nothing),
// an unreachable cluster is trouble to retry (3).
func TestProfileExitStatus(t *testing.T) {
	err := InputErr(fmt.Errorf("profile shop.orders: %w", unauthorized{}))
	if code := exitCode(err); code != ExitBadInput || !strings.Contains(err.Error(), "no SELECT permission on <table shop.orders>") {
		t.Errorf("unauthorized: exit %d, message %q; want 2 naming the table", code, err)
	}
	var out, errOut bytes.Buffer
	code := DoContext(context.Background(), []string{"profile", "--hosts", "127.0.0.9:1", "--keyspace", "app"},
		strings.NewReader(""), &out, &errOut, func(string) string { return "" })
	if code != ExitRetry || out.Len() != 0 {
		t.Errorf("unreachable cluster: exit %d, stdout %q, stderr %q; want 3 and nothing on stdout", code, out.String(), errOut.String())
	}
	t.Logf("unreachable: %s", errOut.String())
	for _, args := range [][]string{{"profile"}, {"profile", "--keyspace", "k", "--sample", "0"}, {"profile", "--keyspace", "k", "--rate", "-1"}} {
		errOut.Reset()
		if code := DoContext(context.Background(), args, strings.NewReader(""), &out, &errOut, func(string) string { return "127.0.0.1" }); code != ExitBadInput {
			t.Errorf("%v: exit %d, want 2; stderr %s", args, code, errOut.String())
		}
	}
}
