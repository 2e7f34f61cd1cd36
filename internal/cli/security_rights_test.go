package cli

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/gocql/gocql"
	"github.com/spf13/cobra"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/internal/authtest"
)

// rightsFiles are the migrations every rights scenario starts from: 0001 applied by the
// superuser (so the bookkeeping tables exist and belong to it), 0002 pending.
var rightsFiles = map[string]string{
	"0001_a.cql": "CREATE TABLE IF NOT EXISTS events (id int, seq int, body text, PRIMARY KEY (id, seq));\n" +
		"CREATE TABLE IF NOT EXISTS a (k int PRIMARY KEY);\n",
	"0002_extra.cql": "ALTER TABLE events ADD extra text;\n",
}

// commandScenario is how one command of commandRights is run on the authentication node:
// its arguments in keyspace ks with migration folder dir, what the superuser prepares
// first, and what a run with every right shows.
type commandScenario struct {
	args func(ks, dir string) []string
	// prepare runs as the superuser after 0001 is applied.
	prepare func(t *testing.T, admin *gocql.Session, ks string)
	// files: rights the scenario's input needs on top of the table's (the 0002 ALTER).
	files []Right
	// adminFirst: the administrator runs the command once first (backfill's own tables then
	// exist, as they do after a first run).
	adminFirst bool
	// folder, when set, is the migration folder instead of rightsFiles.
	folder map[string]string
	// formats are further --format values the secrets test runs the command with, and
	// verbose says it takes -v (the driver's log on stderr).
	formats []string
	verbose bool
	// passed checks a run with every right.
	passed func(code int, out, errOut string) bool
}

