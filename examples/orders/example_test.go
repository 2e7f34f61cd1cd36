package orders_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/examples/orders"
)

// An order of two lines is three rows: its summary under the customer, and a row per line
// with the header in the static columns of the first; the other lines leave those
// columns unset, so the header is written once. PlanInsert shows them without a cluster.
func ExampleOrderMappings() {
	st, err := orders.NewStore(nil, "app") // no session: plan only
	if err != nil {
		log.Fatal(err)
	}
	o := &orders.Order{ID: gocql.UUID{1}, CustomerID: gocql.UUID{2}, OrderedAt: time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC), Status: "placed",
		ShipTo: orders.Address{Street: "123 Main", City: "NYC", Zip: "10001", Country: "US"},
		Lines:  []orders.Line{{gocql.UUID{3}, "Blue Widget", 2, 999}, {gocql.UUID{4}, "iPhone 15", 1, 99900}}}
	plan, err := st.Orders.PlanInsert(o)
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range plan.Statements {
		unset := 0
		for _, a := range s.Args {
			if a == gocql.UnsetValue {
				unset++
			}
		}
		fmt.Println(s.CQL)
		fmt.Println("  unset:", unset)
	}
	fmt.Println(plan.Size.Mutations, "mutations, total", o.Total(), "cents")
	// Output:
	// INSERT INTO app.orders_by_customer (customer_id, ordered_at, order_id, status, total_cents, item_count) VALUES (?, ?, ?, ?, ?, ?) USING TIMESTAMP ?
	//   unset: 0
	// INSERT INTO app.order_details (order_id, line, customer_id, ordered_at, status, total_cents, ship_to, product_id, product_name, quantity, price_cents) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) USING TIMESTAMP ?
	//   unset: 0
	// INSERT INTO app.order_details (order_id, line, customer_id, ordered_at, status, total_cents, ship_to, product_id, product_name, quantity, price_cents) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) USING TIMESTAMP ?
	//   unset: 5
	// 2 mutations, total 101898 cents
}

// A product is written once per distinct word of its name; a search box is split the same
// way.
func ExampleWords() {
	fmt.Println(orders.Words("Red Gadget 3000"))
	fmt.Println(orders.Words("Widget, widget!"))
	// Output:
	// [red gadget 3000]
	// [widget]
}

// A service adds a product, finds it by a word of its name, and places an order. (Needs a
// cluster with the migrations applied: compiled, not run.)
func ExampleStore() {
	ctx := context.Background()
	session, err := connect.Open(ctx, connect.Config{Hosts: []string{"127.0.0.1"}})
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	st, err := orders.NewStore(session, "app")
	if err != nil {
		log.Fatal(err)
	}
	widget := &orders.Product{ID: gocql.TimeUUID(), Name: "Blue Widget", Category: "tools", PriceCents: 999}
	if err := st.AddProduct(ctx, widget); err != nil {
		log.Fatal(err)
	}
	found, err := st.Search(ctx, "widget")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(found), "found")
	now := time.Now()
	o := &orders.Order{ID: gocql.UUIDFromTime(now), CustomerID: gocql.TimeUUID(), OrderedAt: now, Status: "placed",
		Lines: []orders.Line{{widget.ID, widget.Name, 2, widget.PriceCents}}}
	if _, err := st.PlaceOrder(ctx, o); err != nil {
		log.Fatal(err)
	}
	details, err := st.OrderDetails(ctx, o.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(details.Status, details.Total())
}
