package migrations

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql"
)

// sessionKeyspace is the keyspace s is bound to, "" for none. gocql v1.7.0 keeps it in
// the session's ClusterConfig.Keyspace, sends `USE "<it>"` on every connection it opens, and
// refuses USE statements, so it cannot change after the session is created; a query with
// no routing information reports it from Query.Keyspace without a round trip.
func sessionKeyspace(s *gocql.Session) string {
	q := s.Query("")
	defer q.Release()
	return q.Keyspace()
}

// statementText is the text to send for statement i (1-based) of mg. With a session bound
// to the target keyspace it is the statement as written. With an unbound session, gocql
// v1.7.0 offers no per-query keyspace (Query has no SetKeyspace; protocol v5's keyspace
// field is filled only from the connection's USE), so every unqualified table, type, view,
// index, function or aggregate name is qualified with the target keyspace, at the
// positions the parser recorded. A name this misses is not sent somewhere else: the node
// refuses it ("No keyspace has been specified"), so nothing lands outside the target.
//
// A statement after a USE in its file is qualified with the USE's keyspace whether or not
// the session is bound: the driver refuses USE, so the switch is made here, by name.
func (m *Migrator) statementText(mg *Migration, i int) (string, error) {
	stmt := mg.Statements[i-1]
	ks := stmtKeyspace(mg, i, m.opt.Keyspace)
	if !m.unbound && stmt.Keyspace == "" {
		return stmt.Text, nil
	}
	if i-1 >= len(mg.Parsed) || mg.Parsed[i-1] == nil {
		return "", fmt.Errorf("%s: the statement could not be parsed to qualify its names with %s", stmt.Pos, ks)
	}
	return qualify(mg.Parsed[i-1], ks)
}

// stmtKeyspace is the keyspace statement i (1-based) of mg resolves its unqualified names
// in: the one a USE earlier in its file switched to, else target.
func stmtKeyspace(mg *Migration, i int, target string) string {
	if i >= 1 && i <= len(mg.Statements) && mg.Statements[i-1].Keyspace != "" {
		return mg.Statements[i-1].Keyspace
	}
	return target
}

// qualify returns the statement's text with keyspace inserted before every unqualified
// schema name.
func qualify(stmt cql.Statement, keyspace string) (string, error) {
	info := stmt.Info()
	text := info.Text
	var at []int
	add := func(q cql.QualifiedName) {
		if q.Keyspace.IsZero() && q.Name.Pos.IsValid() {
			at = append(at, q.Name.Pos.Offset-info.Pos.Offset)
		}
	}
	if err := unqualifiedNames(stmt, add); err != nil {
		return "", fmt.Errorf("%s: %w", info.Pos, err)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(at)))
	prefix := cql.QuoteName(keyspace) + "."
	for n, off := range at {
		if off < 0 || off > len(text) {
			return "", fmt.Errorf("%s: name position %d outside the statement", info.Pos, off)
		}
		if n > 0 && off == at[n-1] {
			continue // the same name reached twice
		}
		text = text[:off] + prefix + text[off:]
	}
	return text, nil
}

// unqualifiedNames calls add with every name of stmt that resolves in the current keyspace.
func unqualifiedNames(stmt cql.Statement, add func(cql.QualifiedName)) error {
	_, err := schemaNames(stmt, add)
	return err
}

// schemaNames calls add with every table, type, view, index, function or aggregate name of
// stmt, qualified or not; known is false for a statement of another kind (whose names, if
// any, it does not know).
func schemaNames(stmt cql.Statement, add func(cql.QualifiedName)) (known bool, err error) {
	switch s := stmt.(type) {
	case *cql.Select:
		add(s.Table)
	case *cql.Insert:
		add(s.Table)
	case *cql.Update:
		add(s.Table)
	case *cql.Delete:
		add(s.Table)
	case *cql.Batch:
		for _, in := range s.Statements {
			if k, err := schemaNames(in, add); err != nil || !k {
				return k, err
			}
		}
	case *cql.CreateTable:
		add(s.Name)
	case *cql.AlterTable:
		add(s.Name)
	case *cql.DropTable:
		add(s.Name)
	case *cql.Truncate:
		add(s.Table)
	case *cql.CreateType:
		add(s.Name)
	case *cql.AlterUserType:
		add(s.Name)
	case *cql.DropType:
		add(s.Name)
	case *cql.CreateIndex:
		add(s.Table)
	case *cql.DropIndex:
		add(s.Name)
	case *cql.CreateView:
		add(s.Name)
		add(s.Base)
	case *cql.AlterView:
		add(s.Name)
	case *cql.DropView:
		add(s.Name)
	case *cql.CreateFunction:
		add(s.Name)
	case *cql.DropFunction:
		add(s.Name)
	case *cql.CreateAggregate:
		add(s.Name)
	case *cql.DropAggregate:
		add(s.Name)
	case *cql.CreateTrigger:
		add(s.Table)
	case *cql.DropTrigger:
		add(s.Table)
	case *cql.Use:
		return true, fmt.Errorf("USE is not sent through the driver (it refuses USE); the statements after it are qualified instead")
	default:
		return false, nil
	}
	return true, nil
}

