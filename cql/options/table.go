package options

import (
	"fmt"
	"strings"
)

// Option is one WITH option as a statement writes it: a constant, or a map of sub-options.
type Option struct {
	Name  string
	Value string  // the constant's value (strings unescaped); "" for a map
	Map   []Entry // a map's sub-options in the order written
	IsMap bool
}

// Entry is one sub-option of a map option.
type Entry struct{ Key, Value string }

// mapValue returns the map as a Go map (a key given twice keeps its last value).
func (o Option) mapValue() map[string]string {
	m := make(map[string]string, len(o.Map))
	for _, e := range o.Map {
		m[e.Key] = e.Value
	}
	return m
}

// Part is the part of an option a refusal points at, so the caller can name the
// file:line:col of exactly what the node would refuse.
type Part int

const (
	Value      Part = iota // the option's value (for a map option, the whole map)
	Name                   // the option's name
	Key                    // the key of the sub-option Error.Key (first written)
	EntryValue             // the value of the sub-option Error.Key (last written; the map when absent)
)

// Error is an option Cassandra 5.0 refuses: which option (its index among those checked),
// which part of it, and the reason, worded as the node's refusal is.
type Error struct {
	Option int
	Part   Part
	Key    string // the sub-option, for Key and EntryValue
	Msg    string
}

func (e *Error) Error() string { return e.Msg }

// valueErr is a refusal of the option's value.
func valueErr(format string, args ...any) *Error {
	return &Error{Part: Value, Msg: fmt.Sprintf(format, args...)}
}

// nameErr is a refusal of the option's name.
func nameErr(format string, args ...any) *Error {
	return &Error{Part: Name, Msg: fmt.Sprintf(format, args...)}
}

// keyErr is a refusal of sub-option key.
func keyErr(key, format string, args ...any) *Error {
	return &Error{Part: Key, Key: key, Msg: fmt.Sprintf(format, args...)}
}

// Release is the Cassandra release whose schema rules a check follows ("" is 5.0).
type Release string

// The releases whose rules differ.
const (
	Release50 Release = ""
	// Release41: DateTieredCompactionStrategy and the compression keys 5.0 removed
	// (sstable_compression, chunk_length_kb, crc_check_chance) are still read, with a
	// deprecation warning (CompressionParams.fromMap and CompactionParams in 4.1); there is
	// no UnifiedCompactionStrategy (new in 5.0, CEP-26).
	Release41 Release = "4.1"
)

// CheckTable checks the WITH options of a CREATE TABLE (create) or ALTER TABLE as 5.0
// does, and returns the first it refuses, or nil.
func CheckTable(opts []Option, create bool) *Error { return CheckTableOn(opts, create, Release50) }

// CheckTableOn is CheckTable by the rules of release rel.
func CheckTableOn(opts []Option, create bool, rel Release) *Error {
	seen := map[string]bool{}
	for i, p := range opts {
		if err := checkTableOption(p, create, seen, rel); err != nil {
			err.Option = i
			return err
		}
	}
	return checkIndexIntervals(opts)
}

// checkTableOption checks one option; seen holds the names of those before it.
func checkTableOption(p Option, create bool, seen map[string]bool, rel Release) *Error {
	name := p.Name
	if why, ok := removedTableOptions[name]; ok {
		return nameErr("table property %s was %s", name, why)
	}
	if !tableOptionNames[name] || (name == "id" && !create) {
		return nameErr("unknown table property %s", name)
	}
	if seen[name] {
		return nameErr("multiple definitions for property %s", name)
	}
	seen[name] = true
	if mapOptions[name] != p.IsMap {
		if p.IsMap {
			return valueErr("invalid value for property %s: it must not be a map", name)
		}
		return valueErr("invalid value for property %s: it must be a map", name)
	}
	if !p.IsMap {
		return checkPlainOption(p)
	}
	switch name {
	case "compaction":
		return compactionClass(p, rel)
	case "compression":
		_, err := checkCompression(p, rel)
		return err
	case "caching":
		return checkCaching(p)
	}
	return nil
}

// CompactionClass is the class of a compaction map as the table keeps it: a strategy 5.0
// ships spelled in full (org.apache.cassandra.db.compaction.LeveledCompactionStrategy),
// any other class as written.
func CompactionClass(class string) string {
	short := strings.TrimPrefix(class, compactionPackage)
	if compactionStrategies[short] {
		return compactionPackage + short
	}
	return class
}

// tableOptionNames are the WITH options of a 5.0 table; id is only valid at creation.
var tableOptionNames = map[string]bool{
	"additional_write_policy": true, "allow_auto_snapshot": true, "bloom_filter_fp_chance": true,
	"caching": true, "cdc": true, "comment": true, "compaction": true, "compression": true,
	"crc_check_chance": true, "default_time_to_live": true, "extensions": true,
	"gc_grace_seconds": true, "incremental_backups": true, "max_index_interval": true,
	"memtable": true, "memtable_flush_period_in_ms": true, "min_index_interval": true,
	"read_repair": true, "speculative_retry": true, "id": true,
}

// mapOptions are the options whose value is a map.
var mapOptions = map[string]bool{"caching": true, "compaction": true, "compression": true, "extensions": true}

// compactionStrategies are the compaction classes Cassandra 5.0 ships, by short name.
var compactionStrategies = map[string]bool{
	"SizeTieredCompactionStrategy": true, "LeveledCompactionStrategy": true,
	"TimeWindowCompactionStrategy": true, "UnifiedCompactionStrategy": true,
}

const compactionPackage = "org.apache.cassandra.db.compaction."

// MaxTTL is Cassandra's limit on a TTL: 20 years in seconds.
const MaxTTL = 630720000

// compactionClass checks the class of a compaction map and its sub-options for the strategies 5.0 ships. A class outside org.apache.cassandra
// is a strategy of the user's own on the node's classpath: kept as written, unchecked.
func compactionClass(p Option, rel Release) *Error {
	m := p.mapValue()
	class, ok := m["class"]
	if !ok || class == "" {
		return valueErr("missing sub-option 'class' for the compaction option (SizeTieredCompactionStrategy, LeveledCompactionStrategy, TimeWindowCompactionStrategy or UnifiedCompactionStrategy)")
	}
	short := strings.TrimPrefix(class, compactionPackage)
	switch {
	case rel == Release41 && short == "DateTieredCompactionStrategy":
		return nil // deprecated in 3.8, still shipped by 4.1; its sub-options are not checked here
	case rel == Release41 && short == "UnifiedCompactionStrategy":
		return newSubOptions(p).errValue("class", "UnifiedCompactionStrategy is new in Cassandra 5.0: 4.1 ships SizeTieredCompactionStrategy, LeveledCompactionStrategy, TimeWindowCompactionStrategy and DateTieredCompactionStrategy")
	case compactionStrategies[short]:
		return checkCompaction(p, short)
	case short == "DateTieredCompactionStrategy":
		return newSubOptions(p).errValue("class", "DateTieredCompactionStrategy was removed in Cassandra 5.0: use TimeWindowCompactionStrategy (compaction_window_unit, compaction_window_size)")
	case strings.Contains(class, ".") && !strings.HasPrefix(class, "org.apache.cassandra."):
		return nil
	}
	return newSubOptions(p).errValue("class", "unknown compaction strategy %q: 5.0 ships SizeTieredCompactionStrategy, LeveledCompactionStrategy, TimeWindowCompactionStrategy and UnifiedCompactionStrategy (names are case-sensitive)", class)
}
