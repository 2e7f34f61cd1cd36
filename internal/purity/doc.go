// Package purity holds the tests of how the project's packages depend on each other:
//
//   - the packages docs/layout.md calls pure (the model, the parser, the checks, the sizing and
//     disk models) import no Cassandra driver, so a service can embed them, and the CLI can
//     run them in CI, without a cluster library in its build (purity_test.go);
//   - every import arrow between the project's packages is one listed in the layering table
//     (layers_test.go), so a library never reaches up into the CLI and a lower layer never
//     imports a higher one.
package purity
