package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/migrations"
)

type migrateStatusFlags struct {
	format string
}

func newMigrateStatusCmd(env *Env, mf *migrateFlags) *cobra.Command {
	f := &migrateStatusFlags{}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show which migrations are applied, pending, changed or partly applied",
		Long: `Show each migration file with what the bookkeeping table says about it:
applied, baseline, pending, changed (the file's checksum differs from the applied one),
partial (a run died or a statement failed: how many statements ran, and why it stopped),
in-doubt (a run stopped while sending a statement that cannot safely be sent twice: check
it, then record the answer with migrate resolve), or missing (recorded as applied but no
file has its version).

Exit status 1 when a file is changed, partial or missing, so a CI step can catch it; 4
when a statement is in doubt; 2 when the target keyspace does not exist (a mistyped -k),
unless the first file creates it (then everything is pending, and stderr says so).`,
		Example: `  cqlsize migrate status --keyspace app
  cqlsize migrate status --keyspace app --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMigrateStatus(cmd.Context(), env, cmd, mf, f)
		},
	}
	cmd.Flags().StringVar(&f.format, "format", "text", "output format: text or json")
	return cmd
}

// statusJSON is one migration in `status --format json`.
type statusJSON struct {
	Version int64 `json:"version"`
	// Label is the version as the file writes it, where that is not Version: Flyway's
	// dotted versions, gocqlx's file names, a manifest's folder versions.
	Label      string     `json:"label,omitempty"`
	File       string     `json:"file"`
	State      string     `json:"state"`
	Statements int        `json:"statements"`
	Applied    int        `json:"applied_statements"`
	Checksum   string     `json:"checksum,omitempty"`
	Recorded   string     `json:"recorded_checksum,omitempty"`
	StartedAt  *time.Time `json:"started_at,omitempty"`
	FinishedAt *time.Time `json:"finished_at,omitempty"`
	AppliedBy  string     `json:"applied_by,omitempty"`
	PID        int        `json:"pid,omitempty"`
	Tool       string     `json:"tool_version,omitempty"`
	Error      string     `json:"error,omitempty"`
	Note       string     `json:"note,omitempty"`
}

func runMigrateStatus(ctx context.Context, env *Env, cmd *cobra.Command, mf *migrateFlags, f *migrateStatusFlags) error {
	if f.format != "text" && f.format != "json" {
		return Usagef("--format %q: want text or json", f.format)
	}
	migs, err := mf.loadMigrations(env)
	if err != nil {
		return err
	}
	sess, err := mf.open(ctx, env, cmd, false)
	if err != nil {
		return err
	}
	defer sess.Close()
	if err := targetExists(ctx, env, sess, mf, migs); err != nil {
		return err
	}
	m, err := migrations.New(sess.s, migs, mf.options(env, nil))
	if err != nil {
		return Usagef("%v", err)
	}
	st, err := m.Status(ctx)
	if err != nil {
		return migrateErr(err)
	}
	rows := make([]statusJSON, 0, len(st))
	bad, inDoubt := 0, 0
	for _, s := range st {
		rows = append(rows, statusRow(s))
		switch s.State {
		case migrations.StatusChanged, migrations.StatusPartial, migrations.StatusMissing:
			bad++
		case migrations.StatusInDoubt:
			inDoubt++
		}
	}
	if f.format == "json" {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rows); err != nil {
			return err
		}
	} else {
		o := m.Options()
		fmt.Fprintf(env.Stdout, "keyspace %s (bookkeeping %s.%s): %s, %s\n",
			o.Keyspace, o.BookkeepingKeyspace, o.Table, atVersion(st), summarize(st))
		tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "VERSION\tFILE\tSTATE\tSTATEMENTS\tAPPLIED AT\tBY\tNOTE")
		for _, r := range rows {
			at := ""
			if r.FinishedAt != nil {
				at = r.FinishedAt.UTC().Format(time.RFC3339)
			} else if r.StartedAt != nil {
				at = "started " + r.StartedAt.UTC().Format(time.RFC3339)
			}
			by := r.AppliedBy
			if r.PID != 0 {
				by = fmt.Sprintf("%s pid %d", r.AppliedBy, r.PID)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%s\t%s\t%s\n", r.label(), r.File, r.State, r.Applied, r.Statements, at, by, r.Note)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if inDoubt > 0 {
		// A person must decide (migrate resolve): the same status as up stopping there.
		return &ExitError{Code: ExitInDoubt}
	}
	if bad > 0 {
		return Findings()
	}
	return nil
}

// targetExists refuses a target keyspace that is not on the cluster (a mistyped -k would
// otherwise read as a fresh keyspace, "nothing applied, N pending", exit 0), unless the first
// file creates it: then it says so and status goes on (everything is pending).
func targetExists(ctx context.Context, env *Env, sess *session, mf *migrateFlags, migs []*migrations.Migration) error {
	ks := mf.conn.keyspace
	var n int
	if err := sess.s.Query("SELECT count(*) FROM system_schema.keyspaces WHERE keyspace_name = ?", ks).WithContext(ctx).Scan(&n); err != nil {
		return migrateErr(fmt.Errorf("read system_schema.keyspaces for keyspace %s: %w", ks, err))
	}
	if n > 0 {
		return nil
	}
	if migrations.CreatesKeyspace(migs, ks) {
		fmt.Fprintf(env.Stderr, "keyspace %s does not exist yet: the first file creates it\n", ks)
		return nil
	}
	return Usagef("keyspace %s does not exist: check -k/--keyspace (an unquoted name is folded to lower case as CQL does; -k '\"Name\"' keeps case), "+
		"or create it with `cqlsize migrate up -k %s --replication \"{...}\"`", ks, kFlag(ks))
}

