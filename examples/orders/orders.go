package orders

import (
	"context"
	"embed"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/denorm"
)

// Migrations holds the schema as numbered .cql files, so a service carries it in its binary.
//
//go:embed migrations/*.cql
var Migrations embed.FS

// Schema is the model of the migrations deployed to keyspace: denorm plans its writes from it.
func Schema(keyspace string) (*cql.Schema, error) {
	return cql.LoadSchemaFSIn(Migrations, "migrations", keyspace)
}

// ErrNotFound is an order that does not exist.
var ErrNotFound = denorm.ErrNotFound

// Address is the address user type, stored frozen: in a customer's address book
// (addresses_by_customer) and as an order's ship_to.
type Address struct {
	Street  string `cql:"street"`
	City    string `cql:"city"`
	Zip     string `cql:"zip"`
	Country string `cql:"country"`
}

// Line is one line of an order. The product's name and price are copied into it as they
// were when the order was placed.
type Line struct {
	ProductID  gocql.UUID
	Name       string
	Quantity   int32
	PriceCents int64
}

// Order is the entity of AP2, AP3 and AP7: its summary in the customer's order list, its
// header and lines in one partition of its own.
type Order struct {
	ID         gocql.UUID // a timeuuid
	CustomerID gocql.UUID
	OrderedAt  time.Time
	Status     string
	ShipTo     Address
	Lines      []Line
}

// Total is the order's amount in cents: money in minor units, exact and 8 bytes.
func (o *Order) Total() (cents int64) {
	for _, l := range o.Lines {
		cents += int64(l.Quantity) * l.PriceCents
	}
	return cents
}

// OrderMappings say how an order becomes rows: one summary row in orders_by_customer, and
// a row per line in order_details with the header in its static columns, written once.
func OrderMappings() []denorm.Mapping[Order] {
	return []denorm.Mapping[Order]{
		denorm.Map("orders_by_customer", func(o *Order, out *denorm.Rows) error {
			out.Add().Set("customer_id", o.CustomerID).Set("ordered_at", o.OrderedAt).Set("order_id", o.ID).
				Set("status", o.Status).Set("total_cents", o.Total()).Set("item_count", int32(len(o.Lines)))
			return nil
		}),
		denorm.Map("order_details", func(o *Order, out *denorm.Rows) error {
			for i, l := range o.Lines {
				r := out.Add().Set("order_id", o.ID).Set("line", int32(i+1)).Set("product_id", l.ProductID).
					Set("product_name", l.Name).Set("quantity", l.Quantity).Set("price_cents", l.PriceCents)
				if i == 0 { // the header: static columns, once per partition
					r.Set("customer_id", o.CustomerID).Set("ordered_at", o.OrderedAt).Set("status", o.Status).
						Set("total_cents", o.Total()).Set("ship_to", o.ShipTo)
				}
			}
			return nil
		}),
	}
}

// Product is the entity of AP4 and AP5.
type Product struct {
	ID          gocql.UUID
	Name        string
	Category    string
	PriceCents  int64
	Description string
}

