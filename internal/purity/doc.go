// Package purity holds one test: the packages the README calls pure (the model, the parser,
// the checks, the sizing and disk models) import no Cassandra driver, so a service can embed
// them, and the CLI can run them in CI, without a cluster library in its build.
package purity