// commandScenarios holds one row per command in commandRights; a command added to the table
// without a row here fails TestAuthRights, and so does a command that connects without a
// row in commandRights (TestRightsTableCoversEveryCommand).
var commandScenarios = map[string]commandScenario{
	"migrate up": {
		verbose: true,
		args: func(ks, dir string) []string {
			return []string{"migrate", "up", "-k", ks, "--dir", dir, "--agreement-timeout", "20s"}
		},
		files: []Right{{Permission: "ALTER", Resource: "TABLE {ks}.events"}},
		passed: func(code int, out, _ string) bool {
			return code == ExitOK && strings.Contains(out, "applied 1 migration")
		},
	},
	"migrate plan": {
		verbose: true,
		args:    func(ks, dir string) []string { return []string{"migrate", "plan", "-k", ks, "--dir", dir} },
		passed: func(code int, out, _ string) bool {
			return code == ExitOK && strings.Contains(out, "ALTER TABLE events ADD extra text;")
		},
	},
	"migrate validate": {
		verbose: true, formats: []string{"json"},
		args: func(ks, dir string) []string { return []string{"migrate", "validate", "-k", ks, "--dir", dir} },
		passed: func(code int, out, _ string) bool {
			return code == ExitOK && strings.Contains(out, "validated 2 files")
		},
	},
	"migrate status": {
		verbose: true, formats: []string{"json"},
		args: func(ks, dir string) []string { return []string{"migrate", "status", "-k", ks, "--dir", dir} },
		passed: func(code int, out, _ string) bool {
			return code == ExitOK && strings.Contains(out, "at version 1, 1 applied, 1 pending")
		},
	},
	"migrate dcs": {
		args: func(ks, dir string) []string { return []string{"migrate", "dcs", "-k", ks} },
		passed: func(code int, out, _ string) bool {
			return code == ExitOK && strings.Contains(out, ": 1 version recorded, schema agreed: whole")
		},
	},
	"migrate resolve": {
		verbose: true,
		args: func(ks, dir string) []string {
			return []string{"migrate", "resolve", "2", "1", "--rerun", "-k", ks, "--dir", dir, "--lock-ttl", "5s"}
		},
		prepare: func(t *testing.T, admin *gocql.Session, ks string) {
			// What a run that died while sending 0002's statement leaves behind.
			if err := admin.Query(`UPDATE `+ks+`.cqlsize_migrations SET lock_owner = ? WHERE target = ?`, gocql.TimeUUID(), ks).Exec(); err != nil {
				t.Fatal(err)
			}
			if err := admin.Query(`INSERT INTO `+ks+`.cqlsize_migrations (target, version, name, checksum, state, statements, applied, running, applied_by, pid)
				VALUES (?, 2, '0002_extra.cql', ?, 'running', 1, 0, 1, 'dead-host', 4242)`, ks, fileChecksum(t, "0002_extra.cql")).Exec(); err != nil {
				t.Fatal(err)
			}
		},
		passed: func(code int, out, _ string) bool {
			return code == ExitOK && strings.Contains(out, "statement 1 recorded as not run")
		},
	},
	"migrate baseline": {
		verbose: true,
		args: func(ks, dir string) []string {
			return []string{"migrate", "baseline", "2", "-k", ks, "--dir", dir, "--lock-ttl", "5s"}
		},
		passed: func(code int, out, _ string) bool { return code == ExitOK && strings.Contains(out, "baseline") },
	},
	"migrate accept-checksum": {
		verbose: true,
		args: func(ks, dir string) []string {
			return []string{"migrate", "accept-checksum", "1", "-k", ks, "--dir", dir, "--lock-ttl", "5s"}
		},
		folder: changedFirst,
		passed: func(code int, out, _ string) bool { return code == ExitOK && strings.Contains(out, "accepted") },
	},
	"migrate repair": {
		verbose: true,
		args: func(ks, dir string) []string {
			return []string{"migrate", "repair", "-k", ks, "--dir", dir, "--lock-ttl", "5s"}
		},
		folder: changedFirst,
		passed: func(code int, out, _ string) bool { return code == ExitOK && strings.Contains(out, "accepted") },
	},
	"backfill": {
		args: func(ks, _ string) []string {
			return []string{"backfill", "-k", ks, "--from", "events", "--to", "events_by_seq", "--restart", "--ranges", "8", "--workers", "2"}
		},
		prepare: func(t *testing.T, admin *gocql.Session, ks string) {
			cassandratest.DDL(t, admin, ks, "CREATE TABLE "+ks+".events_by_seq (seq int, id int, body text, PRIMARY KEY (seq, id))")
		},
		adminFirst: true,
		formats:    []string{"json"},
		passed:     func(code int, out, _ string) bool { return code == ExitOK && strings.Contains(out, "50") },
	},
	"tier show": {
		formats: []string{"json"},
		folder:  tierRightsFiles,
		prepare: createEventsTiers,
		args: func(ks, dir string) []string {
			return []string{"tier", "show", "-k", ks, "--plan", dir + "/writeplan.yaml", "--schema", dir + "/schema.cql", "--table", "events_by_tag", "--key", "go"}
		},
		passed: func(code int, out, _ string) bool {
			return code == ExitOK && strings.Contains(out, "Rows written now go to default")
		},
	},
	"tier promote": {
		folder:  tierRightsFiles,
		prepare: createEventsTiers,
		args: func(ks, dir string) []string {
			return []string{"tier", "promote", "-k", ks, "--plan", dir + "/writeplan.yaml", "--schema", dir + "/schema.cql", "--table", "events_by_tag", "--key", "go", "--tier", "hot"}
		},
		passed: func(code int, out, _ string) bool { return code == ExitOK && strings.Contains(out, "Promoted") },
	},
	"evolve plan --live": {
		args: func(ks, dir string) []string {
			return []string{"evolve", "plan", "--live", "--from", ks + ".events", "--to", dir + "/events_by_seq.cql"}
		},
		folder:  map[string]string{"events_by_seq.cql": "CREATE TABLE events_by_seq (seq int, id int, body text, PRIMARY KEY (seq, id));\n"},
		formats: []string{"json"},
		passed:  func(code int, out, _ string) bool { return code == ExitOK && strings.Contains(out, "backfill") },
	},
	"profile": {
		formats: []string{"workload", "text", "markdown", "html"},
		args: func(ks, _ string) []string {
			return []string{"profile", "-k", ks, "--table", "events", "--sample", "10", "--format", "json"}
		},
		passed: func(code int, out, _ string) bool { return code == ExitOK && strings.Contains(out, `"events"`) },
	},
	"estimate --live": {
		formats: []string{"text", "markdown", "html"},
		args: func(ks, _ string) []string {
			return []string{"estimate", "--live", "-k", ks, "--table", "events", "--rows", "10", "--format", "json"}
		},
		passed: func(code int, out, _ string) bool {
			return code == ExitOK && strings.Contains(out, `"max_partition_bytes"`)
		},
	},
}

