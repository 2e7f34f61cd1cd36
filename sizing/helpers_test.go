package sizing

import (
	"fmt"
	"strings"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/workload"
)

// mustTable builds a table from column specs "name type [pk|ck|ck desc|static]", so tests
// need no parser: mustTable("app.posts", "user_id uuid pk", "post_id timeuuid ck", "content text").
func mustTable(qualified string, specs ...string) *cql.Table {
	ks, name, _ := strings.Cut(qualified, ".")
	t := &cql.Table{Keyspace: ks, Name: name, Options: cql.TableOptions{GCGraceSeconds: cql.DefaultGCGraceSeconds}, Pos: cql.Pos{File: "schema.cql", Line: 1, Col: 1}}
	for i, spec := range specs {
		f := strings.Fields(spec)
		// The type may contain spaces after commas: join until the role keyword.
		typ, role := f[1], ""
		rest := f[2:]
		for len(rest) > 0 && !isRole(rest[0]) {
			typ += rest[0]
			rest = rest[1:]
		}
		role = strings.Join(rest, " ")
		ty, err := parseTestType(typ)
		if err != nil {
			panic(fmt.Sprintf("column %q: %v", spec, err))
		}
		c := &cql.Column{Name: f[0], Type: ty, Kind: cql.Regular, Position: -1, Pos: cql.Pos{File: "schema.cql", Line: i + 2, Col: 3}}
		switch role {
		case "pk":
			c.Kind, c.Position = cql.PartitionKey, len(t.PartitionKey)
			t.PartitionKey = append(t.PartitionKey, c)
		case "ck", "ck desc":
			c.Kind, c.Position = cql.Clustering, len(t.Clustering)
			if role == "ck desc" {
				c.Order = cql.Desc
			}
			t.Clustering = append(t.Clustering, c)
		case "static":
			c.Kind = cql.Static
		case "":
		default:
			panic("unknown role " + role)
		}
		t.Columns = append(t.Columns, c)
	}
	return t
}

func isRole(s string) bool { return s == "pk" || s == "ck" || s == "desc" || s == "static" }

// parseTestType reads "text", "set<text>", "map<text,int>", "frozen<list<int>>", "tuple<int,text>".
func parseTestType(s string) (cql.Type, error) {
	s = strings.TrimSpace(s)
	open := strings.IndexByte(s, '<')
	if open < 0 {
		if n, ok := cql.CanonicalNative(s); ok {
			return cql.Type{Kind: cql.Native, Name: n}, nil
		}
		return cql.Type{Kind: cql.UDT, Name: s}, nil
	}
	if !strings.HasSuffix(s, ">") {
		return cql.Type{}, fmt.Errorf("unbalanced %q", s)
	}
	head, inner := s[:open], s[open+1:len(s)-1]
	var params []cql.Type
	depth, start := 0, 0
	for i := 0; i <= len(inner); i++ {
		if i == len(inner) || inner[i] == ',' && depth == 0 {
			p, err := parseTestType(inner[start:i])
			if err != nil {
				return cql.Type{}, err
			}
			params = append(params, p)
			start = i + 1
			continue
		}
		switch inner[i] {
		case '<':
			depth++
		case '>':
			depth--
		}
	}
	switch head {
	case "frozen":
		t := params[0]
		t.Frozen = true
		return t, nil
	case "list":
		return cql.Type{Kind: cql.List, Params: params}, nil
	case "set":
		return cql.Type{Kind: cql.Set, Params: params}, nil
	case "map":
		return cql.Type{Kind: cql.Map, Params: params}, nil
	case "tuple":
		return cql.Type{Kind: cql.Tuple, Params: params, Frozen: true}, nil
	}
	return cql.Type{}, fmt.Errorf("unknown type %q", head)
}

// schemaOf puts tables into a schema.
func schemaOf(tables ...*cql.Table) *cql.Schema {
	s := cql.NewSchema()
	for _, t := range tables {
		ks := s.Keyspaces[t.Keyspace]
		if ks == nil {
			ks = cql.NewKeyspace(t.Keyspace)
			s.Keyspaces[t.Keyspace] = ks
		}
		ks.Tables[t.Name] = t
	}
	return s
}

// exampleSchema is the schema ../workload/testdata/workload-example.yaml describes (the same tables as workload-example.cql there).
func exampleSchema() *cql.Schema {
	return schemaOf(
		mustTable("app.posts_by_user", "user_id uuid pk", "month text pk", "post_id timeuuid ck desc", "title text", "content text", "likes int"),
		mustTable("app.posts_by_hashtag", "hashtag text pk", "day date pk", "post_id timeuuid ck desc", "user_id uuid", "content text"),
		mustTable("app.posts_by_id", "post_id timeuuid pk", "user_id uuid", "content text", "hashtags set<text>", "created_at timestamp"),
		mustTable("app.sensor_readings", "sensor_id uuid pk", "day date pk", "ts timestamp ck desc", "value double", "unit text"),
		mustTable("app.user_profiles", "user_id uuid pk", "name text", "emails set<text>", "prefs map<text,text>"),
		mustTable("app.inbox", "user_id uuid pk", "msg_id timeuuid ck", "body text", "labels set<text>"),
	)
}

// fromSettings builds one table's workload from settings written as dotted workload-file
// paths, "rows=2000", "avg.content=280", "skew.zipf=1.1", "items.tags.count=5",
// `deletes=[{kind: row, rate: 5/day}]`, through the workload file's parser: each setting
// becomes a line of YAML, a dotted path a flow mapping (repeated lists are joined). Flag
// syntax (--avg content=280) is internal/workloadflag's, outside this package.
func fromSettings(table string, settings ...string) (*workload.TableWorkload, error) {
	type node struct {
		keys  []string
		kids  map[string]*node
		value string
	}
	root := &node{kids: map[string]*node{}}
	for _, s := range settings {
		path, value, ok := strings.Cut(s, "=")
		if !ok {
			return nil, fmt.Errorf("setting %q: want path=value", s)
		}
		n := root
		parts := strings.Split(path, ".")
		for i, p := range parts {
			kid, seen := n.kids[p]
			if !seen {
				kid = &node{kids: map[string]*node{}}
				n.kids[p] = kid
				n.keys = append(n.keys, p)
			}
			if i == len(parts)-1 {
				if seen && strings.HasPrefix(kid.value, "[") && strings.HasPrefix(value, "[") {
					value = strings.TrimSuffix(kid.value, "]") + ", " + strings.TrimPrefix(value, "[")
				}
				kid.value = value
			}
			n = kid
		}
	}
	var render func(n *node) string
	render = func(n *node) string {
		if len(n.keys) == 0 {
			return n.value
		}
		var fields []string
		for _, k := range n.keys {
			fields = append(fields, fmt.Sprintf("%q: %s", k, render(n.kids[k])))
		}
		return "{" + strings.Join(fields, ", ") + "}"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "tables:\n  %q:\n", table)
	for _, k := range root.keys {
		fmt.Fprintf(&b, "    %q: %s\n", k, render(root.kids[k]))
	}
	if len(root.keys) == 0 {
		b.WriteString("    {}\n")
	}
	w, err := workload.Parse("settings", []byte(b.String()))
	if err != nil {
		return nil, err
	}
	return w.Tables[0], nil
}
