package connect

import "testing"

func TestFromGetenvReadsTheGivenEnvironment(t *testing.T) {
	env := map[string]string{EnvHosts: "10.0.0.1, 10.0.0.2", EnvUsername: "app", EnvPassword: "s3cret"}
	c := Config{}.FromGetenv(func(k string) string { return env[k] })
	if len(c.Hosts) != 2 || c.Source != EnvHosts || c.Username != "app" || c.Password != "s3cret" {
		t.Fatalf("FromGetenv = %+v", c)
	}
	// Flags win over the environment.
	c = Config{Hosts: []string{"h"}, Source: "--hosts", Username: "flag"}.FromGetenv(func(k string) string { return env[k] })
	if c.Hosts[0] != "h" || c.Source != "--hosts" || c.Username != "flag" {
		t.Fatalf("FromGetenv overrode flags: %+v", c)
	}
}