// Words are the distinct lower-case words of a product name (letters and digits), in the
// order they first appear: the keys of products_by_word, and how a search box is split.
func Words(name string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// ProductMappings say how a product becomes rows: its page, its place in its category, and
// one row per word of its name for search.
func ProductMappings() []denorm.Mapping[Product] {
	return []denorm.Mapping[Product]{
		denorm.Map("products_by_id", func(p *Product, out *denorm.Rows) error {
			out.Add().Set("product_id", p.ID).Set("name", p.Name).Set("category", p.Category).
				Set("price_cents", p.PriceCents).Set("description", p.Description)
			return nil
		}),
		denorm.Map("products_by_category", func(p *Product, out *denorm.Rows) error {
			out.Add().Set("category", p.Category).Set("name", p.Name).Set("product_id", p.ID).Set("price_cents", p.PriceCents)
			return nil
		}),
		denorm.Map("products_by_word", func(p *Product, out *denorm.Rows) error {
			for _, w := range Words(p.Name) {
				out.Add().Set("word", w).Set("name", p.Name).Set("product_id", p.ID).Set("category", p.Category).Set("price_cents", p.PriceCents)
			}
			return nil
		}),
	}
}

// Store writes orders and products to their tables and reads them back.
type Store struct {
	// Orders writes an order to orders_by_customer and order_details in one logged batch.
	Orders *denorm.Model[Order]
	// Products writes a product to products_by_id, products_by_category and
	// products_by_word in one logged batch, and moves its rows when its name or category
	// changes.
	Products *denorm.Model[Product]

	session  *gocql.Session
	keyspace string
}

// NewStore builds a store over the order and product tables in keyspace.
func NewStore(session *gocql.Session, keyspace string) (*Store, error) {
	schema, err := Schema(keyspace)
	if err != nil {
		return nil, fmt.Errorf("orders schema: %w", err)
	}
	orders, err := denorm.New(session, schema, denorm.Options{Keyspace: keyspace}, OrderMappings()...)
	if err != nil {
		return nil, fmt.Errorf("orders model: %w", err)
	}
	products, err := denorm.New(session, schema, denorm.Options{Keyspace: keyspace}, ProductMappings()...)
	if err != nil {
		return nil, fmt.Errorf("products model: %w", err)
	}
	return &Store{Orders: orders, Products: products, session: session, keyspace: cql.QuoteName(keyspace)}, nil
}

// PlaceOrder writes a new order to both its tables at once. The plan says what was sent:
// two mutations, the customer's partition and the order's own.
func (s *Store) PlaceOrder(ctx context.Context, o *Order) (*denorm.Plan, error) {
	plan, err := s.Orders.Insert(ctx, o)
	if err != nil {
		return nil, fmt.Errorf("order %s: %w", o.ID, err)
	}
	return plan, nil
}

// AddProduct writes a new product to its three tables at once.
func (s *Store) AddProduct(ctx context.Context, p *Product) error {
	if _, err := s.Products.Insert(ctx, p); err != nil {
		return fmt.Errorf("product %s: %w", p.ID, err)
	}
	return nil
}

// UpdateProduct writes the changes from old to new. A rename moves the product between
// word partitions (a word it lost is deleted, a word it gained written) and a new category
// moves it there, in the same batch.
func (s *Store) UpdateProduct(ctx context.Context, old, new *Product) error {
	if _, err := s.Products.Update(ctx, old, new); err != nil {
		return fmt.Errorf("product %s: %w", old.ID, err)
	}
	return nil
}

// OrderDetails answers AP3: an order's header, from the static columns, and its lines, in
// one partition read. An order without lines is ErrNotFound.
func (s *Store) OrderDetails(ctx context.Context, id gocql.UUID) (*Order, error) {
	iter := s.session.Query("SELECT customer_id, ordered_at, status, ship_to, product_id, product_name, quantity, price_cents FROM "+
		s.keyspace+".order_details WHERE order_id = ?", id).WithContext(ctx).Iter()
	o := &Order{ID: id}
	var l Line
	for iter.Scan(&o.CustomerID, &o.OrderedAt, &o.Status, &o.ShipTo, &l.ProductID, &l.Name, &l.Quantity, &l.PriceCents) {
		o.Lines = append(o.Lines, l)
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("order %s: %w", id, err)
	}
	if len(o.Lines) == 0 {
		return nil, fmt.Errorf("order %s: %w", id, ErrNotFound)
	}
	return o, nil
}

// Search answers AP5: the products whose name has every word of text. It reads the
// partition of the first word and keeps the products that have the others; at most 50 are
// read. Text without a word finds nothing.
func (s *Store) Search(ctx context.Context, text string) ([]Product, error) {
	words := Words(text)
	if len(words) == 0 {
		return nil, nil
	}
	iter := s.session.Query("SELECT product_id, name, category, price_cents FROM "+s.keyspace+".products_by_word WHERE word = ? LIMIT 50", words[0]).
		WithContext(ctx).Iter()
	var out []Product
	var p Product
	for iter.Scan(&p.ID, &p.Name, &p.Category, &p.PriceCents) {
		have := Words(p.Name)
		if !slices.ContainsFunc(words[1:], func(w string) bool { return !slices.Contains(have, w) }) {
			out = append(out, p)
		}
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("search %q: %w", text, err)
	}
	return out, nil
}
