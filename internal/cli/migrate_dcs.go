package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gocql/gocql"
	"github.com/spf13/cobra"

	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/migrations"
)

func newMigrateDCsCmd(env *Env, mf *migrateFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "dcs",
		Short: "Check that every datacenter holds the whole migration history",
		Long: `Check, per datacenter, that its replicas hold the whole history: the bookkeeping rows
read at LOCAL_QUORUM through that DC's own nodes alone, compared with every other DC's,
and each node's own schema version. A DC whose nodes were down while migrations were
applied (migrate up --serial local, or any run with nodes down) lacks the rows it missed
until a repair brings them: hints may, but they are best-effort. For a DC that lacks
something this prints the repair to run on its nodes (on one of them for a keyspace with a
replica on every node of the DC: that repair covers every range).

With --local-dc, only that DC is judged (against the others).

Exit status: 0 every DC judged holds the whole history and agrees on the schema; 1 a DC
lacks versions or a node's schema differs (the repair commands are printed: run them, then
check again); 3 a DC could not be read at LOCAL_QUORUM (its nodes are down: check again
once they return).`,
		Example: `  cqlsize migrate dcs --keyspace app
  cqlsize migrate dcs --keyspace app --local-dc dc2`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMigrateDCs(cmd.Context(), env, cmd, mf)
		},
	}
}

func runMigrateDCs(ctx context.Context, env *Env, cmd *cobra.Command, mf *migrateFlags) error {
	sess, err := mf.open(ctx, env, cmd, false)
	if err != nil {
		return err
	}
	defer sess.Close()
	if err := targetExists(ctx, env, sess, mf, nil); err != nil {
		return err // a mistyped -k is bad input, not a DC to wait for
	}
	// The history is compared as recorded: no file is read.
	m, err := migrations.New(sess.s, nil, mf.options(env, nil))
	if err != nil {
		return Usagef("%v", err)
	}
	copies, err := m.CompareDCs(ctx, dcOpener(sess.cfg))
	if err != nil {
		return migrateErr(err)
	}
	judged := false
	for _, c := range copies {
		judged = judged || mf.conn.localDC == "" || c.DC == mf.conn.localDC
	}
	if !judged {
		var names []string
		for _, c := range copies {
			names = append(names, c.DC)
		}
		return Usagef("--local-dc %s: no such datacenter (the cluster has %s)", mf.conn.localDC, strings.Join(names, ", "))
	}
	for _, c := range copies {
		// A role without the right is refused in every DC alike: bad input with the GRANT
		// that fixes it, not a DC to wait for.
		if c.ReadErr != nil && notPermitted(c.ReadErr) {
			return migrateErr(c.ReadErr)
		}
	}
	o := m.Options()
	fmt.Fprintf(env.Stdout, "keyspace %s (bookkeeping %s.%s), each datacenter read at LOCAL_QUORUM through its own nodes:\n",
		o.Keyspace, o.BookkeepingKeyspace, o.Table)
	lacking, unread := false, false
	for _, c := range copies {
		if mf.conn.localDC != "" && c.DC != mf.conn.localDC {
			if c.ReadErr != nil {
				unread = true // nothing to judge the DC asked about against
				fmt.Fprintf(env.Stdout, "  %s: not judged, and could not be read to compare with: %v\n", c.DC, c.ReadErr)
			}
			continue
		}
		printDCCopy(env.Stdout, c, m.RepairPlan(env.Ctx, c.DC, len(c.Nodes), c.Nodes))
		lacking = lacking || c.ReadErr == nil && !c.Whole()
		unread = unread || c.ReadErr != nil
	}
	switch {
	case lacking:
		return Findings()
	case unread:
		return &ExitError{Code: ExitRetry, Err: fmt.Errorf("a datacenter could not be read at LOCAL_QUORUM: check again once its nodes are up")}
	}
	return nil
}

func printDCCopy(w io.Writer, c migrations.DCCopy, repairs []migrations.Repair) {
	hosts := make([]string, len(c.Nodes))
	for i, n := range c.Nodes {
		hosts[i] = migrations.Host(n)
	}
	head := fmt.Sprintf("  %s (%s): ", c.DC, strings.Join(hosts, ", "))
	if c.ReadErr != nil {
		fmt.Fprintf(w, "%scould not be read: %v\n", head, c.ReadErr)
		return
	}
	var what []string
	if len(c.Lacks) > 0 {
		what = append(what, fmt.Sprintf("lacks versions %s (or holds them otherwise)", migrations.VersionsText(c.Lacks)))
	}
	if len(c.SchemaLags) > 0 {
		var lag []string
		for _, h := range c.SchemaLags {
			lag = append(lag, migrations.Host(h))
		}
		what = append(what, "schema differs on "+strings.Join(lag, ", "))
	}
	if len(what) == 0 {
		fmt.Fprintf(w, "%s%s recorded, schema agreed: whole\n", head, plural(len(c.Records), "version", "versions"))
		return
	}
	fmt.Fprintf(w, "%s%s. With every DC up, run:\n", head, strings.Join(what, "; "))
	for _, r := range repairs {
		fmt.Fprintf(w, "    on %s: %s\n", r.Host, r.Command)
	}
}

// printBehind says, after a run that applied while nodes were down, exactly what brings
// them up to date once they return, and how to check.
func printBehind(w io.Writer, behind []migrations.DCHealth, plan func(migrations.DCHealth) []migrations.Repair, keyspace string) {
	for _, d := range behind {
		var hosts []string
		for _, n := range d.Down {
			hosts = append(hosts, migrations.Host(n))
		}
		fmt.Fprintf(w, "cqlsize: note: %s had %d of %d nodes down while this run applied (%s): they lack what it wrote until repaired. Once they are back, with every DC up, run:\n",
			d.DC, len(d.Down), d.Nodes, strings.Join(hosts, ", "))
		for _, r := range plan(d) {
			fmt.Fprintf(w, "    on %s: %s\n", r.Host, r.Command)
		}
		fmt.Fprintf(w, "  then `cqlsize migrate dcs --keyspace %s --local-dc %s` exits 0 once %s holds the whole history\n", keyspace, d.DC, d.DC)
	}
}

// dcOpener opens sessions whose queries go to the given hosts alone, with cfg's
// credentials and TLS.
func dcOpener(cfg connect.Config) migrations.Opener {
	return func(ctx context.Context, hosts []string) (*gocql.Session, error) {
		c := cfg
		c.Hosts = hosts
		c.LocalDC = ""
		// A DC whose nodes are down is an answer, not something to wait out.
		c.ConnectTimeout = min(c.ConnectTimeout, 10*time.Second)
		return connect.OpenWith(ctx, c, func(cc *gocql.ClusterConfig) (*gocql.ClusterConfig, error) {
			cc.HostFilter = gocql.WhiteListHostFilter(hosts...)
			return cc, nil
		})
	}
}
