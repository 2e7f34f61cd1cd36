# cqlsize: make test runs everything against a real Cassandra 5.0 (see scripts/test).
GO ?= go
NODES ?= 1

.PHONY: build test test-ring test-dcs test-container test-short accuracy bench-writes bench-backfill bench-migrate cassandra-up cassandra-down cassandra-status cassandra-wipe nodetool fmt vet

build:
	$(GO) build -o bin/cqlsize ./cmd/cqlsize

# Every test, integration tests included, against a real node (started here if needed).
test:
	scripts/test

# The fault tests (TestRing...) on a 3-node ring (127.0.1.1-3), started here if needed and
# stopped at the end if so; see scripts/test-ring.
test-ring:
	scripts/test-ring

# The two-datacenter tests (TestDCs...) on `CQLSIZE_DCS=2 scripts/cassandra up` (dc1 and
# dc2, two nodes each), started if needed and stopped at the end if so; see scripts/test-dcs.
test-dcs:
	scripts/test-dcs

# The container tests (TestContainer...) against cassandra:5.0 containers; needs a Docker
# engine and the images: scripts/cassandra docker && scripts/cassandra image. Fails when a
# container the run created is left behind. See scripts/test-container and docs/containers.md.
test-container:
	scripts/test-container

# Pure tests only: no cluster needed, cluster tests skip.
test-short:
	$(GO) test -short ./...

# Write the reference workloads into the node and print measured vs model vs classic sizes;
# then the profile tables (truth vs `cqlsize profile` vs the estimate from its workload file)
# and the 1M-row run (a rate-limited profile's time and the node's read latency before and
# during). make accuracy ARGS="-scale 4" for 4x the rows, ARGS="-only profile -rate 2000" for
# one part. Needs CASSANDRA_HOSTS or a running local node.
accuracy:
	CASSANDRA_HOSTS=$${CASSANDRA_HOSTS:-$$(scripts/cassandra hosts)} $(GO) run ./internal/accuracy/cmd $(ARGS)

# Write speed of cql/denorm beside hand-written gocql, naive sequential writes and the
# concurrent unlogged mode, measured side by side in one run against the test node.
bench-writes:
	CASSANDRA_HOSTS=$${CASSANDRA_HOSTS:-$$(scripts/cassandra hosts)} $(GO) test -run='^$$' -bench=BenchmarkPostsSideBySide -benchtime=3000x -count=3 ./examples/posts/

# Rows a second of `cqlsize backfill` beside a hand-written parallel token-range copy with
# gocql at the same consistency, alternated 3 rounds in one run against the test node: the
# medians, their spread and ratio, the CPU each spent a row, and the backfill's peak RSS
# (VmHWM) copying 1M rows. ARGS="-rows 200000" for a quicker run; -keep, -keyspace and
# -rounds 0 write a table once and race in it again (docs/backfill.md).
bench-backfill:
	CASSANDRA_HOSTS=$${CASSANDRA_HOSTS:-$$(scripts/cassandra hosts)} $(GO) run ./internal/backfillcheck/cmd/benchbackfill $(ARGS)

# `cqlsize migrate`'s library beside golang-migrate's Cassandra driver and the bare
# statements, alternated in each round on the same node and history, fresh keyspaces each
# round: a file of 50 INSERTs. A module of its own (internal/migratebench/go.mod), so that
# golang-migrate stays out of the project's go.mod. ARGS="-rounds 3" for fewer rounds,
# ARGS="-ddl 5" to time a file of 5 schema changes too.
bench-migrate:
	cd internal/migratebench && CASSANDRA_HOSTS=$${CASSANDRA_HOSTS:-$$(../../scripts/cassandra hosts)} $(GO) run . $(ARGS)

cassandra-up:
	CQLSIZE_NODES=$(NODES) scripts/cassandra up

cassandra-down:
	CQLSIZE_NODES=$(NODES) scripts/cassandra down

cassandra-status:
	CQLSIZE_NODES=$(NODES) scripts/cassandra status

cassandra-wipe:
	CQLSIZE_NODES=$(NODES) scripts/cassandra wipe

# make nodetool ARGS="tablehistograms ks table"
nodetool:
	scripts/cassandra nodetool $(ARGS)

fmt:
	gofmt -l -w $$(git ls-files '*.go')

vet:
	$(GO) vet ./...
