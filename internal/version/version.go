// Package version reports what cqlsize is and what it is tested against.
package version

import (
	_ "embed"
	"runtime"
	"runtime/debug"
	"strings"
)

//go:embed cassandra.txt
var cassandraTxt string

// Cassandra is the Apache Cassandra version the project pins and tests against. The same
// file (internal/version/cassandra.txt) tells scripts/cassandra which jars to fetch.
var Cassandra = strings.TrimSpace(cassandraTxt)

// Module returns the cqlsize module version from the build info: a tag such as v0.3.0 when
// installed with `go install ...@v0.3.0`, "(devel)" in a checkout, plus the VCS revision
// when the build recorded one.
func Module() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev != "" && v == "(devel)" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		v += " " + rev + dirty
	}
	return v
}

// Go returns the Go version cqlsize was built with.
func Go() string { return runtime.Version() }
