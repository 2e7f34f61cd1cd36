package cli

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/connect"
)

// reachCommands are the commands that connect, each with what it needs besides a cluster.
func reachCommands(t *testing.T) map[string][]string {
	t.Helper()
	schema, plan := tierFiles(t, "app")
	good := sweepDir + "/good/migrations"
	return map[string][]string{
		"profile":  {"profile", "-k", "app"},
		"estimate": {"estimate", "--schema", good, "-k", "app", "--workload", sweepDir + "/good/workload.yaml"},
		"evolve plan": {"evolve", "plan", "--from", "posts.posts_by_id", "--to", "../../examples/posts/testdata/evolve/posts_by_hashtag.cql",
			"--keep-from", "--workload", "../../examples/posts/workload.yaml"},
		"tier show":    {"tier", "show", "--plan", plan, "--schema", schema, "--table", "app.posts_by_tag", "--key", "go"},
		"tier promote": {"tier", "promote", "--plan", plan, "--schema", schema, "--table", "app.posts_by_tag", "--key", "go", "--tier", "hot"},
		"backfill":     {"backfill", "-k", "app", "--from", "posts", "--to", "posts_by_month"},
		"migrate up":   {"migrate", "up", "-d", good, "-k", "app"},
	}
}

// TestConnectTimeoutOnEveryCommand: every command that connects takes --connect-timeout, with
// one meaning. A negative one is refused by name (exit 2) before any connection; against an
// address where nothing listens, the command gives up after the budget it was given, not the
// default, and exits 3.
func TestConnectTimeoutOnEveryCommand(t *testing.T) {
	attempts := regexp.MustCompile(`\(\d+ attempts in ([0-9.]+m?s)\)`)
	for name, args := range reachCommands(t) {
		t.Run(name, func(t *testing.T) {
			with := func(extra ...string) []string { return append(append([]string{}, args...), extra...) }

			code, out, errOut := runEnv(t, nil, with("--hosts", "127.0.0.9", "--connect-timeout", "-1s")...)
			if code != ExitBadInput || out != "" || !strings.Contains(errOut, "--connect-timeout -1s: must not be negative") {
				t.Errorf("negative: exit %d\nstdout: %s\nstderr: %s\nwant exit 2 naming --connect-timeout", code, out, errOut)
			}

			code, out, errOut = runEnv(t, nil, with("--hosts", "127.0.0.9", "--connect-timeout", "1s")...)
			if code != ExitRetry || !strings.Contains(errOut, "cannot connect to Cassandra at 127.0.0.9") {
				t.Fatalf("unreachable: exit %d\nstdout: %s\nstderr: %s\nwant exit 3", code, out, errOut)
			}
			m := attempts.FindStringSubmatch(errOut)
			if m == nil {
				t.Fatalf("unreachable: no attempts in %q", errOut)
			}
			// The 1 s budget, not the default's: one more attempt can start just before
			// the budget ends, so the bound is the default, far above either.
			if waited, err := time.ParseDuration(m[1]); err != nil || waited >= connect.DefaultConnectTimeout {
				t.Errorf("unreachable: gave up after %s with --connect-timeout 1s (default %s)", m[1], connect.DefaultConnectTimeout)
			}
		})
	}
}