// Keyspaces lists the keyspaces the statements of steps can name, target first: the
// keyspaces of their qualified names, those a USE switches to, and those a keyspace
// statement creates, alters or drops. A check of the statements against the live schema
// reads these from system_schema rather than every keyspace of a shared cluster. all is
// true when a statement is of a kind whose names are not known here (a GRANT, a role): the
// caller reads every keyspace then.
func Keyspaces(target string, steps []Step) (names []string, all bool) {
	seen := map[string]bool{}
	put := func(id cql.Ident) {
		if id.Name == "" {
			return
		}
		// The parser folds an unquoted name to lower case already; this is for a name
		// given as written.
		for _, n := range []string{id.Name, strings.ToLower(id.Name)} {
			if !seen[n] && (n == id.Name || !id.Quoted) {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	put(cql.Ident{Name: target, Quoted: true})
	for _, st := range steps {
		if st.Index < 1 || st.Index > len(st.Migration.Parsed) || st.Migration.Parsed[st.Index-1] == nil {
			return nil, true
		}
		if ks := st.Migration.Statements[st.Index-1].Keyspace; ks != "" {
			put(cql.Ident{Name: ks, Quoted: true})
		}
		switch s := st.Migration.Parsed[st.Index-1].(type) {
		case *cql.Use:
			put(s.Keyspace)
		case *cql.CreateKeyspace:
			put(s.Name)
		case *cql.AlterKeyspace:
			put(s.Name)
		case *cql.DropKeyspace:
			put(s.Name)
		default:
			known, _ := schemaNames(s, func(q cql.QualifiedName) { put(q.Keyspace) })
			if !known {
				return nil, true
			}
		}
	}
	return names, false
}

// SentText is the text the runner sends for statement i (1-based) of mg on a session bound
// to the target keyspace, as `migrate plan` shows it: the statement as written, or, after a
// USE in its file, with its names qualified with that USE's keyspace. sent is false for
// the USE itself, which is never sent.
func (mg *Migration) SentText(i int) (text string, sent bool, err error) {
	if i < 1 || i > len(mg.Statements) {
		return "", false, fmt.Errorf("%s has no statement %d", mg.File, i)
	}
	stmt := mg.Statements[i-1]
	switch {
	case stmt.Use:
		return stmt.Text, false, nil
	case stmt.Keyspace == "":
		return stmt.Text, true, nil
	case i-1 >= len(mg.Parsed) || mg.Parsed[i-1] == nil:
		return "", true, fmt.Errorf("%s: the statement could not be parsed to qualify its names with %s", stmt.Pos, stmt.Keyspace)
	}
	text, err = qualify(mg.Parsed[i-1], stmt.Keyspace)
	return text, true, err
}

// ImpliedKeyspaces is the keyspaces a history that qualifies every name uses and never
// creates, in the order they are first named: such a history runs with its keyspace made
// outside the files (`migrate up -k NAME` with --replication, or by hand), and reads as if
// each of them existed, empty, before its first statement, as -k makes one. Nil when a
// statement names a table, type or function without a keyspace outside a USE (that history
// needs -k to say where it runs), or when every keyspace it names is created by its files
// or is one of the node's own.
func ImpliedKeyspaces(migs []*Migration) []string {
	created := map[string]bool{}
	var named []string
	seen := map[string]bool{}
	name := func(ks string) {
		if !seen[ks] {
			seen[ks] = true
			named = append(named, ks)
		}
	}
	for _, m := range migs {
		use := ""
		for _, st := range m.Parsed {
			switch s := st.(type) {
			case nil:
				continue
			case *cql.Use:
				use = s.Keyspace.Name
				name(use)
				continue
			case *cql.CreateKeyspace:
				created[s.Name.Name] = true
				continue
			case *cql.AlterKeyspace:
				name(s.Name.Name)
				continue
			}
			unqualified := false
			_ = unqualifiedNames(st, func(q cql.QualifiedName) {
				switch {
				case !q.Keyspace.IsZero():
					name(q.Keyspace.Name)
				case use != "":
					name(use)
				case q.Name.Pos.IsValid():
					unqualified = true
				}
			})
			if unqualified {
				return nil
			}
		}
	}
	var out []string
	for _, ks := range named {
		if !created[ks] && !cql.IsSystemKeyspace(ks) {
			out = append(out, ks)
		}
	}
	return out
}
