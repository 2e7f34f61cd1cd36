package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gocql/gocql"
	"github.com/spf13/cobra"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/denorm"
)

type tierFlags struct {
	hosts    string
	reach    reachFlags
	keyspace string
	plan     string
	schema   []string
	table    string
	key      []string
	tier     string
	format   string
	timeout  time.Duration
}

func newTierCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tier",
		Short: "Show or change the tier of a key on a table whose keys are on tiers",
		Long: `A table designed with tiers (tiers: in the write plan) gives most keys a coarse bucket and
hot keys a finer bucket and write shards. A key's tier is a row of the table's tier table, read
(and cached) by the services that write and read it through cql/denorm.

  cqlsize tier show    --plan writeplan.yaml --schema DIR --table T --key VALUE...
  cqlsize tier promote --plan writeplan.yaml --schema DIR --table T --key VALUE... --tier hot

promote writes the change with a lightweight transaction; it takes effect at the first bucket
boundary of both the old and the new scheme that lies at least 2 minutes ahead (so writers,
which cache a key's tiers for at most a minute, never write a row of the new period by the
old scheme), and every bucket of the key keeps one scheme. --tier default demotes the key.

Exit status: 0 done (or already so); 2 bad flags, a plan or schema that does not load, an
unknown table, tier or key; 3 cluster trouble, safe to run again; 4 another promoter moved
the key to another tier at the same instant first: look (tier show) and decide.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return Usagef("tier needs a subcommand: show or promote")
		},
	}
	cmd.AddCommand(newTierSubCmd(env, "show"), newTierSubCmd(env, "promote"))
	return cmd
}

func newTierSubCmd(env *Env, what string) *cobra.Command {
	f := &tierFlags{}
	cmd := &cobra.Command{
		Use:  what + " --plan writeplan.yaml --schema PATH --table TABLE --key VALUE...",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runTier(env, f, what) },
	}
	if what == "show" {
		cmd.Short = "Print a key's tiers: its default, each change and when it took effect"
		cmd.Example = "  cqlsize tier show --plan out/writeplan.yaml --schema entities.cql --schema out/migrations --table posts_by_tag --key cassandra"
	} else {
		cmd.Use += " --tier NAME"
		cmd.Short = "Move a key to another tier at the next common bucket boundary"
		cmd.Example = "  cqlsize tier promote --plan out/writeplan.yaml --schema entities.cql --schema out/migrations --table posts_by_tag --key cassandra --tier hot"
	}
	fl := cmd.Flags()
	fl.StringVar(&f.hosts, "hosts", "", "the cluster, host[:port],... (default $CASSANDRA_HOSTS)")
	f.reach.bind(fl)
	fl.StringVarP(&f.keyspace, "keyspace", "k", "", "the keyspace of the schema's and the plan's unqualified table names")
	fl.StringVar(&f.plan, "plan", "", "the write plan (writeplan.yaml) that puts --table on tiers")
	fl.StringArrayVar(&f.schema, "schema", nil, "a .cql file or a folder of .cql files holding the plan's entities and tables (repeatable, applied in order)")
	fl.StringVar(&f.table, "table", "", "the query table on tiers, table or keyspace.table")
	fl.StringArrayVar(&f.key, "key", nil, "a value of the key, in the order of the tier table's partition key (repeatable)")
	if what == "promote" {
		fl.StringVar(&f.tier, "tier", "", "the tier to move the key to (default: back to the default tier)")
	}
	fl.StringVar(&f.format, "format", "text", "output: text or json")
	fl.DurationVar(&f.timeout, "timeout", 10*time.Second, "timeout of each request")
	return cmd
}

// tierInput is what the flags of a tier command name, checked before the cluster is asked.
type tierInput struct {
	plan *denorm.TierPlan
	key  []any
}

func checkTierFlags(f *tierFlags, what string) (*tierInput, error) {
	switch {
	case f.plan == "":
		return nil, Usagef("--plan is required: the write plan that puts the table on tiers")
	case len(f.schema) == 0:
		return nil, Usagef("--schema is required: the plan's entities and tables (entities.cql, the design's migrations)")
	case f.table == "":
		return nil, Usagef("--table is required: the query table on tiers")
	case len(f.key) == 0:
		return nil, Usagef("--key is required: the key's values, in the tier table's partition-key order")
	case f.format != "text" && f.format != "json":
		return nil, Usagef("--format %q: want text or json", f.format)
	case f.timeout <= 0:
		return nil, Usagef("--timeout %s: want a duration above zero", f.timeout)
	case what == "promote" && f.tier == "":
		return nil, Usagef("--tier is required: the tier to move the key to (%s to demote it)", denorm.DefaultTier)
	}
	schema := cql.NewSchema()
	if f.keyspace != "" {
		schema = cql.NewSchemaIn(f.keyspace)
	}
	for _, path := range f.schema {
		if err := applySchemaPath(schema, path); err != nil {
			return nil, InputErr(fmt.Errorf("--schema %s: %w", path, err))
		}
	}
	plan, err := denorm.LoadWritePlan(f.plan, schema)
	if err != nil {
		return nil, InputErr(err)
	}
	tp := plan.TierPlan(f.table)
	if tp == nil {
		var tiered []string
		for _, e := range plan.Entities {
			for i, t := range e.Tiers {
				if t != nil {
					tiered = append(tiered, e.Tables[i])
				}
			}
		}
		if len(tiered) == 0 {
			return nil, Usagef("--table %s: %s puts no table on tiers", f.table, f.plan)
		}
		return nil, Usagef("--table %s: not on tiers in %s (tables on tiers: %s)", f.table, f.plan, strings.Join(tiered, ", "))
	}
	if what == "promote" {
		if _, ok := tp.Tier(f.tier); !ok {
			return nil, Usagef("--tier %q: %s has tiers %s", f.tier, tp.Query, strings.Join(tp.Names(), ", "))
		}
	}
	if len(f.key) != len(tp.KeyColumns) {
		return nil, Usagef("--key given %d times: %s's key is (%s): one --key per column, in that order", len(f.key), tp.Query, strings.Join(tp.KeyColumns, ", "))
	}
	in := &tierInput{plan: tp}
	for i, v := range f.key {
		k, err := keyValue(v, tp.KeyTypes[i])
		if err != nil {
			return nil, Usagef("--key %q (%s): %v", v, tp.KeyColumns[i], err)
		}
		in.key = append(in.key, k)
	}
	return in, nil
}

// applySchemaPath applies a .cql file, or every .cql file of a folder in name order.
func applySchemaPath(s *cql.Schema, path string) error {
	files := []string{path}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		entries, err := os.ReadDir(path)
		if err != nil {
			return err
		}
		files = files[:0]
		for _, e := range entries {
			n := strings.ToLower(e.Name())
			if !e.IsDir() && strings.HasSuffix(n, ".cql") && !strings.HasSuffix(n, ".down.cql") {
				files = append(files, filepath.Join(path, e.Name()))
			}
		}
		sort.Strings(files)
		if len(files) == 0 {
			return errors.New("the folder holds no .cql file")
		}
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if err := s.ApplyFile(f, src); err != nil {
			return err
		}
	}
	return nil
}

// keyValue reads a key value typed on the command line as the column's type wants it.
func keyValue(v string, t cql.Type) (any, error) {
	if t.Kind != cql.Native {
		return nil, fmt.Errorf("a %s key column cannot be typed on the command line", t)
	}
	switch t.Name {
	case "text", "varchar", "ascii":
		return v, nil
	case "int", "smallint", "tinyint", "bigint", "varint":
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("want a whole number for %s", t)
		}
		return n, nil
	case "uuid", "timeuuid":
		u, err := gocql.ParseUUID(v)
		if err != nil {
			return nil, fmt.Errorf("want a uuid for %s", t)
		}
		return u, nil
	case "timestamp":
		at, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return nil, fmt.Errorf("want an RFC 3339 time such as 2024-01-15T10:04:05Z for %s", t)
		}
		return at, nil
	case "boolean":
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("want true or false for %s", t)
		}
		return b, nil
	}
	return nil, fmt.Errorf("a %s key column cannot be typed on the command line", t)
}

// tierReport is what tier show and tier promote print.
type tierReport struct {
	Table   string       `json:"table"`
	Tiers   string       `json:"tier_table"`
	Key     []string     `json:"key"`
	Default string       `json:"default"`
	Changes []tierChange `json:"changes"`
	Now     string       `json:"now"` // the tier rows written now go to
	// Promoted, for tier promote: what the command did.
	Promoted *tierPromoted `json:"promoted,omitempty"`
}

type tierChange struct {
	Since string `json:"since"`
	Tier  string `json:"tier"`
}

type tierPromoted struct {
	To      string `json:"to"`
	Since   string `json:"since,omitempty"`
	Applied bool   `json:"applied"`
}

func runTier(env *Env, f *tierFlags, what string) error {
	in, err := checkTierFlags(f, what)
	if err != nil {
		return err
	}
	_, s, err := openFor(env, f.hosts, "LOCAL_QUORUM", f.timeout, &f.reach)
	if err != nil {
		return err
	}
	defer s.Close()
	ctx := env.Ctx
	rep := &tierReport{Table: in.plan.Query, Tiers: in.plan.Table, Key: f.key, Default: in.plan.Default().String()}
	if what == "promote" {
		p, err := denorm.Promote(ctx, s, in.plan, in.key, f.tier, time.Now())
		var conflict *denorm.TierConflictError
		if errors.As(err, &conflict) {
			return &ExitError{Code: ExitInDoubt, Err: err}
		}
		if err != nil {
			return InputErr(err)
		}
		rep.Promoted = &tierPromoted{To: p.To.String(), Applied: p.Applied}
		if !p.Since.IsZero() {
			rep.Promoted.Since = p.Since.UTC().Format(time.RFC3339)
		}
	}
	tiers, err := denorm.NewTiers(s, in.plan, denorm.TierOptions{})
	if err != nil {
		return InputErr(err)
	}
	h, err := tiers.Fresh(ctx, in.key)
	if err != nil {
		return InputErr(err)
	}
	for _, c := range h.Changes() {
		rep.Changes = append(rep.Changes, tierChange{Since: c.Since.UTC().Format(time.RFC3339), Tier: c.Tier.String()})
	}
	rep.Now = h.At(time.Now()).String()
	if f.format == "json" {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	printTierReport(env, rep)
	return nil
}

func printTierReport(env *Env, rep *tierReport) {
	w := env.Stdout
	key := strings.Join(rep.Key, ", ")
	if p := rep.Promoted; p != nil {
		switch {
		case p.Applied:
			fmt.Fprintf(w, "Promoted %s [%s] to %s from %s.\n", rep.Table, key, p.To, p.Since)
		case p.Since == "":
			fmt.Fprintf(w, "%s [%s] is on %s already: nothing written.\n", rep.Table, key, p.To)
		default:
			fmt.Fprintf(w, "%s [%s] is on %s from %s already: nothing written.\n", rep.Table, key, p.To, p.Since)
		}
	}
	fmt.Fprintf(w, "%s [%s] (tiers in %s):\n", rep.Table, key, rep.Tiers)
	fmt.Fprintf(w, "  %-28s %s\n", "from", "tier")
	fmt.Fprintf(w, "  %-28s %s\n", "(until a change)", rep.Default)
	for _, c := range rep.Changes {
		fmt.Fprintf(w, "  %-28s %s\n", c.Since, c.Tier)
	}
	fmt.Fprintf(w, "Rows written now go to %s.\n", rep.Now)
}
