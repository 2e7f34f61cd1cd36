package connect

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"
)

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want string // substring of the error; "" means valid
	}{
		{"ok", Config{Hosts: []string{"127.0.0.1", "10.0.0.2:9043"}}, ""},
		{"no hosts", Config{}, "no Cassandra hosts"},
		{"bad port in host", Config{Hosts: []string{"h:99999"}, Source: "--hosts"}, `--hosts: host "h:99999": port must be 1-65535`},
		{"empty host", Config{Hosts: []string{":9042"}}, "empty host"},
		{"bad consistency", Config{Hosts: []string{"h"}, Consistency: "MOST"}, `consistency "MOST"`},
		{"cert without key", Config{Hosts: []string{"h"}, CertFile: "c.pem"}, "certificate and key go together"},
		{"negative timeout", Config{Hosts: []string{"h"}, Timeout: -time.Second}, "must not be negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestParseConsistency(t *testing.T) {
	for _, s := range []string{"local_quorum", "QUORUM", " one ", "LOCAL_ONE", "ALL", "EACH_QUORUM"} {
		if _, err := ParseConsistency(s); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
}

func TestSplitHosts(t *testing.T) {
	got := strings.Join(SplitHosts(" a, b,,c d "), "|")
	if got != "a|b|c|d" {
		t.Fatalf("SplitHosts = %q", got)
	}
}

// An address nobody listens on must fail fast with an error that names the hosts and
// where they came from, not hang and not panic.
func TestOpenUnreachableNamesHosts(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // now nothing listens there
	cfg := Config{Hosts: []string{addr}, Source: EnvHosts, ConnectTimeout: 2 * time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	s, err := Open(ctx, cfg)
	if err == nil {
		s.Close()
		t.Fatalf("connected to %s, where nothing listens", addr)
	}
	var ue *UnreachableError
	if !errors.As(err, &ue) {
		t.Fatalf("error %T %v, want *UnreachableError", err, err)
	}
	if !strings.Contains(err.Error(), addr) || !strings.Contains(err.Error(), EnvHosts) {
		t.Errorf("error %q does not name the host %s and its source", err, addr)
	}
	if ctx.Err() != nil {
		t.Errorf("Open took until the context deadline (%v): the connect timeout was not honoured", time.Since(start))
	}
}

// Direct points every address the node advertises at the one contact point: a node in a
// container advertises its container-network address, reachable only through the port
// published on this machine.
func TestDirectTranslatesEveryAddressToTheContactPoint(t *testing.T) {
	cc, err := Config{Hosts: []string{"127.0.0.1:32771"}, Direct: true}.ClusterConfig()
	if err != nil {
		t.Fatal(err)
	}
	ip, port := cc.AddressTranslator.Translate(net.ParseIP("172.17.0.2"), 9042)
	if ip.String() != "127.0.0.1" || port != 32771 {
		t.Errorf("translated to %s:%d, want 127.0.0.1:32771", ip, port)
	}
	cc, err = Config{Hosts: []string{"localhost"}, Port: 9142, Direct: true}.ClusterConfig()
	if err != nil {
		t.Fatal(err)
	}
	if ip, port := cc.AddressTranslator.Translate(net.ParseIP("10.0.0.5"), 9042); !ip.IsLoopback() || port != 9142 {
		t.Errorf("localhost with --port 9142: %s:%d", ip, port)
	}
	if _, err := (Config{Hosts: []string{"a", "b"}, Direct: true}).ClusterConfig(); err == nil {
		t.Error("Direct with two hosts: want an error")
	}
	if cc, _ := (Config{Hosts: []string{"a"}}).ClusterConfig(); cc.AddressTranslator != nil {
		t.Error("without Direct the driver's addresses are left alone")
	}
}
