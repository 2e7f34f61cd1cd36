package backfill

import (
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/cql"
)

func TestKeyText(t *testing.T) {
	day := time.Date(2026, 10, 2, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		vals  []any
		types []string
		want  string
	}{
		{[]any{"alice", day}, []string{"text", "date"}, "('alice', '2026-10-02')"},
		{[]any{day.Add(90 * time.Minute)}, []string{"timestamp"}, "('2026-10-02 01:30:00.000Z')"},
		{[]any{"o'neil", []byte{0xca, 0xfe}, int64(7)}, []string{"text", "blob", "bigint"}, "('o''neil', 0xcafe, 7)"},
		{[]any{13*time.Hour + 5*time.Second}, []string{"time"}, "('13:00:05.000000000')"},
		{[]any{nil}, []string{"int"}, "(null)"},
	}
	for _, c := range cases {
		var types []cql.Type
		for _, n := range c.types {
			types = append(types, cql.Type{Kind: cql.Native, Name: n})
		}
		if got := keyText(c.vals, types); got != c.want {
			t.Errorf("keyText(%v) = %s, want %s", c.vals, got, c.want)
		}
	}
}
