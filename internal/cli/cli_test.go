package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/internal/version"
)

func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Do(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// writeIn writes src to dir/name and returns the path.
func writeIn(t *testing.T, dir, name, src string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestVersion(t *testing.T) {
	code, out, errOut := run(t, "version")
	if code != ExitOK || errOut != "" {
		t.Fatalf("version: code %d, stderr %q", code, errOut)
	}
	for _, want := range []string{"cqlsize ", "go go1.", "tested against Apache Cassandra " + version.Cassandra} {
		if !strings.Contains(out, want) {
			t.Errorf("version output %q lacks %q", out, want)
		}
	}
}

func TestBadUsageExitsTwo(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--bogus"}, "unknown flag: --bogus"},
		{[]string{"nope"}, `unknown command "nope"`},
		{[]string{"version", "extra"}, `unknown command "extra"`},
	} {
		code, out, errOut := run(t, tc.args...)
		if code != ExitBadInput {
			t.Errorf("%v: exit %d, want %d", tc.args, code, ExitBadInput)
		}
		if out != "" {
			t.Errorf("%v: wrote to stdout on bad usage: %q", tc.args, out)
		}
		if !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "--help") {
			t.Errorf("%v: stderr %q, want %q and a --help hint", tc.args, errOut, tc.want)
		}
		if strings.Count(errOut, "cqlsize:") != 1 {
			t.Errorf("%v: stderr %q: want exactly one cqlsize: prefix", tc.args, errOut)
		}
	}
}

func TestHelpAndCompletion(t *testing.T) {
	code, out, _ := run(t, "--help")
	if code != ExitOK || !strings.Contains(out, "Exit status") || !strings.Contains(out, "3  cluster trouble that is safe to retry") ||
		!strings.Contains(out, "4  in doubt") {
		t.Fatalf("--help: code %d, output %q", code, out)
	}
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		code, out, _ := run(t, "completion", shell)
		if code != ExitOK || !strings.Contains(out, "cqlsize") {
			t.Errorf("completion %s: code %d, %d bytes", shell, code, len(out))
		}
	}
}

func TestExitCodes(t *testing.T) {
	if got := exitCode(nil); got != ExitOK {
		t.Errorf("nil: %d", got)
	}
	if got := exitCode(Findings()); got != ExitFindings {
		t.Errorf("Findings: %d", got)
	}
	if got := exitCode(Usagef("x")); got != ExitBadInput {
		t.Errorf("Usagef: %d", got)
	}
	if got := exitCode(InputErr(bytes.ErrTooLarge)); got != ExitBadInput {
		t.Errorf("InputErr: %d", got)
	}
}
