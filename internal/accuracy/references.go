package accuracy

import (
	"fmt"
	"strings"
)

// Reference is one reference workload: a table, the workload the model is told, and what it
// exercises. The harness writes exactly that workload into the node.
type Reference struct {
	Name     string // the table
	About    string // what it exercises
	Schema   string // CQL: CREATE TYPE ... ; CREATE TABLE name (...) — created in the run's keyspace
	Workload string // the table's entry of a workload file (its fields, unindented)
}

// References are the reference workloads of the accuracy check. Partitions hold a few
// thousand rows so the whole set runs in well under a minute; Scale multiplies the rows.
var References = []Reference{
	{
		Name:  "posts_by_user",
		About: "composite partition key, timeuuid clustering, text of 280 bytes",
		Schema: `CREATE TABLE posts_by_user (user_id uuid, month text, post_id timeuuid, title text, content text, likes int,
			PRIMARY KEY ((user_id, month), post_id)) WITH CLUSTERING ORDER BY (post_id DESC)`,
		Workload: `
partitions: 4
rows_per_partition: 2000
avg: {month: 7, title: 40, content: 280}
write_spread: 1h
`,
	},
	{
		Name:  "posts_by_hashtag",
		About: "Zipf 1.1 over 30 hashtags: the celebrity partition",
		Schema: `CREATE TABLE posts_by_hashtag (hashtag text, post_id timeuuid, user_id uuid, content text,
			PRIMARY KEY (hashtag, post_id)) WITH CLUSTERING ORDER BY (post_id DESC)`,
		Workload: `
partitions: 30
rows_per_partition: 250
skew: {zipf: 1.1}
avg: {hashtag: 12, content: 280}
write_spread: 1h
`,
	},
	{
		Name:  "posts_by_id",
		About: "one row per partition, no clustering, a set<text> (a collection tombstone per INSERT)",
		Schema: `CREATE TABLE posts_by_id (post_id timeuuid PRIMARY KEY, user_id uuid, content text, hashtags set<text>,
			created_at timestamp)`,
		Workload: `
partitions: 2000
rows_per_partition: 1
avg: {content: 280}
items: {hashtags: {count: 3, size: 12}}
write_spread: 1h
`,
	},
	{
		Name:  "sensor_readings_by_day",
		About: "narrow rows (a double), day bucket, writes spread over the day",
		Schema: `CREATE TABLE sensor_readings_by_day (sensor_id uuid, day date, ts timestamp, value double, unit text,
			PRIMARY KEY ((sensor_id, day), ts)) WITH CLUSTERING ORDER BY (ts DESC)`,
		Workload: `
partitions: 2
rows_per_partition: 2880
avg: {unit: 3}
write_spread: 1d
`,
	},
	{
		Name:  "viewing_history",
		About: "user × month bucket with default_time_to_live and some nulls (expiring cells beside tombstones)",
		Schema: `CREATE TABLE viewing_history (user_id uuid, month text, viewed_at timeuuid, video_id uuid, title text, progress int,
			PRIMARY KEY ((user_id, month), viewed_at)) WITH CLUSTERING ORDER BY (viewed_at DESC)
			AND default_time_to_live = 7776000`,
		Workload: `
partitions: 3
rows_per_partition: 1500
avg: {month: 7, title: 30}
nulls: {title: 0.1}
write_spread: 1m
`,
	},
	{
		Name:  "playlists",
		About: "list, set and map (non-frozen: one cell per element) beside frozen ones (one cell)",
		Schema: `CREATE TABLE playlists (user_id uuid, playlist_id int, name text, tags set<text>, tracks list<uuid>,
			ratings map<text, int>, labels frozen<list<text>>, meta frozen<map<text, text>>,
			PRIMARY KEY (user_id, playlist_id))`,
		Workload: `
partitions: 3
rows_per_partition: 500
avg: {name: 20}
items:
  tags: {count: 4, size: 8}
  tracks: {count: 10}
  ratings: {count: 3, key: 6}
  labels: {count: 2, size: 10}
  meta: {count: 3, key: 5, value: 15}
write_spread: 1h
`,
	},
	{
		Name:  "chat_messages",
		About: "a wide partition (over 1 MB, past the 64 KiB row index) with static columns",
		Schema: `CREATE TABLE chat_messages (room_id uuid, msg_id timeuuid, room_name text STATIC, owner uuid STATIC,
			author text, body text, PRIMARY KEY (room_id, msg_id))`,
		Workload: `
partitions: 2
rows_per_partition: 5000
avg: {room_name: 30, author: 12, body: 200}
write_spread: 1h
`,
	},
	{
		Name:  "inbox",
		About: "many nulls and deletes: row, range, cell and set-element deletes",
		Schema: `CREATE TABLE inbox (user_id uuid, msg_id timeuuid, subject text, body text, seen boolean, folder text,
			flags set<text>, PRIMARY KEY (user_id, msg_id))`,
		Workload: `
partitions: 3
rows_per_partition: 2000
avg: {subject: 40, body: 120, folder: 8}
items: {flags: {count: 2, size: 6}}
nulls: {subject: 0.4, folder: 0.5, seen: 0.3}
deletes:
  - {kind: row, per_partition: 200}
  - {kind: range, per_partition: 10, rows: 20}
  - {kind: cell, column: body, per_partition: 100}
  - {kind: element, column: flags, per_partition: 100}
write_spread: 1h
`,
	},
	{
		Name:  "settings_by_user",
		About: "rows written with UPDATE: no row marker, every cell carries its timestamp, appends to a set",
		Schema: `CREATE TABLE settings_by_user (user_id uuid, key text, value text, updated_by text, scopes set<text>,
			PRIMARY KEY (user_id, key))`,
		Workload: `
partitions: 3
rows_per_partition: 1000
writes: update
avg: {key: 16, value: 40, updated_by: 10}
items: {scopes: {count: 2, size: 10}}
write_spread: 1h
`,
	},
	{
		Name:  "events_sparse",
		About: "twelve optional columns left unset (not null): the row's missing-column bitmap",
		Schema: `CREATE TABLE events_sparse (source text, seq bigint, a text, b text, c text, d int, e int, f bigint,
			g double, h text, i boolean, j uuid, k text, l timestamp, PRIMARY KEY (source, seq))`,
		Workload: `
partitions: 3
rows_per_partition: 1500
avg: {source: 10, a: 20, b: 20, c: 20, h: 30, k: 10}
nulls: {"*": 0.5, l: 0.05}
nulls_as: unset
write_spread: 1h
`,
	},
	{
		Name:  "orders_by_customer",
		About: "two text clustering columns, USING TTL on every write, nulls (TTL beside tombstones)",
		Schema: `CREATE TABLE orders_by_customer (customer text, year int, order_ref text, status text, total bigint, note text,
			PRIMARY KEY ((customer, year), status, order_ref))`,
		Workload: `
partitions: 3
rows_per_partition: 1000
avg: {customer: 24, status: 9, order_ref: 18, note: 60}
nulls: {note: 0.7}
ttl: 30d
write_spread: 1m
`,
	},
	{
		Name:  "user_profiles",
		About: "a non-frozen UDT (a cell per field), a frozen UDT, map element deletes",
		Schema: `CREATE TYPE address (street text, city text, zip int);
			CREATE TABLE user_profiles (user_id uuid, version int, name text, home address, work frozen<address>,
			prefs map<text, text>, PRIMARY KEY (user_id, version))`,
		Workload: `
partitions: 3
rows_per_partition: 800
avg: {name: 20, home.street: 24, home.city: 10, work.street: 30, work.city: 12}
items: {prefs: {count: 4, key: 8, value: 16}}
deletes: {kind: element, column: prefs, per_partition: 50}
write_spread: 1h
`,
	},
	{
		Name:  "grants_by_user",
		About: "UPDATE appending to one set while another is set to null: rows with a collection tombstone write a LIVE deletion for the other",
		Schema: `CREATE TABLE grants_by_user (user_id uuid, resource text, roles set<text>, revoked set<text>,
			PRIMARY KEY (user_id, resource))`,
		Workload: `
partitions: 3
rows_per_partition: 800
writes: update
avg: {resource: 20}
items: {roles: {count: 2, size: 8}, revoked: {count: 1, size: 8}}
nulls: {revoked: 0.5}
write_spread: 1h
`,
	},
	{
		Name:     "wide_sparse",
		About:    "70 columns, 60% left unset: the large-subset encoding of missing columns",
		Schema:   wideSparseSchema(),
		Workload: "partitions: 2\nrows_per_partition: 600\navg: {source: 8, t0: 20, t1: 20, t2: 20, t3: 20, t4: 20}\nnulls: {\"*\": 0.6}\nnulls_as: unset\nwrite_spread: 1h\n",
	},
	{
		Name:  "metrics_by_host",
		About: "UPDATE with USING TTL: every cell carries its timestamp, TTL and expiry",
		Schema: `CREATE TABLE metrics_by_host (host text, metric text, ts timestamp, value double, tags set<text>,
			PRIMARY KEY ((host, metric), ts))`,
		Workload: `
partitions: 3
rows_per_partition: 1000
writes: update
ttl: 7d
avg: {host: 12, metric: 16}
items: {tags: {count: 2, size: 6}}
write_spread: 1m
`,
	},
	{
		Name:  "sessions_by_user",
		About: "partition deletes on a table with a static column",
		Schema: `CREATE TABLE sessions_by_user (user_id uuid, session_id timeuuid, device text STATIC, started timestamp,
			PRIMARY KEY (user_id, session_id))`,
		Workload: `
partitions: 20
rows_per_partition: 100
avg: {device: 24}
deletes: {kind: partition, per_partition: 0.3}
write_spread: 1h
`,
	},
	{
		Name:  "files",
		About: "20 KB blobs (3-byte lengths and row sizes) and the natively sized types",
		Schema: `CREATE TABLE files (bucket text, name text, size varint, data blob, kind tinyint, flags smallint,
			created date, at time, origin inet, ratio float, PRIMARY KEY (bucket, name))`,
		Workload: `
partitions: 2
rows_per_partition: 300
avg: {bucket: 10, name: 30, size: 3, data: 20000}
write_spread: 1h
`,
	},
	{
		Name:   "page_views",
		About:  "counters: a context of one global shard per replica",
		Schema: `CREATE TABLE page_views (page text, day date, views counter, clicks counter, PRIMARY KEY (page, day))`,
		Workload: `
partitions: 3
rows_per_partition: 1000
avg: {page: 20}
write_spread: 2s
`,
	},
}

// wideSparseSchema is a table of 70 regular columns: 64 or more switch Columns.serializeSubset
// from a bitmap to a list of indexes.
func wideSparseSchema() string {
	var b strings.Builder
	b.WriteString("CREATE TABLE wide_sparse (source text, seq int")
	for i := 0; i < 5; i++ {
		fmt.Fprintf(&b, ", t%d text", i)
	}
	for i := 0; i < 65; i++ {
		fmt.Fprintf(&b, ", c%02d int", i)
	}
	b.WriteString(", PRIMARY KEY (source, seq))")
	return b.String()
}
