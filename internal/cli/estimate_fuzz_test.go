package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fuzzSchema has a table of every shape the estimate treats differently (see its comments).
var fuzzSchema = filepath.Join("testdata", "fuzz-schema.cql")

var fuzzTables = []string{"posts_by_user", "readings", "profiles", "likes", "threads"}

// FuzzEstimateFlags drives `cqlsize estimate --table` end to end in process with fuzzed
// workload and read flags (an empty value leaves the flag out), always as JSON and, picked by
// misc, once more as text, markdown or HTML. It checks what a deploy script relies on: the
// exit status is 0, 1 or 2, never a panic (Do turns one into "internal error"); exit 2 prints
// one error and nothing on stdout; exit 0 or 1 prints JSON in which every number is finite and
// none is negative, and no text shows NaN, an infinity or a wrapped int64. An input that runs
// over 10 s is a hang.
func FuzzEstimateFlags(f *testing.F) {
	for _, s := range []struct {
		table                                                                            uint8
		rows, rate, bucket, partitions, ttl, skew, nulls, avg, items, del, over, horizon string
		readLimit, pageSize                                                              int
		misc                                                                             uint8
	}{
		{0, "", "1e15/second", "", "", "", "", "", "", "", "row:1e15/second", "", "", 0, 5000, 0},
		{0, "", "1e9/s", "", "1e15", "", "zipf:3", "", "content=200", "", "row:1e9/s", "", "", 0, 1, 1},
		{0, "", "50/day", "month", "2M", "", "zipf:1.1", "", "content=280", "tags=5x12", "", "tags=1/day", "", 20, 5000, 2},
		{1, "", "1/s", "", "1k", "1s", "", "0.5", "unit=3", "", "cell:unit:1/s", "", "290y", 0, 5000, 3},
		{2, "1", "", "", "100M", "", "", "0.1", "name=20", "emails=3x20", "element:emails:1/day", "prefs=1/hour", "", 0, 5000, 4},
		{3, "", "1000/s", "minute", "1e6", "", "zipf:10", "", "", "", "", "", "", 1, 1, 5},
		{4, "1e12", "", "", "1e15", "", "", "1", "body=2147483648", "", "range:1e12:1e12", "", "", 0, 2147483647, 6},
		{4, "2000", "", "", "", "30d", "", "", "body=100", "", "kind=range,rate=2/day,rows=50", "", "", 50, 100, 7},
	} {
		f.Add(s.table, s.rows, s.rate, s.bucket, s.partitions, s.ttl, s.skew, s.nulls, s.avg, s.items, s.del, s.over, s.horizon, s.readLimit, s.pageSize, s.misc)
	}
	if _, err := os.Stat(fuzzSchema); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, table uint8, rows, rate, bucket, partitions, ttl, skew, nulls, avg, items, del, over, horizon string,
		readLimit, pageSize int, misc uint8) {
		args := []string{"estimate", "--schema", fuzzSchema, "--table", fuzzTables[int(table)%len(fuzzTables)],
			"--read-limit", strconv.Itoa(readLimit), "--page-size", strconv.Itoa(pageSize),
			"--target", []string{"cassandra-5.0", "cassandra-4.1", "scylladb"}[int(misc)%3],
			"--deletes-at", []string{"scattered", "head", "tail"}[int(misc/3)%3],
			"--read-order", []string{"auto", "newest-first", "oldest-first", "unordered"}[int(misc/9)%4]}
		for _, fl := range []struct{ name, v string }{
			{"rows", rows}, {"rate", rate}, {"bucket", bucket}, {"partitions", partitions}, {"ttl", ttl}, {"skew", skew},
			{"null-fraction", nulls}, {"avg", avg}, {"items", items}, {"delete", del}, {"overwrites", over}, {"horizon", horizon},
		} {
			if fl.v != "" {
				args = append(args, "--"+fl.name, fl.v)
			}
		}
		if misc&0x80 != 0 {
			args = append(args, "--writes", "update", "--nulls-as", "unset")
		}
		input := fmt.Sprintf("%q", args)
		code, out := runEstimateChecked(t, args, append(args, "--format", "json"))
		if code == ExitBadInput {
			return
		}
		checkEstimateJSON(t, args, out)
		if other := []string{"", "text", "markdown", "html"}[int(misc>>5)%4]; other != "" {
			if c, out := runEstimateChecked(t, args, append(args, "--format", other)); c != code {
				t.Errorf("%s: --format %s exits %d, --format json %d", input, other, c, code)
			} else if bad := badNumberText(out, args); bad != "" {
				t.Errorf("%s: --format %s shows %q:\n%s", input, other, bad, out)
			}
		}
	})
}

// runEstimateChecked runs the command within 10 s and checks its status and streams. in is
// the fuzzed command line, which messages may quote.
func runEstimateChecked(t *testing.T, in, args []string) (int, string) {
	t.Helper()
	input := fmt.Sprintf("%q", in)
	var stdout, stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- DoContext(context.Background(), args, strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
	}()
	var code int
	select {
	case code = <-done:
	case <-time.After(10 * time.Second):
		// The stuck goroutine cannot be stopped: end the process so the fuzzer records the input.
		fmt.Fprintf(os.Stderr, "HANG: estimate did not return within 10s on %s\n", input)
		os.Exit(3)
	}
	errOut := stderr.String()
	if strings.Contains(errOut, "internal error") {
		t.Fatalf("%s: panic: %s", input, errOut)
	}
	switch code {
	case ExitOK, ExitFindings:
		if stdout.Len() == 0 {
			t.Errorf("%s: exit %d with nothing on stdout; stderr %q", input, code, errOut)
		}
	case ExitBadInput:
		if stdout.Len() != 0 || !strings.HasPrefix(errOut, "cqlsize: ") {
			t.Errorf("%s: exit 2 with stdout %q, stderr %q: want one error on stderr only", input, stdout.String(), errOut)
		}
		if bad := badNumberText(errOut, in); bad != "" {
			t.Errorf("%s: error shows %q: %s", input, bad, errOut)
		}
	default:
		t.Errorf("%s: exit %d, want 0, 1 or 2; stderr %q", input, code, errOut)
	}
	return code, stdout.String()
}

// checkEstimateJSON fails t when the JSON report holds a number that is not finite or is
// negative, or a string that shows one.
func checkEstimateJSON(t *testing.T, in []string, out string) {
	t.Helper()
	input := fmt.Sprintf("%q", in)
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("%s: not JSON: %v\n%s", input, err, out)
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case json.Number:
			f, err := v.Float64()
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
				t.Errorf("%s: %s = %s", input, path, v)
			}
		case string:
			if bad := badNumberText(v, in); bad != "" {
				t.Errorf("%s: %s shows %q: %s", input, path, bad, v)
			}
		case []any:
			for i, e := range v {
				walk(fmt.Sprintf("%s[%d]", path, i), e)
			}
		case map[string]any:
			for k, e := range v {
				walk(path+"."+k, e)
			}
		}
	}
	walk("$", doc)
}

// badNumberText returns what in s shows an impossible number (or a broken format verb), or
// "". Text the command line itself holds is not counted: a message may quote the input.
func badNumberText(s string, in []string) string {
	for _, bad := range []string{"NaN", "+Inf", "-Inf", "-9223372036", "%!"} {
		if !strings.Contains(s, bad) {
			continue
		}
		quoted := false
		for _, a := range in {
			if strings.Contains(strings.ToLower(a), strings.ToLower(bad)) {
				quoted = true
			}
		}
		if !quoted {
			return bad
		}
	}
	return ""
}
