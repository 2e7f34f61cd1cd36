package accuracy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/cqlsize/cqlsize/internal/figures"
)

// The shape corpus: tables loaded by testdata/corpus.py, a Python program on the DataStax
// driver that shares no code with the model or with this package's generator, in shapes the
// generator never makes (sparse rows, wide rows of doubles, several TTLs, expired cells,
// deletes at the head and spread, static-only partitions, big blobs, UDTs, frozen
// collections, counters), each under three compressors. `cqlsize profile` reads them as it
// would read a stranger's cluster and `cqlsize estimate` sizes them from the workload file it
// writes; sstablepartitions and the Data.db files are the truth.
var (
	CorpusPartitionBound = figures.MustBound("corpus-partition") // mean partition, estimate vs sstablepartitions
	CorpusDiskBound      = figures.MustBound("corpus-disk")      // compressed Data.db, estimate × compression_ratio vs the files
	// CorpusDiskLZ4Bound holds the LZ4 tables' Data.db closer: sizing/disk reproduces the
	// node's LZ4 byte for byte, so what is left is the rows the workload describes.
	CorpusDiskLZ4Bound = figures.MustBound("corpus-disk-lz4")
)

// CorpusTable is what corpus.py says it wrote into one table.
type CorpusTable struct {
	Shape      string         `json:"shape"`
	Compressor string         `json:"compressor"` // lz4, zstd, deflate or snappy
	Partitions int            `json:"partitions"`
	Rows       int            `json:"rows"`         // live rows at the end
	Deleted    int            `json:"deleted_rows"` // rows deleted (by row or range deletes)
	Ranges     int            `json:"range_deletes"`
	RowDeletes int            `json:"row_deletes"`
	Expired    int            `json:"expired_rows"` // rows written with a TTL that has run out
	TTLs       map[string]int `json:"ttls"`         // rows written per TTL in seconds ("0": none)
}

// LoadCorpus runs corpus.py (at script, with python) against hosts into keyspace, which
// must exist and be empty, and returns what it wrote, by table. It returns once the short
// TTLs have run out; the tables are not flushed. log is what the script said of its time.
func LoadCorpus(ctx context.Context, python, script string, hosts []string, keyspace string, seed int, shapes ...string) (tables map[string]CorpusTable, log string, err error) {
	args := append([]string{script, strings.Join(hosts, ","), keyspace, fmt.Sprint(seed)}, shapes...)
	cmd := exec.CommandContext(ctx, python, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w\n%s", script, err, stderr.String())
	}
	if err := json.Unmarshal(out, &tables); err != nil {
		return nil, "", fmt.Errorf("%s printed no manifest: %w\n%s", script, err, out)
	}
	return tables, strings.TrimSpace(stderr.String()), nil
}

// CorpusCheck is one corpus table's comparison, built on the profile check of the table.
type CorpusCheck struct {
	ProfileCheck
	Wrote CorpusTable
}

// Figures are the corpus table's two held figures: the mean partition estimate sizes from
// the profile's workload file against sstablepartitions' mean, and its compressed Data.db
// against the files.
func (c CorpusCheck) Figures() []Figure {
	mean := float64(c.Truth.DataBytes) / float64(c.Truth.Partitions)
	disk := Figure{Name: "Data.db compressed", Key: "data-db", Truth: float64(c.Truth.DataDiskBytes),
		Got: c.Estimate.TotalBytes * c.Workload.CompressionRatio, Bound: CorpusDiskBound}
	if c.Wrote.Compressor == "lz4" {
		disk.Bound = CorpusDiskLZ4Bound
	}
	if c.Workload.CompressionRatio <= 0 {
		disk.Skip = "the workload file has no compression_ratio"
	}
	return []Figure{
		{Name: "mean partition", Key: "partition", Truth: mean, Got: c.Estimate.Mean.Bytes, Bound: CorpusPartitionBound},
		disk,
	}
}

// CorpusFigures are the checks' figures as internal/figures records them, "corpus/TABLE/KEY".
func CorpusFigures(checks []CorpusCheck) (held, shown map[string]float64, why map[string]string) {
	held, shown, why = map[string]float64{}, map[string]float64{}, map[string]string{}
	for _, c := range checks {
		sortFigures("corpus/"+c.Loaded.Table.Name+"/", c.Figures(), held, shown, why)
	}
	return held, shown, why
}

// WriteCorpusTable prints the corpus check, a line a table, marking a missed bound.
func WriteCorpusTable(w io.Writer, checks []CorpusCheck) error {
	sort.Slice(checks, func(i, j int) bool { return checks[i].Loaded.Table.Name < checks[j].Loaded.Table.Name })
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "table\tpartitions\tlive rows\tdeleted/expired rows\ttombstones profiled\tmean partition true/estimate\tData.db true/estimate\tratio true/profile\t")
	for _, c := range checks {
		f := c.Figures()
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d/%d\t%.0f\t%.0f/%.0f %s\t%.0f/%.0f %s\t%.3f/%.3f\t\n",
			c.Loaded.Table.Name, c.Truth.Partitions, c.Wrote.Rows, c.Wrote.Deleted, c.Wrote.Expired,
			c.Profile.Tombstones.PerPartition,
			f[0].Truth, f[0].Got, mark(f[0]), f[1].Truth, f[1].Got, mark(f[1]),
			c.Truth.CompressedRatio, c.Workload.CompressionRatio)
	}
	return tw.Flush()
}
