package design_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/design"
	"github.com/cqlsize/cqlsize/sizing"
	"github.com/cqlsize/cqlsize/workload"
)

// one designs a single access pattern on one entity with the given volume.
func one(t *testing.T, entity, query string, ev *design.Entity) *design.Table {
	t.Helper()
	schema, err := parseSchema("entities.cql", entity, "app")
	if err != nil {
		t.Fatal(err)
	}
	st, err := cql.Parse("queries.cql", []byte(query))
	if err != nil {
		t.Fatal(err)
	}
	in := design.Input{Schema: schema, Queries: []design.Query{{Name: "q", Stmt: st.(*cql.Select)}}}
	if ev != nil {
		in.Volumes = &design.Volumes{File: "workload.yaml", Entities: []*design.Entity{ev}}
	}
	d, err := design.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Tables) != 1 {
		t.Fatalf("%d tables", len(d.Tables))
	}
	return d.Tables[0]
}

func rate(s string) workload.Rate {
	r, err := workload.ParseRate(s)
	if err != nil {
		panic(err)
	}
	return r
}

const (
	ordersEntity   = `CREATE TABLE orders (order_id timeuuid PRIMARY KEY, customer_id uuid, created_at timestamp, total_cents bigint);`
	ordersQuery    = `SELECT order_id, created_at, total_cents FROM orders WHERE customer_id = ? ORDER BY created_at DESC LIMIT 20`
	readingsEntity = `CREATE TABLE readings (sensor_id uuid, read_at timestamp, value double, PRIMARY KEY (sensor_id, read_at));`
	readingsQuery  = `SELECT read_at, value FROM readings WHERE sensor_id = ? ORDER BY read_at DESC LIMIT 100`
	postsEntity    = `CREATE TABLE posts (post_id timeuuid PRIMARY KEY, created_at timestamp, content text, hashtags set<text>);`
	postsQuery     = `SELECT post_id, created_at, content FROM posts WHERE hashtags CONTAINS ? ORDER BY created_at DESC LIMIT 20`
)

// TestBucketBoundaries holds the choice to the coarsest bucket that keeps a partition under
// 100,000 values, on both sides of each boundary. One value a row (total_cents, value):
// the values of a partition are its rows.
func TestBucketBoundaries(t *testing.T) {
	fiveYears := time.Duration(5 * workload.Year)
	for _, tc := range []struct {
		name          string
		entity, query string
		ev            *design.Entity
		bucket        string
		shards        bool
	}{
		// 50k/day over 5y is 91.3M orders; over 10M customers, 9 a customer: no bucket.
		{"a customer's 9 orders in 5 years: no bucket", ordersEntity, ordersQuery,
			&design.Entity{Name: "orders", Rows: rate("50k/day"), Retention: fiveYears, Columns: map[string]design.ColumnVolume{"customer_id": {Distinct: 10e6}}}, "", false},
		// 99,000 orders a customer over 5 years: still under 100,000 values.
		{"99k a key over the retention: no bucket", ordersEntity, ordersQuery,
			&design.Entity{Name: "orders", Rows: rate("99k/day"), Retention: fiveYears, Columns: map[string]design.ColumnVolume{"customer_id": {Distinct: 1826.2125}}}, "", false},
		// 101,000: over; a year holds a fifth.
		{"101k a key over the retention: a year", ordersEntity, ordersQuery,
			&design.Entity{Name: "orders", Rows: rate("101k/day"), Retention: fiveYears, Columns: map[string]design.ColumnVolume{"customer_id": {Distinct: 1826.2125}}}, "year", false},
		// One reading a second: 86,400 a day (a month would hold 2.6M, a week 605k): a day.
		{"86,400 readings a day: a day", readingsEntity, readingsQuery,
			&design.Entity{Name: "readings", Rows: rate("1/s"), TTL: 90 * workload.Day, Columns: map[string]design.ColumnVolume{"sensor_id": {Distinct: 1}}}, "day", false},
		// 1.2 a second: 103,680 a day, over: an hour.
		{"103,680 readings a day: an hour", readingsEntity, readingsQuery,
			&design.Entity{Name: "readings", Rows: rate("1.2/s"), TTL: 90 * workload.Day, Columns: map[string]design.ColumnVolume{"sensor_id": {Distinct: 1}}}, "hour", false},
		// 14,000 a week (2,000 a day, 60,900 a month): a month.
		{"60,900 a month: a month", readingsEntity, readingsQuery,
			&design.Entity{Name: "readings", Rows: rate("2000/day"), TTL: 365 * workload.Day, Columns: map[string]design.ColumnVolume{"sensor_id": {Distinct: 1}}}, "month", false},
		// A Zipf head no bucket down to an hour holds: write shards under an hour for the hot
		// keys, and (the median hashtag would read back through hundreds of hours) a year
		// for the rest; the table's bucket is the default tier's (TestZipfHeadTiers).
		{"a Zipf head: tiers", postsEntity, postsQuery,
			&design.Entity{Name: "posts", Rows: rate("10M/day"), Retention: 2 * workload.Year, Avg: map[string]float64{"content": 280},
				Items: map[string]workload.Items{"hashtags": {Count: 2, Size: 12}}, Columns: map[string]design.ColumnVolume{"hashtags": {Distinct: 1e6, Skew: workload.Skew{Kind: workload.Zipf, S: 1.2}}}}, "year", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := one(t, tc.entity, tc.query, tc.ev)
			if tb.Bucket != tc.bucket || (tb.Shards > 1) != tc.shards {
				t.Errorf("bucket %q, %d shards; want %q, shards %v\n%s", tb.Bucket, tb.Shards, tc.bucket, tc.shards, strings.Join(tb.Reasons, "\n"))
			}
			// The sizing that chose it agrees: under the limits with the choice.
			if tb.Estimate.Largest.StoredValues >= 100000 || tb.Estimate.Largest.Bytes >= 100e6 {
				t.Errorf("chosen table's largest partition: %v values, %v bytes", tb.Estimate.Largest.StoredValues, tb.Estimate.Largest.Bytes)
			}
		})
	}
}

