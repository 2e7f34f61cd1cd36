// Package likes is the design notes' many-to-many example: a like written to
// likes_by_user_item, items_by_user and users_by_item with cql/denorm, and an unlike that
// finds every copy from the stored like. Its test runs against a real Cassandra node.
package likes
