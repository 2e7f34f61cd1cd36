package cli

import (
	"regexp"
	"strings"
)

// The library packages name what a person can do in their own terms (the Migrator method
// to call, the Options or Config field to set), never a command or flag of this CLI. cliWords turns
// those names into the command or flag that does the same, so what the CLI prints tells
// the user what to type. Each row pairs a library mention with its CLI words; the tests
// of the commands pin the printed texts.
var cliWords = func() func(string) string {
	type row struct {
		re   *regexp.Regexp
		with string
	}
	rows := []row{
		{regexp.MustCompile(`Migrator\.Resolve\((\d+), (\d+), true\)`), "`cqlsize migrate resolve $1 $2 --applied`"},
		{regexp.MustCompile(`Migrator\.Resolve\((\d+), (\d+), false\)`), "`cqlsize migrate resolve $1 $2 --rerun`"},
		{regexp.MustCompile(`Migrator\.AcceptChecksum\((\d+)\)`), "`cqlsize migrate accept-checksum $1`"},
		{regexp.MustCompile(`the next Migrator\.Up\b`), "the next up"},
		{regexp.MustCompile(`Migrator\.Up\b`), "`cqlsize migrate up`"},
		{regexp.MustCompile(`Migrator\.Status\b`), "`cqlsize migrate status`"},
	}
	flags := strings.NewReplacer(
		"Options.LockTimeout", "--lock-timeout",
		"Options.RequireAllNodes", "--require-all-nodes",
		"Options.AllowOutOfOrder", "--allow-out-of-order",
		"Options.Replication", "--replication",
		"Options.BookkeepingKeyspace", "--bookkeeping-keyspace",
		"Options.Keyspace", "--keyspace",
		"in Options.Tables", "with --table",
		"with Options.Restart", "with --restart",
		"set Config.Hosts or ", "pass --hosts or set ",
		"lint.Config.Allow", "--allow-lint",
		"(lint.Analyzers lists them)", "(see `cqlsize migrate validate --list-lints`)",
		"check.Codes lists them", "cqlsize check --list-codes",
	)
	return func(s string) string {
		for _, r := range rows {
			s = r.re.ReplaceAllString(s, r.with)
		}
		return flags.Replace(s)
	}
}()

// shorthands are the flags with a one-letter form a message may name by their long form.
var shorthands = []struct {
	short, long string
	re          *regexp.Regexp // the long form where it is not part of "-k/--keyspace"
}{
	{"-k", "--keyspace", regexp.MustCompile(`(^|[^/\w-])--keyspace\b`)},
	{"-d", "--dir", regexp.MustCompile(`(^|[^/\w-])--dir\b`)},
}

// asTyped names a flag in msg as the user typed it: a user who gave -k is told about -k,
// not --keyspace (a form written "-k/--keyspace" already names both and is left alone).
func asTyped(msg string, args []string) string {
	for _, sh := range shorthands {
		short, long := false, false
		for _, a := range args {
			if a == "--" {
				break
			}
			short = short || a == sh.short || (strings.HasPrefix(a, sh.short) && !strings.HasPrefix(a, "--"))
			long = long || a == sh.long || strings.HasPrefix(a, sh.long+"=")
		}
		if short && !long {
			msg = sh.re.ReplaceAllString(msg, "${1}"+sh.short)
		}
	}
	return msg
}