// tierRightsFiles are a schema and a write plan that put events_by_tag on tiers, whose tier
// table, events_tiers, is the only one of them the tier commands touch on the cluster.
var tierRightsFiles = map[string]string{
	"schema.cql": "CREATE TABLE events (id int PRIMARY KEY, at timestamp, tags frozen<set<text>>);\n" +
		"CREATE TABLE events_by_tag (tag text, bucket text, at timestamp, id int, PRIMARY KEY ((tag, bucket), at, id));\n" +
		"CREATE TABLE events_tiers (tag text, since timestamp, tier text, bucket text, shards int, PRIMARY KEY ((tag), since)) WITH CLUSTERING ORDER BY (since DESC);\n" +
		"CREATE TABLE events_by_id (id int PRIMARY KEY, at timestamp, tags frozen<set<text>>);\n",
	"writeplan.yaml": "version: 1\nentities:\n  events:\n    - table: events_by_tag\n      derive: [tag=each(tags), bucket=month(at)]\n" +
		"      tiers: {table: events_tiers, hot: {bucket: hour}}\n" +
		"    - table: events_by_id\n      source: true\n      derive: [id=id]\n",
}

// createEventsTiers creates the tier table of tierRightsFiles.
func createEventsTiers(t *testing.T, admin *gocql.Session, ks string) {
	t.Helper()
	cassandratest.DDL(t, admin, ks, "CREATE TABLE "+ks+".events_tiers (tag text, since timestamp, tier text, bucket text, shards int, PRIMARY KEY ((tag), since)) WITH CLUSTERING ORDER BY (since DESC)")
}

// changedFirst is rightsFiles with 0001 changed after it was applied (a comment added).
var changedFirst = map[string]string{
	"0001_a.cql":     "-- the a table\n" + rightsFiles["0001_a.cql"],
	"0002_extra.cql": rightsFiles["0002_extra.cql"],
}

// fileChecksum is the checksum cqlsize records for one of rightsFiles.
func fileChecksum(t *testing.T, name string) string {
	t.Helper()
	dir := migDir(t, map[string]string{name: rightsFiles[name]})
	f := &migrateFlags{dir: dir}
	migs, err := f.loadMigrations(&Env{Stderr: new(strings.Builder)})
	if err != nil || len(migs) != 1 {
		t.Fatalf("load %s: %v", name, err)
	}
	return migs[0].Checksum
}

// TestAuthRights runs every command of commandRights on the authentication node, in a
// keyspace of its own: first once per right as a role holding all the others (it fails
// with exit 2 naming the permission, the resource and the GRANT that gives it, having
// changed nothing), then as a role holding exactly its rights (it passes), then once per
// right the command can do without, in a fresh keyspace (it passes with a note naming it).
func TestAuthRights(t *testing.T) {
	authtest.Hosts(t)
	forEachCommand(t, func(t *testing.T, cr CommandRights, sc commandScenario) {
		admin, ks, dir := rightsSetup(t, sc)
		for i, r := range cr.Rights {
			if r.Without != "" {
				continue // run below, in a keyspace of its own
			}
			runRights(t, admin, ks, dir, cr, sc, i)
		}
		runRights(t, admin, ks, dir, cr, sc, -1)
		// A right the command can do without lets it pass, and so change what it runs on
		// (migrate up applies the file): each such case gets a keyspace of its own.
		for i, r := range cr.Rights {
			if r.Without != "" {
				admin, ks, dir := rightsSetup(t, sc)
				runRights(t, admin, ks, dir, cr, sc, i)
			}
		}
	})
}

// forEachCommand runs f as a subtest for every command of commandRights with its row of
// commandScenarios; a command without a row fails.
func forEachCommand(t *testing.T, f func(t *testing.T, cr CommandRights, sc commandScenario)) {
	for _, cr := range commandRights {
		sc, ok := commandScenarios[cr.Command]
		if !ok {
			t.Errorf("%s: in commandRights but no scenario in commandScenarios runs it", cr.Command)
			continue
		}
		t.Run(strings.ReplaceAll(cr.Command, " ", "_"), func(t *testing.T) { f(t, cr, sc) })
	}
}

// rightsSetup makes the keyspace a scenario runs in on the authentication node.
func rightsSetup(t *testing.T, sc commandScenario) (admin *gocql.Session, ks, dir string) {
	admin, ks = authEvents(t)
	return admin, ks, scenarioSetup(t, admin, ks, authtest.Env(t, authtest.SuperUser, authtest.SuperPassword), nil, sc)
}

