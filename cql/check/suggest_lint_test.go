package check

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/lint"
	"github.com/cqlsize/cqlsize/design"
	"github.com/cqlsize/cqlsize/workload"
)

// TestSuggestionsPassLints holds the checker to the tool's own rules: every table `check`
// suggests for the corpus queries must pass the lints `migrate validate` runs (lint.Run
// without a workload) with no error and no BK101 (a suggested time series carries its time
// bucket in the partition key); in fact with no diagnostic at all. Advice the next command
// rejects is no advice.
func TestSuggestionsPassLints(t *testing.T) {
	for _, dir := range []string{corpusDir, "testdata/cli"} {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			schema, err := cql.LoadSchema(filepath.Join(dir, "schema.cql"))
			if err != nil {
				t.Fatal(err)
			}
			queries, err := LoadQueries(filepath.Join(dir, "queries.cql"))
			if err != nil {
				t.Fatal(err)
			}
			results, err := Check(schema, queries, Options{})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, r := range results {
				if r.SuggestedTable == "" {
					continue
				}
				n++
				ks, _, _ := strings.Cut(r.Table, ".")
				st, err := cql.Parse(r.Query.Name+".cql", []byte(r.SuggestedTable))
				if err != nil {
					t.Errorf("%s: the suggested table does not parse: %v\n%s", r.Query.Name, err, r.SuggestedTable)
					continue
				}
				rep, err := lint.Run(lint.Input{
					Files:    []lint.File{{Name: r.Query.Name + ".cql", Source: []byte(r.SuggestedTable), Statements: []cql.Statement{st}}},
					Schema:   schema,
					Keyspace: ks,
				}, lint.Config{})
				if err != nil {
					t.Fatalf("%s: lint: %v", r.Query.Name, err)
				}
				// No error, no BK101 (a time series is bucketed), and in fact nothing at
				// all: a suggestion goes into a migration as it is.
				for _, d := range rep.Diagnostics {
					if !d.Silenced {
						t.Errorf("%s: the lints say of the suggested table: %s\n%s", r.Query.Name, d, r.SuggestedTable)
					}
				}
			}
			if n == 0 {
				t.Fatal("no suggestion: the test proves nothing")
			}
			t.Logf("%d suggested tables linted", n)
		})
	}
}

// TestSuggestedTimeSeriesIsBucketed pins the shape of a suggestion for a time series: the
// table's own bucket moves into the partition key (a messages-by-sender table:
// ((sender_id, day), message_id, ...), not ((sender_id), conversation_id, day,
// message_id)); without a bucket to move and without volumes no width is invented: the
// table leads with its time and names the volume that decides the bucket.
func TestSuggestedTimeSeriesIsBucketed(t *testing.T) {
	s := schemaOf(t, `
CREATE KEYSPACE chat WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
CREATE TABLE chat.messages (conversation_id uuid, day date, message_id timeuuid, sender_id uuid, body text,
    PRIMARY KEY ((conversation_id, day), message_id)) WITH CLUSTERING ORDER BY (message_id DESC);
CREATE TABLE chat.events (device_id uuid, at timestamp, kind text, PRIMARY KEY (device_id, at));
CREATE TABLE chat.logins (user_id uuid, day date, at timestamp, ip inet, PRIMARY KEY ((user_id, day), at));
`)
	for _, tc := range []struct {
		name, query, key, says, existing string
	}{
		{"own bucket moves into the key", "SELECT * FROM chat.messages WHERE sender_id = ?",
			"PRIMARY KEY ((sender_id, day), message_id, conversation_id)", "day moves into the partition key as its time bucket", ""},
		{"no width invented", "SELECT * FROM chat.events WHERE kind = ? ALLOW FILTERING",
			"PRIMARY KEY ((kind), at, device_id)", "no bucket width is invented. The volume that decides it: events rows per span of time", ""},
		{"the bucket left out: the table itself", "SELECT * FROM chat.logins WHERE user_id = ? ALLOW FILTERING",
			"", "", "chat.logins"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := checkOne(t, s, tc.query, Options{})
			if r.ExistingTable != tc.existing {
				t.Fatalf("existing table %q, want %q (suggested %q)", r.ExistingTable, tc.existing, r.SuggestedTable)
			}
			if tc.existing != "" {
				if !strings.Contains(r.SuggestedQuery, "day = ?") {
					t.Errorf("rewritten query %q does not name the bucket", r.SuggestedQuery)
				}
				return
			}
			if !strings.Contains(r.SuggestedTable, tc.key) || !strings.Contains(r.SuggestedTable, tc.says) {
				t.Errorf("suggested table lacks %q or %q:\n%s", tc.key, tc.says, r.SuggestedTable)
			}
			if strings.Contains(tc.key, "day") != strings.Contains(r.SuggestedQuery, "day = ?") {
				t.Errorf("rewritten query %q does not name the bucket", r.SuggestedQuery)
			}
		})
	}
}

// TestCustomerOrdersSuggestion is the new user's case: orders keyed by order_id and "a
// customer's last 20 orders". Without volumes check suggests no bucket and says which
// volume decides; with a customer's 9 orders in 5 years it suggests the design engine's
// unbucketed table; with a store's 2,500 a day (77,500 in a 31-day month), the month bucket the engine sized.
func TestCustomerOrdersSuggestion(t *testing.T) {
	s := schemaOf(t, `
CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
CREATE TABLE app.orders (order_id timeuuid PRIMARY KEY, customer_id uuid, store_id int, created_at timestamp, total_cents bigint);
`)
	q := "SELECT order_id, created_at, total_cents FROM app.orders WHERE customer_id = ? ORDER BY created_at DESC LIMIT 20 ALLOW FILTERING"
	r := checkOne(t, s, q, Options{})
	if strings.Contains(r.SuggestedTable, "day date") || strings.Contains(r.SuggestedQuery, "day = ?") || !strings.Contains(r.SuggestedTable, "--workload") {
		t.Errorf("without volumes: %s\n%s", r.SuggestedTable, r.SuggestedQuery)
	}
	rate := func(s string) workload.Rate { r, _ := workload.ParseRate(s); return r }
	vols := &design.Volumes{File: "workload.yaml", Entities: []*design.Entity{{Name: "app.orders", Rows: rate("50k/day"), Retention: 5 * workload.Year,
		Columns: map[string]design.ColumnVolume{"customer_id": {Distinct: 10e6}, "store_id": {Distinct: 20}}}}}
	r = checkOne(t, s, q, Options{Size: vols.Size})
	if !strings.Contains(r.SuggestedTable, "PRIMARY KEY ((customer_id), created_at, order_id)") || !strings.Contains(r.SuggestedTable, "9 rows a key on average") {
		t.Errorf("9 orders a customer: %s", r.SuggestedTable)
	}
	r = checkOne(t, s, "SELECT order_id, created_at FROM app.orders WHERE store_id = ? ORDER BY created_at DESC LIMIT 20 ALLOW FILTERING", Options{Size: vols.Size})
	if !strings.Contains(r.SuggestedTable, "PRIMARY KEY ((store_id, month), created_at, order_id)") || !strings.Contains(r.SuggestedQuery, "month = ?") {
		t.Errorf("2,500 orders a store a day: %s\n%s", r.SuggestedTable, r.SuggestedQuery)
	}
}
