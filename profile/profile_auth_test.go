package profile

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/internal/authtest"
)

// TestAuthRunRefused: on a node with auth on, a role that may read events but not secrets
// gets no profile at all (nil result), not one that leaves secrets out as if the keyspace
// were covered: the error is the node's Unauthorized answer, naming the table. Profiling
// events alone works.
func TestAuthRunRefused(t *testing.T) {
	admin, ks := authtest.Keyspace(t)
	for _, table := range []string{"events", "secrets"} {
		cassandratest.DDL(t, admin, ks, "CREATE TABLE "+table+" (id int, seq int, body text, PRIMARY KEY (id, seq))")
		for i := 0; i < 20; i++ {
			if err := admin.Query("INSERT INTO "+table+" (id, seq, body) VALUES (?, ?, ?)", i%4, i, fmt.Sprint("b", i)).Exec(); err != nil {
				t.Fatal(err)
			}
		}
	}
	reader, pw := authtest.Role(t, admin, "reader")
	authtest.Grant(t, admin, "SELECT", "TABLE "+ks+".events", reader)
	s := authtest.Open(t, reader, pw, "")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	res, err := Run(ctx, s, Options{Keyspace: ks, Sample: 10, Seed: 1, Consistency: gocql.One})
	var req gocql.RequestError
	want := fmt.Sprintf("profile %s.secrets: User %s has no SELECT permission on <table %s.secrets>", ks, reader, ks)
	if res != nil || !errors.As(err, &req) || req.Code() != gocql.ErrCodeUnauthorized || !strings.Contains(fmt.Sprint(err), want) {
		t.Fatalf("Run over a table the role may not read: result %v, error %v; want no result and %q", res != nil, err, want)
	}
	res, err = Run(ctx, s, Options{Keyspace: ks, Tables: []string{"events"}, Sample: 10, Seed: 1, Consistency: gocql.One})
	if err != nil || res == nil || res.Partial || len(res.Tables) != 1 || res.Tables[0].RowsSeen != 20 {
		t.Fatalf("Run over events only: %+v, %v; want the 20 rows, not partial", res, err)
	}
}
