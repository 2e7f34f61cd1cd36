package check

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// indexChoicePrefix starts the trace event in which Cassandra 5.0 says which index plan
// it weighed and read (SecondaryIndexManager.getBestIndexQueryPlanFor).
const indexChoicePrefix = "Index mean cardinalities are "

// parseIndexChoice reads "Index mean cardinalities are A:0,B,C:9223372036854775807.
// Scanning with A." into the index the node read: the plan with the lowest estimate, its
// indexes sorted and comma-separated ("B, C" for an SAI group); "one of A, D" when several
// plans tie at the lowest estimate, since then the node may read any of them.
func parseIndexChoice(activity string) (string, error) {
	body, _, ok := strings.Cut(strings.TrimPrefix(activity, indexChoicePrefix), ". Scanning with ")
	if !ok {
		return "", fmt.Errorf("trace event %q: no \"Scanning with\"", activity)
	}
	type plan struct {
		names []string
		est   int64
	}
	var plans []plan
	var names []string
	for _, item := range strings.Split(body, ",") {
		name, est, isLast := strings.Cut(item, ":")
		names = append(names, strings.TrimSpace(name))
		if !isLast {
			continue // an SAI group lists its indexes, then one estimate
		}
		n, err := strconv.ParseInt(strings.TrimSpace(est), 10, 64)
		if err != nil {
			return "", fmt.Errorf("trace event %q: estimate %q: %v", activity, est, err)
		}
		sort.Strings(names)
		plans = append(plans, plan{names: names, est: n})
		names = nil
	}
	if len(plans) == 0 || len(names) > 0 {
		return "", fmt.Errorf("trace event %q: cannot read the plans", activity)
	}
	best := int64(math.MaxInt64)
	for _, p := range plans {
		best = min(best, p.est)
	}
	var tied []string
	for _, p := range plans {
		if p.est == best {
			tied = append(tied, strings.Join(p.names, ", "))
		}
	}
	sort.Strings(tied)
	if len(tied) > 1 {
		return "one of " + strings.Join(tied, ", "), nil
	}
	return tied[0], nil
}

func TestParseIndexChoice(t *testing.T) {
	for in, want := range map[string]string{
		"Index mean cardinalities are listings_price_sai:9223372036854775807. Scanning with listings_price_sai.":                                       "listings_price_sai",
		"Index mean cardinalities are listings_rooms_sai,listings_price_sai:9223372036854775807. Scanning with listings_price_sai,listings_rooms_sai.": "listings_price_sai, listings_rooms_sai",
		"Index mean cardinalities are products_brand_sai:9223372036854775807,products_name_idx:0. Scanning with products_name_idx.":                    "products_name_idx",
		"Index mean cardinalities are shipments_tracking_idx:0,shipments_status_idx:0. Scanning with shipments_tracking_idx.":                          "one of shipments_status_idx, shipments_tracking_idx",
		"Index mean cardinalities are a:5,b:3. Scanning with b.":                                                                                       "b",
	} {
		got, err := parseIndexChoice(in)
		if err != nil || got != want {
			t.Errorf("parseIndexChoice(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"Index mean cardinalities are a:0", "Index mean cardinalities are a:x. Scanning with a.", "Index mean cardinalities are a:0,b. Scanning with a."} {
		if got, err := parseIndexChoice(bad); err == nil {
			t.Errorf("parseIndexChoice(%q) = %q, want an error", bad, got)
		}
	}
}
