package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cqlsize/cqlsize/cql/liveschema"
	"github.com/cqlsize/cqlsize/cql/nodesettings"
	"github.com/cqlsize/cqlsize/migrations"
)

// validateOnContainer replays the whole history on a fresh node started from image, from
// an empty keyspace, and reports every statement the node refuses beside what the offline
// model said of it; a statement the two judge differently is a model bug, named. The
// container is removed at the end. Exit 2 when the node refuses any statement, 1 when it
// refuses none but the model disagrees somewhere, 0 when the node applies it all and the
// model agrees.
func validateOnContainer(ctx context.Context, env *Env, cmd *cobra.Command, mf *migrateFlags, f *migrateValidateFlags, migs []*migrations.Migration) error {
	if mf.conn.keyspace == "" {
		return Usagef("no target keyspace: pass --keyspace (unqualified names in the files resolve to it)")
	}
	if f.format != "text" {
		return Usagef("--container reports as text: drop --format %s", f.format)
	}
	n, err := startContainer(ctx, env, cmd, mf, f.container)
	if err != nil {
		return err
	}
	defer func() {
		if err := n.Remove(); err != nil {
			fmt.Fprintf(env.Stderr, "cqlsize: remove container %.12s: %v; remove it and its data volume with `docker rm -f -v %.12s`\n", n.ID, err, n.ID)
		}
	}()
	sess, err := mf.open(ctx, env, cmd, false)
	if err != nil {
		return err
	}
	defer sess.Close()
	ks := mf.conn.keyspace
	if !migrations.CreatesKeyspace(migs, ks) {
		// The files do not create their keyspace: start from an empty one, as up would
		// with --replication (and as up does: a creation that outlasts the client's
		// timeout on a node just started is checked and sent again).
		if err := migrations.EnsureKeyspace(ctx, sess.s, ks, mf.replication, 0); err != nil {
			return Usagef("--replication %q: %v", mf.replication, err)
		}
	}
	base, err := liveschema.Read(ctx, sess.s)
	if err != nil {
		return migrateErr(err)
	}
	base.Current = ks
	settings, err := liveschema.ReadSettings(ctx, sess.s)
	if err != nil {
		return migrateErr(err)
	}
	verdicts, err := migrations.Replay(ctx, sess.s, ks, migs)
	if err != nil {
		return &ExitError{Code: ExitRetry, Err: fmt.Errorf("replay on %s: %w", f.container, err)}
	}
	migrations.JudgeReplay(verdicts, base, nodesettings.Settings(settings))
	return reportReplay(env, f.container, migs, verdicts)
}

// reportReplay prints each statement the node or the model refused, and the summary.
func reportReplay(env *Env, image string, migs []*migrations.Migration, verdicts []migrations.Verdict) error {
	refused, bugs := 0, 0
	for _, v := range verdicts {
		if v.Node == nil && v.Model == nil {
			continue
		}
		where := fmt.Sprintf("%s (statement %d/%d)", v.Statement.Pos, v.Index, len(v.Migration.Statements))
		switch {
		case v.Node != nil && v.Model != nil:
			fmt.Fprintf(env.Stdout, "%s: the node refuses it: %v\n  the offline model refuses it too: %s\n", where, v.Node, cliWords(v.Model.Error()))
		case v.Node != nil:
			fmt.Fprintf(env.Stdout, "%s: the node refuses it: %v\n  MODEL BUG: the offline model accepts it; please report it with this statement:\n  %s\n", where, v.Node, v.Statement.Text)
		default:
			fmt.Fprintf(env.Stdout, "%s: the node applies it\n  MODEL BUG: the offline model refuses it (%s); please report it with this statement:\n  %s\n", where, cliWords(v.Model.Error()), v.Statement.Text)
		}
		if v.Node != nil {
			refused++
		}
		if v.Disagree() {
			bugs++
		}
	}
	fmt.Fprintf(env.Stdout, "replayed %s, %s on a fresh %s node from an empty keyspace: %d refused by the node, %s with the offline model\n",
		plural(len(migs), "file", "files"), plural(len(verdicts), "statement", "statements"), image, refused, plural(bugs, "disagreement", "disagreements"))
	switch {
	case refused > 0:
		return &ExitError{Code: ExitBadInput}
	case bugs > 0:
		return Findings()
	}
	return nil
}
