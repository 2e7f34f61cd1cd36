package denorm

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/cqlsize/cqlsize/bucket"
	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/derive"
	"github.com/cqlsize/cqlsize/workload"
)

// DefaultTier is the name of the tier a key is on while its tier table holds no row for it.
const DefaultTier = "default"

// TierPlan is how one query table puts its keys on tiers, as a write plan names it:
//
//	tiers:
//	  table: app.posts_by_tag_tiers
//	  default: {bucket: month}
//	  hot: {bucket: hour, shards: 2}
//	  promote_over: 200/day
//
// A key's tier is data, not code: a row of the tier table (one per change, newest first)
// says from which instant the key is on which bucket width and shard count, and a key with
// no row is on the default tier. No single scheme serves a skewed table: a bucket fine
// enough for its busiest key makes the typical key's read walk thousands of empty
// partitions, one coarse enough for the typical key breaks the limits at the head. Tiers
// give each its own.
type TierPlan struct {
	// Table is the tier table, keyspace.table:
	//   CREATE TABLE app.posts_by_tag_tiers (tag text, since timestamp, tier text,
	//     bucket text, shards int, PRIMARY KEY ((tag), since)) WITH CLUSTERING ORDER BY (since DESC)
	Table string
	// Query is the query table whose keys it tiers, keyspace.table.
	Query string
	// KeyColumns are the query table's partition-key columns other than the bucket and the
	// shard, in key order: the tier table's partition key.
	KeyColumns []string
	KeyTypes   []cql.Type // the key columns' types, in the same order
	// BucketColumn is the query table's partition-key column a time function fills
	// (bucket=month(created_at)); TimeColumn the entity column it reads.
	BucketColumn, TimeColumn string
	// ShardColumn is the partition-key column shard() fills, "" when the table has none;
	// ShardSource the entity column it hashes.
	ShardColumn, ShardSource string
	// Tiers are the schemes by name, the default among them (DefaultTier). Every scheme is
	// in UTC, as the derive rules' are.
	Tiers map[string]bucket.Tier
	// PromoteOver is the rate of rows a key (all its shards) above which it belongs on a
	// hotter tier: the threshold the design's estimate gives. Zero when the plan names none.
	PromoteOver workload.Rate
	// Lead is how far ahead of the promoter's clock a change takes effect, at the least
	// (zero: TierLead). Writers reuse a key's tiers for up to Tiers.CacheFor, which must
	// stay under half of it: the other half covers the writers' clocks running ahead.
	Lead time.Duration
}

// TierLead is the least time between a promotion and the instant it takes effect: twice
// MaxTierCache, so that a writer still holding the key's old tiers (for at most
// MaxTierCache) has stopped using them before the change, even with its clock a minute
// ahead of the promoter's.
const TierLead = 2 * time.Minute

func (tp *TierPlan) lead() time.Duration {
	if tp.Lead > 0 {
		return tp.Lead
	}
	return TierLead
}

// Default returns the tier of a key with no row in the tier table.
func (tp *TierPlan) Default() bucket.Tier { return tp.Tiers[DefaultTier] }

// Tier returns the named tier.
func (tp *TierPlan) Tier(name string) (bucket.Tier, bool) {
	t, ok := tp.Tiers[name]
	return t, ok
}

// Names returns the tier names, the default first, then by name.
func (tp *TierPlan) Names() []string {
	out := []string{DefaultTier}
	for n := range tp.Tiers {
		if n != DefaultTier {
			out = append(out, n)
		}
	}
	sort.Strings(out[1:])
	return out
}

