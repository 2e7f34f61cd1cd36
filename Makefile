# cqlsize: make test runs everything against a real Cassandra 5.0 (see scripts/test).
GO ?= go
NODES ?= 1

.PHONY: build test test-short cassandra-up cassandra-down cassandra-status cassandra-wipe nodetool fmt vet

build:
	$(GO) build -o bin/cqlsize ./cmd/cqlsize

# Every test, integration tests included, against a real node (started here if needed).
test:
	scripts/test

# Pure tests only: no cluster needed, cluster tests skip.
test-short:
	$(GO) test -short ./...

cassandra-up:
	CQLSIZE_NODES=$(NODES) scripts/cassandra up

cassandra-down:
	scripts/cassandra down

cassandra-status:
	CQLSIZE_NODES=$(NODES) scripts/cassandra status

cassandra-wipe:
	scripts/cassandra wipe

# make nodetool ARGS="tablehistograms ks table"
nodetool:
	scripts/cassandra nodetool $(ARGS)

fmt:
	gofmt -l -w $$(git ls-files '*.go')

vet:
	$(GO) vet ./...
