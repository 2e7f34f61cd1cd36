package design_test

import (
	"sort"
	"strconv"
)

func sortStrings(s []string) []string { sort.Strings(s); return s }

func itoa(n int) string { return strconv.Itoa(n) }
