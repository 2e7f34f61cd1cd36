package reaper

import (
	"bufio"
	"context"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestParseFilter(t *testing.T) {
	for _, tc := range []struct {
		line, want, err string
	}{
		{"label=a=b\n", "label=a=b", ""},
		{"label=org.testcontainers.sessionId=abc&label=org.testcontainers=true\n", "label=org.testcontainers.sessionId=abc&label=org.testcontainers=true", ""},
		{"label=x=1&label=x=2", "label=x=1&label=x=2", ""},
		{"\n", "", "no filters"},
		{"label\n", "", "want name=value"},
		{"label=%zz", "", "invalid URL escape"},
	} {
		f, err := ParseFilter(tc.line)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseFilter(%q): error %v, want one containing %q", tc.line, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseFilter(%q): %v", tc.line, err)
			continue
		}
		if got := f.String(); got != tc.want {
			t.Errorf("ParseFilter(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
}

// TestServeWaitsForTheLastClient probes the port without a filter, then holds two clients,
// closes one, and checks the session is over only a reconnection timeout after the second
// left (not after the probe), with both filters returned.
func TestServeWaitsForTheLastClient(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan []Filter)
	go func() {
		done <- Serve(context.Background(), ln, Config{ConnectTimeout: 20 * time.Second, ReconnectTimeout: 300 * time.Millisecond})
	}()
	dial := func(line string) net.Conn {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Write([]byte(line)); err != nil {
			t.Fatal(err)
		}
		ack, err := bufio.NewReader(c).ReadString('\n')
		if err != nil || ack != "ACK\n" {
			t.Fatalf("answer to %q: %q, %v; want ACK", line, ack, err)
		}
		return c
	}
	// A probe that connects and leaves without a filter starts no timeout.
	probe, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	probe.Close()
	time.Sleep(time.Second)
	a := dial("label=s=1\n")
	b := dial("label=s=2&label=t=x\n")
	a.Close()
	select {
	case <-done:
		t.Fatal("the session ended while a client was still connected")
	case <-time.After(time.Second):
	}
	b.Close()
	select {
	case fs := <-done:
		var got []string
		for _, f := range fs {
			got = append(got, f.String())
		}
		if strings.Join(got, " ") != "label=s=1 label=s=2&label=t=x" {
			t.Fatalf("filters %q", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the session did not end after the last client left")
	}
}

// docker runs the docker CLI, the independent witness of what the engine holds.
func docker(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("docker", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("docker %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestContainerReaperRemovesWhatMatches creates, with the docker CLI, a container, a network
// and a volume carrying a session label, and one container with another label; reaps the
// session's label through the engine; and checks with the CLI that exactly the session's
// resources are gone.
func TestContainerReaperRemovesWhatMatches(t *testing.T) {
	socket := Socket(os.Getenv) // the engine the docker CLI below talks to
	if err := exec.Command("docker", "info").Run(); err != nil {
		if os.Getenv("CQLSIZE_REQUIRE_CONTAINER") == "1" {
			t.Fatalf("no Docker engine answers (docker info: %v), and CQLSIZE_REQUIRE_CONTAINER=1", err)
		}
		t.Skipf("no Docker engine answers: %v", err)
	}
	image := "testcontainers/ryuk:0.14.0" // any local image will do: the containers are never started
	if err := exec.Command("docker", "image", "inspect", image).Run(); err != nil {
		t.Fatalf("%s is not in the engine: run scripts/cassandra image", image)
	}
	session := "cqlsize-reaper-test-" + strings.ReplaceAll(t.Name(), "/", "_") + time.Now().Format("150405.000000")
	label := "org.cqlsize.reapertest=" + session
	other := docker(t, "create", "--label", "org.cqlsize.reapertest=other-"+session, image)
	t.Cleanup(func() { _ = exec.Command("docker", "rm", "-f", other).Run() })
	ctr := docker(t, "create", "--label", label, image)
	t.Cleanup(func() { _ = exec.Command("docker", "rm", "-f", "-v", ctr).Run() })
	net := docker(t, "network", "create", "--label", label, session)
	t.Cleanup(func() { _ = exec.Command("docker", "network", "rm", net).Run() })
	vol := docker(t, "volume", "create", "--label", label, session)
	t.Cleanup(func() { _ = exec.Command("docker", "volume", "rm", vol).Run() })

	f, err := ParseFilter("label=" + label)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r, err := NewEngine(socket).Reap(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	if r != (Removed{Containers: 1, Networks: 1, Volumes: 1}) {
		t.Errorf("removed %+v, want one container, one network, one volume", r)
	}
	for _, q := range [][]string{
		{"ps", "-aq", "--filter", "label=" + label},
		{"network", "ls", "-q", "--filter", "label=" + label},
		{"volume", "ls", "-q", "--filter", "label=" + label},
	} {
		if out := docker(t, q...); out != "" {
			t.Errorf("docker %s: %q left behind", strings.Join(q, " "), out)
		}
	}
	if out := docker(t, "ps", "-aq", "--no-trunc", "--filter", "id="+other); out != other {
		t.Errorf("the container with another label was removed too (docker ps: %q)", out)
	}
}

func TestSocket(t *testing.T) {
	for _, c := range []struct{ host, want string }{
		{"", "/var/run/docker.sock"},
		{"unix:///run/cqlsize-ci/docker.sock", "/run/cqlsize-ci/docker.sock"},
		{"tcp://127.0.0.1:2375", "/var/run/docker.sock"},
	} {
		env := map[string]string{"DOCKER_HOST": c.host}
		if got := Socket(func(k string) string { return env[k] }); got != c.want {
			t.Errorf("DOCKER_HOST=%q: socket %q, want %q", c.host, got, c.want)
		}
	}
}
