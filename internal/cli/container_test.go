package cli

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/internal/cqlsizebin"
	"github.com/cqlsize/cqlsize/internal/nodecontainer"
)

// The TestContainer... tests run cqlsize with --container against the Docker engine of this
// machine and the image cassandra:5.0 (`scripts/cassandra docker && scripts/cassandra
// image` on a machine with no image registry). Without an engine they are skipped, unless
// CQLSIZE_REQUIRE_DOCKER=1 makes that a failure; with an engine but without the image
// (not on this machine, and not pulled in one try) they are skipped at once, saying why,
// or fail at once where CI is set or CQLSIZE_REQUIRE_DOCKER=1 (nodecontainer.ForTest).
// Every container a test starts is removed by the test's cleanup whatever happens, and the
// reaper is off in the Ctrl-C test, so what removes the container there is cqlsize itself.

const containerImage = "cassandra:5.0"

func requireDocker() bool { return os.Getenv("CQLSIZE_REQUIRE_DOCKER") == "1" }

// needEngine skips or fails t unless a Docker engine answers (the image is the test's
// business: TestContainerBadImage names images that cannot exist).
func needEngine(t *testing.T) {
	t.Helper()
	var err error
	if !nodecontainer.EngineAnswers(context.Background()) {
		err = nodecontainer.ErrNoEngine
	}
	decide(t, err)
}

// needImage skips or fails t unless an engine answers and image is on this machine or is
// pulled in one try.
func needImage(t *testing.T, image string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	decide(t, nodecontainer.Available(ctx, image, nil))
}

func decide(t *testing.T, err error) {
	t.Helper()
	// -short is the run without a cluster, as cassandratest has it: no container starts.
	if testing.Short() && !requireDocker() && os.Getenv("CI") == "" {
		t.Skip("-short: the container tests are skipped (make test-container runs them)")
	}
	switch v, why := nodecontainer.ForTest(err, requireDocker(), requireDocker() || os.Getenv("CI") != ""); v {
	case nodecontainer.Skip:
		t.Skip(why + " (`scripts/cassandra docker` starts an engine; `scripts/cassandra image` builds the image)")
	case nodecontainer.Fail:
		t.Fatal(why + " (CI or CQLSIZE_REQUIRE_DOCKER=1 is set, so this is a failure, not a skip)")
	}
}

// containerEnv is the environment of a cqlsize process started by these tests: this
// process's, with the addresses pinned to loopback.
func containerEnv(extra ...string) []string {
	env := append(os.Environ(), "TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1")
	return append(env, extra...)
}

var startedLine = regexp.MustCompile(`container ([0-9a-f]{12}), CQL at (\S+)`)

// containerRunning reports whether docker knows the container and it is running.
func containerRunning(t *testing.T, id string) bool {
	t.Helper()
	out, err := exec.Command("docker", "inspect", "-f", "{{.State.Running}}", id).CombinedOutput()
	return err == nil && strings.TrimSpace(string(out)) == "true"
}

func containerExists(id string) bool {
	return exec.Command("docker", "inspect", id).Run() == nil
}

func removeContainer(t *testing.T, id string) {
	if id != "" && containerExists(id) {
		if out, err := exec.Command("docker", "rm", "-f", id).CombinedOutput(); err != nil {
			t.Logf("docker rm -f %s: %v %s", id, err, out)
		}
	}
}

