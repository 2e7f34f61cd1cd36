// Package orders is the design notes' e-commerce example, access patterns AP1 to AP7: orders
// written to a customer's order list and to a one-partition order detail (header in static
// columns), and products written to their page, their category and one row per word of
// their name for search, all with cql/denorm (OrderMappings, ProductMappings, Store);
// an order read back from its one partition (Store.OrderDetails) and products found by
// the words of their name (Store.Search). It imports only public packages, so it can be
// copied into a service; its tests run against a real Cassandra node.
package orders
