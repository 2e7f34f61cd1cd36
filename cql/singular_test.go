package cql

import "testing"

func TestSingular(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"tags", "tag"},
		{"hashtags", "hashtag"},
		{"addresses", "address"},
		{"boxes", "box"},
		{"indexes", "index"},
		{"categories", "category"},
		{"activities", "activity"},
		{"statuses", "status"},
		{"aliases", "alias"},
		{"watches", "watch"},
		{"wishes", "wish"},
		{"classes", "class"},
		{"bonuses", "bonus"},
		{"causes", "cause"},
		{"houses", "house"},
		{"movies", "movie"},
		{"ids", "id"},
		{"emails", "email"},
		{"phones", "phone"},
		// singular already, or the same in both numbers
		{"news", "news"},
		{"status", "status"},
		{"address", "address"},
		{"alias", "alias"},
		{"series", "series"},
		{"analysis", "analysis"},
		// no s: unchanged, irregular plurals included
		{"children", "children"},
		{"people", "people"},
		{"data", "data"},
		{"tag", "tag"},
		{"s", "s"},
		{"", ""},
	} {
		if got := Singular(c.in); got != c.want {
			t.Errorf("Singular(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
