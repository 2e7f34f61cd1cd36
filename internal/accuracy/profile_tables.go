package accuracy

// The profile accuracy check loads tables whose distributions are known exactly (the
// generator writes the declared counts, not a random draw of them), lets `cqlsize profile`
// measure them as it would measure a stranger's cluster, and compares what it found, and what
// `cqlsize estimate` then predicts from its workload file, with the truth: the loaded
// distribution and what Cassandra wrote (sstablepartitions, Data.db, tablestats).

// ProfileTable is one loaded table of the profile check: a Reference (schema and the
// workload the generator writes) and what the loader knows about it beyond the workload.
type ProfileTable struct {
	Reference

	// Skew is the Zipf exponent the rows per partition follow (0: uniform). The generator
	// gives the key of rank k exactly round(rows_per_partition · N·k^-s / H(N,s)) rows.
	Skew float64

	// TTLFraction of the rows are written with an explicit TTL of TTLSeconds, the rest with
	// the table's default_time_to_live (or none).
	TTLFraction float64
	TTLSeconds  int

	// Scales says which count `make accuracy -scale` multiplies: "partitions" (narrow and
	// skewed tables: more keys) or "rows" (wide tables: longer partitions). Skewed tables keep
	// their shape: their partitions and average rows both stay, so the exponent is the same.
	Scales string
}

