package cli

import (
	"fmt"
	"strings"
)

// Right is one permission a command needs on a cluster with authorization on, written as
// the resource of the GRANT that gives it. {ks} stands for the target keyspace, {table}
// for a table the command reads and {target} for the table backfill writes.
type Right struct {
	Permission string // SELECT, MODIFY, CREATE, ALTER, DROP
	Resource   string // as in GRANT ... ON <Resource>: "TABLE {ks}.cqlsize_migrations"
	Why        string
	// Without is what the command does when the role lacks it, if it still succeeds
	// (a note instead of some figures). Empty: it fails with exit 2 naming the permission.
	Without string
}

// CommandRights is what a role needs to run one command that connects. Every role may log
// in and read the schema (system_schema, system.local, system.peers_v2, system.size_estimates
// are readable by all): only what goes beyond that is listed.
type CommandRights struct {
	Command string // as typed after cqlsize, e.g. "migrate up"
	Rights  []Right
	// Also is what the command needs on top, that depends on its input (the statements in
	// the migration files), in words.
	Also string
}

// The bookkeeping tables of cqlsize migrate, in the target keyspace unless
// --bookkeeping-keyspace moves them.
const (
	rightsBook = "TABLE {ks}.cqlsize_migrations"
	rightsLock = "TABLE {ks}.cqlsize_migrations_lock"
)

// rightsSettings lets a migrate command read the node's settings, to refuse before anything
// runs what the node will refuse (SASI, UDFs, MVs, masking off; guardrails).
var rightsSettings = Right{Permission: "SELECT", Resource: "TABLE system_views.settings",
	Why:     "read the node's settings, to refuse before anything runs what they refuse (SASI, UDFs, materialized views, masking, guardrails)",
	Without: "the node's settings are not checked beforehand (the node refuses such a statement itself), and a note naming the permission"}

// commandRights is the least privilege of every command that connects, for a keyspace
// whose bookkeeping tables already exist (the first `migrate up` creates them, which needs
// CREATE ON KEYSPACE {ks}; Cassandra gives a role every permission on a table it creates).
// The docs' table is generated from it and the TestAuthRights tests hold every row to the
// node: with exactly these grants the command passes; without any one of them it fails
// (exit 2, naming the permission and the GRANT) or does what Without says.
var commandRights = []CommandRights{
	{Command: "migrate up", Rights: append(bookAndLock("read what was applied", "record each statement before and after it runs"), rightsSettings), Also: "and what the files' statements need: CREATE, ALTER or DROP ON KEYSPACE {ks} (or ON TABLE) for DDL, MODIFY for INSERT, UPDATE, DELETE"},
	{Command: "migrate plan", Rights: []Right{
		{Permission: "SELECT", Resource: rightsBook, Why: "read what was applied, to list what is pending"},
		rightsSettings,
	}},
	{Command: "migrate validate", Rights: []Right{
		{Permission: "SELECT", Resource: rightsBook, Why: "compare applied files' checksums with the recorded ones"},
		rightsSettings,
	}},
	{Command: "migrate status", Rights: []Right{
		{Permission: "SELECT", Resource: rightsBook, Why: "read what was applied"},
	}},
	{Command: "migrate dcs", Rights: []Right{
		{Permission: "SELECT", Resource: rightsBook, Why: "read what each datacenter recorded"},
	}},
	{Command: "migrate resolve", Rights: bookAndLock("read the statement in doubt", "record the decision")},
	{Command: "migrate baseline", Rights: bookAndLock("read what was applied", "record the files as baseline")},
	{Command: "migrate accept-checksum", Rights: bookAndLock("read the recorded checksum", "record the new checksum")},
	{Command: "migrate repair", Rights: bookAndLock("read the recorded checksums", "record the new checksums")},
	{Command: "backfill", Rights: []Right{
		{Permission: "SELECT", Resource: "TABLE {ks}.{table}", Why: "read the source table (--from)"},
		{Permission: "MODIFY", Resource: "TABLE {ks}.{target}", Why: "write the target table (--to)"},
		{Permission: "SELECT", Resource: "TABLE {ks}.cqlsize_backfill", Why: "read the checkpoint"},
		{Permission: "MODIFY", Resource: "TABLE {ks}.cqlsize_backfill", Why: "record each range copied"},
		{Permission: "SELECT", Resource: "TABLE {ks}.cqlsize_backfill_lease", Why: "claim a range (a lightweight transaction reads it)"},
		{Permission: "MODIFY", Resource: "TABLE {ks}.cqlsize_backfill_lease", Why: "claim, renew and release a range"},
	}},
	{Command: "tier show", Rights: []Right{
		{Permission: "SELECT", Resource: "TABLE {ks}.{table}_tiers", Why: "read the key's tiers"},
	}},
	{Command: "tier promote", Rights: []Right{
		{Permission: "SELECT", Resource: "TABLE {ks}.{table}_tiers", Why: "read the key's tiers (and the lightweight transaction reads its row)"},
		{Permission: "MODIFY", Resource: "TABLE {ks}.{table}_tiers", Why: "write the change of tier"},
	}},
	{Command: "evolve plan --live", Also: "nothing beyond logging in: it reads system_schema, system.local, system.peers_v2 and system.size_estimates, which every role may read"},
	{Command: "profile", Rights: []Right{
		{Permission: "SELECT", Resource: "TABLE {ks}.{table}", Why: "sample the rows (or SELECT ON KEYSPACE {ks} for every table)"},
	}},
	{Command: "estimate --live", Rights: []Right{
		{Permission: "SELECT", Resource: "TABLE system_views.max_partition_size", Why: "the largest partition the node has seen",
			Without: "the estimate without cluster figures, and a note naming the permission"},
		{Permission: "SELECT", Resource: "TABLE system_views.tombstones_per_read", Why: "tombstones the node's reads met",
			Without: "the estimate without cluster figures, and a note naming the permission"},
	}},
}

