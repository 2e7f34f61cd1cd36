// Command cqlsize sizes Cassandra partitions, counts tombstones, checks access patterns and
// applies migrations. See the README or `cqlsize --help`.
package main

import "github.com/cqlsize/cqlsize/internal/cli"

func main() { cli.Main() }
