package cassandratest

import (
	"context"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/connect"
)

// Proxy forwards connections to one node and, while held, keeps the node's answers from the
// client: a request sent then reaches the node and is carried out, and its answer misses the
// client's timeout, as on a node too busy to answer in time. It is how a test makes the
// driver give up on a request the node applied, or on a read, without touching the node
// other tests share.
type Proxy struct {
	ln   net.Listener
	node string
	held atomic.Bool
	late atomic.Int64
}

// NewProxy listens on a loopback port of its own and forwards to node (host:port) until the
// test ends.
func NewProxy(t testing.TB, node string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{ln: ln, node: node}
	t.Cleanup(func() { ln.Close() })
	go p.serve()
	return p
}

// Addr is where clients connect.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Hold keeps the node's answers back (on) or lets them through, those held first (off).
func (p *Proxy) Hold(on bool) { p.held.Store(on) }

// Late is how many reads of the node's answers were held before they were passed on.
func (p *Proxy) Late() int64 { return p.late.Load() }

func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		n, err := net.Dial("tcp", p.node)
		if err != nil {
			c.Close()
			continue
		}
		go func() { _, _ = io.Copy(n, c); n.Close() }()
		go func() {
			defer c.Close()
			buf := make([]byte, 64<<10)
			for {
				k, err := n.Read(buf)
				if p.held.Load() {
					p.late.Add(1)
					for p.held.Load() {
						time.Sleep(10 * time.Millisecond)
					}
				}
				if k > 0 {
					if _, werr := c.Write(buf[:k]); werr != nil {
						return
					}
				}
				if err != nil {
					return
				}
			}
		}()
	}
}

// ProxiedSession is a session on the test cluster's first node through a new Proxy, every
// request coordinated by that node, with the given client timeout.
func ProxiedSession(t testing.TB, timeout time.Duration) (*gocql.Session, *Proxy) {
	t.Helper()
	cfg := Config(t)
	node := cfg.Hosts[0]
	if _, _, err := net.SplitHostPort(node); err != nil {
		port := cfg.Port
		if port == 0 {
			port = 9042
		}
		node = net.JoinHostPort(node, fmt.Sprint(port))
	}
	p := NewProxy(t, node)
	cfg.Hosts, cfg.Direct, cfg.Timeout = []string{p.Addr()}, true, timeout
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second+cfg.ConnectTimeout)
	defer cancel()
	s, err := connect.Open(ctx, cfg)
	if err != nil {
		t.Fatalf("open a session through the proxy: %v", err)
	}
	t.Cleanup(s.Close)
	return s, p
}
