// Package likes is the design notes' many-to-many example: a like written to
// likes_by_user_item, items_by_user and users_by_item with cql/denorm (Mappings, Store.Like),
// an unlike that finds every copy from the stored like (Store.Unlike), and the lists read
// back (Store.LikedAt, Store.ItemsLikedBy, and the Likers timeline across month buckets).
// It imports only public packages, so it can be copied into a service; its tests run
// against a real Cassandra node.
package likes
