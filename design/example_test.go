package design_test

import (
	"fmt"
	"log"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/design"
	"github.com/cqlsize/cqlsize/workload"
)

// A customer's last orders: 50,000 orders a day kept five years over ten million
// customers is nine orders a customer, so the table needs no bucket; a store's orders,
// 2,000 stores with a Zipf head, need one.
func Example() {
	schema := cql.NewSchemaIn("app")
	if err := schema.ApplyFile("entities.cql", []byte(`CREATE TABLE orders (
		order_id timeuuid PRIMARY KEY, customer_id uuid, store_id int, created_at timestamp, total_cents bigint);`)); err != nil {
		log.Fatal(err)
	}
	var queries []design.Query
	for name, text := range map[string]string{
		"customer_orders": "SELECT order_id, total_cents FROM orders WHERE customer_id = ? ORDER BY created_at DESC LIMIT 20",
		"store_orders":    "SELECT order_id, total_cents FROM orders WHERE store_id = ? ORDER BY created_at DESC LIMIT 20",
	} {
		st, err := cql.Parse("queries.cql", []byte(text))
		if err != nil {
			log.Fatal(err)
		}
		queries = append(queries, design.Query{Name: name, Stmt: st.(*cql.Select)})
	}
	rows, _ := workload.ParseRate("50k/day")
	vols := &design.Volumes{File: "volumes.yaml", Entities: []*design.Entity{{
		Name: "orders", Rows: rows, Retention: 5 * workload.Year,
		Columns: map[string]design.ColumnVolume{
			"customer_id": {Distinct: 10e6},
			"store_id":    {Distinct: 2000, Skew: workload.Skew{Kind: workload.Zipf, S: 1.1}},
		},
	}}}
	d, err := design.Run(design.Input{Schema: schema, Queries: queries, Volumes: vols})
	if err != nil {
		log.Fatal(err)
	}
	for _, q := range d.Queries {
		bucket := q.Bucket
		if bucket == "" {
			bucket = "none"
		}
		fmt.Printf("%s: %s, partition key %v, bucket %s\n", q.Name, q.Table, q.PartitionKey, bucket)
	}
	// Unordered output:
	// customer_orders: app.orders_by_customer_id, partition key [customer_id], bucket none
	// store_orders: app.orders_by_store_id, partition key [store_id week], bucket iso-week
}
