package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cassandratest"
)

// The examples follow the advice cqlsize gives, so a user who copies one starts from a
// schema that passes its own lints: every example's migrations pass `migrate validate`.
func TestExamplesPassTheirOwnLints(t *testing.T) {
	dirs, err := filepath.Glob("../../examples/*/migrations")
	if err != nil || len(dirs) < 6 {
		t.Fatalf("example migration folders: %v, %v", dirs, err)
	}
	for _, dir := range dirs {
		var out, errb bytes.Buffer
		// A keyspace name of this test's own: with a cluster in the environment, validate
		// compares the files with the live keyspace of that name.
		ks := cassandratest.KeyspaceName(t.Name())
		code := Do([]string{"migrate", "validate", "--dir", dir, "--keyspace", ks}, strings.NewReader(""), &out, &errb)
		if code != ExitOK || !strings.Contains(out.String()+errb.String(), "0 errors, 0 warnings") {
			t.Errorf("cqlsize migrate validate --dir %s: exit %d\n%s%s", dir, code, out.String(), errb.String())
		}
	}
}
