package options

import (
	"strings"
)

const compressorPackage = "org.apache.cassandra.io.compress."

// compressorOptions are the sub-options each compressor 5.0 ships adds to the common ones
// (class, enabled, chunk_length_in_kb, min_compress_ratio).
var compressorOptions = map[string][]string{
	"LZ4Compressor":     {"lz4_compressor_type", "lz4_high_compressor_level"},
	"ZstdCompressor":    {"compression_level"},
	"SnappyCompressor":  nil,
	"DeflateCompressor": nil,
	"NoopCompressor":    nil,
}

var commonCompression = []string{"class", "enabled", "chunk_length_in_kb", "min_compress_ratio"}

// removedCompression are the compression keys 4.1 still read (deprecated since 3.0, each
// with a warning in CompressionParams.fromMap) and 5.0 removed: named for what they are and
// what replaces them, where the node only says "Missing sub-option 'class'" or "Unknown
// compression options".
var removedCompression = map[string]string{
	"sstable_compression": "is the legacy name of 'class', removed in Cassandra 5.0 (4.1 still read it): write 'class': 'LZ4Compressor' (or the compressor it named)",
	"chunk_length_kb":     "is the legacy name of 'chunk_length_in_kb', removed in Cassandra 5.0 (4.1 still read it): write 'chunk_length_in_kb'",
	"crc_check_chance":    "was removed from the compression map in Cassandra 5.0 (4.1 ignored it there with a warning): crc_check_chance is a table option now, WITH crc_check_chance = N",
}

// legacyCompression rewrites the keys 4.1 still read into their 5.0 names, as 4.1's
// CompressionParams.fromMap does (crc_check_chance is dropped from the map).
func legacyCompression(p Option) Option {
	out := p
	out.Map = nil
	for _, e := range p.Map {
		switch e.Key {
		case "sstable_compression":
			e.Key = "class"
		case "chunk_length_kb":
			e.Key = "chunk_length_in_kb"
		case "crc_check_chance":
			continue
		}
		out.Map = append(out.Map, e)
	}
	return out
}

// checkCompression validates a compression map as CompressionParams.fromMap and the
// compressor's create do in 5.0; it returns the map with the class spelled in full.
func checkCompression(p Option, rel Release) (map[string]string, *Error) {
	if rel == Release41 {
		p = legacyCompression(p)
	}
	m := newSubOptions(p)
	out := p.mapValue()
	if len(p.Map) == 0 {
		return out, nil
	}
	for _, e := range p.Map {
		if why, ok := removedCompression[e.Key]; ok {
			return nil, keyErr(e.Key, "compression sub-option %s %s", e.Key, why)
		}
	}
	if v, ok := m.get("enabled"); ok && !strings.EqualFold(v, "true") {
		// Anything but "true" disables compression (Boolean.parseBoolean), and then nothing
		// else may be said.
		for _, e := range p.Map {
			if e.Key != "enabled" {
				return nil, keyErr(e.Key, "compression sub-option %s: 'enabled': %q disables compression, and then no other sub-option may be given", e.Key, v)
			}
		}
		return out, nil
	}
	class, ok := m.get("class")
	if !ok {
		return nil, valueErr("missing sub-option 'class' for the compression option (LZ4Compressor, ZstdCompressor, SnappyCompressor, DeflateCompressor or NoopCompressor; 'enabled': 'false' disables compression)")
	}
	if class == "" {
		return nil, m.errValue("class", "must not be empty; to disable compression write {'enabled': 'false'}")
	}
	short := strings.TrimPrefix(class, compressorPackage)
	extra, builtin := compressorOptions[short]
	switch {
	case builtin:
		out["class"] = compressorPackage + short
	case strings.Contains(class, ".") && !strings.HasPrefix(class, "org.apache.cassandra."):
		// A compressor of its own on the node's classpath: its options are its own.
		return out, nil
	default:
		return nil, m.errValue("class", "unknown compressor %q: 5.0 ships LZ4Compressor, ZstdCompressor, SnappyCompressor, DeflateCompressor and NoopCompressor (names are case-sensitive)", class)
	}
	known := set(concat(commonCompression, extra))
	if e, bad := m.unknown(known); bad {
		return nil, keyErr(e.Key, "compression sub-option %s is not understood by %s; 5.0 accepts %s", e.Key, short, names(known))
	}
	if v, ok := m.get("chunk_length_in_kb"); ok {
		n, isInt := javaInt(v)
		switch {
		case !isInt:
			return nil, m.errValue("chunk_length_in_kb", "%q is not an integer", v)
		case n <= 0:
			return nil, m.errValue("chunk_length_in_kb", "must be positive (got %d)", n)
		case n*1024 > 1<<31-1:
			return nil, m.errValue("chunk_length_in_kb", "%d is too large: at most 1048576", n)
		case n&(n-1) != 0:
			return nil, m.errValue("chunk_length_in_kb", "must be a power of 2 (got %d)", n)
		}
	}
	if v, ok := m.get("min_compress_ratio"); ok {
		f, isNum := javaDouble(v)
		switch {
		case !isNum:
			return nil, m.errValue("min_compress_ratio", "%q is not a number", v)
		case f < 0:
			return nil, m.errValue("min_compress_ratio", "must not be negative (got %s)", v)
		case f > 0 && f < 1:
			return nil, m.errValue("min_compress_ratio", "must be 0 (off) or at least 1 (got %s)", v)
		}
	}
	if v, ok := m.get("lz4_compressor_type"); ok && v != "high" && v != "fast" {
		return nil, m.errValue("lz4_compressor_type", "must be 'high' or 'fast' (lower case), not %q", v)
	}
	if v, ok := m.get("lz4_high_compressor_level"); ok {
		if n, isInt := javaInt(v); !isInt || n < 1 || n > 17 {
			return nil, m.errValue("lz4_high_compressor_level", "must be an integer from 1 to 17, not %q", v)
		}
	}
	if v, ok := m.get("compression_level"); ok {
		if n, isInt := javaInt(v); !isInt || n < -131072 || n > 22 {
			return nil, m.errValue("compression_level", "must be an integer from -131072 to 22, not %q", v)
		}
	}
	return out, nil
}

// checkCaching validates a caching map as CachingParams.fromMap does in 5.0.
func checkCaching(p Option) *Error {
	m := newSubOptions(p)
	known := map[string]bool{"keys": true, "rows_per_partition": true}
	if e, bad := m.unknown(known); bad {
		return keyErr(e.Key, "caching sub-option %s is not understood; 5.0 accepts keys and rows_per_partition", e.Key)
	}
	if v, ok := m.get("keys"); ok && !strings.EqualFold(v, "ALL") && !strings.EqualFold(v, "NONE") {
		return m.errValue("keys", "must be 'ALL' or 'NONE', not %q", v)
	}
	if v, ok := m.get("rows_per_partition"); ok && !strings.EqualFold(v, "ALL") && !strings.EqualFold(v, "NONE") {
		if !digitsOnly(v) {
			return m.errValue("rows_per_partition", "must be 'ALL', 'NONE' or a number of rows, not %q", v)
		}
		if _, ok := javaInt(v); !ok {
			return m.errValue("rows_per_partition", "%s rows is more than an int holds", v)
		}
	}
	return nil
}
