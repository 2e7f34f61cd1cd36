package options

import (
	"fmt"
	"math"
	"math/big"
	"regexp"
	"sort"
	"strings"
)

// subOptions is a map option (compaction, compression, caching) with where each key and
// value is written, so every refusal points at the sub-option that causes it.
type subOptions struct {
	p       Option
	entries map[string]Entry
}

func newSubOptions(p Option) subOptions {
	m := subOptions{p: p, entries: make(map[string]Entry, len(p.Map))}
	for _, e := range p.Map {
		m.entries[e.Key] = e
	}
	return m
}

func (m subOptions) get(k string) (string, bool) {
	e, ok := m.entries[k]
	return e.Value, ok
}

// errValue is an error at the value of sub-option k (at the map when k is absent).
func (m subOptions) errValue(k, format string, args ...any) *Error {
	return &Error{Part: EntryValue, Key: k, Msg: fmt.Sprintf("%s sub-option %s: %s", m.p.Name, k, fmt.Sprintf(format, args...))}
}

// unknown reports the first key (in the order written) not in known.
func (m subOptions) unknown(known map[string]bool) (Entry, bool) {
	for _, e := range m.p.Map {
		if !known[e.Key] {
			return e, true
		}
	}
	return Entry{}, false
}

func names(set map[string]bool) string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// Sub-options every 5.0 compaction strategy understands (AbstractCompactionStrategy and
// CompactionParams), then those each strategy adds.
var (
	commonCompaction = []string{"class", "enabled", "tombstone_threshold", "tombstone_compaction_interval",
		"unchecked_tombstone_compaction", "only_purge_repaired_tombstones", "log_all", "provide_overlapping_tombstones"}
	thresholdCompaction = []string{"min_threshold", "max_threshold"}
	stcsCompaction      = []string{"min_sstable_size", "bucket_low", "bucket_high"}
	compactionKnown     = map[string][]string{
		"SizeTieredCompactionStrategy": concat(commonCompaction, thresholdCompaction, stcsCompaction),
		"LeveledCompactionStrategy": concat(commonCompaction, thresholdCompaction, stcsCompaction,
			[]string{"sstable_size_in_mb", "fanout_size", "single_sstable_uplevel"}),
		"TimeWindowCompactionStrategy": concat(commonCompaction, thresholdCompaction, stcsCompaction,
			[]string{"compaction_window_unit", "compaction_window_size", "timestamp_resolution",
				"expired_sstable_check_frequency_seconds", "unsafe_aggressive_sstable_expiration"}),
		"UnifiedCompactionStrategy": concat(commonCompaction, []string{"scaling_parameters", "base_shard_count",
			"target_sstable_size", "flush_size_override", "max_sstables_to_compact", "expired_sstable_check_frequency_seconds",
			"unsafe_aggressive_sstable_expiration", "overlap_inclusion_method", "min_sstable_size", "sstable_growth"}),
	}
	// dtcsOnly are DateTieredCompactionStrategy's sub-options, often left behind when a
	// table moved to TWCS.
	dtcsOnly = map[string]bool{"base_time_seconds": true, "max_sstable_age_days": true, "max_window_size_seconds": true}
)

