#!/usr/bin/env python3
"""Loads the shape corpus: tables of shapes cqlsize's own generator never makes, written with the
DataStax Python driver so the data shares no code with the model it checks.

    python3 corpus.py HOSTS KEYSPACE SEED [SHAPE ...]

Every shape is created once per compressor (LZ4 with its defaults, Zstd, and Deflate or Snappy)
as SHAPE_lz4, SHAPE_zstd, SHAPE_deflate / SHAPE_snappy. Values come from random.Random(SEED and
the shape's name), so two runs with one seed write the same data. The script waits until its
short TTLs have expired, so the node holds expired cells within gc_grace_seconds, and prints
one JSON document: per table what it wrote (partitions, live rows, deleted rows, range deletes,
expired rows, the TTLs used).
"""

import json
import random
import sys
import time
import uuid

from cassandra.cluster import Cluster
from cassandra.concurrent import execute_concurrent_with_args
from cassandra.query import UNSET_VALUE

WORDS = ("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike "
         "november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu "
         "reading sensor rack aisle north south east west ok warn error retry").split()

# The shortest TTL: rows written with it have expired when the script ends.
SHORT_TTL = 3


def text(rnd, lo, hi):
    return " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(lo, hi)))


def compressors(index):
    third = ("deflate", {"class": "DeflateCompressor"}) if index % 2 == 0 else ("snappy", {"class": "SnappyCompressor"})
    return [("lz4", {"class": "LZ4Compressor"}), ("zstd", {"class": "ZstdCompressor"}), third]


class Shape:
    """One shape: its DDL (with {t} for the table and {c} for the compression map) and a load."""

    def __init__(self, name, ddl, load, types=()):
        self.name, self.ddl, self.load, self.types = name, ddl, load, types


def run(session, stmt, args):
    if not args:
        return
    prepared = session.prepare(stmt)
    for ok, res in execute_concurrent_with_args(session, prepared, args, concurrency=32, raise_on_first_error=False):
        if not ok:
            raise RuntimeError("%s: %s" % (stmt, res))


def rows_of(rnd, n, lo, hi):
    return [rnd.randint(lo, hi) for _ in range(n)]


def load_plain(s, t, rnd):
    args = []
    for p in range(20):
        for c in range(rnd.randint(10, 30)):
            args.append(("user%04d" % p, c, text(rnd, 3, 12), rnd.randint(0, 1 << 40)))
    run(s, "INSERT INTO %s (pk, ck, body, n) VALUES (?, ?, ?, ?)" % t, args)
    return {"partitions": 20, "rows": len(args)}


def load_sparse(s, t, rnd):
    args = []
    for p in range(20):
        for c in range(20):
            row = ["acct%03d" % p, c]
            for i in range(10):
                # Most columns are left unset; the first few a little more often.
                row.append(text(rnd, 1, 4) if rnd.random() < (0.3 if i < 3 else 0.08) else UNSET_VALUE)
            args.append(tuple(row))
    cols = ", ".join("c%d" % i for i in range(10))
    run(s, "INSERT INTO %s (pk, ck, %s) VALUES (?, ?, %s)" % (t, cols, ", ".join("?" * 10)), args)
    return {"partitions": 20, "rows": len(args)}


def load_doubles(s, t, rnd):
    args = []
    for p in range(8):
        for c in range(60):
            args.append(tuple([p, c] + [rnd.gauss(20.0, 5.0) for _ in range(16)]))
    cols = ", ".join("d%d" % i for i in range(16))
    run(s, "INSERT INTO %s (pk, ck, %s) VALUES (?, ?, %s)" % (t, cols, ", ".join("?" * 16)), args)
    return {"partitions": 8, "rows": len(args)}


def load_ttl_mix(s, t, rnd):
    """Metrics written with several TTLs (an hour, a day, a week) and some without any."""
    ttls = [3600, 86400, 604800, 0]
    by_ttl = {x: [] for x in ttls}
    for p in range(20):
        for c in range(30):
            ttl = rnd.choices(ttls, weights=[3, 4, 2, 1])[0]
            by_ttl[ttl].append(("host%02d" % p, c, rnd.random() * 100, text(rnd, 1, 3)))
    for ttl, args in by_ttl.items():
        using = " USING TTL %d" % ttl if ttl else ""
        run(s, "INSERT INTO %s (pk, ts, value, unit) VALUES (?, ?, ?, ?)%s" % (t, using), args)
    return {"partitions": 20, "rows": sum(len(a) for a in by_ttl.values()),
            "ttls": {str(k): len(v) for k, v in by_ttl.items()}}


