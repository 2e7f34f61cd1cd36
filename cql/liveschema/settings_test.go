package liveschema

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/internal/authtest"
)

// The development node requires no authentication: every client is a superuser to it and
// its guardrails bind nobody.
func TestReadSettingsOnTheDevNode(t *testing.T) {
	s := cassandratest.Session(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	set, err := ReadSettings(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"sasi_indexes_enabled", "materialized_views_enabled", "user_defined_functions_enabled", "dynamic_data_masking_enabled", "tables_fail_threshold"} {
		if _, ok := set[name]; !ok {
			t.Errorf("no setting %s among %d", name, len(set))
		}
	}
	if RequiresAuthentication(set) {
		t.Errorf("the development node requires authentication? authenticator = %q", set["authenticator"])
	}
}

// On the node with authentication: a role reads the settings once granted SELECT on them;
// the default superuser is one, a new role is not, and a role granted a superuser role is.
func TestAuthSettingsAndSuperuser(t *testing.T) {
	admin := authtest.Open(t, authtest.SuperUser, authtest.SuperPassword, "")
	plain, pw := authtest.Role(t, admin, "settings_plain")
	heir, _ := authtest.Role(t, admin, "settings_heir")
	boss, _ := authtest.Role(t, admin, "settings_boss")
	if err := admin.Query(fmt.Sprintf("ALTER ROLE %s WITH SUPERUSER = true", boss)).Exec(); err != nil {
		t.Fatal(err)
	}
	if err := admin.Query(fmt.Sprintf("GRANT %s TO %s", boss, heir)).Exec(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s := authtest.Open(t, plain, pw, "")
	// A role needs SELECT on the view to read it; without, the node says Unauthorized.
	var rerr gocql.RequestError
	if _, err := ReadSettings(ctx, s); !errors.As(err, &rerr) || rerr.Code() != gocql.ErrCodeUnauthorized {
		t.Fatalf("a role with no permission reads the settings: %v; want the node's Unauthorized", err)
	}
	authtest.Grant(t, admin, "SELECT", "TABLE system_views.settings", plain)
	set, err := ReadSettings(ctx, s)
	if err != nil {
		t.Fatalf("with SELECT ON TABLE system_views.settings: %v", err)
	}
	if !RequiresAuthentication(set) {
		t.Errorf("authenticator = %q: want it to require authentication", set["authenticator"])
	}
	if super, err := IsSuperuser(ctx, s, plain); err != nil || super {
		t.Errorf("IsSuperuser(%s) as itself = %v, %v; want false", plain, super, err)
	}
	for role, want := range map[string]bool{authtest.SuperUser: true, plain: false, heir: true, boss: true} {
		if super, err := IsSuperuser(ctx, admin, role); err != nil || super != want {
			t.Errorf("IsSuperuser(%s) = %v, %v; want %v", role, super, err, want)
		}
	}
}
