package ringtest

import (
	"fmt"
	"os"
	"strconv"
	"testing"
)

// EnvRuns repeats the ring tests that measure a figure over several runs (a fault, its
// latencies and its checks, once per run). `make test-ring` leaves it unset and runs each
// such test once, so the fault suite stays short and every assertion is still made;
// the README's figures over 3 runs come from CQLSIZE_RING_RUNS=3.
const EnvRuns = "CQLSIZE_RING_RUNS"

// Runs is how many runs a repeated ring test makes: CQLSIZE_RING_RUNS, or 1 when unset.
func Runs(t testing.TB) int {
	t.Helper()
	return Count(t, EnvRuns, 1)
}

// Count reads a repetition count from the environment variable env: def when unset. A
// value that is not a whole number from 1 to 100 fails the test (a typo must not turn a
// measurement into a single run silently).
func Count(t testing.TB, env string, def int) int {
	t.Helper()
	n, err := parseCount(env, os.Getenv(env), def)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func parseCount(env, v string, def int) (int, error) {
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 100 {
		return 0, fmt.Errorf("%s=%q: want a whole number from 1 to 100", env, v)
	}
	return n, nil
}
