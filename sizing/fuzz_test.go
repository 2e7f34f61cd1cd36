package sizing

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/workload"
)

// FuzzWorkload feeds arbitrary YAML to the workload reader and, when it reads and validates,
// to the estimate: bad input must come back as an error, never a panic or a hang.
func FuzzWorkload(f *testing.F) {
	example, err := os.ReadFile("../workload/testdata/workload-example.yaml")
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
		"tables: {posts_by_user: {write_rate: 1e9/s, deletes: [{kind: row, rate: 1e9/s}], nulls: 0.5}}",
		"tables: {posts_by_user: {partitions: 1e15, skew: {zipf: 3}, write_rate: 1e9/s, horizon: 290y}}",
		"tables: {inbox: {rows: 1e12, deletes: [{kind: range, per_partition: 1e12, rows: 1e12}], ttl: 1s}}",
	} {
		f.Add([]byte(s))
	}
	schema := exampleSchema()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, data []byte) {
		defer deadline(t, fmt.Sprintf("%q", data))()
		w, err := workload.Parse("fuzz.yaml", data)
		if err != nil {
			return
		}
		ests, err := EstimateAll(schema, w, Options{Now: now})
		if err != nil {
			return
		}
		for _, e := range ests {
			checkEstimate(t, e)
		}
	})
}

// TestMutatedWorkloads runs a few hundred deterministic mutations of the example workload
// through the reader and the estimate in the normal test run (go test -fuzz explores further).
func TestMutatedWorkloads(t *testing.T) {
	seed, err := os.ReadFile("../workload/testdata/workload-example.yaml")
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
		w, err := workload.Parse("m.yaml", b)
		if err != nil {
			continue
		}
		ests, err := EstimateAll(schema, w, Options{})
		if err != nil {
			continue
		}
		for _, e := range ests {
			checkEstimate(t, e)
		}
	}
}

// checkEstimate fails t when an estimate holds a number no estimate should: NaN, an
// infinity, a negative count, size or duration, or a finding whose text shows one (or an
// int64 that wrapped around).
func checkEstimate(t *testing.T, e *Estimate) {
	t.Helper()
	var walk func(path string, v reflect.Value)
	walk = func(path string, v reflect.Value) {
		switch v.Kind() {
		case reflect.Float64:
			if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
				t.Errorf("%s: %s = %v", e.Table, path, f)
			}
		case reflect.Int64, reflect.Int: // time.Duration, Crossing ages, Encoding
			if v.Int() < 0 {
				t.Errorf("%s: %s = %v", e.Table, path, v.Int())
			}
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				if f := v.Type().Field(i); f.IsExported() && f.Name != "Limit" && f.Name != "Pos" {
					walk(path+"."+f.Name, v.Field(i))
				}
			}
		case reflect.Slice:
			for i := 0; i < v.Len(); i++ {
				walk(fmt.Sprintf("%s[%d]", path, i), v.Index(i))
			}
		}
	}
	walk("Estimate", reflect.ValueOf(*e))
	// Slots are keys × shards × buckets; the partitions are the slots a row reached, none
	// when no row is written.
	if e.Keys < 1 || e.Slots < e.Keys || e.Partitions < 0 || e.Partitions > e.Slots*(1+1e-9) {
		t.Errorf("%s: %v keys, %v slots, %v partitions", e.Table, e.Keys, e.Slots, e.Partitions)
	}
	for _, fd := range e.Findings {
		msg := fd.String()
		for _, bad := range []string{"NaN", "Inf", "-9223372036", "%!"} {
			if strings.Contains(msg, bad) {
				t.Errorf("%s: finding shows %q: %s", e.Table, bad, msg)
			}
		}
	}
	for _, a := range e.Assumptions {
		if strings.Contains(a, "NaN") || strings.Contains(a, "%!") {
			t.Errorf("%s: assumption %q", e.Table, a)
		}
	}
}

// deadline makes a hang a failure: go test -fuzz has no limit on one input, so an input that
// never returns would only stall the run. The returned func stops the timer. On expiry the
// process exits with the input, since the stuck goroutine cannot be stopped.
func deadline(t *testing.T, input string) (stop func()) {
	timer := time.AfterFunc(10*time.Second, func() {
		fmt.Fprintf(os.Stderr, "HANG: %s did not return within 10s on %s\n", t.Name(), input)
		os.Exit(3)
	})
	return func() { timer.Stop() }
}
