package disk_test

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/sizing/disk"
)

// Predict a table's disk size from sampled rows: the values as the driver returns them,
// compressed as the table's compression option says.
func Example() {
	schema := cql.NewSchema()
	ddl := `CREATE KEYSPACE shop WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
CREATE TABLE shop.orders (id int PRIMARY KEY, status text, note text)
  WITH compression = {'class': 'ZstdCompressor', 'chunk_length_in_kb': 16};`
	if err := schema.ApplyFile("schema.cql", []byte(ddl)); err != nil {
		fmt.Println(err)
		return
	}
	table := schema.Table("shop", "orders")

	var sample []disk.Partition
	for i := 0; i < 1000; i++ {
		ts := int64(1_700_000_000_000_000 + i*1000)
		sample = append(sample, disk.Partition{
			Key: [][]byte{binary.BigEndian.AppendUint32(nil, uint32(i))},
			Rows: []disk.Row{{Cells: map[string]disk.Cell{
				"status": {Value: []byte([]string{"new", "paid", "shipped"}[i%3]), Timestamp: ts},
				"note":   {Value: []byte(strings.Repeat("leave at the door ", 1+i%4)), Timestamp: ts},
			}}},
		})
	}
	c, err := disk.CompressionFromOptions(table.Options.Compression)
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := disk.Predict(table, sample, c)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s, %d KiB chunks: %d partitions, Data.db %.0f bytes uncompressed\n", c.Class, c.ChunkLengthKB, p.Partitions, p.Uncompressed)
	fmt.Printf("compressed to less than a fifth: %v\n", p.Ratio < 0.2)
	est := p.Scale(10_000_000)
	fmt.Printf("10M partitions: %.0f MB uncompressed\n", est.Uncompressed/1e6)
	// Output:
	// ZstdCompressor, 16 KiB chunks: 1000 partitions, Data.db 78647 bytes uncompressed
	// compressed to less than a fifth: true
	// 10M partitions: 786 MB uncompressed
}
