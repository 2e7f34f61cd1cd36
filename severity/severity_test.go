package severity

import (
	"encoding/json"
	"testing"
)

func TestParseRoundTrip(t *testing.T) {
	for _, l := range []Level{OK, Info, Warn, Fail} {
		got, err := Parse(l.String())
		if err != nil || got != l {
			t.Errorf("Parse(%q) = %v, %v; want %v", l.String(), got, err, l)
		}
	}
	for in, want := range map[string]Level{" WARNING ": Warn, "Error": Fail, "INFO": Info} {
		if got, err := Parse(in); err != nil || got != want {
			t.Errorf("Parse(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := Parse("severe"); err == nil {
		t.Error("Parse(severe): no error")
	}
}

func TestOrderAndJSON(t *testing.T) {
	if !(OK < Info && Info < Warn && Warn < Fail) {
		t.Fatal("levels are not ordered")
	}
	b, err := json.Marshal(map[string]Level{"a": Warn})
	if err != nil || string(b) != `{"a":"warn"}` {
		t.Fatalf("json = %s, %v", b, err)
	}
	var back map[string]Level
	if err := json.Unmarshal(b, &back); err != nil || back["a"] != Warn {
		t.Fatalf("read back %v, %v", back, err)
	}
}