// TestTieredDesignAgreesWithEstimate reads the tiered design back as a user would, the
// migration and the workload file, and sizes it with sizing alone: the default tier (every
// key capped at the promotion threshold) under the limits, and over them when the same
// table is sized without the cap (the hot tier is what holds the head, not a lenient
// reading of the workload). The migration creates the tier table in the shared layout.
func TestTieredDesignAgreesWithEstimate(t *testing.T) {
	schema, err := parseSchema("entities.cql", postsEntity, "app")
	if err != nil {
		t.Fatal(err)
	}
	st, _ := cql.Parse("queries.cql", []byte(postsQuery))
	ev := &design.Entity{Name: "posts", Rows: rate("10M/day"), Retention: 2 * workload.Year, Avg: map[string]float64{"content": 280},
		Items: map[string]workload.Items{"hashtags": {Count: 2, Size: 12}}, Columns: map[string]design.ColumnVolume{"hashtags": {Distinct: 1e6, Skew: workload.Skew{Kind: workload.Zipf, S: 1.2}}}}
	d, err := design.Run(design.Input{Schema: schema, Queries: []design.Query{{Name: "q", Stmt: st.(*cql.Select)}},
		Volumes: &design.Volumes{File: "workload.yaml", Entities: []*design.Entity{ev}}})
	if err != nil {
		t.Fatal(err)
	}
	tables, err := parseSchema("0001_design.cql", d.Migration(schema), "app")
	if err != nil {
		t.Fatalf("%v\n%s", err, d.Migration(schema))
	}
	tiers, _ := tables.FindTable("posts_by_hashtag_tiers")
	if tiers == nil {
		t.Fatalf("the migration creates no tier table:\n%s", d.Migration(schema))
	}
	if got := keyShape(tiers); got != "((hashtag text), since timestamp desc) tier text, bucket text, shards int" {
		t.Errorf("tier table %s, want the shared layout", got)
	}
	w, err := workload.Parse("workload.yaml", []byte(d.WorkloadFile()))
	if err != nil {
		t.Fatalf("%v\n%s", err, d.WorkloadFile())
	}
	ests, err := sizing.EstimateAll(tables, w, sizing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ests) != 1 || ests[0].Verdict >= sizing.Warn || w.Tables[0].Skew.MaxRate.IsZero() {
		t.Fatalf("tiered table: %d estimates, verdict %v, max_rate %v\n%s", len(ests), ests[0].Verdict, w.Tables[0].Skew.MaxRate, d.WorkloadFile())
	}
	w.Tables[0].Skew.MaxRate = workload.Rate{}
	uncapped, err := sizing.EstimateAll(tables, w, sizing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if uncapped[0].Verdict < sizing.Warn {
		t.Errorf("without the cap the head fits the default tier: the tiers prove nothing (largest %v values)", uncapped[0].Largest.StoredValues)
	}
}

// keyShape is "((k type), c type desc) regular type, ...": a table's layout, for comparing
// with the one written down.
func keyShape(t *cql.Table) string {
	var pk, ck, rest []string
	for _, c := range t.PartitionKey {
		pk = append(pk, c.Name+" "+c.Type.String())
	}
	for _, c := range t.Clustering {
		ck = append(ck, c.Name+" "+c.Type.String()+" "+c.Order.String())
	}
	for _, c := range t.Columns {
		if c.Kind == cql.Regular {
			rest = append(rest, c.Name+" "+c.Type.String())
		}
	}
	return "((" + strings.Join(pk, ", ") + "), " + strings.Join(ck, ", ") + ") " + strings.Join(rest, ", ")
}

// TestMigrationCreatesTheEntitiesKeyspace: when the entities create their keyspace, the
// migration creates it too (IF NOT EXISTS, with the same replication) before its tables.
func TestMigrationCreatesTheEntitiesKeyspace(t *testing.T) {
	src := "CREATE KEYSPACE shop WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': '3'};\n" +
		"CREATE TABLE shop.orders (order_id timeuuid PRIMARY KEY, customer_id uuid, created_at timestamp);"
	schema, err := parseSchema("entities.cql", src, "")
	if err != nil {
		t.Fatal(err)
	}
	st, _ := cql.Parse("q.cql", []byte("SELECT order_id FROM shop.orders WHERE customer_id = ? ORDER BY created_at DESC"))
	d, err := design.Run(design.Input{Schema: schema, Queries: []design.Query{{Name: "q", Stmt: st.(*cql.Select)}},
		Volumes: &design.Volumes{File: "w.yaml", Entities: []*design.Entity{{Name: "shop.orders", Rows: rate("1k/day"), Retention: workload.Year,
			Columns: map[string]design.ColumnVolume{"customer_id": {Distinct: 1000}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	m := d.Migration(schema)
	ks := strings.Index(m, "CREATE KEYSPACE IF NOT EXISTS shop WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': '3'};")
	tb := strings.Index(m, "CREATE TABLE IF NOT EXISTS shop.orders_by_customer_id")
	if ks < 0 || tb < ks {
		t.Errorf("migration:\n%s", m)
	}
	if _, err := parseSchema("0001_design.cql", m, ""); err != nil {
		t.Errorf("the migration does not apply to an empty schema: %v", err)
	}
}

// TestMigrationCreatesTheTypesItsTablesUse: a query table that copies a UDT column (here a
// list of a type whose field is another type) needs the types in a fresh keyspace; the
// migration creates each one, the inner before the outer, and applies to an empty schema.
func TestMigrationCreatesTheTypesItsTablesUse(t *testing.T) {
	src := "CREATE KEYSPACE fleet WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\n" +
		"CREATE TYPE fleet.geo (lat double, lon double);\n" +
		"CREATE TYPE fleet.addr (city text, at frozen<geo>);\n" +
		"CREATE TYPE fleet.unused (x int);\n" +
		"CREATE TABLE fleet.devices (device_id uuid PRIMARY KEY, model text, past frozen<list<frozen<addr>>>);"
	schema, err := parseSchema("entities.cql", src, "")
	if err != nil {
		t.Fatal(err)
	}
	st, _ := cql.Parse("q.cql", []byte("SELECT device_id, past FROM fleet.devices WHERE model = ?"))
	d, err := design.Run(design.Input{Schema: schema, Queries: []design.Query{{Name: "q", Stmt: st.(*cql.Select)}},
		Volumes: &design.Volumes{File: "w.yaml", Entities: []*design.Entity{{Name: "fleet.devices", Rows: rate("100/day"), Retention: workload.Year,
			Columns: map[string]design.ColumnVolume{"model": {Distinct: 50}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	m := d.Migration(schema)
	if _, err := parseSchema("0001_design.cql", m, ""); err != nil {
		t.Fatalf("the migration does not apply to an empty schema: %v\n%s", err, m)
	}
	geo, addr := strings.Index(m, "CREATE TYPE IF NOT EXISTS fleet.geo"), strings.Index(m, "CREATE TYPE IF NOT EXISTS fleet.addr")
	if geo < 0 || addr < geo || strings.Contains(m, "unused") {
		t.Errorf("want geo then addr, and no unused type:\n%s", m)
	}
}

// TestTWCSWindowsAreAboutThirtyOverTheTTL: the chat room case (1M messages a day over 300
// rooms at Zipf 1.1, a 90-day TTL) needs hour buckets; its TWCS windows are 3 days (thirty
// over the TTL), not one an hour (2,160 sstables a node, each a bloom filter every read
// checks), and every window is a whole number of buckets.
func TestTWCSWindowsAreAboutThirtyOverTheTTL(t *testing.T) {
	src := "CREATE TABLE messages (message_id timeuuid PRIMARY KEY, room_id uuid, sent_at timestamp, author_id uuid, body text);"
	schema, err := parseSchema("entities.cql", src, "chat")
	if err != nil {
		t.Fatal(err)
	}
	st, _ := cql.Parse("q.cql", []byte("SELECT message_id, body FROM messages WHERE room_id = ? ORDER BY sent_at DESC LIMIT 50"))
	d, err := design.Run(design.Input{Schema: schema, Queries: []design.Query{{Name: "q", Stmt: st.(*cql.Select)}},
		Volumes: &design.Volumes{File: "w.yaml", Entities: []*design.Entity{{Name: "messages", Rows: rate("1M/day"), TTL: 90 * workload.Day,
			Avg: map[string]float64{"body": 200}, Columns: map[string]design.ColumnVolume{"room_id": {Distinct: 300, Skew: workload.Skew{Kind: workload.Zipf, S: 1.1}}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	tb := d.Tables[0]
	c := tb.Table.Options.Compaction
	if tb.Bucket != "hour" || c["compaction_window_unit"] != "DAYS" || c["compaction_window_size"] != "3" {
		t.Errorf("bucket %q, compaction %v: want hour buckets in windows of 3 DAYS", tb.Bucket, c)
	}
}

// TestIdentityLookupIsOneRowWhateverTheSkew: a lookup by the entity's whole key (a player's
// score in a game) is one row a partition; a Zipf game_id makes a hot game many keys, not a
// large partition, so the table gets no bucket (a week bucket would copy the row into every
// week it is updated in, and the lookup would walk weeks back).
func TestIdentityLookupIsOneRowWhateverTheSkew(t *testing.T) {
	tb := scoresDesign(t, "SELECT score FROM scores WHERE game_id = ? AND player_id = ?")
	if tb.Bucket != "" || tb.Shards > 1 || tb.Estimate.Largest.Rows > 1 {
		t.Errorf("bucket %q, shards %d, largest %v rows: want one row a partition, no bucket", tb.Bucket, tb.Shards, tb.Estimate.Largest.Rows)
	}
}

// TestOrderByANonTimeColumnIsNotTimeBucketed: a game's top scores ordered by score, too many
// for one partition, cannot be cut by day of updated_at: read newest bucket first, the
// answer would be the top of today rather than of the game. Write shards, merged in
// clustering order, keep the order; the query reads every shard.
func TestOrderByANonTimeColumnIsNotTimeBucketed(t *testing.T) {
	tb := scoresDesign(t, "SELECT player_id, score FROM scores WHERE game_id = ? ORDER BY score DESC LIMIT 10")
	if tb.Bucket != "" || tb.Shards < 2 {
		t.Errorf("bucket %q, shards %d: want no time bucket and write shards", tb.Bucket, tb.Shards)
	}
}

// scoresDesign designs one pattern over a game's scores: 100k updates a day kept a year, 50
// games at Zipf 1.0, a million players.
func scoresDesign(t *testing.T, query string) *design.Table {
	t.Helper()
	src := "CREATE TABLE scores (game_id int, player_id uuid, score bigint, updated_at timestamp, PRIMARY KEY ((game_id, player_id)));"
	schema, err := parseSchema("entities.cql", src, "g")
	if err != nil {
		t.Fatal(err)
	}
	st, _ := cql.Parse("q.cql", []byte(query))
	d, err := design.Run(design.Input{Schema: schema, Queries: []design.Query{{Name: "q", Stmt: st.(*cql.Select)}},
		Volumes: &design.Volumes{File: "w.yaml", Entities: []*design.Entity{{Name: "scores", Rows: rate("100k/day"), Retention: workload.Year,
			Columns: map[string]design.ColumnVolume{"game_id": {Distinct: 50, Skew: workload.Skew{Kind: workload.Zipf, S: 1.0}}, "player_id": {Distinct: 1e6}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	return d.Tables[0]
}