func concat(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

func set(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, s := range list {
		m[s] = true
	}
	return m
}

// checkCompaction validates the sub-options of a compaction map for the strategy short
// (e.g. "TimeWindowCompactionStrategy") as CompactionParams.validate and the strategy's
// validateOptions do in 5.0.
func checkCompaction(p Option, short string) *Error {
	m := newSubOptions(p)
	known := set(compactionKnown[short])
	if e, ok := m.unknown(known); ok {
		hint := ""
		switch {
		case dtcsOnly[e.Key]:
			hint = " (a DateTieredCompactionStrategy option: TWCS sizes its windows with compaction_window_unit and compaction_window_size)"
		case short == "UnifiedCompactionStrategy" && (e.Key == "min_threshold" || e.Key == "max_threshold"):
			hint = " (UCS sizes its compactions with scaling_parameters)"
		}
		return keyErr(e.Key, "compaction sub-option %s is not understood by %s%s; 5.0 accepts %s", e.Key, short, hint, names(known))
	}
	for _, check := range []func(subOptions) *Error{checkCommonCompaction, checkThresholds} {
		if err := check(m); err != nil {
			return err
		}
	}
	switch short {
	case "SizeTieredCompactionStrategy":
		return checkSizeTiered(m)
	case "LeveledCompactionStrategy":
		if err := checkLeveled(m); err != nil {
			return err
		}
		return checkSizeTiered(m)
	case "TimeWindowCompactionStrategy":
		if err := checkTimeWindow(m); err != nil {
			return err
		}
		return checkSizeTiered(m)
	case "UnifiedCompactionStrategy":
		return checkUnified(m)
	}
	return nil
}

func checkCommonCompaction(m subOptions) *Error {
	if v, ok := m.get("tombstone_threshold"); ok {
		f, ok := javaDouble(v)
		if !ok {
			return m.errValue("tombstone_threshold", "%q is not a number (a fraction such as 0.2)", v)
		}
		if f < 0 {
			return m.errValue("tombstone_threshold", "must not be negative (got %s)", v)
		}
	}
	if v, ok := m.get("tombstone_compaction_interval"); ok {
		n, ok := javaLong(v)
		if !ok {
			return m.errValue("tombstone_compaction_interval", "%q is not an integer number of seconds", v)
		}
		if n < 0 {
			return m.errValue("tombstone_compaction_interval", "must not be negative (got %d)", n)
		}
	}
	for _, k := range []string{"enabled", "unchecked_tombstone_compaction", "log_all"} {
		if v, ok := m.get(k); ok && !javaBool(v) {
			return m.errValue(k, "must be 'true' or 'false', not %q", v)
		}
	}
	if v, ok := m.get("provide_overlapping_tombstones"); ok {
		switch strings.ToUpper(v) {
		case "NONE", "ROW", "CELL":
		default:
			return m.errValue("provide_overlapping_tombstones", "must be NONE, ROW or CELL, not %q", v)
		}
	}
	return nil
}

// checkThresholds applies CompactionParams' rules on min_threshold and max_threshold
// (defaults 4 and 32).
func checkThresholds(m subOptions) *Error {
	th := map[string]int64{"min_threshold": 4, "max_threshold": 32}
	for _, k := range thresholdCompaction {
		v, ok := m.get(k)
		if !ok {
			continue
		}
		n, isInt := javaInt(v)
		if !digitsOnly(v) || !isInt {
			return m.errValue(k, "%q is not a positive integer", v)
		}
		th[k] = n
	}
	lo, hi := th["min_threshold"], th["max_threshold"]
	switch {
	case lo <= 0 || hi <= 0:
		k := "min_threshold"
		if hi <= 0 {
			k = "max_threshold"
		}
		return m.errValue(k, "0 no longer disables compaction; set 'enabled': 'false' instead")
	case lo < 2:
		return m.errValue("min_threshold", "must be at least 2 (got %d)", lo)
	case lo > hi:
		k := "max_threshold"
		if _, ok := m.get(k); !ok {
			k = "min_threshold"
		}
		return m.errValue(k, "min_threshold (%d) must not be greater than max_threshold (%d)", lo, hi)
	}
	return nil
}

// checkSizeTiered checks the size-tiered sub-options, which LCS (for level 0) and TWCS
// (within a window) accept too.
func checkSizeTiered(m subOptions) *Error {
	if v, ok := m.get("min_sstable_size"); ok {
		n, ok := javaLong(v)
		if !ok {
			return m.errValue("min_sstable_size", "%q is not an integer number of bytes", v)
		}
		if n < 0 {
			return m.errValue("min_sstable_size", "must not be negative (got %d)", n)
		}
	}
	b := map[string]float64{"bucket_low": 0.5, "bucket_high": 1.5}
	for _, k := range []string{"bucket_low", "bucket_high"} {
		if v, ok := m.get(k); ok {
			f, ok := javaDouble(v)
			if !ok {
				return m.errValue(k, "%q is not a number", v)
			}
			b[k] = float64(float32(f))
		}
	}
	if !(b["bucket_high"] > b["bucket_low"]) {
		k := "bucket_high"
		if _, ok := m.get(k); !ok {
			k = "bucket_low"
		}
		return m.errValue(k, "bucket_high (%g) must be greater than bucket_low (%g)", b["bucket_high"], b["bucket_low"])
	}
	return nil
}

func checkLeveled(m subOptions) *Error {
	size, fanout := int64(160), int64(10)
	for _, k := range []string{"sstable_size_in_mb", "fanout_size"} {
		v, ok := m.get(k)
		if !ok {
			continue
		}
		n, ok := javaInt(v)
		if !ok {
			return m.errValue(k, "%q is not an integer", v)
		}
		if n < 1 {
			return m.errValue(k, "must be at least 1 (got %d)", n)
		}
		if k == "fanout_size" {
			fanout = n
		} else {
			size = n
		}
	}
	// LCS sizes level 8 as fanout^8 sstables; the bytes must fit in a long.
	if bigPow(fanout, 8, size*1048576).Cmp(big.NewInt(math.MaxInt64)) > 0 {
		k := "sstable_size_in_mb"
		if _, ok := m.get(k); !ok {
			k = "fanout_size"
		}
		return m.errValue(k, "fanout_size^8 x sstable_size_in_mb is more bytes than a level can hold (%d^8 x %d MiB)", fanout, size)
	}
	return nil
}

func checkTimeWindow(m subOptions) *Error {
	if v, ok := m.get("compaction_window_unit"); ok {
		switch v {
		case "MINUTES", "HOURS", "DAYS":
		default:
			return m.errValue("compaction_window_unit", "%q is not a window unit: 5.0 accepts MINUTES, HOURS or DAYS (upper case)", v)
		}
	}
	if v, ok := m.get("compaction_window_size"); ok {
		n, ok := javaInt(v)
		if !ok {
			return m.errValue("compaction_window_size", "%q is not an integer", v)
		}
		if n < 1 {
			return m.errValue("compaction_window_size", "must be at least 1 (got %d)", n)
		}
	}
	if v, ok := m.get("timestamp_resolution"); ok {
		switch v {
		case "NANOSECONDS", "MICROSECONDS", "MILLISECONDS", "SECONDS":
		default:
			return m.errValue("timestamp_resolution", "%q is not a resolution: 5.0 accepts SECONDS, MILLISECONDS, MICROSECONDS or NANOSECONDS (upper case)", v)
		}
	}
	if v, ok := m.get("expired_sstable_check_frequency_seconds"); ok {
		n, ok := javaLong(v)
		if !ok {
			return m.errValue("expired_sstable_check_frequency_seconds", "%q is not an integer number of seconds", v)
		}
		if n < 0 {
			return m.errValue("expired_sstable_check_frequency_seconds", "must not be negative (got %d)", n)
		}
	}
	if v, ok := m.get("unsafe_aggressive_sstable_expiration"); ok {
		if !javaBool(v) {
			return m.errValue("unsafe_aggressive_sstable_expiration", "must be 'true' or 'false', not %q", v)
		}
		if strings.EqualFold(v, "true") {
			return m.errValue("unsafe_aggressive_sstable_expiration", "TWCS refuses 'true' unless every node runs with -Dcassandra.allow_unsafe_aggressive_sstable_expiration=true")
		}
	}
	return nil
}

// scalingParameter is one UCS scaling parameter: N, L<fan>, T<fan> or a signed integer.
var scalingParameter = regexp.MustCompile(`^(N|L(\d+)|T(\d+)|[+-]?\d+)$`)

func checkUnified(m subOptions) *Error {
	if v, ok := m.get("scaling_parameters"); ok {
		parts := strings.Split(v, ",")
		for len(parts) > 1 && parts[len(parts)-1] == "" { // Java's split drops trailing empties
			parts = parts[:len(parts)-1]
		}
		for _, part := range parts {
			s := strings.TrimSpace(part)
			g := scalingParameter.FindStringSubmatch(s)
			if g == nil {
				return m.errValue("scaling_parameters", "%q is not a scaling parameter: 5.0 accepts N, L<n>, T<n> or an integer, separated by commas", s)
			}
			if fan := g[2] + g[3]; fan != "" {
				if n, ok := javaInt(fan); !ok || n < 2 {
					return m.errValue("scaling_parameters", "the fan factor in %s must be at least 2", s)
				}
			}
		}
	}
	if v, ok := m.get("base_shard_count"); ok {
		n, ok := javaInt(v)
		if !ok {
			return m.errValue("base_shard_count", "%q is not an integer", v)
		}
		if n <= 0 {
			return m.errValue("base_shard_count", "must be positive (got %d)", n)
		}
	}
	target := float64(1 << 30)
	for _, k := range []string{"target_sstable_size", "flush_size_override"} {
		v, ok := m.get(k)
		if !ok {
			continue
		}
		f, ok := parseSize(v)
		if !ok {
			return m.errValue(k, "%q is not a size: write it with its unit, such as '1GiB', '256MiB' or '160MB'", v)
		}
		if f >= math.MaxInt64 {
			return m.errValue(k, "%s is more than a long holds", v)
		}
		if f < 1<<20 {
			return m.errValue(k, "%s is less than the minimum, 1MiB", v)
		}
		if k == "target_sstable_size" {
			target = math.Ceil(f)
		}
	}
	if v, ok := m.get("max_sstables_to_compact"); ok {
		if _, ok := javaInt(v); !ok {
			return m.errValue("max_sstables_to_compact", "%q is not an integer", v)
		}
	}
	if v, ok := m.get("expired_sstable_check_frequency_seconds"); ok {
		n, ok := javaLong(v)
		if !ok {
			return m.errValue("expired_sstable_check_frequency_seconds", "%q is not an integer number of seconds", v)
		}
		if n <= 0 {
			return m.errValue("expired_sstable_check_frequency_seconds", "must be positive for UCS (got %d)", n)
		}
	}
	if v, ok := m.get("unsafe_aggressive_sstable_expiration"); ok && !javaBool(v) {
		return m.errValue("unsafe_aggressive_sstable_expiration", "must be 'true' or 'false', not %q", v)
	}
	if v, ok := m.get("overlap_inclusion_method"); ok {
		switch strings.ToUpper(v) {
		case "NONE", "SINGLE", "TRANSITIVE":
		default:
			return m.errValue("overlap_inclusion_method", "must be NONE, SINGLE or TRANSITIVE, not %q", v)
		}
	}
	if v, ok := m.get("min_sstable_size"); ok {
		f, ok := parseSize(v)
		if !ok {
			return m.errValue("min_sstable_size", "%q is not a size: write it with its unit, such as '100MiB'", v)
		}
		if f < 0 {
			return m.errValue("min_sstable_size", "must not be negative (got %s)", v)
		}
		if math.Round(f) >= math.Ceil(target/math.Sqrt2) {
			return m.errValue("min_sstable_size", "%s must be less than 70%% of target_sstable_size (%.0f bytes)", v, target)
		}
	}
	if v, ok := m.get("sstable_growth"); ok {
		f, ok := parsePercent(v)
		if !ok {
			return m.errValue("sstable_growth", "%q is not a number between 0 and 1 (or a percentage)", v)
		}
		if f < 0 || f > 1 {
			return m.errValue("sstable_growth", "must be between 0 and 1 (got %s)", v)
		}
	}
	return nil
}
