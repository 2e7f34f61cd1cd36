package denorm

import (
	"context"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/internal/ringtest"
)

// TestRingTiersPromoteUnderWrites is TestTiersPromoteUnderWrites on the 3-node ring (RF 3,
// LOCAL_QUORUM, a session from ConfigureCluster, concurrent idempotent writes): once with
// every node up, and once with node 3 killed (SIGKILL) while the writers write, before the
// promotion, so that the tier reads, the promotion's Paxos round and every write and read
// after it run on two nodes of three. Every row must be where its instant's tier puts it,
// and read back once through the walk. Run it as scripts/test-ring does (-timeout 25m):
// a killed node's restart can take minutes on a busy machine.
func TestRingTiersPromoteUnderWrites(t *testing.T) {
	ringtest.Hosts(t)
	ringtest.Lock(t)
	for _, kill := range []bool{false, true} {
		name := "all nodes up"
		if kill {
			name = "node 3 killed"
		}
		t.Run(name, func(t *testing.T) {
			admin, ks := ringtest.Keyspace(t, 3)
			schema, plan := tiersSchema(t, admin, ks)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			if err := ringtest.AwaitAgreement(ctx, admin); err != nil {
				t.Fatal(err)
			}
			s := configuredSession(t, ringtest.Config(t), ks)
			var before func()
			if kill {
				before = func() {
					ringtest.Kill(t, 3)
					t.Logf("node 3 killed at %s", time.Now().UTC().Format("15:04:05.000"))
				}
			}
			run := writeAcrossPromotion(t, s, schema, plan, Options{Mode: Concurrent}, 4, before)
			checkTierRun(t, s, ks, plan, run) // node 3 comes back at ringtest.Lock's cleanup
		})
	}
}