def load_ttl_expired(s, t, rnd):
    """A day's TTL on every row, and a quarter of the rows written with a few seconds': those
    have expired when the table is flushed, and stay as tombstones until gc_grace_seconds."""
    day, short = [], []
    for p in range(20):
        for c in range(30):
            row = ("dev%02d" % p, c, rnd.random() * 100, text(rnd, 2, 5))
            (short if rnd.random() < 0.25 else day).append(row)
    run(s, "INSERT INTO %s (pk, ts, value, note) VALUES (?, ?, ?, ?) USING TTL 86400" % t, day)
    run(s, "INSERT INTO %s (pk, ts, value, note) VALUES (?, ?, ?, ?) USING TTL %d" % (t, SHORT_TTL), short)
    return {"partitions": 20, "rows": len(day), "expired_rows": len(short), "ttls": {"86400": len(day), str(SHORT_TTL): len(short)}}


def load_deletes_head(s, t, rnd):
    """A queue: each partition's oldest rows deleted by one range delete (ck < k)."""
    args, dels, deleted = [], [], 0
    for p in range(20):
        n = rnd.randint(30, 50)
        for c in range(n):
            args.append(("queue%02d" % p, c, text(rnd, 4, 10)))
        k = rnd.randint(n // 4, n // 2)
        dels.append(("queue%02d" % p, k))
        deleted += k
    run(s, "INSERT INTO %s (pk, ck, payload) VALUES (?, ?, ?)" % t, args)
    run(s, "DELETE FROM %s WHERE pk = ? AND ck < ?" % t, dels)
    return {"partitions": 20, "rows": len(args) - deleted, "deleted_rows": deleted, "range_deletes": len(dels)}


def load_deletes_spread(s, t, rnd):
    """Rows deleted one by one all over each partition (1,000 in all), and a few ranges."""
    args, dels, ranges = [], [], []
    for p in range(40):
        for c in range(40):
            args.append(("cart%02d" % p, c, text(rnd, 2, 6), rnd.randint(1, 9)))
    picked = rnd.sample([(a[0], a[1]) for a in args], 1000)
    dels = picked
    gone = set(picked)
    for p in range(0, 40, 8):
        lo = rnd.randint(0, 30)
        ranges.append(("cart%02d" % p, lo, lo + 5))
        gone.update(("cart%02d" % p, c) for c in range(lo, lo + 5))
    run(s, "INSERT INTO %s (pk, ck, item, qty) VALUES (?, ?, ?, ?)" % t, args)
    run(s, "DELETE FROM %s WHERE pk = ? AND ck = ?" % t, dels)
    run(s, "DELETE FROM %s WHERE pk = ? AND ck >= ? AND ck < ?" % t, ranges)
    return {"partitions": 40, "rows": len(args) - len(gone), "deleted_rows": len(gone), "row_deletes": len(dels), "range_deletes": len(ranges)}


def load_static_only(s, t, rnd):
    """Partitions holding only their static columns: no clustering row is ever written."""
    args = [("tenant%03d" % p, text(rnd, 2, 5), rnd.randint(0, 1000), text(rnd, 5, 20)) for p in range(100)]
    run(s, "INSERT INTO %s (pk, name, quota, settings) VALUES (?, ?, ?, ?)" % t, args)
    return {"partitions": 100, "rows": 0}


def load_blobs(s, t, rnd):
    """Big values: 2-6 KiB blobs, half random bytes, half repetitive."""
    args = []
    for p in range(12):
        for c in range(6):
            n = rnd.randint(2048, 6144)
            if rnd.random() < 0.5:
                b = bytes(rnd.getrandbits(8) for _ in range(n))
            else:
                b = (text(rnd, 4, 8).encode() * (n // 8 + 1))[:n]
            args.append(("obj%02d" % p, c, b, rnd.choice(["image/png", "application/json", "text/plain"])))
    run(s, "INSERT INTO %s (pk, ck, data, mime) VALUES (?, ?, ?, ?)" % t, args)
    return {"partitions": 12, "rows": len(args)}


def load_udt(s, t, rnd):
    args = []
    for p in range(20):
        for c in range(12):
            # A UDT value is bound as a tuple of its fields in order (street, city, zip).
            home = (text(rnd, 1, 3), rnd.choice(WORDS), rnd.randint(10000, 99999))
            work = (text(rnd, 1, 3), rnd.choice(WORDS), rnd.randint(10000, 99999))
            args.append(("person%02d" % p, c, home, work))
    run(s, "INSERT INTO %s (pk, ck, home, work) VALUES (?, ?, ?, ?)" % t, args)
    return {"partitions": 20, "rows": len(args)}


def load_frozen(s, t, rnd):
    args = []
    for p in range(20):
        for c in range(15):
            tags = set(rnd.sample(WORDS, rnd.randint(1, 6)))
            scores = [rnd.randint(0, 1000) for _ in range(rnd.randint(0, 8))]
            attrs = {rnd.choice(WORDS): rnd.randint(0, 99) for _ in range(rnd.randint(1, 5))}
            args.append(("doc%02d" % p, c, tags, scores, attrs))
    run(s, "INSERT INTO %s (pk, ck, tags, scores, attrs) VALUES (?, ?, ?, ?, ?)" % t, args)
    return {"partitions": 20, "rows": len(args)}


def load_counters(s, t, rnd):
    args = []
    for p in range(20):
        for c in range(20):
            args.append((rnd.randint(1, 50), rnd.randint(1, 5000), "page%02d" % p, c))
    run(s, "UPDATE %s SET views = views + ?, bytes = bytes + ? WHERE pk = ? AND ck = ?" % t, args)
    return {"partitions": 20, "rows": len(args)}


def load_collections(s, t, rnd):
    """Non-frozen map and set, written whole on insert and then grown element by element."""
    args, adds = [], []
    for p in range(20):
        for c in range(10):
            args.append(("prof%02d" % p, c, {rnd.choice(WORDS): text(rnd, 1, 2) for _ in range(3)}, set(rnd.sample(WORDS, 3))))
            for _ in range(rnd.randint(0, 3)):
                adds.append((rnd.choice(WORDS) + str(rnd.randint(0, 9)), text(rnd, 1, 2), "prof%02d" % p, c))
    run(s, "INSERT INTO %s (pk, ck, prefs, labels) VALUES (?, ?, ?, ?)" % t, args)
    run(s, "UPDATE %s SET prefs[?] = ? WHERE pk = ? AND ck = ?" % t, adds)
    return {"partitions": 20, "rows": len(args)}


def load_timeseries(s, t, rnd):
    args = []
    base = 1_700_000_000_000
    for p in range(6):
        sensor = uuid.UUID(int=rnd.getrandbits(128), version=4)
        for c in range(100):
            args.append((sensor, base + c * 60_000 + p, rnd.randint(0, 100), rnd.random()))
    run(s, "INSERT INTO %s (sensor, at, status, reading) VALUES (?, ?, ?, ?)" % t, args)
    return {"partitions": 6, "rows": len(args)}


SHAPES = [
    Shape("plain", "CREATE TABLE IF NOT EXISTS {t} (pk text, ck int, body text, n bigint, PRIMARY KEY (pk, ck)) WITH compression = {c}", load_plain),
    Shape("sparse", "CREATE TABLE IF NOT EXISTS {t} (pk text, ck int, " + " ".join("c%d text," % i for i in range(10)) +
          " PRIMARY KEY (pk, ck)) WITH compression = {c}", load_sparse),
    Shape("doubles", "CREATE TABLE IF NOT EXISTS {t} (pk int, ck int, " + " ".join("d%d double," % i for i in range(16)) +
          " PRIMARY KEY (pk, ck)) WITH compression = {c}", load_doubles),
    Shape("ttl_mix", "CREATE TABLE IF NOT EXISTS {t} (pk text, ts int, value double, unit text, PRIMARY KEY (pk, ts)) WITH compression = {c}", load_ttl_mix),
    Shape("ttl_expired", "CREATE TABLE IF NOT EXISTS {t} (pk text, ts int, value double, note text, PRIMARY KEY (pk, ts)) WITH compression = {c}", load_ttl_expired),
    Shape("del_head", "CREATE TABLE IF NOT EXISTS {t} (pk text, ck int, payload text, PRIMARY KEY (pk, ck)) WITH compression = {c}", load_deletes_head),
    Shape("del_spread", "CREATE TABLE IF NOT EXISTS {t} (pk text, ck int, item text, qty int, PRIMARY KEY (pk, ck)) WITH compression = {c}", load_deletes_spread),
    Shape("static_only", "CREATE TABLE IF NOT EXISTS {t} (pk text, ck int, v text, name text static, quota int static, settings text static, PRIMARY KEY (pk, ck)) WITH compression = {c}", load_static_only),
    Shape("blobs", "CREATE TABLE IF NOT EXISTS {t} (pk text, ck int, data blob, mime text, PRIMARY KEY (pk, ck)) WITH compression = {c}", load_blobs),
    Shape("udt", "CREATE TABLE IF NOT EXISTS {t} (pk text, ck int, home address, work frozen<address>, PRIMARY KEY (pk, ck)) WITH compression = {c}", load_udt,
          types=("CREATE TYPE IF NOT EXISTS address (street text, city text, zip int)",)),
    Shape("frozen", "CREATE TABLE IF NOT EXISTS {t} (pk text, ck int, tags frozen<set<text>>, scores frozen<list<int>>, attrs frozen<map<text, int>>, PRIMARY KEY (pk, ck)) WITH compression = {c}", load_frozen),
    Shape("counters", "CREATE TABLE IF NOT EXISTS {t} (pk text, ck int, views counter, bytes counter, PRIMARY KEY (pk, ck)) WITH compression = {c}", load_counters),
    Shape("collections", "CREATE TABLE IF NOT EXISTS {t} (pk text, ck int, prefs map<text, text>, labels set<text>, PRIMARY KEY (pk, ck)) WITH compression = {c}", load_collections),
    Shape("timeseries", "CREATE TABLE IF NOT EXISTS {t} (sensor uuid, at timestamp, status int, reading double, PRIMARY KEY (sensor, at)) WITH compression = {c}", load_timeseries),
]


def cql_map(m):
    return "{" + ", ".join("'%s': '%s'" % kv for kv in m.items()) + "}"


def main():
    if len(sys.argv) < 4:
        sys.stderr.write("usage: corpus.py HOSTS KEYSPACE SEED [SHAPE ...]\n")
        sys.exit(2)
    # host or host:port (a container's published port), one port for all, as the driver takes it
    hosts = [(h.rsplit(":", 1)[0], int(h.rsplit(":", 1)[1])) if h.count(":") == 1 else (h, 9042)
             for h in sys.argv[1].split(",") if h]
    ks, seed = sys.argv[2], int(sys.argv[3])
    only = set(sys.argv[4:])
    unknown = only - {sh.name for sh in SHAPES}
    if unknown:
        sys.stderr.write("corpus.py: unknown shapes %s\n" % ", ".join(sorted(unknown)))
        sys.exit(2)
    # Schema agreement is awaited once, after every table is created, not after each.
    cluster = Cluster([h for h, _ in hosts], port=hosts[0][1], max_schema_agreement_wait=0)
    session = cluster.connect(ks)
    session.default_timeout = 60
    shapes = [(i, sh) for i, sh in enumerate(SHAPES) if not only or sh.name in only]
    t0 = time.time()
    for _, shape in shapes:
        for ddl in shape.types:
            session.execute(ddl)
    # The tables are created together: a schema change costs seconds on a busy node, and the
    # node applies them one after the other either way.
    futures = [session.execute_async(shape.ddl.format(t="%s_%s" % (shape.name, cname), c=cql_map(comp)), timeout=600)
               for i, shape in shapes for cname, comp in compressors(i)]
    for f in futures:
        f.result()
    t1 = time.time()
    out, last_short = {}, 0.0
    for i, shape in shapes:
        for cname, _ in compressors(i):
            table = "%s_%s" % (shape.name, cname)
            rnd = random.Random("%d/%s" % (seed, shape.name))
            info = shape.load(session, table, rnd)
            if info.get("expired_rows"):
                last_short = time.time()
            info.update(shape=shape.name, compressor=cname)
            out[table] = info
    sys.stderr.write("corpus.py: %d tables created in %.1fs, loaded in %.1fs\n" % (len(out), t1 - t0, time.time() - t1))
    # Expired cells are what the check needs: wait out the short TTL before the flush.
    wait = last_short + SHORT_TTL + 1 - time.time()
    if wait > 0:
        time.sleep(wait)
    cluster.shutdown()
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
