package denorm

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"

	"github.com/gocql/gocql"
)

// Merging shards compares clustering keys the way Cassandra orders them, on the bytes the
// driver serializes, so a key read back from a token compares like one just read.

// mergeable refuses clustering columns whose order compareCell does not know: a merge in
// the wrong order would interleave shards out of order without a word.
func mergeable(cols []keyColumn) error {
	for _, c := range cols {
		if !knownOrder(c.typ) {
			return fmt.Errorf("merge shards on clustering column %s: its type (%s) has no order this package knows; use timeuuid, timestamp, date, time, an integer, text, ascii, blob or boolean", c.name, c.typ)
		}
	}
	return nil
}

func knownOrder(t gocql.Type) bool {
	switch t {
	case gocql.TypeTimeUUID, gocql.TypeTimestamp, gocql.TypeDate, gocql.TypeTime,
		gocql.TypeBigInt, gocql.TypeInt, gocql.TypeSmallInt, gocql.TypeTinyInt,
		gocql.TypeText, gocql.TypeVarchar, gocql.TypeAscii, gocql.TypeBlob, gocql.TypeBoolean:
		return true
	}
	return false
}

// compareCell compares two serialized values of type t in Cassandra's order for the type
// (ascending): -1, 0 or +1. An empty value, which Cassandra allows for every type, sorts
// first, as it does there.
func compareCell(t gocql.Type, a, b []byte) int {
	if len(a) == 0 || len(b) == 0 {
		return cmp.Compare(len(a), len(b))
	}
	switch t {
	case gocql.TypeTimeUUID:
		if len(a) == 16 && len(b) == 16 {
			return compareTimeUUID(a, b)
		}
	case gocql.TypeTimestamp, gocql.TypeTime, gocql.TypeBigInt, gocql.TypeInt, gocql.TypeSmallInt, gocql.TypeTinyInt:
		if len(a) == len(b) && len(a) <= 8 {
			return cmp.Compare(signed(a), signed(b))
		}
	}
	// text, ascii, blob, boolean and date (days offset by 2^31, so unsigned) compare
	// as unsigned bytes; so does anything malformed, consistently.
	return bytes.Compare(a, b)
}

// signed reads a big-endian two's complement integer of 1 to 8 bytes.
func signed(b []byte) int64 {
	var v int64
	if b[0]&0x80 != 0 {
		v = -1
	}
	for _, c := range b {
		v = v<<8 | int64(c)
	}
	return v
}

// compareTimeUUID orders version 1 UUIDs as Cassandra's TimeUUIDType does: by the 60-bit
// timestamp (with the version above it), then the clock sequence and node as signed bytes.
func compareTimeUUID(a, b []byte) int {
	ts := func(u []byte) uint64 {
		return uint64(binary.BigEndian.Uint16(u[6:8]))<<48 | uint64(binary.BigEndian.Uint16(u[4:6]))<<32 | uint64(binary.BigEndian.Uint32(u[0:4]))
	}
	if c := cmp.Compare(ts(a), ts(b)); c != 0 {
		return c
	}
	for i := 8; i < 16; i++ {
		if c := cmp.Compare(int8(a[i]), int8(b[i])); c != 0 {
			return c
		}
	}
	return 0
}
