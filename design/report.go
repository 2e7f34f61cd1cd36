package design

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/sizing"
)

// JSONVersion is the version of the JSON report (docs/design-json.md): it changes only when
// a field changes meaning or goes away; new fields may appear within a version.
const JSONVersion = 1

// Files names what a design wrote into its output folder.
type Files struct {
	Migration string `json:"migration"`
	Queries   string `json:"queries"`
	Workload  string `json:"workload"`
	WritePlan string `json:"write_plan"`
}

type jsonReport struct {
	Version int         `json:"version"`
	Target  string      `json:"target"`
	Sized   bool        `json:"sized"`
	Tables  []jsonTable `json:"tables"`
	Queries []jsonQuery `json:"queries"`
	Files   *Files      `json:"files,omitempty"`
}

type jsonTable struct {
	Name         string       `json:"name"`
	Entity       string       `json:"entity"`
	Queries      []string     `json:"queries"`
	Home         bool         `json:"home"`
	PartitionKey []string     `json:"partition_key"`
	Clustering   []string     `json:"clustering"`
	Bucket       string       `json:"bucket"`
	BucketColumn string       `json:"bucket_column,omitempty"`
	TimeColumn   string       `json:"time_column,omitempty"`
	Shards       int          `json:"shards"`
	TTLSeconds   int          `json:"ttl_seconds"`
	Compaction   string       `json:"compaction"`
	Derive       []string     `json:"derive"`
	Partition    *jsonSizes   `json:"partition,omitempty"`
	Reasons      []string     `json:"reasons"`
	Notes        []string     `json:"notes"`
	CreateTable  string       `json:"create_table"`
	Verdict      string       `json:"verdict,omitempty"`
	Findings     []jsonFinder `json:"findings,omitempty"`
	Tiers        *jsonTiers   `json:"tiers,omitempty"`
	Replicas     *jsonReplica `json:"replicas,omitempty"`
}

// jsonReplica is a table's bytes on every copy: the fields of estimate's replicas
// (docs/estimate-json.md), with one replica's bytes beside them.
type jsonReplica struct {
	Replication  string      `json:"replication"`
	Class        string      `json:"class"`
	TotalBytes   float64     `json:"total_bytes"`
	DataCenters  []jsonDCRep `json:"data_centers"`
	ClusterBytes float64     `json:"cluster_bytes"`
	ClusterKnown bool        `json:"cluster_known"`
}

type jsonDCRep struct {
	Name              string  `json:"name,omitempty"`
	ReplicationFactor int     `json:"replication_factor"`
	Bytes             float64 `json:"bytes"`
	Nodes             int     `json:"nodes,omitempty"`
	NodeBytes         float64 `json:"node_bytes,omitempty"`
}

type jsonTiers struct {
	Table       string   `json:"table"`
	CreateTable string   `json:"create_table"`
	Default     jsonTier `json:"default"`
	Hot         jsonTier `json:"hot"`
	// PromoteOver is the rate of one key above which it needs the hot tier, as a workload
	// rate ("5.69/hour") and in rows a second.
	PromoteOver          string  `json:"promote_over"`
	PromoteOverPerSecond float64 `json:"promote_over_per_second"`
	HotKeys              float64 `json:"hot_keys"`
	Keys                 float64 `json:"keys"`
	// HotPartition is the busiest key's partition on the hot tier.
	HotPartition jsonLargest `json:"hot_partition"`
	// EdgePartitionsPerRead is what a read of a key just over the threshold visits.
	EdgePartitionsPerRead float64 `json:"edge_partitions_per_read"`
}

type jsonLargest struct {
	Rows   float64 `json:"largest_rows"`
	Values float64 `json:"largest_values"`
	Bytes  float64 `json:"largest_bytes"`
}

type jsonTier struct {
	Bucket string `json:"bucket"`
	Shards int    `json:"shards"`
}

