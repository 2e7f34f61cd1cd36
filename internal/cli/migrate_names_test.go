package cli

import "testing"

// -k names the keyspace as CQL does, in every migrate command: the flag folds once, when
// it is set, and kFlag gives a name back in the form -k takes.
func TestMigrateKeyspaceFlagFolds(t *testing.T) {
	for _, tc := range []struct{ in, want, back string }{
		{"app", "app", "app"},
		{"MixedCase", "mixedcase", "mixedcase"},
		{`"MixedCase"`, "MixedCase", `'"MixedCase"'`},
		{`"lower"`, "lower", "lower"},
		{" App ", "app", "app"},
		{"", "", ""},
	} {
		var v cqlNameValue
		if err := v.Set(tc.in); err != nil {
			t.Errorf("Set(%q): %v", tc.in, err)
			continue
		}
		if string(v) != tc.want {
			t.Errorf("Set(%q) = %q, want %q", tc.in, v, tc.want)
		}
		if tc.want != "" && kFlag(string(v)) != tc.back {
			t.Errorf("kFlag(%q) = %q, want %q", v, kFlag(string(v)), tc.back)
		}
	}
	for _, bad := range []string{`"unterminated`, "app.users"} {
		var v cqlNameValue
		if err := v.Set(bad); err == nil {
			t.Errorf("Set(%q) = %q, want an error", bad, v)
		}
	}
	// Through the command line: a keyspace name with a '-' is still refused by name.
	code, out, errOut := runEnv(t, nil, "migrate", "up", "-d", sweepDir+"/m1", "-k", `"Bad-Name"`, "--hosts", "127.0.0.9")
	if code != ExitBadInput || out != "" || errOut == "" {
		t.Errorf("-k \"Bad-Name\": exit %d %q %q", code, out, errOut)
	}
}