// tablesAt lists keyspace's tables as an independent client at addr sees them.
func tablesAt(t *testing.T, addr, keyspace string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := connect.Open(ctx, connect.Config{Hosts: []string{addr}, Direct: true, Consistency: "ONE", Timeout: 30 * time.Second, ConnectTimeout: time.Minute})
	if err != nil {
		t.Fatalf("connect to %s: %v", addr, err)
	}
	defer s.Close()
	var names []string
	iter := s.Query("SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?", keyspace).Consistency(gocql.One).Iter()
	var n string
	for iter.Scan(&n) {
		if !strings.HasPrefix(n, "cqlsize_") {
			names = append(names, n)
		}
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	return names
}

// startUp runs `migrate up --container` on the posts example as a real process and waits
// until it has migrated (stdout "Connect with"); it returns the process, the container's
// ID and address, and stdout so far.
func startUp(t *testing.T, extraEnv []string, args ...string) (cmd *exec.Cmd, id, addr string, stdout *bytes.Buffer, wait func() (int, string)) {
	t.Helper()
	bin := cqlsizebin.Path(t)
	cmd = exec.Command(bin, append([]string{"migrate", "up", "-d", "examples/posts/migrations", "-k", "posts", "--container", containerImage}, args...)...)
	cmd.Dir = repoRoot
	cmd.Env = containerEnv(extraEnv...)
	var errb bytes.Buffer
	stdout = &bytes.Buffer{}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	errDone := make(chan struct{})
	idc := make(chan [2]string, 1)
	go func() {
		defer close(errDone)
		sc := bufio.NewScanner(errPipe)
		for sc.Scan() {
			errb.WriteString(sc.Text() + "\n")
			if m := startedLine.FindStringSubmatch(sc.Text()); m != nil {
				idc <- [2]string{m[1], m[2]}
			}
		}
	}()
	migrated := make(chan struct{})
	outDone := make(chan struct{})
	go func() {
		defer close(outDone)
		sc := bufio.NewScanner(outPipe)
		once := false
		for sc.Scan() {
			stdout.WriteString(sc.Text() + "\n")
			if !once && (strings.Contains(sc.Text(), "press Ctrl-C") || strings.Contains(sc.Text(), "left running")) {
				once = true
				close(migrated)
			}
		}
		_, _ = io.Copy(io.Discard, outPipe)
	}()
	wait = func() (int, string) {
		<-outDone
		<-errDone
		_ = cmd.Wait()
		return cmd.ProcessState.ExitCode(), errb.String()
	}
	select {
	case got := <-idc:
		id, addr = got[0], got[1]
		t.Cleanup(func() { removeContainer(t, id) })
	case <-errDone:
		// cqlsize exited (stderr closed) without starting a container: say so now, not
		// after the wait below.
		select {
		case got := <-idc:
			t.Cleanup(func() { removeContainer(t, got[0]) })
		default:
		}
		code, errOut := wait()
		t.Fatalf("cqlsize exited %d without starting a container:\nstdout: %s\nstderr: %s", code, stdout, errOut)
	case <-time.After(16 * time.Minute):
		_ = cmd.Process.Kill()
		code, errOut := wait()
		t.Fatalf("no container started in 16 minutes: exit %d\n%s", code, errOut)
	}
	select {
	case <-migrated:
	case <-outDone:
		code, errOut := wait()
		t.Fatalf("exited %d before migrating:\nstdout: %s\nstderr: %s", code, stdout, errOut)
	case <-time.After(10 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatal("not migrated in 10 minutes")
	}
	return cmd, id, addr, stdout, wait
}

// Ctrl-C (SIGINT to the process) after the migration removes the container; before it, an
// independent client at the printed address finds the posts tables.
func TestContainerCtrlCRemovesIt(t *testing.T) {
	needImage(t, containerImage)
	cmd, id, addr, stdout, wait := startUp(t, []string{"TESTCONTAINERS_RYUK_DISABLED=true"})
	if !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Errorf("address %s: want the published port on loopback", addr)
	}
	if !strings.Contains(stdout.String(), "cqlsh 127.0.0.1 "+strings.TrimPrefix(addr, "127.0.0.1:")) || !strings.Contains(stdout.String(), "--hosts "+addr) {
		t.Errorf("no ready-to-paste connection lines for %s:\n%s", addr, stdout)
	}
	if got := tablesAt(t, addr, "posts"); len(got) != 3 {
		t.Errorf("tables of posts at %s: %v, want the example's three", addr, got)
	}
	if !containerRunning(t, id) {
		t.Fatalf("container %s is not running while cqlsize waits", id)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	code, errOut := wait()
	t.Logf("stdout:\n%s\nstderr:\n%s", stdout, errOut)
	if code != ExitOK || !strings.Contains(errOut, "removed container "+id) {
		t.Errorf("after Ctrl-C: exit %d\n%s", code, errOut)
	}
	if containerExists(id) {
		t.Errorf("container %s still exists after Ctrl-C", id)
	}
}

// --keep exits 0 with the container running and says how to remove it.
func TestContainerKeepLeavesIt(t *testing.T) {
	needImage(t, containerImage)
	_, id, addr, stdout, wait := startUp(t, nil, "--keep")
	code, errOut := wait()
	t.Logf("stdout:\n%s\nstderr:\n%s", stdout, errOut)
	if code != ExitOK {
		t.Fatalf("--keep: exit %d\n%s", code, errOut)
	}
	if !strings.Contains(stdout.String(), "docker rm -f -v "+id) {
		t.Errorf("--keep does not say how to remove %s:\n%s", id, stdout)
	}
	if !containerRunning(t, id) {
		t.Fatalf("container %s is not running after --keep", id)
	}
	if got := tablesAt(t, addr, "posts"); len(got) != 3 {
		t.Errorf("tables of posts at %s after cqlsize exited: %v", addr, got)
	}
}

// An image name that is not one, and an image whose registry does not answer (a registry
// address on loopback where nothing listens), are told apart: 2 and 3.
func TestContainerBadImage(t *testing.T) {
	needEngine(t)
	dir := migDir(t, goodSet)
	code, _, errOut := runEnv(t, map[string]string{"TESTCONTAINERS_HOST_OVERRIDE": "127.0.0.1"}, "migrate", "up", "--dir", dir, "--keyspace", "k", "--container", "Not/A:Valid Image")
	if code != ExitBadInput || !strings.Contains(errOut, "Not/A:Valid Image") || !strings.Contains(errOut, "docker images") {
		t.Errorf("invalid image: exit %d, %s", code, errOut)
	}
	code, _, errOut = runEnv(t, nil, "migrate", "up", "--dir", dir, "--keyspace", "k", "--container", "127.0.0.1:1/cqlsize/none:1")
	if code != ExitRetry || !strings.Contains(errOut, "did not answer") {
		t.Errorf("unreachable registry: exit %d, %s", code, errOut)
	}
	code, _, errOut = runEnv(t, nil, "migrate", "validate", "--dir", dir, "--keyspace", "k", "--container", "Not/A:Valid Image")
	if code != ExitBadInput {
		t.Errorf("validate, invalid image: exit %d, %s", code, errOut)
	}
}

// A history with three statements a stock 5.0 node refuses (SASI, masking and UDFs are off
// in a default cassandra.yaml): validate --container reports all three in one run, the
// statements after each still run, the model agrees on each, and the container is gone.
func TestContainerValidateReportsEveryRefusal(t *testing.T) {
	needImage(t, containerImage)
	dir := migDir(t, map[string]string{
		"V1__users.cql": "CREATE TABLE users (id uuid PRIMARY KEY, email text, name text);\n" +
			"CREATE CUSTOM INDEX users_email ON users (email) USING 'org.apache.cassandra.index.sasi.SASIIndex';\n",
		"V2__cards.cql": "CREATE TABLE cards (id uuid PRIMARY KEY, number text MASKED WITH mask_inner(null, 4));\n" +
			"CREATE TABLE events (id timeuuid PRIMARY KEY, body text);\n",
		"V3__fn.cql": "CREATE FUNCTION twice (x int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS 'return x * 2;';\n" +
			"ALTER TABLE events ADD kind text;\n",
	})
	bin := cqlsizebin.Path(t)
	cmd := exec.Command(bin, "migrate", "validate", "-d", dir, "-k", "shop", "--container", containerImage)
	cmd.Env = containerEnv()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	_ = cmd.Run()
	if m := startedLine.FindStringSubmatch(errb.String()); m != nil {
		t.Cleanup(func() { removeContainer(t, m[1]) })
		if containerExists(m[1]) {
			t.Errorf("container %s left behind", m[1])
		}
	} else {
		t.Fatalf("no container started:\n%s%s", out.String(), errb.String())
	}
	code := cmd.ProcessState.ExitCode()
	t.Logf("stdout:\n%s\nstderr:\n%s", out.String(), errb.String())
	for _, want := range []string{"V1__users.cql:2:1 (statement 2/2): the node refuses it: SASI indexes are disabled",
		"V2__cards.cql:1:1 (statement 1/2): the node refuses it: Cannot mask columns",
		"V3__fn.cql:1:1 (statement 1/2): the node refuses it: ",
		"the node has user_defined_functions_enabled = false",
		"the node has sasi_indexes_enabled = false",
		"the node has dynamic_data_masking_enabled = false",
		"6 statements on a fresh cassandra:5.0 node from an empty keyspace: 3 refused by the node, 0 disagreements"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if code != ExitBadInput || strings.Contains(out.String(), "MODEL BUG") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, out.String(), errb.String())
	}
}
