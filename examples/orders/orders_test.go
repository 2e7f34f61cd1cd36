package orders

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql/denorm"
	"github.com/cqlsize/cqlsize/examples/internal/extest"
)

type address struct {
	Street  string `cql:"street"`
	City    string `cql:"city"`
	Zip     string `cql:"zip"`
	Country string `cql:"country"`
}

type line struct {
	ProductID  gocql.UUID
	Name       string
	Quantity   int32
	PriceCents int64
}

type order struct {
	ID         gocql.UUID // timeuuid
	CustomerID gocql.UUID
	OrderedAt  time.Time
	Status     string
	ShipTo     address
	Lines      []line
}

func (o *order) total() (cents int64) {
	for _, l := range o.Lines {
		cents += int64(l.Quantity) * l.PriceCents
	}
	return cents
}

func orderMappings() []denorm.Mapping[order] {
	return []denorm.Mapping[order]{
		denorm.Map("orders_by_customer", func(o *order, out *denorm.Rows) error {
			out.Add().Set("customer_id", o.CustomerID).Set("ordered_at", o.OrderedAt).Set("order_id", o.ID).
				Set("status", o.Status).Set("total_cents", o.total()).Set("item_count", int32(len(o.Lines)))
			return nil
		}),
		denorm.Map("order_details", func(o *order, out *denorm.Rows) error {
			for i, l := range o.Lines {
				r := out.Add().Set("order_id", o.ID).Set("line", int32(i+1)).Set("product_id", l.ProductID).
					Set("product_name", l.Name).Set("quantity", l.Quantity).Set("price_cents", l.PriceCents)
				if i == 0 { // the header: static columns, once per partition
					r.Set("customer_id", o.CustomerID).Set("ordered_at", o.OrderedAt).Set("status", o.Status).
						Set("total_cents", o.total()).Set("ship_to", o.ShipTo)
				}
			}
			return nil
		}),
	}
}

type product struct {
	ID          gocql.UUID
	Name        string
	Category    string
	PriceCents  int64
	Description string
}

// words are the distinct lower-case words of a product name, the keys of products_by_word.
func words(name string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

func productMappings() []denorm.Mapping[product] {
	return []denorm.Mapping[product]{
		denorm.Map("products_by_id", func(p *product, out *denorm.Rows) error {
			out.Add().Set("product_id", p.ID).Set("name", p.Name).Set("category", p.Category).
				Set("price_cents", p.PriceCents).Set("description", p.Description)
			return nil
		}),
		denorm.Map("products_by_category", func(p *product, out *denorm.Rows) error {
			out.Add().Set("category", p.Category).Set("name", p.Name).Set("product_id", p.ID).Set("price_cents", p.PriceCents)
			return nil
		}),
		denorm.Map("products_by_word", func(p *product, out *denorm.Rows) error {
			for _, w := range words(p.Name) {
				out.Add().Set("word", w).Set("name", p.Name).Set("product_id", p.ID).Set("category", p.Category).Set("price_cents", p.PriceCents)
			}
			return nil
		}),
	}
}

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
	schema := extest.Schema(t, "migrations", ks)
	orders, err := denorm.New(s, schema, denorm.Options{Keyspace: ks}, orderMappings()...)
	if err != nil {
		t.Fatal(err)
	}
	products, err := denorm.New(s, schema, denorm.Options{Keyspace: ks}, productMappings()...)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	customer := gocql.TimeUUID()
	home := address{"123 Main", "NYC", "10001", "US"}
	if err := s.Query("INSERT INTO customers (customer_id, name, email, created_at) VALUES (?, 'Alice', 'alice@example.com', ?)", customer, time.Now()).Exec(); err != nil {
		t.Fatal(err)
	}
	for label, a := range map[string]address{"home": home, "work": {"456 Oak", "LA", "90001", "US"}} {
		if err := s.Query("INSERT INTO addresses_by_customer (customer_id, label, address) VALUES (?, ?, ?)", customer, label, a).Exec(); err != nil {
			t.Fatal(err)
		}
	}

	widget := product{ID: gocql.TimeUUID(), Name: "Blue Widget", Category: "tools", PriceCents: 999, Description: "a widget"}
	gadget := product{ID: gocql.TimeUUID(), Name: "Red Gadget 3000", Category: "tools", PriceCents: 2499}
	phone := product{ID: gocql.TimeUUID(), Name: "iPhone 15", Category: "electronics", PriceCents: 99900}
	for _, p := range []*product{&widget, &gadget, &phone} {
		if _, err := products.Insert(ctx, p); err != nil {
			t.Fatal(err)
		}
	}

	now := time.Now().UTC().Truncate(time.Millisecond)
	var placed []order
	for _, age := range []time.Duration{40 * 24 * time.Hour, 10 * 24 * time.Hour, time.Hour} {
		o := order{ID: gocql.UUIDFromTime(now.Add(-age)), CustomerID: customer, OrderedAt: now.Add(-age), Status: "shipped", ShipTo: home,
			Lines: []line{{widget.ID, widget.Name, 2, widget.PriceCents}, {phone.ID, phone.Name, 1, phone.PriceCents}}}
		plan, err := orders.Insert(ctx, &o)
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
	var shipTo address
	for iter.Scan(&lineNo, &status, &total, &shipTo) {
		if status != "shipped" || total != last.total() || shipTo != home {
			t.Errorf("line %d: header %q %d %+v", lineNo, status, total, shipTo)
		}
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}

	// A rename moves the product between word partitions: "widget" goes, "gadget" gains it;
	// a new category moves it there.
	renamed := widget
	renamed.Name, renamed.Category = "Blue Gadget", "gadgets"
	if _, err := products.Update(ctx, &widget, &renamed); err != nil {
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
}

func TestWords(t *testing.T) {
	for name, want := range map[string][]string{
		"Blue Widget":      {"blue", "widget"},
		"Red Gadget 3000":  {"red", "gadget", "3000"},
		"Widget, widget!":  {"widget"},
		"Crème brûlée kit": {"crème", "brûlée", "kit"},
		"":                 nil,
	} {
		if got := words(name); !slices.Equal(got, want) {
			t.Errorf("words(%q) = %q, want %q", name, got, want)
		}
	}
}
