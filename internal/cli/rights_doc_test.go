package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/internal/golden"
)

// securityDoc is the page whose rights table is generated from commandRights.
const securityDoc = "../../docs/security.md"

const (
	rightsBegin = "<!-- rights table: generated from internal/cli/rights.go by `go test ./internal/cli -run TestRightsDoc -update` -->\n"
	rightsEnd   = "<!-- end of the rights table -->\n"
)

// TestRightsDoc: the table in docs/security.md is commandRights, rendered; -update writes it.
func TestRightsDoc(t *testing.T) {
	data, err := os.ReadFile(securityDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i, j := strings.Index(doc, rightsBegin), strings.Index(doc, rightsEnd)
	if i < 0 || j < i {
		t.Fatalf("%s: no generated rights table (want it between the lines %q and %q)", securityDoc, rightsBegin, rightsEnd)
	}
	got := doc[:i+len(rightsBegin)] + rightsMarkdown() + doc[j:]
	if *golden.Update {
		if err := os.WriteFile(securityDoc, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got != doc {
		t.Errorf("%s: the rights table is not commandRights (run go test ./internal/cli -run TestRightsDoc -update):\n%s",
			securityDoc, golden.Diff(doc, got))
	}
}

// TestGrantFor: the GRANT printed after a refusal, for each resource the node names.
func TestGrantFor(t *testing.T) {
	for _, tc := range []struct{ msg, want string }{
		{"User app has no SELECT permission on <table shop.orders> or any of its parents", "GRANT SELECT ON TABLE shop.orders TO app;"},
		{"User deployer has no CREATE permission on <all tables in ks>", "GRANT CREATE ON KEYSPACE ks TO deployer;"},
		{"User deployer has no ALTER permission on <keyspace ks>", "GRANT ALTER ON KEYSPACE ks TO deployer;"},
		{"User Ops has no CREATE permission on <all keyspaces>", `GRANT CREATE ON ALL KEYSPACES TO "Ops";`},
		{"User app has no MODIFY permission on <table Shop.order>", `GRANT MODIFY ON TABLE "Shop"."order" TO app;`},
		{"User user has no DROP permission on <keyspace table>", `GRANT DROP ON KEYSPACE "table" TO user;`},
		{"User x has no EXECUTE permission on <function ks.f(int)>", ""},
		{"Provided username x and/or password are incorrect", ""},
	} {
		if got := grantFor(tc.msg); got != tc.want {
			t.Errorf("grantFor(%q) = %q, want %q", tc.msg, got, tc.want)
		}
	}
}
