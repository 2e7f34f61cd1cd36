package orders_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/examples/internal/extest"
	"github.com/cqlsize/cqlsize/examples/orders"
)

func rowCount(t *testing.T, s *gocql.Session, q string, args ...any) int {
	t.Helper()
	iter := s.Query(q, args...).Iter()
	n := iter.NumRows()
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestOrders(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	extest.Migrate(t, s, "migrations")
	schema, err := orders.Schema(ks)
	if err != nil {
		t.Fatal(err)
	}
	st, err := orders.NewStore(s, ks)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	customer := gocql.TimeUUID()
	home := orders.Address{"123 Main", "NYC", "10001", "US"}
	if err := s.Query("INSERT INTO customers (customer_id, name, email, created_at) VALUES (?, 'Alice', 'alice@example.com', ?)", customer, time.Now()).Exec(); err != nil {
		t.Fatal(err)
	}
	for label, a := range map[string]orders.Address{"home": home, "work": {"456 Oak", "LA", "90001", "US"}} {
		if err := s.Query("INSERT INTO addresses_by_customer (customer_id, label, address) VALUES (?, ?, ?)", customer, label, a).Exec(); err != nil {
			t.Fatal(err)
		}
	}

	widget := orders.Product{ID: gocql.TimeUUID(), Name: "Blue Widget", Category: "tools", PriceCents: 999, Description: "a widget"}
	gadget := orders.Product{ID: gocql.TimeUUID(), Name: "Red Gadget 3000", Category: "tools", PriceCents: 2499}
	phone := orders.Product{ID: gocql.TimeUUID(), Name: "iPhone 15", Category: "electronics", PriceCents: 99900}
	for _, p := range []*orders.Product{&widget, &gadget, &phone} {
		if err := st.AddProduct(ctx, p); err != nil {
			t.Fatal(err)
		}
	}

	now := time.Now().UTC().Truncate(time.Millisecond)
	var placed []orders.Order
	for _, age := range []time.Duration{40 * 24 * time.Hour, 10 * 24 * time.Hour, time.Hour} {
		o := orders.Order{ID: gocql.UUIDFromTime(now.Add(-age)), CustomerID: customer, OrderedAt: now.Add(-age), Status: "shipped", ShipTo: home,
			Lines: []orders.Line{{widget.ID, widget.Name, 2, widget.PriceCents}, {phone.ID, phone.Name, 1, phone.PriceCents}}}
		plan, err := st.PlaceOrder(ctx, &o)
		if err != nil {
			t.Fatal(err)
		}
		if plan.Size.Mutations != 2 {
			t.Errorf("an order is %d mutations, want 2 (its customer's partition and its own)", plan.Size.Mutations)
		}
		placed = append(placed, o)
	}
	last := placed[len(placed)-1]

	rows := extest.RunQueries(t, s, schema, "queries.cql", map[string]any{
		"customer_id": customer, "order_id": last.ID, "category": "tools", "word": "widget",
		"ordered_at": now.Add(-30 * 24 * time.Hour),
	})
	for q, want := range map[string]int{
		"AP2_orders_by_customer": 3, "AP3_order_details": 2, "AP4_products_by_category": 2,
		"AP5_search_products_by_name": 1, "AP6_customer_addresses": 2, "AP7_order_history_30d": 2,
	} {
		if rows[q] != want {
			t.Errorf("%s: %d rows, want %d", q, rows[q], want)
		}
	}

	// AP3: the header comes with every line, from the static columns.
	iter := s.Query("SELECT line, status, total_cents, ship_to FROM order_details WHERE order_id = ?", last.ID).Iter()
	var lineNo int
	var status string
	var total int64
	var shipTo orders.Address
	for iter.Scan(&lineNo, &status, &total, &shipTo) {
		if status != "shipped" || total != last.Total() || shipTo != home {
			t.Errorf("line %d: header %q %d %+v", lineNo, status, total, shipTo)
		}
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	// The store's AP3 read gives the order back as it was placed.
	if got, err := st.OrderDetails(ctx, last.ID); err != nil || !sameOrder(got, &last) {
		t.Errorf("OrderDetails = %+v (%v), want %+v", got, err, last)
	}
	if _, err := st.OrderDetails(ctx, gocql.TimeUUID()); !errors.Is(err, orders.ErrNotFound) {
		t.Errorf("OrderDetails of no order: %v, want ErrNotFound", err)
	}
	// AP5 through the store: every word must match.
	if got := search(t, st, "WIDGET"); !slices.Equal(got, []string{"Blue Widget"}) {
		t.Errorf("search widget: %q", got)
	}
	if got := search(t, st, "red gadget"); !slices.Equal(got, []string{"Red Gadget 3000"}) {
		t.Errorf("search red gadget: %q", got)
	}

	// A rename moves the product between word partitions: "widget" goes, "gadget" gains it;
	// a new category moves it there.
	renamed := widget
	renamed.Name, renamed.Category = "Blue Gadget", "gadgets"
	if err := st.UpdateProduct(ctx, &widget, &renamed); err != nil {
		t.Fatal(err)
	}
	if n := rowCount(t, s, "SELECT * FROM products_by_word WHERE word = 'widget'"); n != 0 {
		t.Errorf("after the rename, 'widget' finds %d products", n)
	}
	if n := rowCount(t, s, "SELECT * FROM products_by_word WHERE word = 'gadget'"); n != 2 {
		t.Errorf("after the rename, 'gadget' finds %d products, want 2", n)
	}
	if n := rowCount(t, s, "SELECT * FROM products_by_word WHERE word = 'blue' AND name = 'Blue Gadget'"); n != 1 {
		t.Errorf("the unchanged word 'blue' lost the product")
	}
	if a, b := rowCount(t, s, "SELECT * FROM products_by_category WHERE category = 'tools'"), rowCount(t, s, "SELECT * FROM products_by_category WHERE category = 'gadgets'"); a != 1 || b != 1 {
		t.Errorf("after the move: tools %d, gadgets %d; want 1 and 1", a, b)
	}
	if got := search(t, st, "blue gadget"); !slices.Equal(got, []string{"Blue Gadget"}) {
		t.Errorf("search blue gadget after the rename: %q", got)
	}
	if got := search(t, st, "widget"); len(got) != 0 {
		t.Errorf("search widget after the rename: %q", got)
	}
}

// search returns the names of the products Store.Search finds for text.
func search(t *testing.T, st *orders.Store, text string) []string {
	t.Helper()
	found, err := st.Search(context.Background(), text)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range found {
		names = append(names, p.Name)
	}
	return names
}

// sameOrder compares orders field by field, times by instant.
func sameOrder(a, b *orders.Order) bool {
	return a.ID == b.ID && a.CustomerID == b.CustomerID && a.OrderedAt.Equal(b.OrderedAt) && a.Status == b.Status &&
		a.ShipTo == b.ShipTo && slices.Equal(a.Lines, b.Lines)
}

func TestWords(t *testing.T) {
	for name, want := range map[string][]string{
		"Blue Widget":      {"blue", "widget"},
		"Red Gadget 3000":  {"red", "gadget", "3000"},
		"Widget, widget!":  {"widget"},
		"Crème brûlée kit": {"crème", "brûlée", "kit"},
		"":                 nil,
	} {
		if got := orders.Words(name); !slices.Equal(got, want) {
			t.Errorf("Words(%q) = %q, want %q", name, got, want)
		}
	}
}
