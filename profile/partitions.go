package profile

import "github.com/cqlsize/cqlsize/internal/tokenscan"

// HostOpener opens a session that talks to one node only (its address, no port), so a
// node-local table (system.size_estimates) can be read from each node in turn.
type HostOpener = tokenscan.HostOpener
