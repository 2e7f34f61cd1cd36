package check

import (
	"strings"
	"testing"
)

// indexSchema has a legacy index on a regular column, a clustering column and a partition
// key component, and SAI indexes that intersect.
const indexSchema = `
CREATE KEYSPACE ix WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
CREATE TABLE ix.parcels (
    carrier text, depot int, day date, tracking text, status text, weight int,
    PRIMARY KEY ((carrier, depot), day, tracking));
CREATE INDEX parcels_status ON ix.parcels (status);
CREATE INDEX parcels_tracking ON ix.parcels (tracking);
CREATE INDEX parcels_depot ON ix.parcels (depot);
CREATE TABLE ix.homes (
    city text, id uuid, price int, rooms int, title text, note text, features set<text>,
    PRIMARY KEY (city, id));
CREATE INDEX homes_price ON ix.homes (price) USING 'sai';
CREATE INDEX homes_rooms ON ix.homes (rooms) USING 'sai';
CREATE INDEX homes_features ON ix.homes (features) USING 'sai';
CREATE INDEX homes_title ON ix.homes (title);
`

// TestIndexPlusFiltering pins what the checker says of a query an index serves while
// ALLOW FILTERING filters the index's hits: never a scan (QF002), at most a warning once it
// runs, and the message names the index, what is filtered and that the cost is the index's
// selectivity. The verdicts themselves are the node's (testdata/corpus, shipments_* and
// listings_* queries); these cases pin the findings.
func TestIndexPlusFiltering(t *testing.T) {
	s := schemaOf(t, indexSchema)
	for _, tc := range []struct {
		name, query string
		verdict     Verdict
		codes       string
		index       string
		says        []string // substrings of the findings' messages
	}{
		{"2i alone", "SELECT * FROM ix.parcels WHERE status = 'late'", OK, "warn QF008", "parcels_status",
			[]string{"served by index parcels_status without the partition key"}},
		{"2i and partition key", "SELECT * FROM ix.parcels WHERE carrier = ? AND depot = ? AND status = 'late'", OK, "", "parcels_status", nil},
		{"2i and unindexed, refused", "SELECT * FROM ix.parcels WHERE status = 'late' AND weight > 10", NeedsFiltering,
			"fail QF001, warn QF008", "parcels_status",
			[]string{`"Cannot execute this query as it might involve data filtering"`, "index parcels_status serves it and Cassandra filters the index's hits on weight > 10", "not every partition"}},
		{"2i and unindexed, allowed", "SELECT * FROM ix.parcels WHERE status = 'late' AND weight > 10 ALLOW FILTERING", OK,
			"warn QF008, warn QF015", "parcels_status",
			[]string{"is not a scan", "filters the index's hits on weight > 10", "selectivity"}},
		{"2i, partition key and unindexed, allowed", "SELECT * FROM ix.parcels WHERE carrier = ? AND depot = ? AND status = 'late' AND weight > 10 ALLOW FILTERING", OK,
			"warn QF015", "parcels_status", []string{"within the partition"}},
		{"two 2i, allowed", "SELECT * FROM ix.parcels WHERE status = 'late' AND tracking = ? ALLOW FILTERING", OK,
			"warn QF008, warn QF015", "parcels_status, parcels_tracking",
			[]string{"one of parcels_status, parcels_tracking", "the indexes it did not pick"}},
		{"2i on a clustering column", "SELECT * FROM ix.parcels WHERE tracking = ?", OK, "warn QF008", "parcels_tracking", nil},
		{"2i on a partition key component", "SELECT * FROM ix.parcels WHERE depot = 3", OK, "warn QF008", "parcels_depot", nil},
		{"2i on a partition key component, other part filtered", "SELECT * FROM ix.parcels WHERE depot = 3 AND weight > 1 ALLOW FILTERING", OK,
			"warn QF008, warn QF015", "parcels_depot", []string{"filters the index's hits on weight > 1"}},
		{"partial partition key and 2i", "SELECT * FROM ix.parcels WHERE carrier = ? AND status = 'late' ALLOW FILTERING", OK,
			"warn QF008, warn QF015", "parcels_status", []string{"missing depot", "filters the index's hits on carrier = ?"}},
		{"2i cannot range: a real scan", "SELECT * FROM ix.parcels WHERE depot > 3 ALLOW FILTERING", OK,
			"warn QF002, warn QF009", "", nil},
		{"SAI and SAI intersect", "SELECT * FROM ix.homes WHERE price < 200 AND rooms >= 2", OK, "warn QF008", "homes_price, homes_rooms",
			[]string{"homes_price and homes_rooms (intersected)"}},
		{"SAI and unindexed, refused", "SELECT * FROM ix.homes WHERE price < 200 AND rooms = 2 AND id = ?", NeedsFiltering,
			"fail QF001, warn QF008", "homes_price, homes_rooms", []string{"filters the index's hits on id = ?"}},
		{"SAI and unindexed, allowed", "SELECT * FROM ix.homes WHERE price < 200 AND id = ? ALLOW FILTERING", OK,
			"warn QF008, warn QF015", "homes_price", nil},
		{"SAI CONTAINS and unindexed", "SELECT * FROM ix.homes WHERE features CONTAINS 'garden' AND id = ? ALLOW FILTERING", OK,
			"warn QF008, warn QF015", "homes_features", nil},
		{"SAI in a partition, filtered", "SELECT * FROM ix.homes WHERE city = ? AND price < 200 AND rooms < 3 AND note = 'x' ALLOW FILTERING", OK,
			"warn QF015", "homes_price, homes_rooms", nil},
		{"SAI and a legacy index: the legacy one is read", "SELECT * FROM ix.homes WHERE price < 200 AND title = 'loft' ALLOW FILTERING", OK,
			"warn QF008, warn QF015", "homes_title", []string{"index homes_title (Cassandra 5.0 reads a legacy index before SAI ones", "filters the index's hits on price < 200"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := checkOne(t, s, tc.query, Options{})
			if r.Verdict != tc.verdict || codes(r) != tc.codes || r.Index != tc.index {
				t.Errorf("%s\n got %s [%s] index %q\nwant %s [%s] index %q", tc.query, r.Verdict, codes(r), r.Index, tc.verdict, tc.codes, tc.index)
			}
			var all []string
			for _, f := range r.Findings {
				all = append(all, f.Message)
				if r.Index != "" && f.Code != CodeNeedsFiltering && f.Severity > Warn {
					t.Errorf("%s: an index serves it, yet %s is %s", tc.query, f.Code, f.Severity)
				}
			}
			text := strings.Join(all, " | ")
			for _, w := range tc.says {
				if !strings.Contains(text, w) {
					t.Errorf("%s: findings do not say %q:\n%s", tc.query, w, text)
				}
			}
		})
	}
}