// bookAndLock are the rights of a migrate command that writes the bookkeeping under the
// migration lock: read and write the bookkeeping table (read says why it reads, write why
// it writes) and the lock table.
func bookAndLock(read, write string) []Right {
	return []Right{
		{Permission: "SELECT", Resource: rightsBook, Why: read},
		{Permission: "MODIFY", Resource: rightsBook, Why: write},
		{Permission: "SELECT", Resource: rightsLock, Why: "take the migration lock (a lightweight transaction reads it)"},
		{Permission: "MODIFY", Resource: rightsLock, Why: "take, renew and release the migration lock"},
	}
}

// rightsFor returns the rights of command, or nil.
func rightsFor(command string) *CommandRights {
	for i := range commandRights {
		if commandRights[i].Command == command {
			return &commandRights[i]
		}
	}
	return nil
}

// On is the resource with the placeholders filled in.
func (r Right) On(ks, table, target string) string {
	return strings.NewReplacer("{ks}", ks, "{table}", table, "{target}", target).Replace(r.Resource)
}

// rightsMarkdown renders commandRights as the docs' table.
func rightsMarkdown() string {
	var b strings.Builder
	b.WriteString("| Command | Permission | On | Why | Without it |\n|---|---|---|---|---|\n")
	for _, c := range commandRights {
		for i, r := range c.Rights {
			cmd := ""
			if i == 0 {
				cmd = "`cqlsize " + c.Command + "`"
			}
			without := r.Without
			if without == "" {
				without = "exit 2, naming the permission and the GRANT"
			}
			fmt.Fprintf(&b, "| %s | %s | `%s` | %s | %s |\n", cmd, r.Permission, r.Resource, r.Why, without)
		}
		switch {
		case len(c.Rights) == 0:
			fmt.Fprintf(&b, "| `cqlsize %s` | none | | %s | |\n", c.Command, c.Also)
		case c.Also != "":
			fmt.Fprintf(&b, "| | | | %s | |\n", c.Also)
		}
	}
	return b.String()
}
