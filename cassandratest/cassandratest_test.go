package cassandratest

import (
	"regexp"
	"testing"
)

func TestKeyspaceName(t *testing.T) {
	valid := regexp.MustCompile(`^[a-z][a-z0-9_]{0,47}$`)
	seen := map[string]bool{}
	for _, name := range []string{"TestX", "TestVeryLongName/with subtests/and-more-and-more-and-more-characters", "Test/ünïcode"} {
		for i := 0; i < 3; i++ {
			ks := KeyspaceName(name)
			if !valid.MatchString(ks) {
				t.Errorf("KeyspaceName(%q) = %q: not a valid keyspace name", name, ks)
			}
			if seen[ks] {
				t.Errorf("KeyspaceName(%q) repeated %q", name, ks)
			}
			seen[ks] = true
		}
	}
}
