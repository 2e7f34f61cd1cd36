package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/cqlsize/cqlsize/codes"
	"github.com/cqlsize/cqlsize/finding"
)

// explainFlags are the flags of `cqlsize explain`.
type explainFlags struct {
	format    string
	listCodes bool
}

func newExplainCmd(env *Env) *cobra.Command {
	f := &explainFlags{}
	cmd := &cobra.Command{
		Use:   "explain CODE | --list-codes [PREFIX]",
		Short: "Explain a finding code (what it reports, why it matters, how to fix it), or list them all",
		Long: `Every finding of every command has a stable code: SZ (partition sizes, estimate), TS
(tombstones, estimate), QF (queries, check) and the migration lints (DS, IF, BK, TT, AF, IX,
MV, CS, UD, WL, NL; migrate validate, plan and up). explain prints what a code reports, why
it matters in Cassandra, how to fix it and which commands report it. The code is read
case-insensitively; a lint's name (drop-table) works too.

--list-codes lists every code with its severity and name; a PREFIX (QF, DS1) keeps the codes
that start with it.

` + codes.Scale + `

Exit status: 0, or 2 for an unknown code (the nearest codes are named).`,
		Example: `  cqlsize explain SZ001
  cqlsize explain ds102 --format json
  cqlsize explain --list-codes
  cqlsize explain --list-codes QF --format json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExplain(env, f, args)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.format, "format", "text", "output format: text or json")
	fl.BoolVar(&f.listCodes, "list-codes", false, "list every finding code (code, severity, name, what) and exit")
	return cmd
}

func runExplain(env *Env, f *explainFlags, args []string) error {
	format := strings.ToLower(strings.TrimSpace(f.format))
	if format != "text" && format != "json" {
		return Usagef("--format %q: want text or json", f.format)
	}
	if f.listCodes {
		prefix := ""
		if len(args) == 1 {
			prefix = strings.ToUpper(strings.TrimSpace(args[0]))
		}
		var docs []finding.Doc
		for _, d := range codes.All() {
			if strings.HasPrefix(d.Code, prefix) {
				docs = append(docs, d)
			}
		}
		if len(docs) == 0 {
			return Usagef("--list-codes %q: no code starts with it (families: %s)", args[0], strings.Join(families(), ", "))
		}
		if format == "json" {
			return codes.WriteJSON(env.Stdout, docs)
		}
		return codes.WriteList(env.Stdout, docs)
	}
	if len(args) == 0 || strings.TrimSpace(args[0]) == "" {
		return Usagef("explain needs a code (cqlsize explain SZ001) or --list-codes")
	}
	d, ok := codes.Lookup(args[0])
	if !ok {
		return Usagef("unknown finding code %q; nearest: %s (cqlsize explain --list-codes lists them all)",
			args[0], strings.Join(codes.Nearest(args[0], 3), ", "))
	}
	if format == "json" {
		return codes.WriteJSON(env.Stdout, []finding.Doc{d})
	}
	return codes.WriteDoc(env.Stdout, d)
}

// listCodes writes the registry's codes that keep accepts, as text (code, severity, name,
// what) or JSON: `explain --list-codes`, `check --list-codes` (the QF codes) and `migrate
// validate --list-lints` or `--list-codes` (the lints) all print through it.
func listCodes(env *Env, format string, keep func(finding.Doc) bool) error {
	var docs []finding.Doc
	for _, d := range codes.All() {
		if keep(d) {
			docs = append(docs, d)
		}
	}
	switch strings.ToLower(strings.TrimSpace(format)) {
	case "json":
		return codes.WriteJSON(env.Stdout, docs)
	case "markdown", "md":
		return codes.WriteTable(env.Stdout, docs)
	case "text", "":
		return codes.WriteList(env.Stdout, docs)
	}
	// A format the listing cannot write is a usage error, not a silent fallback: a script
	// asking for --format xml must not parse text it did not ask for.
	return Usagef("--format %q: the code list is text, json or markdown", format)
}

// isLint reports whether a code is a migration lint's (not SZ, TS or QF).
func isLint(d finding.Doc) bool {
	switch d.Family() {
	case "SZ", "TS", "QF":
		return false
	}
	return true
}

// families lists the code families (SZ, TS, QF, ...) in code order.
func families() []string {
	var out []string
	seen := map[string]bool{}
	for _, d := range codes.All() {
		if fam := d.Family(); !seen[fam] {
			seen[fam] = true
			out = append(out, fam)
		}
	}
	return out
}
