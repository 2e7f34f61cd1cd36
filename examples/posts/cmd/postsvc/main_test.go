package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/cassandratest"
)

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-nope"}, {"extra"}, {"-consistency", "SOME", "-hosts", "127.0.0.1"}, {"-hashtag-stage", "dual", "-hosts", "127.0.0.1"}} {
		var stderr bytes.Buffer
		if err := run(context.Background(), args, &stderr); err == nil {
			t.Errorf("%v: accepted", args)
		}
	}
}

func TestUnreachableCluster(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := run(ctx, []string{"-hosts", "127.0.0.1:1"}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("want an error naming the host, got %v", err)
	}
}

// TestServes starts the service on a fresh keyspace (it creates the keyspace and applies
// the migrations), creates a post over HTTP and reads it back, then stops it.
func TestServes(t *testing.T) {
	hosts := cassandratest.Hosts(t)
	admin := cassandratest.Session(t)
	ks := cassandratest.KeyspaceName(t.Name())
	t.Cleanup(func() { _ = admin.Query("DROP KEYSPACE IF EXISTS " + ks).Exec() })
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var logs bytes.Buffer
	go func() {
		done <- run(ctx, []string{"-hosts", strings.Join(hosts, ","), "-keyspace", ks, "-consistency", "ONE",
			"-replication", "{'class': 'SimpleStrategy', 'replication_factor': 1}", "-listen", addr}, &logs)
	}()
	body := `{"user_id":"8c6f3a0e-5b1c-4f7e-9a51-0f3f0e2f6a10","content":"hello","hashtags":["go"]}`
	var res *http.Response
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		select {
		case err := <-done:
			t.Fatalf("postsvc stopped: %v\n%s", err, logs.String())
		default:
		}
		res, err = http.Post("http://"+addr+"/posts", "application/json", strings.NewReader(body))
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("postsvc did not answer: %v\n%s", err, logs.String())
		}
	}
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("create: %s\n%s", res.Status, logs.String())
	}
	get, err := http.Get(fmt.Sprintf("http://%s%s", addr, res.Header.Get("Location")))
	if err != nil || get.StatusCode != http.StatusOK {
		t.Fatalf("get the created post: %v %v", err, get)
	}
	get.Body.Close()
	cancel()
	if err := <-done; err != nil {
		t.Errorf("shutdown: %v", err)
	}
}