// scenarioSetup prepares keyspace ks (holding the events table) for sc: 0001 applied by an
// administrator running cqlsize with env and the extra flags (so the bookkeeping tables
// exist and are not the tested role's), then the scenario's own preparation. It returns
// the migration folder the command runs with.
func scenarioSetup(t *testing.T, admin *gocql.Session, ks string, env func(string) string, extra []string, sc commandScenario) string {
	t.Helper()
	folder := rightsFiles
	if sc.folder != nil {
		folder = sc.folder
	}
	dir := migDir(t, folder)
	first := migDir(t, map[string]string{"0001_a.cql": rightsFiles["0001_a.cql"]})
	if code, out, errOut := runAuth(t, env, append([]string{"migrate", "up", "-k", ks, "--dir", first}, extra...)...); code != ExitOK {
		t.Fatalf("0001 as the administrator: exit %d\n%s%s", code, out, errOut)
	}
	if sc.prepare != nil {
		sc.prepare(t, admin, ks)
	}
	if sc.adminFirst {
		if code, out, errOut := runAuth(t, env, append(sc.args(ks, dir), extra...)...); !sc.passed(code, out, errOut) {
			t.Fatalf("%q as the administrator: exit %d\n%s%s", sc.args(ks, dir), code, out, errOut)
		}
	}
	return dir
}

// runRights runs one case: a new role with every right of cr and of the scenario's files
// but the one at index drop (-1: none dropped).
func runRights(t *testing.T, admin *gocql.Session, ks, dir string, cr CommandRights, sc commandScenario, drop int) {
	t.Helper()
	role, pw := authtest.Role(t, admin, "least")
	for i, r := range append(append([]Right{}, cr.Rights...), sc.files...) {
		if i != drop {
			authtest.Grant(t, admin, r.Permission, r.On(ks, "events", "events_by_seq"), role)
		}
	}
	code, out, errOut := runAuth(t, authtest.Env(t, role, pw), sc.args(ks, dir)...)
	if drop < 0 {
		if !sc.passed(code, out, errOut) {
			t.Errorf("%s with exactly its rights: exit %d\nstdout: %s\nstderr: %s", cr.Command, code, out, errOut)
		}
		return
	}
	r := cr.Rights[drop]
	on := r.On(ks, "events", "events_by_seq")
	node := fmt.Sprintf("User %s has no %s permission on <%s>", role, r.Permission, strings.Replace(on, "TABLE ", "table ", 1))
	grant := fmt.Sprintf("GRANT %s ON %s TO %s", r.Permission, on, role)
	if r.Without != "" {
		if code != ExitOK || !strings.Contains(errOut, node) || !strings.Contains(errOut, grant) {
			t.Errorf("%s without %s ON %s: exit %d\nstdout: %s\nstderr: %s\nwant it to pass (%s) with a note holding %q and %q", cr.Command, r.Permission, on, code, out, errOut, r.Without, node, grant)
		}
		return
	}
	if code != ExitBadInput || !strings.Contains(errOut, node) || !strings.Contains(errOut, grant) {
		t.Errorf("%s without %s ON %s: exit %d\nstdout: %s\nstderr: %s\nwant exit 2, %q and %q", cr.Command, r.Permission, on, code, out, errOut, node, grant)
	}
}

// TestRightsTableCoversEveryCommand: every command that takes --hosts has a row in
// commandRights, so a new command that connects cannot ship without its rights listed
// and tested.
func TestRightsTableCoversEveryCommand(t *testing.T) {
	var missing, connecting []string
	var walk func(c *cobra.Command, path string)
	walk = func(c *cobra.Command, path string) {
		if c.Runnable() && (c.Flags().Lookup("hosts") != nil || c.InheritedFlags().Lookup("hosts") != nil) {
			name := strings.TrimPrefix(path, "cqlsize ")
			if c.Flags().Lookup("live") != nil {
				name += " --live"
			}
			if !offlineOnly[name] {
				connecting = append(connecting, name)
				if rightsFor(name) == nil {
					missing = append(missing, name)
				}
			}
		}
		for _, sub := range c.Commands() {
			walk(sub, path+" "+sub.Name())
		}
	}
	walk(newRootCmd(&Env{}), "cqlsize")
	sort.Strings(connecting)
	t.Logf("commands that connect: %s", strings.Join(connecting, ", "))
	if len(missing) > 0 {
		t.Errorf("commands that connect with no row in commandRights (rights.go): %s", strings.Join(missing, ", "))
	}
}

// offlineOnly are commands that share the migrate flags (--hosts among them) but never
// connect: they read or write files only.
var offlineOnly = map[string]bool{
	"migrate new": true,
}