// ProfileTables are the tables of the profile accuracy check, sized for `make test` (about
// 264,000 rows in all); `make accuracy` multiplies them by -profile-scale. The skewed tables
// keep their median key at a dozen rows or more: the loader writes whole rows, round(x) of
// the x the Zipf curve gives, and at 7 rows that rounding alone is up to 7%, more than the
// 5% the typical partition is held to. They also keep 1,000 keys or more, so that the p99 is
// not the 5th key (at 500 keys, one key more in the partition count moves the p99 rank from
// 5 to 6 and its rows by a fifth).
// Each uses a different compressor or chunk length, so the disk prediction meets every one
// Cassandra 5.0 ships.
var ProfileTables = []ProfileTable{
	{
		Reference: Reference{
			Name:  "tags_zipf11",
			About: "Zipf 1.1 over 1,000 hashtags (a celebrity key of 17,944 rows), 100 rows on average, LZ4 16 KiB",
			Schema: `CREATE TABLE tags_zipf11 (tag text, post_id timeuuid, author uuid, body text,
				PRIMARY KEY (tag, post_id)) WITH CLUSTERING ORDER BY (post_id DESC)
				AND compression = {'class': 'LZ4Compressor', 'chunk_length_in_kb': 16}`,
			Workload: `
partitions: 1000
rows_per_partition: 100
skew: {zipf: 1.1}
avg: {tag: 12, body: 120}
write_spread: 1h
`,
		},
		Skew: 1.1, Scales: "none",
	},
	{
		Reference: Reference{
			Name:  "events_zipf08",
			About: "Zipf 0.8 over 2,000 users, 30 rows on average, a blob payload, Zstd",
			Schema: `CREATE TABLE events_zipf08 (user_id bigint, seq int, kind text, payload blob,
				PRIMARY KEY (user_id, seq))
				WITH compression = {'class': 'ZstdCompressor'}`,
			Workload: `
partitions: 2000
rows_per_partition: 30
skew: {zipf: 0.8}
avg: {kind: 8, payload: 64}
write_spread: 1h
`,
		},
		Skew: 0.8, Scales: "none",
	},
	{
		Reference: Reference{
			Name:  "sensor_wide",
			About: "wide rows: 10 sensors of 2,000 readings each (uniform), LZ4 default",
			Schema: `CREATE TABLE sensor_wide (sensor_id uuid, ts timestamp, value double,
				PRIMARY KEY (sensor_id, ts))`,
			Workload: `
partitions: 10
rows_per_partition: 2000
write_spread: 1h
`,
		},
		Scales: "rows",
	},
	{
		Reference: Reference{
			Name:  "users_narrow",
			About: "narrow rows: one row per key, 20,000 keys (100,000 in make accuracy), Snappy",
			Schema: `CREATE TABLE users_narrow (user_id uuid PRIMARY KEY, name text, email text, country text, age int)
				WITH compression = {'class': 'SnappyCompressor'}`,
			Workload: `
partitions: 20000
rows_per_partition: 1
avg: {name: 14, email: 24, country: 2}
write_spread: 1h
`,
		},
		Scales: "partitions",
	},
	{
		Reference: Reference{
			Name:  "sessions_ttl",
			About: "TTLs: default_time_to_live 1 day, 30% of rows with their own TTL of 1 hour, 10,000 keys of 2 rows, Deflate",
			Schema: `CREATE TABLE sessions_ttl (session_id uuid, seq int, data text, PRIMARY KEY (session_id, seq))
				WITH default_time_to_live = 86400
				AND compression = {'class': 'DeflateCompressor'}`,
			Workload: `
partitions: 10000
rows_per_partition: 2
avg: {data: 80}
write_spread: 1h
`,
		},
		TTLFraction: 0.3, TTLSeconds: 3600, Scales: "partitions",
	},
	{
		Reference: Reference{
			Name:  "profiles_sparse",
			About: "sparse columns left unset: bio 90%, phone 50%, the others 20%, LZ4 4 KiB",
			Schema: `CREATE TABLE profiles_sparse (org text, user_id int, name text, bio text, phone text, city text, title text,
				PRIMARY KEY (org, user_id))
				WITH compression = {'class': 'LZ4Compressor', 'chunk_length_in_kb': 4}`,
			Workload: `
partitions: 200
rows_per_partition: 50
avg: {org: 10, name: 16, bio: 200, phone: 12, city: 10, title: 20}
nulls: {bio: 0.9, phone: 0.5, "*": 0.2}
nulls_as: unset
write_spread: 1h
`,
		},
		Scales: "partitions",
	},
	{
		Reference: Reference{
			Name:  "docs_collections",
			About: "collections: a set of 5 tags, a list of 8 ints, a map of 4 text pairs, uncompressed",
			Schema: `CREATE TABLE docs_collections (doc_id uuid, ver int, tags set<text>, scores list<int>, attrs map<text, text>,
				PRIMARY KEY (doc_id, ver))
				WITH compression = {'enabled': 'false'}`,
			Workload: `
partitions: 1000
rows_per_partition: 4
items: {tags: {count: 5, size: 10}, scores: 8, attrs: {count: 4, key: 8, value: 16}}
write_spread: 1h
`,
		},
		Scales: "partitions",
	},
	{
		Reference: Reference{
			Name:  "readings_by_day",
			About: "time-bucketed: 100 (sensor, day) partitions of 300 readings, TWCS by day",
			Schema: `CREATE TABLE readings_by_day (sensor text, day date, ts timestamp, reading double, unit text,
				PRIMARY KEY ((sensor, day), ts))
				WITH compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'DAYS', 'compaction_window_size': 1}`,
			Workload: `
partitions: 100
rows_per_partition: 300
bucket: day
avg: {sensor: 10, unit: 3}
write_spread: 1h
`,
		},
		Scales: "partitions",
	},
}

// MillionRowTable is the table the 1M-row run of `make accuracy` profiles at a set rate:
// 10,000 partitions of 100 small rows.
var MillionRowTable = ProfileTable{
	Reference: Reference{
		Name:  "events_1m",
		About: "1,000,000 rows: 10,000 devices of 100 events, uniform",
		Schema: `CREATE TABLE events_1m (device_id uuid, seq int, kind text, value double,
			PRIMARY KEY (device_id, seq))`,
		Workload: `
partitions: 10000
rows_per_partition: 100
avg: {kind: 10}
write_spread: 1h
`,
	},
	Scales: "partitions",
}