// jsonRead is one read's partitions (or rows) for the typical, the p99 and the busiest key.
type jsonRead struct {
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

type jsonSizes struct {
	P99Rows      float64 `json:"p99_rows"`
	P99Values    float64 `json:"p99_values"`
	P99Bytes     float64 `json:"p99_bytes"`
	LargestRows  float64 `json:"largest_rows"`
	LargestValue float64 `json:"largest_values"`
	LargestBytes float64 `json:"largest_bytes"`
}

type jsonFinder struct {
	Code     string `json:"code"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

type jsonQuery struct {
	Name         string   `json:"name"`
	Table        string   `json:"table"`
	PartitionKey []string `json:"partition_key"`
	Bucket       string   `json:"bucket"`
	Shards       int      `json:"shards"`
	Query        string   `json:"query"`
	Reads        string   `json:"reads,omitempty"`
	// The read cost (sized designs only): partitions and rows one read visits, and the
	// partition reads a second the query's rate asks (rate × the p50 read's partitions).
	PartitionsPerRead       *jsonRead `json:"partitions_per_read,omitempty"`
	RowsPerRead             *jsonRead `json:"rows_per_read,omitempty"`
	EmptyPartitionsPerRead  *jsonRead `json:"empty_partitions_per_read,omitempty"`
	PartitionReadsPerSecond *float64  `json:"partition_reads_per_second,omitempty"`
}

// WriteJSON writes the design as the versioned JSON report.
func (d *Design) WriteJSON(w io.Writer, files *Files) error {
	r := jsonReport{Version: JSONVersion, Target: string(d.target()), Files: files, Tables: []jsonTable{}, Queries: []jsonQuery{}}
	for _, t := range d.Tables {
		jt := jsonTable{Name: t.Table.QualifiedName(), Entity: t.Entity.QualifiedName(), Queries: nonNil(t.Queries), Home: t.Home, Bucket: t.Bucket,
			BucketColumn: t.BucketColumn, TimeColumn: t.TimeColumn, Shards: t.Shards, TTLSeconds: t.Table.Options.DefaultTTL,
			Compaction: t.Table.Options.CompactionClass(), Reasons: nonNil(t.Reasons), Notes: nonNil(t.Notes), CreateTable: t.Table.CreateStatement(true)}
		for _, c := range t.Table.PartitionKey {
			jt.PartitionKey = append(jt.PartitionKey, c.Name)
		}
		jt.Clustering = []string{}
		for _, c := range t.Table.Clustering {
			jt.Clustering = append(jt.Clustering, c.Name+" "+c.Order.String())
		}
		for _, dv := range t.Derive {
			jt.Derive = append(jt.Derive, dv.Column+"="+dv.Expr)
		}
		if e := t.Estimate; e != nil {
			r.Sized = true
			r6 := func(v float64) float64 { return math.Round(v*10) / 10 }
			jt.Partition = &jsonSizes{r6(e.P99.Rows), r6(e.P99.StoredValues), math.Round(e.P99.Bytes), r6(e.Largest.Rows), r6(e.Largest.StoredValues), math.Round(e.Largest.Bytes)}
			jt.Verdict = e.Verdict.String()
			for _, f := range e.Findings {
				jt.Findings = append(jt.Findings, jsonFinder{f.Code, f.Severity.String(), f.Message})
			}
		}
		if rp := t.Replicas; rp != nil {
			jr := &jsonReplica{Replication: rp.Replication.String(), Class: rp.Replication.Class, TotalBytes: math.Round(rp.OneReplica),
				DataCenters: []jsonDCRep{}, ClusterBytes: math.Round(rp.Cluster), ClusterKnown: rp.ClusterKnown}
			for _, dc := range rp.DCs {
				jr.DataCenters = append(jr.DataCenters, jsonDCRep{dc.DC, dc.RF, math.Round(dc.Bytes), dc.Nodes, math.Round(dc.NodeBytes)})
			}
			jt.Replicas = jr
		}
		if tt := t.Tiers; tt != nil {
			jt.Tiers = &jsonTiers{Table: tt.Table, CreateTable: tt.CreateTable, Default: jsonTier{tt.Default.Bucket, max(1, tt.Default.Shards)},
				Hot: jsonTier{tt.Hot.Bucket, max(1, tt.Hot.Shards)}, PromoteOver: perKey(tt.Threshold).String(),
				PromoteOverPerSecond: round4(tt.Threshold), HotKeys: tt.HotKeys, Keys: tt.Keys,
				HotPartition:          jsonLargest{math.Round(tt.HotLargest.Rows*10) / 10, math.Round(tt.HotLargest.StoredValues*10) / 10, math.Round(tt.HotLargest.Bytes)},
				EdgePartitionsPerRead: math.Round(tt.EdgeRead.Partitions*10) / 10}
		}
		r.Tables = append(r.Tables, jt)
	}
	for _, q := range d.Queries {
		jq := jsonQuery{Name: q.Name, Table: q.Table, PartitionKey: q.PartitionKey, Bucket: q.Bucket, Shards: q.Shards, Query: q.Text, Reads: q.Reads}
		if c := q.Cost; c != nil {
			r1 := func(v float64) float64 { return math.Round(v*10) / 10 }
			jq.PartitionsPerRead = &jsonRead{r1(c.Typical.Partitions), r1(c.P99.Partitions), r1(c.Busiest.Partitions)}
			jq.RowsPerRead = &jsonRead{r1(c.Typical.Rows), r1(c.P99.Rows), r1(c.Busiest.Rows)}
			jq.EmptyPartitionsPerRead = &jsonRead{r1(c.Typical.Empty), r1(c.P99.Empty), r1(c.Busiest.Empty)}
			pr := r1(c.PartitionReads)
			jq.PartitionReadsPerSecond = &pr
		}
		r.Queries = append(r.Queries, jq)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // a query's > and < as written
	return enc.Encode(r)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (d *Design) target() string {
	if d.Target == "" {
		return "cassandra-5.0"
	}
	return string(d.Target)
}

// WriteText writes the design for a person: each table with the patterns it serves, its
// key and the reasons, then each query as rewritten.
func (d *Design) WriteText(w io.Writer, files *Files) error {
	ew := &errWriter{w: w}
	for i, t := range d.Tables {
		if i > 0 {
			ew.printf("\n")
		}
		ew.printf("%s  (%s)\n", t.Table.QualifiedName(), t.serves())
		ew.printf("  key: %s\n", keyText(t.Table))
		for _, r := range t.Reasons {
			ew.printf("  - %s\n", r)
		}
		for _, n := range t.Notes {
			ew.printf("  cost: %s\n", n)
		}
		if t.Replicas != nil {
			ew.printf("  replicas: %s\n", replicasText(t.Replicas))
		}
	}
	ew.printf("\nQueries:\n")
	for _, q := range d.Queries {
		ew.printf("  %s -> %s\n    %s\n", q.Name, q.Table, q.Text)
		if q.Reads != "" {
			ew.printf("    reads %s\n", q.Reads)
		}
		if q.Cost != nil {
			ew.printf("    cost: %s\n", costText(q))
		}
	}
	if files != nil {
		ew.printf("\nWrote %s, %s, %s and %s.\n", files.Migration, files.Queries, files.Workload, files.WritePlan)
	}
	return ew.err
}

// WriteMarkdown writes the design as a Markdown section.
func (d *Design) WriteMarkdown(w io.Writer, files *Files) error {
	ew := &errWriter{w: w}
	ew.printf("## Tables\n")
	for _, t := range d.Tables {
		ew.printf("\n### `%s`\n\n%s. Key: `%s`.\n\n", t.Table.QualifiedName(), upperFirst(t.serves()), keyText(t.Table))
		for _, r := range t.Reasons {
			ew.printf("- %s\n", r)
		}
		for _, n := range t.Notes {
			ew.printf("- Cost: %s\n", n)
		}
		if t.Replicas != nil {
			ew.printf("- Replicas: %s\n", replicasText(t.Replicas))
		}
	}
	ew.printf("\n## Queries\n\n| query | table | rewritten | partitions a read (p50 / p99 / busiest) | partition reads/s |\n|---|---|---|---|---|\n")
	for _, q := range d.Queries {
		parts, reads := "", ""
		if c := q.Cost; c != nil {
			parts = fmt.Sprintf("%s / %s / %s", sizing.FormatCount(c.Typical.Partitions), sizing.FormatCount(c.P99.Partitions), sizing.FormatCount(c.Busiest.Partitions))
			if q.Rate > 0 {
				reads = sizing.FormatCount(c.PartitionReads)
			}
		}
		ew.printf("| %s | `%s` | `%s` | %s | %s |\n", q.Name, q.Table, strings.ReplaceAll(q.Text, "|", `\|`), parts, reads)
	}
	if files != nil {
		ew.printf("\nWrote `%s`, `%s`, `%s` and `%s`.\n", files.Migration, files.Queries, files.Workload, files.WritePlan)
	}
	return ew.err
}

// costText is what one read of q costs: "a typical read visits 3 partitions (p99 1,
// busiest 1), 50 rows; 3000 partition reads a second at 1000/s".
func costText(q *Served) string {
	c := q.Cost
	s := readText(*c) + ", " + rowsText(c.Typical.Rows)
	if q.Rate > 0 {
		s += fmt.Sprintf("; %s partition reads a second at %s/s", sizing.FormatCount(c.PartitionReads), trimFloat(q.Rate))
	}
	return s
}

// keyText is PRIMARY KEY's contents: ((customer_id), created_at DESC, order_id).
func keyText(t *cql.Table) string {
	var pk []string
	for _, c := range t.PartitionKey {
		pk = append(pk, c.Name)
	}
	s := "((" + strings.Join(pk, ", ") + ")"
	for _, c := range t.Clustering {
		s += ", " + c.Name
		if c.Order == cql.Desc {
			s += " DESC"
		}
	}
	return s + ")"
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}

// Explain adds, to a queries file's parse error at an OR, why no table serves one: the
// parser stops there, and the user should learn what to write instead.
func Explain(err error) error {
	var ce *cql.Error
	if errors.As(err, &ce) && strings.Contains(ce.Msg, "found OR") {
		return cql.Errorf(ce.Pos, "%s: a query with OR asks for two keys at once, and a table is read by one partition key: write each alternative as a query of its own (two reads, merged by the service)", ce.Msg)
	}
	return err
}

// replicasText is a table's copies in one line: one replica's bytes, then the class and
// sizing's phrase for the copies.
func replicasText(r *sizing.Replicas) string {
	return fmt.Sprintf("%s on one replica; %s %s", sizing.FormatBytes(r.OneReplica), r.Replication.Class, r.Text())
}
