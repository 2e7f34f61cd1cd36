package cassandratest

import (
	"os"
	"os/exec"
	"testing"
)

// Python returns a python3 that can import the DataStax driver, for tests that read rows
// back with a client sharing no code with gocql. Without one the test skips saying how to
// install it, except in CI, where it fails.
func Python(t testing.TB) string {
	t.Helper()
	const install = "CASS_DRIVER_NO_CYTHON=1 python3 -m pip install cassandra-driver==3.30.1"
	python, err := exec.LookPath("python3")
	if err == nil {
		err = exec.Command(python, "-c", "import cassandra.cluster").Run()
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the Python Cassandra driver is required in CI (%v): %s", err, install)
		}
		t.Skipf("the Python Cassandra driver is not installed (%v); install it with: %s", err, install)
	}
	return python
}
