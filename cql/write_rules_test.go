package cql_test

import (
	"testing"
)

// TestWriteForm: the rules about a write's form (conditions, timestamps, counters, batches)
// that a 5.0 node checks when it prepares the statement.
func TestWriteForm(t *testing.T) {
	const setup = `CREATE TABLE u (k int, c int, v text, s text STATIC, PRIMARY KEY (k, c));
CREATE TABLE o (k int PRIMARY KEY, v text);
CREATE TABLE n (k int PRIMARY KEY, hits counter);`
	for _, tc := range []struct{ stmt, want string }{ // want "" when the node applies it
		{"INSERT INTO u (k, c, v) VALUES (1, 1, 'a') IF NOT EXISTS", ""},
		{"INSERT INTO u (k, c) VALUES (1, 1, 'a')", "Unmatched column names/values"},
		{"INSERT INTO u (k, c, v) VALUES (1, 1)", "Unmatched column names/values"},
		{"INSERT INTO u (k, c, v, v) VALUES (1, 1, 'a', 'b')", "Multiple definitions found for column v"},
		{"INSERT INTO u (k, c) VALUES (1, 1) IF NOT EXISTS USING TIMESTAMP 5", "Cannot provide custom timestamp for conditional updates"},
		{"UPDATE u USING TIMESTAMP 5 SET v = 'a' WHERE k = 1 AND c = 1", ""},
		{"UPDATE u USING TIMESTAMP 5 SET v = 'a' WHERE k = 1 AND c = 1 IF EXISTS", "Cannot provide custom timestamp for conditional updates"},
		{"UPDATE u SET v = 'a' WHERE k IN (1, 2) AND c = 1 IF v = 'b'", "IN on the partition key is not supported with conditional updates"},
		{"UPDATE u SET v = 'a' WHERE k = 1 AND c IN (1, 2) IF v = 'b'", "IN on the clustering key columns is not supported with conditional updates"},
		{"UPDATE u SET v = 'a' WHERE k = 1 AND c = 1 IF c = 1", "PRIMARY KEY column 'c' cannot have IF conditions"},
		{"UPDATE u SET s = 'a' WHERE k = 1 IF s = 'b'", ""},
		{"UPDATE n SET hits = hits + 1 WHERE k = 1", ""},
		{"UPDATE n USING TTL 5 SET hits = hits + 1 WHERE k = 1", "Cannot provide custom TTL for counter updates"},
		{"UPDATE n SET hits = 3 + hits WHERE k = 1", "Invalid operation (hits = 3 - hits) for non list column hits"},
		{"UPDATE n SET hits = hits + 1 WHERE k = 1 IF EXISTS", "Conditional updates are not supported on counter tables"},
		{"DELETE FROM u WHERE k = 1 AND c = 1 IF EXISTS", ""},
		{"DELETE FROM u WHERE k = 1 IF EXISTS", "must restrict all PRIMARY KEY columns with equality relations"},
		{"DELETE FROM u WHERE k = 1 AND c > 1 IF v = 'a'", "must restrict all PRIMARY KEY columns with equality relations"},
		{"DELETE s FROM u WHERE k = 1 IF s = 'a'", ""},
		{"DELETE s FROM u WHERE k = 1 IF v = 'a'", "must restrict all PRIMARY KEY columns with equality relations"},
		{"BEGIN BATCH INSERT INTO o (k, v) VALUES (1, 'a'); UPDATE u SET v = 'b' WHERE k = 1 AND c = 1; APPLY BATCH", ""},
		{"BEGIN BATCH USING TTL 5 INSERT INTO o (k, v) VALUES (1, 'a'); APPLY BATCH", "Global TTL on the BATCH statement is not supported."},
		{"BEGIN BATCH USING TIMESTAMP 5 INSERT INTO o (k, v) VALUES (1, 'a') USING TIMESTAMP 6; APPLY BATCH", "Timestamp must be set either on BATCH or individual statements"},
		{"BEGIN BATCH UPDATE n SET hits = hits + 1 WHERE k = 1; APPLY BATCH", "Cannot include a counter statement in a logged batch"},
		{"BEGIN COUNTER BATCH UPDATE n SET hits = hits + 1 WHERE k = 1; APPLY BATCH", ""},
		{"BEGIN COUNTER BATCH INSERT INTO o (k, v) VALUES (1, 'a'); APPLY BATCH", "Cannot include non-counter statement in a counter batch"},
		{"BEGIN UNLOGGED BATCH UPDATE n SET hits = hits + 1 WHERE k = 1; INSERT INTO o (k, v) VALUES (1, 'a'); APPLY BATCH", "Counter and non-counter mutations cannot exist in the same batch"},
		{"BEGIN BATCH INSERT INTO u (k, c) VALUES (1, 1) IF NOT EXISTS; INSERT INTO u (k, c) VALUES (1, 2); APPLY BATCH", ""},
		{"BEGIN BATCH INSERT INTO u (k, c) VALUES (1, 1) IF NOT EXISTS; INSERT INTO u (k, c) VALUES (2, 1); APPLY BATCH", "Batch with conditions cannot span multiple partitions"},
		{"BEGIN BATCH INSERT INTO u (k, c) VALUES (1, 1); UPDATE u SET v = 'a' WHERE k = 2 AND c = 1 IF EXISTS; APPLY BATCH", "Batch with conditions cannot span multiple partitions"},
		{"BEGIN BATCH INSERT INTO u (k, c) VALUES (1, 1) IF NOT EXISTS; INSERT INTO o (k) VALUES (1); APPLY BATCH", "Batch with conditions cannot span multiple tables"},
		// Markers: which partition is the node's to say.
		{"BEGIN BATCH INSERT INTO u (k, c) VALUES (?, 1) IF NOT EXISTS; INSERT INTO u (k, c) VALUES (?, 2); APPLY BATCH", ""},
	} {
		judgeAfter(t, setup, tc.stmt, tc.want)
	}
}
