package design_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cqlsize/cqlsize/design"
)

// TestJSONContract holds the JSON report to docs/design-json.md: every key any case's
// report has is documented there, and the queries array gives what the contract promises.
func TestJSONContract(t *testing.T) {
	doc, err := os.ReadFile("../docs/design-json.md")
	if err != nil {
		t.Fatal(err)
	}
	dirs, _ := filepath.Glob("testdata/cases/*/expected.cql")
	keys := map[string]bool{}
	for _, f := range dirs {
		d, err := design.Run(load(t, filepath.Dir(f), "app"))
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := d.WriteJSON(&b, &design.Files{Migration: "m", Queries: "q", Workload: "w", WritePlan: "p"}); err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(b.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		collectKeys(v, keys)
		var rep struct {
			Queries []struct {
				Name, Table, Bucket string
				PartitionKey        []string `json:"partition_key"`
				Shards              *int
			}
		}
		_ = json.Unmarshal(b.Bytes(), &rep)
		for _, q := range rep.Queries {
			if q.Name == "" || q.Table == "" || len(q.PartitionKey) == 0 || q.Shards == nil {
				t.Errorf("%s: query %+v lacks a field the contract promises", f, q)
			}
		}
	}
	for k := range keys {
		if !strings.Contains(string(doc), "`"+k+"`") {
			t.Errorf("key %q is in the report but not in docs/design-json.md", k)
		}
	}
}

func collectKeys(v any, into map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			into[k] = true
			collectKeys(e, into)
		}
	case []any:
		for _, e := range x {
			collectKeys(e, into)
		}
	}
}
