package cli

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/cql/check"
	"github.com/cqlsize/cqlsize/cql/lint"
	"github.com/cqlsize/cqlsize/migrations"
	"github.com/cqlsize/cqlsize/profile"
)

// cliFlag is a CLI flag written in a message: --hosts, --allow-lint.
var cliFlag = regexp.MustCompile(`(^|[ (])--[a-z]`)

// TestCLIWordsForLibraryErrors: each library error that tells a person what to do names
// the library's own API, and what the CLI prints names the command or flag instead, with
// nothing of the API left over.
func TestCLIWordsForLibraryErrors(t *testing.T) {
	_, lintErr := lint.Run(lint.Input{}, lint.Config{Allow: []string{"XX999"}})
	_, checkErr := check.ParseQueries("q.cql", []byte("-- query: a\n-- cqlsize:nolint QF999\nSELECT * FROM t;"))
	for _, tc := range []struct {
		name string
		err  error
		want []string
	}{
		{"in doubt", &migrations.InDoubtError{File: "0002_a.cql", Version: 2, Statement: 1, Total: 3, Kind: "UPDATE", Reason: "it is not idempotent", Check: "the rows"},
			[]string{"`cqlsize migrate resolve 2 1 --applied` if it ran", "`cqlsize migrate resolve 2 1 --rerun` if it did not (the next up sends it)"}},
		{"checksum", &migrations.ChecksumError{File: "0001_a.cql", Version: 1, Recorded: "aa", Current: "bb"},
			[]string{"or run `cqlsize migrate accept-checksum 1` once the change is checked"}},
		{"checksum of a statement", &migrations.ChecksumError{File: "0001_a.cql", Version: 7, Statement: 2, Recorded: "aa", Current: "bb"},
			[]string{"`cqlsize migrate accept-checksum 7`"}},
		{"locked", &migrations.LockedError{Waited: time.Minute}, []string{"(raise --lock-timeout, or wait:"}},
		{"out of order", &migrations.OutOfOrderError{File: "0001_a.cql", Applied: "0002_b.cql"}, []string{"or allow it (--allow-out-of-order)"}},
		{"no hosts", connect.ErrNoHosts, []string{"no Cassandra hosts: pass --hosts or set CASSANDRA_HOSTS"}},
		{"bookkeeping only", &profile.NoTableError{Keyspace: "app", Skipped: []string{"schema_migrations"}}, []string{"name one with --table to profile it"}},
		{"unknown lint code", lintErr, []string{`--allow-lint "XX999": no such lint code (see ` + "`cqlsize migrate validate --list-lints`)"}},
		{"unknown check code", checkErr, []string{"no such check code (QF001-QF015, or all; cqlsize check --list-codes)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.err == nil {
				t.Fatal("the library returned no error")
			}
			got := cliWords(tc.err.Error())
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("CLI text lacks %q:\n%s", w, got)
				}
			}
			for _, api := range []string{"Migrator.", "Options.", "Config.", "lint.", "check.Codes"} {
				if strings.Contains(got, api) {
					t.Errorf("CLI text still names the library's %q:\n%s", api, got)
				}
			}
			if lib := tc.err.Error(); strings.Contains(lib, "`cqlsize ") || cliFlag.MatchString(lib) {
				t.Errorf("the library's error names a CLI command or flag:\n%s", lib)
			}
		})
	}
	if got := cliWords(profile.SkippedNote("app", []string{"schema_migrations"})); !strings.Contains(got, "(name it with --table to profile it)") {
		t.Errorf("skipped note: %s", got)
	}
}
