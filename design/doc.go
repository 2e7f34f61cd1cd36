// Package design turns a conceptual model (one table per entity, keyed by its identity), the
// access patterns written against it and the volumes of each entity into query tables: one
// table per access pattern, merged when one table serves several; each read from one
// partition; each partition bounded by the coarsest time bucket that keeps it under the
// sizing guidelines over the retention (or by write shards when no bucket down to an hour
// can hold the busiest key), and each fact written to every table that needs it, by a write
// plan in cql/derive's expressions.
//
// Every candidate is priced by what a read costs too (sizing/readcost: the partitions one
// read visits for the median, p99 and busiest key). When the scheme that holds the busiest
// key makes the median read visit more than a few partitions, the keys go on tiers: a
// coarse bucket for every key under a promotion threshold, the fine scheme for the keys
// over it, each key's tier a row of a tier table the migration creates and the write plan
// names.
//
// Every size is the sizing package's estimate of the candidate table under the workload the
// volumes imply, so `cqlsize estimate` on the design's own workload agrees with the choice.
// The package imports no driver.
package design
