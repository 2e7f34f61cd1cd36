package cql

import "strings"

// Role, user and permission statements, read as far as the node's grammar refuses them
// whatever the cluster holds: a role named by an empty string, an option CREATE or ALTER
// ROLE does not have, LOGIN or SUPERUSER that is not a boolean, an option given twice, a
// password both plain and hashed, a GRANT of a word that is no permission ON a resource or
// of a permission TO a role with no resource, a permission a table or keyspace does not
// take. The words are the node's (the wide corpus's role.cql, run on a node with
// authentication on). Anything this reading does not expect is left to the node.

// permissions are the words a GRANT or REVOKE of a permission names (PERMISSION may follow).
var permissions = map[string]bool{
	"all": true, "alter": true, "authorize": true, "create": true, "describe": true, "drop": true,
	"execute": true, "modify": true, "select": true, "unmask": true, "select_masked": true,
}

// dataPermissions are those a keyspace or table (a DataResource) takes.
var dataPermissions = map[string]bool{
	"all": true, "alter": true, "authorize": true, "create": true, "drop": true, "modify": true,
	"select": true, "unmask": true, "select_masked": true,
}

// roleOptions are the options CREATE and ALTER ROLE take as "name = value".
var roleOptions = map[string]bool{"password": true, "login": true, "superuser": true, "options": true,
	"hashed password": true, "generated password": true}

// authStmt reads a role, user or permission statement; the current token is ROLE or USER
// (after CREATE, ALTER or DROP), or GRANT or REVOKE.
func (p *parser) authStmt(verb string) Statement {
	p.next() // ROLE, USER, GRANT or REVOKE
	if t := p.peek(); t.Kind == TokEOF {
		p.failExpected("a role, user or permission")
	}
	a := &Auth{Verb: verb}
	switch {
	case strings.HasPrefix(verb, "CREATE "):
		if p.is("if") {
			p.expect("if", "not", "exists")
			a.NotExists = true
		}
		a.Role, a.RolePos = p.roleName()
		if verb == "CREATE ROLE" {
			p.roleWith()
		}
	case strings.HasPrefix(verb, "ALTER "), strings.HasPrefix(verb, "DROP "):
		if p.is("if") {
			p.expect("if", "exists")
			a.IfExists = true
		}
		a.Role, a.RolePos = p.roleName()
		if verb == "ALTER ROLE" {
			p.roleWith()
		}
	default:
		p.grant(a)
	}
	p.skipRest()
	return a
}

// roleName reads a role's name: an identifier (folded), a quoted one, or a string.
func (p *parser) roleName() (string, Pos) {
	t := p.peek()
	switch t.Kind {
	case TokQuotedIdent, TokString:
		if t.Val == "" {
			p.fail(t.Pos, "no viable alternative at input '%s' (a role needs a name)", t.Text)
		}
		p.next()
		return t.Val, t.Pos
	case TokIdent:
		p.next()
		return t.Val, t.Pos
	}
	p.failExpected("a role name")
	return "", Pos{}
}

// roleWith reads CREATE or ALTER ROLE's WITH options, refusing what the node's grammar and
// its checks of the options refuse; it stops at anything it does not expect.
func (p *parser) roleWith() {
	if !p.accept("with") {
		return
	}
	seen := map[string]bool{}
	for {
		t := p.peek()
		name := strings.ToLower(t.Val)
		if t.Kind != TokIdent || name == "access" {
			return // ACCESS TO DATACENTERS, ACCESS FROM CIDRS: the node's
		}
		if (name == "hashed" || name == "generated") && p.isN(1, "password") {
			p.next()
			name += " password"
		}
		if !p.peekN(1).IsPunct("=") {
			return
		}
		if !roleOptions[name] {
			p.fail(t.Pos, "no viable alternative at input '%s' (a role's options are PASSWORD, HASHED PASSWORD, LOGIN, SUPERUSER, OPTIONS and ACCESS)", t.Text)
		}
		if seen[name] {
			p.fail(t.Pos, "Multiple definition for property '%s'", strings.ToUpper(name))
		}
		seen[name] = true
		if seen["password"] && seen["hashed password"] {
			p.fail(t.Pos, "Options 'password' and 'hashed password' are mutually exclusive")
		}
		p.next()
		p.next() // =
		v := p.peek()
		if (name == "login" || name == "superuser") && v.Kind != TokBool {
			p.fail(v.Pos, "mismatched input '%s' expecting BOOLEAN", v.Text)
		}
		if v.IsPunct("{") {
			for !p.isPunct("}") && p.peek().Kind != TokEOF {
				p.next()
			}
		}
		p.next()
		if !p.accept("and") {
			return
		}
	}
}

// grant reads GRANT and REVOKE: of a permission ON a resource, or of a role, TO (FROM) a role.
func (p *parser) grant(a *Auth) {
	to := "to"
	if a.Verb == "REVOKE" {
		to = "from"
	}
	first, at := p.peek(), p.i
	word := strings.ToLower(first.Val)
	perm := first.Kind == TokIdent && permissions[word]
	if perm {
		p.next()
		if word == "all" {
			p.accept("permissions")
		} else if !p.accept("permission") {
			p.accept("permissions")
		}
		switch {
		case p.is(to) && isReserved(word):
			p.fail(p.peek().Pos, "mismatched input '%s' expecting K_ON (%s %s names no resource: ON ALL KEYSPACES, ON KEYSPACE ks, ON TABLE t ...)", p.peek().Text, a.Verb, first.Text)
		case p.is("on"):
			p.next()
			res := p.peek()
			data := true
			switch {
			case p.accept("all"):
				data = p.is("keyspaces")
			case p.is("keyspace"):
			case p.accept("table"):
				a.Table = p.qualifiedName("a table name")
			case res.Kind == TokIdent && (res.Is("function") || res.Is("functions") || res.Is("role") || res.Is("roles") || res.Is("mbean") || res.Is("mbeans")):
				data = false
			case res.Kind == TokIdent || res.Kind == TokQuotedIdent:
				a.Table = p.qualifiedName("a table name") // ON t is ON TABLE t
			}
			if data && !dataPermissions[word] {
				p.fail(res.Pos, "Resource type DataResource does not support any of the requested permissions (%s is for functions, roles and MBeans)", strings.ToUpper(word))
			}
			return
		default:
			// GRANT describe TO r: a role named like an unreserved permission word.
			p.i = at
		}
	}
	if p.isN(1, "on") {
		p.fail(p.peekN(1).Pos, "mismatched input '%s' expecting K_%s (%s is no permission)", p.peekN(1).Text, strings.ToUpper(to), first.Text)
	}
	a.Role, a.RolePos = p.roleName()
	if !p.accept(to) {
		return
	}
	a.Member, _ = p.roleName()
}
