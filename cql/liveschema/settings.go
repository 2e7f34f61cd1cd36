package liveschema

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gocql/gocql"
)

// ReadSettings reads the answering node's settings from system_views.settings (name to
// value; a null value is left out). The view is local to each node: the caller judges the
// cluster by the node it talks to.
func ReadSettings(ctx context.Context, s *gocql.Session) (map[string]string, error) {
	iter := query(ctx, s, `SELECT name, value FROM system_views.settings`).Iter()
	out := map[string]string{}
	var name string
	var value *string
	for iter.Scan(&name, &value) {
		if value != nil {
			out[name] = *value
		}
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("read the node's settings from system_views.settings: %w", err)
	}
	return out, nil
}

// RequiresAuthentication reports whether settings (as ReadSettings returns them) name an
// authenticator that makes clients log in; without one every client counts as a
// superuser, and Cassandra's guardrails bind nobody.
func RequiresAuthentication(settings map[string]string) bool {
	a := settings["authenticator"]
	if a == "" {
		a = settings["authenticator.class_name"]
	}
	return a != "" && !strings.HasSuffix(a, "AllowAllAuthenticator")
}

// IsSuperuser reports whether role is a superuser, directly or through a role granted to
// it, as system_auth.roles says. A role that may not read system_auth.roles is not a
// superuser (a superuser may read everything), so an Unauthorized answer is false, not an
// error.
func IsSuperuser(ctx context.Context, s *gocql.Session, role string) (bool, error) {
	seen := map[string]bool{}
	todo := []string{role}
	for len(todo) > 0 {
		r := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if seen[r] {
			continue
		}
		seen[r] = true
		var super bool
		var memberOf []string
		err := query(ctx, s, `SELECT is_superuser, member_of FROM system_auth.roles WHERE role = ?`, r).Scan(&super, &memberOf)
		var rerr gocql.RequestError
		switch {
		case errors.Is(err, gocql.ErrNotFound):
			continue
		case errors.As(err, &rerr) && rerr.Code() == gocql.ErrCodeUnauthorized:
			return false, nil
		case err != nil:
			return false, fmt.Errorf("read role %s from system_auth.roles: %w", r, err)
		}
		if super {
			return true, nil
		}
		todo = append(todo, memberOf...)
	}
	return false, nil
}
