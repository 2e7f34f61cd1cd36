package liveschema

import (
	"testing"

	"github.com/cqlsize/cqlsize/cql"
)

func TestParseType(t *testing.T) {
	for _, tc := range []struct {
		in, canon string
		kind      cql.TypeKind
		frozen    bool
	}{
		{"text", "text", cql.Native, false},
		{"varchar", "text", cql.Native, false},
		{"timeuuid", "timeuuid", cql.Native, false},
		{"map<text, int>", "map<text, int>", cql.Map, false},
		{"frozen<map<text, frozen<list<int>>>>", "frozen<map<text, list<int>>>", cql.Map, true},
		{"list<frozen<addr>>", "list<addr>", cql.List, false},
		{"frozen<addr>", "frozen<addr>", cql.UDT, true},
		{`frozen<"Addr">`, "frozen<Addr>", cql.UDT, true},
		{"frozen<tuple<int, text>>", "tuple<int, text>", cql.Tuple, true},
		{"tuple<int, frozen<tuple<bigint, blob>>>", "tuple<int, tuple<bigint, blob>>", cql.Tuple, true},
		{"vector<float, 3>", "vector<float, 3>", cql.Vector, true},
		{"set<frozen<vector<float, 2>>>", "set<vector<float, 2>>", cql.Set, false},
		{"'org.apache.cassandra.db.marshal.BytesType'", "'org.apache.cassandra.db.marshal.BytesType'", cql.Native, false},
	} {
		got, err := parseType(tc.in)
		if err != nil {
			t.Errorf("parseType(%q): %v", tc.in, err)
			continue
		}
		if got.Kind != tc.kind || got.Frozen != tc.frozen {
			t.Errorf("parseType(%q) = kind %d frozen %t, want kind %d frozen %t", tc.in, got.Kind, got.Frozen, tc.kind, tc.frozen)
		}
		if s := TypeString(got); s != tc.canon {
			t.Errorf("TypeString(parseType(%q)) = %q, want %q", tc.in, s, tc.canon)
		}
	}
}

func TestParseTypeRejectsGarbage(t *testing.T) {
	for _, in := range []string{"", "map<text>", "list<int", "vector<float, x>", "frozen<>", "int>", `"unterminated`, "tuple<,>"} {
		if got, err := parseType(in); err == nil {
			t.Errorf("parseType(%q) = %+v, want an error", in, got)
		}
	}
}

func FuzzParseType(f *testing.F) {
	for _, s := range []string{"map<text, frozen<list<int>>>", `frozen<"A""b">`, "vector<float, 3>", "'x.Y'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ty, err := parseType(s)
		if err != nil {
			return
		}
		// What parses renders and parses again to the same canonical form.
		again, err := parseType(TypeString(ty))
		if err != nil {
			return // quoted UDT names are rendered unquoted; not a round-trip format
		}
		if TypeString(again) != TypeString(ty) {
			t.Fatalf("%q: %q then %q", s, TypeString(ty), TypeString(again))
		}
	})
}