// tierName is what a tier may be called: it is stored in the tier table and typed in
// `cqlsize tier promote`.
var tierName = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`)

// parseTierPlan reads the tiers: of one write plan entry. rules are the entry's compiled
// derive rules for the query table; at turns a node into file:line:col.
func parseTierPlan(schema *cql.Schema, p *derive.Program, v *yaml.Node, at func(*yaml.Node) cql.Pos) (*TierPlan, error) {
	dst := p.TargetTable()
	tp := &TierPlan{Query: dst.QualifiedName(), Tiers: map[string]bucket.Tier{}}
	if v.Kind != yaml.MappingNode {
		return nil, cql.Errorf(at(v), "write plan: %s: tiers: want a mapping {table, default, <tier>: {bucket, shards}, promote_over}", tp.Query)
	}
	bucketRule, shardRule, err := tierColumns(p, tp)
	if err != nil {
		return nil, cql.Errorf(at(v), "write plan: %s: tiers: %v", tp.Query, err)
	}
	ruleWidth := map[derive.Func]bucket.Width{derive.Year: bucket.Year(), derive.Month: bucket.Month(), derive.Week: bucket.ISOWeek(),
		derive.Day: bucket.Day(), derive.Hour: bucket.Hour(), derive.Minute: bucket.Minute()}[bucketRule.Expr.Func]
	ruleShards := 1
	if shardRule != nil {
		ruleShards = shardRule.Expr.Shards
	}

	var errs []error
	fail := func(n *yaml.Node, format string, args ...any) {
		errs = append(errs, cql.Errorf(at(n), "write plan: %s: tiers: "+format, append([]any{tp.Query}, args...)...))
	}
	var tableNode *yaml.Node
	var defaultSeen bool
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		switch k.Value {
		case "table":
			tp.Table, tableNode = val.Value, val
		case "promote_over":
			r, err := workload.ParseRate(val.Value)
			if err != nil || r.Count <= 0 {
				if err == nil {
					err = errors.New("must be positive")
				}
				fail(val, "promote_over: %v", err)
				continue
			}
			tp.PromoteOver = r
		default:
			if !tierName.MatchString(k.Value) {
				fail(k, "%q: a tier name is lower-case letters, digits, - and _ (up to 32), starting with a letter; or table, promote_over", k.Value)
				continue
			}
			t, ok := tierSpec(val, k.Value, fail)
			if !ok {
				continue
			}
			if k.Value == DefaultTier {
				defaultSeen = true
				// The default is the scheme the rules already write: it may restate it,
				// never contradict it, or a key with no row would be written by one
				// scheme and read by another.
				if t.Scheme == (bucket.Scheme{}) {
					t.Scheme, _ = bucket.New(ruleWidth)
				} else if t.Scheme.Width() != ruleWidth {
					fail(val, "default bucket %s, but the rule %s=%s cuts %s buckets: make them agree", t.Scheme.Width(), tp.BucketColumn, bucketRule.Expr, ruleWidth)
					continue
				}
				if t.Shards == 0 {
					t.Shards = ruleShards
				} else if t.Shards != ruleShards {
					fail(val, "default shards %d, but the rules write %d: make them agree", t.Shards, ruleShards)
					continue
				}
			} else if t.Scheme == (bucket.Scheme{}) {
				fail(val, "tier %s: no bucket (want a width such as hour, day or 15m)", k.Value)
				continue
			}
			t.Shards = max(t.Shards, 1)
			if t.Shards > 1 && tp.ShardColumn == "" {
				fail(val, "tier %s has %d shards, but the table has no shard column (a partition-key column derived by shard(id, N))", k.Value, t.Shards)
				continue
			}
			tp.Tiers[k.Value] = t
		}
	}
	if tableNode == nil || tp.Table == "" {
		fail(v, "want table: the tier table (keyspace.%s_tiers)", dst.Name)
	} else if t, err := checkTierTable(schema, tp); err != nil {
		errs = append(errs, cql.Errorf(at(tableNode), "write plan: %s: tiers: %v", tp.Query, err))
	} else {
		tp.Table = t.QualifiedName() // as the statements name it, whatever keyspace the plan left implied
	}
	if !defaultSeen {
		t, _ := bucket.New(ruleWidth)
		tp.Tiers[DefaultTier] = bucket.Tier{Name: DefaultTier, Scheme: t, Shards: ruleShards}
	}
	if len(tp.Tiers) < 2 && len(errs) == 0 {
		fail(v, "no tier besides the default: name one, such as hot: {bucket: hour, shards: 2}")
	}
	if len(errs) == 0 {
		if err := checkTierBoundaries(tp); err != nil {
			fail(v, "%v", err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return tp, nil
}

// tierColumns finds the bucket and shard columns of p's table: the partition-key columns
// the rules cut from a time and hash. Every other partition-key column names the key
// (tp.KeyColumns, tp.KeyTypes).
func tierColumns(p *derive.Program, tp *TierPlan) (bucketRule, shardRule *derive.Target, err error) {
	for _, t := range p.Columns() {
		if t.Kind != cql.PartitionKey || !t.Derived {
			continue
		}
		switch t.Expr.Func {
		case derive.Year, derive.Month, derive.Week, derive.Day, derive.Hour, derive.Minute:
			if bucketRule != nil {
				return nil, nil, fmt.Errorf("two bucket columns (%s and %s): a key on tiers has one", bucketRule.Column, t.Column)
			}
			bucketRule = &t
		case derive.Shard:
			shardRule = &t
		}
	}
	if bucketRule == nil {
		return nil, nil, errors.New("the table has no bucket column: a partition-key column derived by a time function such as bucket=month(created_at)")
	}
	if !isNativeType(bucketRule.Type, "text", "ascii", "timestamp") {
		return nil, nil, fmt.Errorf("bucket column %s is %s: a key on tiers needs a text label or a timestamp start, which every width can fill", bucketRule.Column, bucketRule.Type)
	}
	tp.BucketColumn, tp.TimeColumn = bucketRule.Column, bucketRule.Expr.Column
	if shardRule != nil {
		tp.ShardColumn, tp.ShardSource = shardRule.Column, shardRule.Expr.Column
	}
	for _, c := range p.TargetTable().PartitionKey {
		if c.Name != tp.BucketColumn && c.Name != tp.ShardColumn {
			tp.KeyColumns = append(tp.KeyColumns, c.Name)
			tp.KeyTypes = append(tp.KeyTypes, c.Type)
		}
	}
	return bucketRule, shardRule, nil
}

// checkTierBoundaries refuses two tiers whose buckets never start together: a promotion
// takes effect where the old and the new scheme both start a bucket, so such a pair could
// never change a key's tier.
func checkTierBoundaries(tp *TierPlan) error {
	probe := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	names := tp.Names()
	for i, a := range names {
		for _, b := range names[i+1:] {
			if _, err := bucket.PromotionBoundary(tp.Tiers[a], tp.Tiers[b], probe); err != nil {
				return fmt.Errorf("tiers %s and %s: %v", a, b, err)
			}
		}
	}
	return nil
}

// tierSpec reads {bucket: WIDTH, shards: N}. A missing bucket is the zero Scheme and a
// missing shard count 0, for the caller to fill or refuse.
func tierSpec(v *yaml.Node, name string, fail func(*yaml.Node, string, ...any)) (bucket.Tier, bool) {
	t := bucket.Tier{Name: name}
	if v.Kind != yaml.MappingNode {
		fail(v, "tier %s: want {bucket: WIDTH, shards: N}", name)
		return t, false
	}
	ok := true
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		switch k.Value {
		case "bucket":
			w, err := bucket.ParseWidth(val.Value)
			if err != nil {
				fail(val, "tier %s: %v", name, err)
				ok = false
				continue
			}
			t.Scheme, _ = bucket.New(w) // ParseWidth returns only valid widths
		case "shards":
			n, err := strconv.Atoi(val.Value)
			if err != nil || n < 1 || n > MaxShards {
				fail(val, "tier %s: shards %q: want a whole number from 1 to %d", name, val.Value, MaxShards)
				ok = false
				continue
			}
			t.Shards = n
		default:
			fail(k, "tier %s: unknown field %q (want bucket, shards)", name, k.Value)
			ok = false
		}
	}
	return t, ok
}

// checkTierTable checks that the schema's tier table has the layout the runtime reads:
// the key columns as its partition key, since as its one clustering column, newest first,
// and tier, bucket and shards.
func checkTierTable(schema *cql.Schema, tp *TierPlan) (*cql.Table, error) {
	t, ok := schema.FindTable(tp.Table)
	if !ok {
		return nil, fmt.Errorf("tier table %s is not in the schema (the design's migration creates it)", tp.Table)
	}
	want := tierTableDDL(t.Keyspace, t.Name, tp, nil)
	bad := func(why string) error { return fmt.Errorf("tier table %s %s; want %s", tp.Table, why, want) }
	if len(t.PartitionKey) != len(tp.KeyColumns) {
		return nil, bad(fmt.Sprintf("has %d partition-key columns, the key has %d", len(t.PartitionKey), len(tp.KeyColumns)))
	}
	for i, c := range t.PartitionKey {
		if c.Name != tp.KeyColumns[i] {
			return nil, bad(fmt.Sprintf("partition-key column %d is %s, the query table's is %s", i+1, c.Name, tp.KeyColumns[i]))
		}
	}
	if len(t.Clustering) != 1 || t.Clustering[0].Name != "since" || !isNativeType(t.Clustering[0].Type, "timestamp") || t.Clustering[0].Order != cql.Desc {
		return nil, bad("does not cluster by since timestamp DESC")
	}
	for name, typ := range map[string]string{"tier": "text", "bucket": "text", "shards": "int"} {
		c := t.Column(name)
		if c == nil || c.Kind != cql.Regular || !isNativeType(c.Type, typ) {
			return nil, bad(fmt.Sprintf("has no regular column %s %s", name, typ))
		}
	}
	return t, nil
}

// tierTableDDL is the CREATE TABLE of a tier table; types gives the key columns' types
// (nil: written as <type>).
func tierTableDDL(ks, name string, tp *TierPlan, types map[string]string) string {
	var cols []string
	for _, k := range tp.KeyColumns {
		typ := types[k]
		if typ == "" {
			typ = "<type>"
		}
		cols = append(cols, cql.QuoteName(k)+" "+typ)
	}
	keys := make([]string, len(tp.KeyColumns))
	for i, k := range tp.KeyColumns {
		keys[i] = cql.QuoteName(k)
	}
	return fmt.Sprintf("CREATE TABLE %s.%s (%s, since timestamp, tier text, bucket text, shards int, PRIMARY KEY ((%s), since)) WITH CLUSTERING ORDER BY (since DESC)",
		cql.QuoteName(ks), cql.QuoteName(name), strings.Join(cols, ", "), strings.Join(keys, ", "))
}

func isNativeType(t cql.Type, names ...string) bool {
	if t.Kind != cql.Native {
		return false
	}
	for _, n := range names {
		if t.Name == n {
			return true
		}
	}
	return false
}
