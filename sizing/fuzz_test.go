package sizing

import (
	"math/rand/v2"
	"os"
	"testing"
	"time"
)

// FuzzWorkload feeds arbitrary YAML to the workload reader and, when it reads and validates,
// to the estimate: bad input must come back as an error, never a panic or a hang.
func FuzzWorkload(f *testing.F) {
	example, err := os.ReadFile("testdata/workload-example.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(example)
	for _, s := range []string{
		"tables: {posts_by_user: {write_rate: 1e308/s, partitions: 1e300, skew: zipf 0.0001}}",
		"tables: {inbox: {rows: 1B, deletes: [{kind: range, per_partition: 1e12, rows: 1e9}], ttl: 20y}}",
		"tables: {sensor_readings: {write_rate: 1/s, bucket: 1s, horizon: 1000y, nulls: 1}}",
		"tables: {user_profiles: {rows: 0, items: {prefs: {count: 1e15, key: 1e9, value: 1e9}}}}",
		"defaults: {rows: 5}\ntables: {posts_by_id: {}}",
		"tables: &a {x: *a}",
	} {
		f.Add([]byte(s))
	}
	schema := exampleSchema()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := ParseWorkload("fuzz.yaml", data)
		if err != nil {
			return
		}
		ests, err := EstimateAll(schema, w, Options{Now: now})
		if err != nil {
			return
		}
		for _, e := range ests {
			for _, fd := range e.Findings {
				_ = fd.String()
			}
		}
	})
}

// TestMutatedWorkloads runs a few hundred deterministic mutations of the example workload
// through the reader and the estimate in the normal test run (go test -fuzz explores further).
func TestMutatedWorkloads(t *testing.T) {
	seed, err := os.ReadFile("testdata/workload-example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	schema := exampleSchema()
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 500; i++ {
		b := append([]byte(nil), seed...)
		for k := 0; k < 1+r.IntN(4); k++ {
			j := r.IntN(len(b))
			switch r.IntN(3) {
			case 0:
				b[j] = byte(r.IntN(128))
			case 1:
				b = append(b[:j], b[min(len(b), j+r.IntN(20)):]...)
			case 2:
				b = append(b[:j], append([]byte([]string{"9999", "-", "1e300", "0", ":", "\n  "}[r.IntN(6)]), b[j:]...)...)
			}
		}
		w, err := ParseWorkload("m.yaml", b)
		if err != nil {
			continue
		}
		if _, err := EstimateAll(schema, w, Options{}); err != nil {
			continue
		}
	}
}
