// Package dcsuite holds the two-datacenter scenario test: one loss of a whole DC, during
// which migrations, denormalized writes and a backfill all run, then one return, the
// repair the tool names, and every check in each DC. A whole-DC restart costs minutes on
// a loaded machine; doing it once for everything is what keeps `make test-dcs` short. The
// package has no code of its own: only its test.
package dcsuite
