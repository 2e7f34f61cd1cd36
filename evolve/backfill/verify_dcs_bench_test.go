package backfill

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql/denorm"
	"github.com/cqlsize/cqlsize/cql/liveschema"
	"github.com/cqlsize/cqlsize/internal/backfillcheck"
	"github.com/cqlsize/cqlsize/internal/dctest"
)

// BenchmarkVerifyPerDC measures what `backfill --verify --full --verify-dc each` does on
// the two-DC cluster: 3,000 source rows (300 users), copied re-keyed by month, then
// verified in full through each DC's nodes alone, at LOCAL_QUORUM, with 16 workers (as
// TestDCsOutage runs it). It reports source rows checked a second over both DCs, and the
// queries sent per source row (each a round trip to a coordinator; each page one). It
// holds dctest.Lock: a suite taking a DC down meanwhile would fail it.
//
//	CQLSIZE_DCS_HOSTS=$(CQLSIZE_DCS=2 scripts/cassandra hosts) go test -run '^$' -bench VerifyPerDC -benchtime 2x ./evolve/backfill
//
// Figures, before and after verify read by partition: docs/tests.md, Two datacenters.
func BenchmarkVerifyPerDC(b *testing.B) {
	dctest.Lock(b)
	ks := dctest.Keyspace(b, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	s := dctest.DCSession(b, "dc1", ks)
	tb := backfillcheck.Tables{Source: "posts", Month: "posts_by_month"}
	if err := tb.Create(ctx, s); err != nil {
		b.Fatal(err)
	}
	if err := dctest.AwaitAgreement(ctx, b); err != nil {
		b.Fatal(err)
	}
	const rows = 3000
	if _, err := backfillcheck.Generate(ctx, s, tb, backfillcheck.Spec{Rows: rows, Seed: 26, Consistency: gocql.EachQuorum, Workers: 16}); err != nil {
		b.Fatal(err)
	}
	schema, err := liveschema.Read(ctx, s, ks)
	if err != nil {
		b.Fatal(err)
	}
	p, err := denorm.Derive(schema, ks+"."+tb.Source, ks+"."+tb.Month, "month=month(created_at)")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := Run(ctx, s, p, Options{WriteConsistency: gocql.EachQuorum, Ranges: 64}); err != nil {
		b.Fatal(err)
	}
	var sessions []*counted
	for _, dc := range dctest.DCs(b) {
		sessions = append(sessions, countedSession(b, dc, ks))
	}
	var checked int64
	b.ResetTimer()
	for b.Loop() {
		for _, c := range sessions {
			c.queries.Store(0)
			res, err := Verify(ctx, c.s, p, VerifyOptions{Full: true, Workers: 16})
			if err != nil {
				b.Fatal(err)
			}
			if !res.OK() || res.SourceRows != rows {
				b.Fatalf("%s: %d source rows checked, %d missing, %d different, %d extra; want %d and none", c.dc, res.SourceRows, res.Missing, res.Different, res.Extra, rows)
			}
			checked += res.SourceRows
			b.ReportMetric(float64(c.queries.Load())/float64(res.SourceRows), "queries/row")
		}
	}
	b.ReportMetric(float64(checked)/b.Elapsed().Seconds(), "rows/s")
}

// counted is a session confined to one DC's nodes (as dctest.DCSession and
// --verify-dc open theirs) that counts the queries it sends, each page its own.
type counted struct {
	dc      string
	s       *gocql.Session
	queries atomic.Int64
}

func (c *counted) ObserveQuery(context.Context, gocql.ObservedQuery) { c.queries.Add(1) }

func countedSession(b *testing.B, dc, ks string) *counted {
	c := &counted{dc: dc}
	cfg := dctest.Config(b, dc)
	cfg.Keyspace, cfg.Hosts = ks, dctest.HostsIn(b, dc)
	cc, err := cfg.ClusterConfig()
	if err != nil {
		b.Fatal(err)
	}
	cc.HostFilter = gocql.DataCentreHostFilter(dc)
	cc.QueryObserver = c
	if c.s, err = cc.CreateSession(); err != nil {
		b.Fatalf("connect to %s alone: %v", dc, err)
	}
	b.Cleanup(c.s.Close)
	return c
}
