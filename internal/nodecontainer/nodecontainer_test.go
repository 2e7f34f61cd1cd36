package nodecontainer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// What a test that needs a container does, for each way the engine and the image can be
// missing: it never waits, and it fails instead of skipping only where it is required.
func TestForTest(t *testing.T) {
	missing := &PullError{Image: "cassandra:5.0", Missing: true, Err: errors.New("manifest unknown")}
	silent := &PullError{Image: "cassandra:5.0", Err: errors.New("dial tcp: lookup registry-1.docker.io: no such host")}
	for _, tc := range []struct {
		name                        string
		err                         error
		requireEngine, requireImage bool
		want                        Verdict
		why                         []string
	}{
		{"engine and image", nil, true, true, Run, nil},
		{"no engine", ErrNoEngine, false, false, Skip, []string{"no Docker engine"}},
		{"no engine, wrapped", fmt.Errorf("start: %w", ErrNoEngine), false, true, Skip, []string{"no Docker engine"}},
		{"no engine, engine required", ErrNoEngine, true, false, Fail, []string{"no Docker engine"}},
		{"no such image", missing, false, false, Skip, []string{"cassandra:5.0", "no such image", "scripts/cassandra image"}},
		{"no such image, in CI", missing, false, true, Fail, []string{"cassandra:5.0", "no such image"}},
		{"no registry", silent, false, false, Skip, []string{"cassandra:5.0", "did not answer", "no such host", "docker pull cassandra:5.0"}},
		{"no registry, in CI", silent, true, true, Fail, []string{"did not answer"}},
		{"no registry, wrapped", fmt.Errorf("x: %w", silent), false, false, Skip, []string{"did not answer"}},
		{"the engine fails otherwise", errors.New("inspect image cassandra:5.0: permission denied"), false, false, Skip, []string{"permission denied"}},
		{"the engine fails otherwise, in CI", errors.New("inspect: boom"), false, true, Fail, []string{"boom"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, why := ForTest(tc.err, tc.requireEngine, tc.requireImage)
			if got != tc.want {
				t.Errorf("ForTest(%v, %v, %v) = %s, want %s (%s)", tc.err, tc.requireEngine, tc.requireImage, got, tc.want, why)
			}
			for _, w := range tc.why {
				if !strings.Contains(why, w) {
					t.Errorf("reason %q lacks %q", why, w)
				}
			}
			if tc.want == Run && why != "" {
				t.Errorf("a run with a reason: %q", why)
			}
		})
	}
}

// Without an engine Available answers ErrNoEngine within the engine probe's 10 s, whatever
// the image.
func TestAvailableWithoutEngine(t *testing.T) {
	if EngineAnswers(context.Background()) {
		t.Skip("a Docker engine answers here; this checks the answer when none does")
	}
	start := time.Now()
	if err := Available(context.Background(), "cassandra:5.0", nil); !errors.Is(err, ErrNoEngine) {
		t.Fatalf("Available = %v, want ErrNoEngine", err)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("took %v", d)
	}
}
