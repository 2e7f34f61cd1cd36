package backfillcheck_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/internal/backfillcheck"
)

// pythonAgrees reads a sample of the target rows the checker read again, by key, with the
// Python driver (testdata/readrows.py), and fails t where the two clients disagree on a
// value or a write time: the checker's own reading must not rest on the driver the
// backfill uses.
func pythonAgrees(t *testing.T, hosts []string, ks string, tb backfillcheck.Tables, month, tagDay map[string]backfillcheck.Row, n int) {
	t.Helper()
	python := cassandratest.Python(t)
	req := map[string][][]any{"month": {}, "tagday": {}}
	for _, k := range sample(month, n) {
		f := strings.Split(k, "|")
		ms, _ := strconv.ParseInt(f[2], 10, 64)
		req["month"] = append(req["month"], []any{f[0], f[1], ms, f[3]})
	}
	for _, k := range sample(tagDay, n) {
		f := strings.Split(k, "|")
		tag, err := strconv.Unquote(strings.Join(f[:len(f)-4], "|"))
		if err != nil {
			t.Fatalf("key %s: %v", k, err)
		}
		ms, _ := strconv.ParseInt(f[len(f)-3], 10, 64)
		req["tagday"] = append(req["tagday"], []any{tag, f[len(f)-4], ms, f[len(f)-2], f[len(f)-1]})
	}
	body, _ := json.Marshal(req)
	cmd := exec.Command(python, "testdata/readrows.py", strings.Join(hosts, ","), ks, tb.Month, tb.TagDay)
	cmd.Stdin = bytes.NewReader(body)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("readrows.py: %v\n%s", err, stderr.String())
	}
	var got struct {
		Month []struct {
			Key           []any
			Content       *string
			ContentWrite  *int64 `json:"content_write"`
			ContentTTL    *int   `json:"content_ttl"`
			Likes         *int
			LikesWrite    *int64 `json:"likes_write"`
			Hashtags      []string
			HashtagsWrite []int64 `json:"hashtags_write"`
		}
		TagDay []struct {
			Key          []any
			Content      *string
			ContentWrite *int64 `json:"content_write"`
			ContentTTL   *int   `json:"content_ttl"`
		} `json:"tagday"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("readrows.py output: %v", err)
	}
	if len(got.Month) != len(req["month"]) || len(got.TagDay) != len(req["tagday"]) {
		t.Fatalf("python found %d and %d of the %d and %d rows the checker read", len(got.Month), len(got.TagDay), len(req["month"]), len(req["tagday"]))
	}
	for _, r := range got.Month {
		key := fmt.Sprintf("%s|%s|%.0f|%s", r.Key...)
		py := backfillcheck.Row{}
		addCell(py, "content", r.Content, r.ContentWrite, r.ContentTTL)
		if r.Likes != nil {
			v := strconv.Itoa(*r.Likes)
			addCell(py, "likes", &v, r.LikesWrite, nil)
		}
		for i, e := range r.Hashtags {
			empty := ""
			addCell(py, "hashtags["+e+"]", &empty, &r.HashtagsWrite[i], nil)
		}
		sameCells(t, key, month[key], py)
	}
	for _, r := range got.TagDay {
		key := fmt.Sprintf("%q|%s|%.0f|%s|%s", r.Key...)
		py := backfillcheck.Row{}
		addCell(py, "content", r.Content, r.ContentWrite, r.ContentTTL)
		sameCells(t, key, tagDay[key], py)
	}
	t.Logf("the Python driver agrees with the checker on %d %s rows and %d %s rows", len(got.Month), tb.Month, len(got.TagDay), tb.TagDay)
}

func addCell(r backfillcheck.Row, col string, v *string, write *int64, ttl *int) {
	if v == nil {
		return
	}
	c := backfillcheck.Cell{Value: *v}
	if write != nil {
		c.Write = *write
	}
	if ttl != nil {
		c.TTL = *ttl
	}
	r[col] = c
}

// sameCells compares the checker's row with Python's: the same cells, values and write
// times; a TTL on both or neither (Python read later, so its TTL is at most the checker's).
func sameCells(t *testing.T, key string, checker, py backfillcheck.Row) {
	t.Helper()
	if len(checker) != len(py) {
		t.Errorf("%s: the checker read cells %v, python %v", key, checker, py)
		return
	}
	for col, c := range checker {
		p, ok := py[col]
		if col == "likes" || strings.HasPrefix(col, "hashtags[") {
			p.TTL, c.TTL = 0, 0 // not read by readrows.py
		}
		if !ok || p.Value != c.Value || p.Write != c.Write || (p.TTL == 0) != (c.TTL == 0) || p.TTL > c.TTL+1 {
			t.Errorf("%s %s: the checker read %+v, python %+v", key, col, c, p)
		}
	}
}

// sample is n keys of m, spread evenly over their sorted order.
func sample(m map[string]backfillcheck.Row, n int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) <= n {
		return keys
	}
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, keys[i*len(keys)/n])
	}
	return out
}
