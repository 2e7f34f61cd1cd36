package migrations

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
)

func testStore(t *testing.T, s *gocql.Session, ks string, pid int, ttl, timeout time.Duration) *store {
	t.Helper()
	opt, err := Options{Keyspace: ks, PID: pid, Host: "test-host", LockTTL: ttl, LockTimeout: timeout}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	st := newStore(s, opt)
	if _, err := st.ensure(context.Background()); err != nil {
		t.Fatal(err)
	}
	return st
}

func noEvents(Event) {}

func TestLeaseExcludesRenewsAndExpires(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// 4s, not 2s: the holder trusts its lease for ttl - (1s + ttl/10), 0.8s at 2s, which one
	// renewal (a Paxos round) on a busy node can overrun (lease lost).
	const ttl = 4 * time.Second
	a := testStore(t, s, ks, 1001, ttl, time.Second)
	b := testStore(t, s, ks, 1002, ttl, time.Second)

	la, err := a.acquire(ctx, noEvents, nil)
	if err != nil {
		t.Fatal(err)
	}
	// B gives up after its 1s timeout and names A.
	_, err = b.acquire(ctx, noEvents, nil)
	var le *LockedError
	if !errors.As(err, &le) || !errors.Is(err, ErrLocked) || le.Holder.PID != 1001 || le.Holder.Host != "test-host" {
		t.Fatalf("second acquire: %v, want ErrLocked naming pid 1001", err)
	}

	// A keeps renewing: after two TTLs B still cannot take it.
	time.Sleep(2 * ttl)
	if err := la.lost(); err != nil {
		t.Fatalf("lease lost while renewing: %v", err)
	}
	if _, err := b.acquire(ctx, noEvents, nil); !errors.Is(err, ErrLocked) {
		t.Fatalf("acquire while A renews: %v", err)
	}

	// A dies without releasing: renewal stops, the row expires, B takes over.
	la.cancel(nil)
	<-la.done
	died := time.Now()
	b.opt.LockTimeout = 3 * ttl
	lb, err := b.acquire(ctx, noEvents, nil)
	if err != nil {
		t.Fatalf("acquire after A died: %v", err)
	}
	if waited := time.Since(died); waited > ttl+2*time.Second {
		t.Errorf("took over %s after A died; the TTL is %s", waited, ttl)
	}
	h, err := b.holder(ctx)
	if err != nil || h.PID != 1002 || h.Owner != lb.owner.String() {
		t.Fatalf("holder after takeover: %+v, %v", h, err)
	}
	if err := lb.release(); err != nil {
		t.Fatal(err)
	}
	if h, err := b.holder(ctx); err != nil || h.Owner != "" {
		t.Fatalf("holder after release: %+v, %v", h, err)
	}
}

func TestLeaseLostIsNoticed(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const ttl = 3 * time.Second
	a := testStore(t, s, ks, 2001, ttl, time.Second)
	la, err := a.acquire(ctx, noEvents, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer la.release()
	// Someone else's row replaces A's (as if A stalled past the TTL and B took over).
	if err := s.Query(`UPDATE `+a.lock+` USING TTL 60 SET owner = ? WHERE target = ?`, gocql.TimeUUID(), ks).Exec(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * ttl)
	for la.lost() == nil && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if err := la.lost(); !errors.Is(err, ErrLockLost) {
		t.Fatalf("lost() = %v after another owner took the row, want ErrLockLost", err)
	}
	if la.ctx.Err() == nil {
		t.Fatal("the run context was not cancelled when the lease was lost")
	}
}
