package options

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// removedTableOptions are options earlier versions had and 5.0 refuses, with what replaced them.
var removedTableOptions = map[string]string{
	"read_repair_chance":          "removed in Cassandra 4.0 (read repair is now the read_repair option: 'BLOCKING' or 'NONE')",
	"dclocal_read_repair_chance":  "removed in Cassandra 4.0 (read repair is now the read_repair option: 'BLOCKING' or 'NONE')",
	"index_interval":              "removed in Cassandra 2.1: use min_index_interval and max_index_interval",
	"replicate_on_write":          "removed in Cassandra 2.1",
	"populate_io_cache_on_flush":  "removed in Cassandra 2.1",
	"compaction_strategy_class":   "removed in Cassandra 2.0: use compaction = {'class': ...}",
	"compaction_strategy_options": "removed in Cassandra 2.0: use compaction = {'class': ..., ...}",
	"compression_parameters":      "removed in Cassandra 2.0: use compression = {'class': ...}",
	"local_read_repair_chance":    "removed in Cassandra 4.0",
}

// Default index intervals of a 5.0 table.
const (
	defaultMinIndexInterval = 128
	defaultMaxIndexInterval = 2048
)

// minBloomFilterFPChance is the smallest false-positive chance a bloom filter can give
// (20 bits per key, 14 hash functions): 5.0 refuses any value at or below it.
var minBloomFilterFPChance = math.Pow(1-math.Exp(-14.0/20), 14)

// checkPlainOption validates the value of an option that is not a map.
func checkPlainOption(p Option) *Error {
	name, v := p.Name, p.Value
	switch name {
	case "gc_grace_seconds", "default_time_to_live", "memtable_flush_period_in_ms", "min_index_interval", "max_index_interval":
		n, ok := javaInt(v)
		if !ok {
			return valueErr("invalid integer value %s for %s", v, name)
		}
		min := int64(0)
		if name == "min_index_interval" {
			min = 1
		}
		if n < min {
			return valueErr("%s must be greater than or equal to %d (got %d)", name, min, n)
		}
		if name == "default_time_to_live" && n > MaxTTL {
			return valueErr("default_time_to_live must be less than or equal to %d (20 years; got %d)", MaxTTL, n)
		}
	case "bloom_filter_fp_chance":
		f, ok := javaDouble(v)
		if !ok {
			return valueErr("invalid number %s for bloom_filter_fp_chance", v)
		}
		if !(f > minBloomFilterFPChance && f <= 1) {
			return valueErr("bloom_filter_fp_chance must be larger than %.3g and at most 1.0 (got %s)", minBloomFilterFPChance, v)
		}
	case "crc_check_chance":
		f, ok := javaDouble(v)
		if !ok {
			return valueErr("invalid number %s for crc_check_chance", v)
		}
		if !(f >= 0 && f <= 1) {
			return valueErr("crc_check_chance must be between 0 and 1.0 (got %s)", v)
		}
	case "cdc", "incremental_backups", "allow_auto_snapshot":
		switch strings.ToLower(v) {
		case "1", "true", "yes", "0", "false", "no":
		default:
			return valueErr("invalid boolean value %s for %s: 5.0 accepts true, false, yes, no, 1 or 0", v, name)
		}
	case "read_repair":
		if !strings.EqualFold(v, "BLOCKING") && !strings.EqualFold(v, "NONE") {
			return valueErr("invalid value %s for read_repair: 5.0 accepts 'BLOCKING' or 'NONE'", v)
		}
	case "speculative_retry", "additional_write_policy":
		if why := checkRetryPolicy(v); why != "" {
			return valueErr("invalid value %s for %s: %s", quoteOption(v), name, why)
		}
	case "memtable":
		if v != "default" {
			return valueErr("memtable configuration %s is not defined: a default 5.0 cassandra.yaml defines only 'default' (others must be listed under memtable.configurations on every node)", quoteOption(v))
		}
	}
	return nil
}

func quoteOption(v string) string { return "'" + strings.ReplaceAll(v, "'", "''") + "'" }

// checkIndexIntervals checks max_index_interval >= min_index_interval. Like 5.0, it
// compares the values the statement gives with the defaults, not with the table's: an
// ALTER setting max_index_interval = 256 on a table with min_index_interval 512 passes on
// the node (checked in the options corpus).
func checkIndexIntervals(opts []Option) *Error {
	get := func(name string, def int64) int64 {
		for _, p := range opts {
			if p.Name == name {
				if n, ok := javaInt(p.Value); ok {
					return n
				}
			}
		}
		return def
	}
	lo, hi := get("min_index_interval", defaultMinIndexInterval), get("max_index_interval", defaultMaxIndexInterval)
	if hi >= lo {
		return nil
	}
	at := -1
	for i, p := range opts {
		if p.Name == "max_index_interval" || (at < 0 && p.Name == "min_index_interval") {
			at = i
		}
	}
	if at < 0 {
		return nil
	}
	return &Error{Option: at, Part: Value, Msg: fmt.Sprintf("max_index_interval (%s) must be greater than or equal to min_index_interval (%s)",
		strconv.FormatInt(hi, 10), strconv.FormatInt(lo, 10))}
}

// CheckView refuses what a materialized view may not set: a view's rows expire
// with its base table's, so 5.0 refuses any default_time_to_live but 0 on a view
// (CASSANDRA-12868).
func CheckView(opts []Option) *Error {
	for i, p := range opts {
		if p.Name != "default_time_to_live" {
			continue
		}
		if n, ok := javaInt(p.Value); ok && n != 0 {
			return &Error{Option: i, Part: Value, Msg: fmt.Sprintf("a materialized view cannot set default_time_to_live (got %d): its rows expire when its base table's do; set the TTL on the base table", n)}
		}
	}
	return nil
}
