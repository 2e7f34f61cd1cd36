package backfill

import (
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/cqlsize/cqlsize/cql"
)

// keyText writes a primary key's values as CQL literals, "(alice, 2026-10-02)", so that a
// row verify names can be pasted into a WHERE clause: the driver hands a date back as a
// time.Time, which Go would print as "2026-10-02 00:00:00 +0000 UTC".
func keyText(vals []any, types []cql.Type) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		var t cql.Type
		if i < len(types) {
			t = types[i]
		}
		parts[i] = literalText(v, t)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func literalText(v any, t cql.Type) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return "'" + strings.ReplaceAll(v, "'", "''") + "'"
	case []byte:
		return "0x" + hex.EncodeToString(v)
	case time.Time:
		if t.Name == "date" {
			return "'" + v.UTC().Format("2006-01-02") + "'"
		}
		return "'" + v.UTC().Format("2006-01-02 15:04:05.000Z0700") + "'"
	case time.Duration:
		if t.Name == "time" {
			return "'" + time.Time{}.Add(v).Format("15:04:05.000000000") + "'"
		}
	}
	return fmt.Sprint(v)
}