// kFlag writes a keyspace name as -k takes it in a shell: a name CQL would fold (mixed
// case) quoted twice, '"MixedCase"', so the command given back means the same keyspace.
func kFlag(ks string) string {
	if q := cql.QuoteName(ks); q != ks {
		return "'" + q + "'"
	}
	return ks
}

func summarize(st []migrations.Status) string {
	count := map[migrations.StatusState]int{}
	for _, s := range st {
		count[s.State]++
	}
	out := ""
	for _, k := range []migrations.StatusState{migrations.StatusApplied, migrations.StatusBaseline, migrations.StatusPending,
		migrations.StatusChanged, migrations.StatusPartial, migrations.StatusInDoubt, migrations.StatusMissing} {
		if count[k] > 0 {
			if out != "" {
				out += ", "
			}
			out += fmt.Sprintf("%d %s", count[k], k)
		}
	}
	if out == "" {
		return "no migrations"
	}
	return out
}

func statusRow(s migrations.Status) statusJSON {
	r := statusJSON{Version: s.Version, File: s.File, State: string(s.State)}
	if s.Migration != nil {
		r.Label = s.Migration.Label
		r.Statements = len(s.Migration.Statements)
		r.Checksum = s.Migration.Checksum
	}
	if rec := s.Record; rec != nil {
		r.Applied = rec.Applied
		r.Recorded = rec.Checksum
		if r.Statements == 0 {
			r.Statements = rec.Statements
		}
		if !rec.StartedAt.IsZero() {
			t := rec.StartedAt
			r.StartedAt = &t
		}
		if !rec.FinishedAt.IsZero() && rec.Complete() {
			t := rec.FinishedAt
			r.FinishedAt = &t
		}
		r.AppliedBy, r.PID, r.Tool, r.Error = rec.AppliedBy, rec.PID, rec.ToolVersion, rec.Error
	}
	switch s.State {
	case migrations.StatusChanged:
		r.Note = fmt.Sprintf("checksum %s recorded, file now %s", migrations.ShortSum(r.Recorded), migrations.ShortSum(r.Checksum))
	case migrations.StatusPartial:
		switch {
		case s.Record.Error != "":
			r.Note = fmt.Sprintf("statement %d failed: %s", s.Record.Applied+1, s.Record.Error)
		case s.Record.Running > 0:
			r.Note = fmt.Sprintf("stopped while sending statement %d (the next up sends it again if that is harmless, else stops in doubt)", s.Record.Running)
		default:
			r.Note = fmt.Sprintf("stopped after statement %d", s.Record.Applied)
		}
		if s.Err != nil {
			r.Note += "; " + cliWords(s.Err.Error())
		}
	case migrations.StatusInDoubt:
		r.Note = fmt.Sprintf("statement %d is in doubt: it may have been applied; check it, then `cqlsize migrate resolve %d %d --applied|--rerun`",
			s.Record.Running, s.Version, s.Record.Running)
		if s.Record.Running > 0 && s.Migration != nil && s.Record.Running <= len(s.Migration.Statements) {
			r.Note = fmt.Sprintf("statement %d (%s) is in doubt: it may have been applied; check it, then `cqlsize migrate resolve %d %d --applied|--rerun`",
				s.Record.Running, s.Migration.Statements[s.Record.Running-1].Pos, s.Version, s.Record.Running)
		}
		if s.Record.Error != "" {
			r.Error = s.Record.Error
		}
	case migrations.StatusMissing:
		r.Note = "recorded as applied; no file has this version"
	}
	return r
}

// label is the version a status table shows: as the file writes it.
func (r statusJSON) label() string {
	if r.Label != "" {
		return r.Label
	}
	return fmt.Sprint(r.Version)
}
