package cql

import "strings"

// applyAuth follows the roles a history creates, drops and grants, and refuses what the
// node refuses for sure from them alone: creating a role the history created (and did not
// drop), naming one it dropped, granting a role to itself or to a role it is granted to
// (a circle). A role the history never named may be on the cluster: nothing is said of it.
func (s *Schema) applyAuth(a *Auth) error {
	if !a.Table.Name.IsZero() {
		return s.grantOnTable(a.Table)
	}
	if a.Role == "" {
		return nil
	}
	if s.Roles == nil {
		s.Roles, s.Granted = map[string]bool{}, map[string]map[string]bool{}
	}
	dropped := func(r string) bool { v, ok := s.Roles[r]; return ok && !v }
	switch {
	case strings.HasPrefix(a.Verb, "CREATE "):
		if s.Roles[a.Role] && !a.NotExists {
			return Errorf(a.RolePos, "%s already exists", a.Role)
		}
		s.Roles[a.Role] = true
	case strings.HasPrefix(a.Verb, "DROP "):
		if dropped(a.Role) && !a.IfExists {
			return Errorf(a.RolePos, "%s doesn't exist", a.Role)
		}
		s.Roles[a.Role] = false // IF EXISTS too: the role is gone after it either way
		delete(s.Granted, a.Role)
		for _, g := range s.Granted {
			delete(g, a.Role)
		}
	case strings.HasPrefix(a.Verb, "ALTER "):
		if dropped(a.Role) && !a.IfExists {
			return Errorf(a.RolePos, "Role %s doesn't exist", a.Role)
		}
	case strings.HasPrefix(a.Verb, "LIST "):
		if dropped(a.Role) {
			return Errorf(a.RolePos, "<role %s> doesn't exist", a.Role)
		}
	case a.Verb == "GRANT":
		switch {
		case dropped(a.Role):
			return Errorf(a.RolePos, "%s doesn't exist", a.Role)
		case dropped(a.Member):
			return Errorf(a.RolePos, "%s doesn't exist", a.Member)
		case a.Member == a.Role || s.holds(a.Role, a.Member, map[string]bool{}):
			return Errorf(a.RolePos, "%s is a member of %s", a.Member, a.Role)
		}
		if a.Member != "" {
			if s.Granted[a.Member] == nil {
				s.Granted[a.Member] = map[string]bool{}
			}
			s.Granted[a.Member][a.Role] = true
		}
	case a.Verb == "REVOKE":
		delete(s.Granted[a.Member], a.Role)
	}
	return nil
}

// holds reports whether role r was granted role x, directly or through the roles it holds.
func (s *Schema) holds(r, x string, seen map[string]bool) bool {
	if seen[r] {
		return false
	}
	seen[r] = true
	for g := range s.Granted[r] {
		if g == x || s.holds(g, x, seen) {
			return true
		}
	}
	return false
}

// grantOnTable refuses a permission on a table the model's keyspace does not have (a view
// is a table to the node's permissions). A keyspace the model does not hold is the node's
// to judge: a live schema is read for the keyspaces a run names, not every one.
func (s *Schema) grantOnTable(q QualifiedName) error {
	name, err := s.keyspaceName(q)
	if err != nil {
		return nil
	}
	ks := s.Keyspaces[name]
	if ks == nil || ks.Tables[q.Name.Name] != nil || ks.Views[q.Name.Name] != nil {
		return nil
	}
	return Errorf(q.Name.Pos, "Resource <table %s.%s> doesn't exist", ks.Name, q.Name.Name)
}
