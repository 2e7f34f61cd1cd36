// Package purity holds the tests of how the project's packages depend on each other:
//
//   - the packages docs/layout.md calls pure (the model, the parser, the checks, the sizing and
//     disk models) import no Cassandra driver, so a service can embed them, and the CLI can
//     run them in CI, without a cluster library in its build (purity_test.go);
//   - every package stands on a floor (layers_test.go) and imports only packages on lower
//     floors, so a library never reaches up into the CLI and two packages never import each
//     other's floor; the rule is the direction, not a list of allowed arrows.
package purity
