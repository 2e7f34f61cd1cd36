package ringtest

import (
	"slices"
	"testing"
)

func TestMinority(t *testing.T) {
	for _, tc := range []struct {
		name string
		vers map[string]string
		want []string
	}{
		{"all agree", map[string]string{"a": "1", "b": "1", "c": "1"}, nil},
		{"one behind", map[string]string{"a": "1", "b": "2", "c": "1"}, []string{"b"}},
		{"two behind on different versions", map[string]string{"a": "1", "b": "2", "c": "3", "d": "1", "e": "1"}, []string{"b", "c"}},
		{"a tie names nobody", map[string]string{"a": "1", "b": "2"}, nil},
		{"three ways on three nodes", map[string]string{"a": "1", "b": "2", "c": "3"}, nil},
		{"one node", map[string]string{"a": "1"}, nil},
	} {
		if got := minority(tc.vers); !slices.Equal(got, tc.want) {
			t.Errorf("%s: minority = %v, want %v", tc.name, got, tc.want)
		}
	}
}
