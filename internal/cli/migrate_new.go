package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cqlsize/cqlsize/migrations"
)

func newMigrateNewCmd(env *Env, mf *migrateFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "new NAME",
		Short: "Create the next numbered migration file in the folder",
		Long: `Create <dir>/NNNN_name.cql with the next version: one more than the highest
in the folder, zero-padded like the existing files (4 digits in an empty folder). The
folder is created when missing. Prints the new file's path.`,
		Example: `  cqlsize migrate new add_tags_to_posts
  cqlsize migrate new "create orders table" --dir db/migrations`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := newMigrationFile(mf.dir, args[0], time.Now())
			if err != nil {
				return err
			}
			fmt.Fprintln(env.Stdout, path)
			return nil
		},
	}
}

var unsafeName = regexp.MustCompile(`[^a-z0-9]+`)

// newMigrationFile creates the next file; it never overwrites one.
func newMigrationFile(dir, name string, now time.Time) (string, error) {
	slug := strings.Trim(unsafeName.ReplaceAllString(strings.ToLower(name), "_"), "_")
	if slug == "" {
		return "", Usagef("migration name %q: want letters or digits, e.g. add_tags_to_posts", name)
	}
	var migs []*migrations.Migration
	suffix := ".cql"
	if _, err := os.Stat(dir); err == nil {
		set, lerr := migrations.LoadSetDir(dir)
		switch {
		case errors.Is(lerr, migrations.ErrNoMigrations):
			// An empty folder is where the first migration goes.
		case lerr != nil:
			return "", InputErr(fmt.Errorf("the folder has a broken file; fix it before adding one: %w", lerr))
		default:
			migs = set.Migrations
			if set.Layout == migrations.LayoutGolangMigrate {
				suffix = ".up.cql" // one layout per folder (see migrations.ErrMixedLayout)
			}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", InputErr(err)
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", InputErr(err)
	}
	var next int64 = 1
	width := 4
	for _, m := range migs {
		next = max(next, m.Version+1)
		if i := strings.IndexAny(filepath.Base(m.File), "_-."); i > width {
			width = i
		}
	}
	path := filepath.Join(dir, fmt.Sprintf("%0*d_%s%s", width, next, slug, suffix))
	body := fmt.Sprintf(`-- %s
-- Created %s. %s; each is recorded as
-- it completes, so a run that dies here continues from the next statement.
-- Prefer IF NOT EXISTS, and keep data changes idempotent (INSERT, not counter updates).

`, name, now.UTC().Format("2006-01-02"), migrations.TemplateMarker)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", InputErr(fmt.Errorf("create migration file: %w", err))
	}
	if _, err := f.WriteString(body); err != nil {
		f.Close()
		return "", InputErr(err)
	}
	return path, InputErr(f.Close())
}
