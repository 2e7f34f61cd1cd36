"""Load a chat table with the DataStax Python driver, a client sharing no code with cqlsize.

usage: chatload.py HOSTS KEYSPACE TABLE MODE ROOMS MESSAGES DAYS SEED > truth.json

One partition per (room, day); rooms drawn by Zipf 1.1 popularity; every message written with a
90-day TTL; about 5% of messages get reactions by per-element map updates
(UPDATE ... SET reactions[k] = v), and about 4% are deleted. MODE history writes each statement
with the message's own time as its timestamp (USING TIMESTAMP), as the application would have
over the last DAYS days; MODE bulk lets the node stamp them (everything written in seconds, a
bulk load). The answer, on stdout, is the truth counted by reading the table back with this
client: rows per partition (largest, count) and per room.
"""
import datetime
import json
import random
import sys

from cassandra.cluster import Cluster
from cassandra.concurrent import execute_concurrent_with_args

TTL = 90 * 86400


def split_host(h):
    if h.count(":") == 1:
        host, port = h.split(":")
        return host, int(port)
    return h, 9042


def main():
    hosts = [split_host(h) for h in sys.argv[1].split(",") if h]
    keyspace, table, mode = sys.argv[2], sys.argv[3], sys.argv[4]
    rooms, messages, days, seed = int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7]), int(sys.argv[8])
    rnd = random.Random(seed)
    cluster = Cluster([h for h, _ in hosts], port=hosts[0][1], protocol_version=4,
                      connect_timeout=60, control_connection_timeout=60)
    s = cluster.connect(keyspace)
    s.default_timeout = 120
    s.execute(f"""CREATE TABLE {table} (room int, day date, at timestamp, msg int, author text, body text,
        reactions map<text, int>, PRIMARY KEY ((room, day), at, msg)) WITH CLUSTERING ORDER BY (at DESC, msg ASC)""")

    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    today = now.date()
    first = today - datetime.timedelta(days=days - 1)
    weights = [k ** -1.1 for k in range(1, rooms + 1)]
    order = list(range(rooms))
    rnd.shuffle(order)  # popularity is not the room number
    stamp = "USING TIMESTAMP ? AND TTL ?" if mode == "history" else "USING TTL ?"

    ins = s.prepare(f"INSERT INTO {table} (room, day, at, msg, author, body) VALUES (?, ?, ?, ?, ?, ?) {stamp}")
    upd = s.prepare(f"UPDATE {table} {stamp} SET reactions[?] = ? WHERE room = ? AND day = ? AND at = ? AND msg = ?")
    dele = s.prepare(f"DELETE FROM {table} {'USING TIMESTAMP ?' if mode == 'history' else ''} WHERE room = ? AND day = ? AND at = ? AND msg = ?")

    def micros(t):
        return int(t.timestamp() * 1_000_000)

    inserts, updates, deletes = [], [], []
    span = (now - datetime.datetime.combine(first, datetime.time(), datetime.timezone.utc)).total_seconds()
    for m in range(messages):
        room = order[rnd.choices(range(rooms), weights)[0]]
        at = now - datetime.timedelta(seconds=rnd.uniform(1, span))
        at = at.replace(microsecond=(at.microsecond // 1000) * 1000)
        day = at.date()
        author = "user%06d" % rnd.randrange(100000)
        body = "".join(rnd.choice("abcdefghijklmnopqrstuvwxyz ") for _ in range(rnd.randint(20, 140)))
        meta = [micros(at), TTL] if mode == "history" else [TTL]
        inserts.append([room, day, at, m, author, body] + meta)  # USING comes after VALUES
        if rnd.random() < 0.05:
            for r in range(rnd.randint(1, 3)):
                later = min(now, at + datetime.timedelta(seconds=rnd.uniform(1, 3600)))
                um = [micros(later) + r + 1, TTL] if mode == "history" else [TTL]
                updates.append(um + ["emoji%d" % rnd.randrange(8), rnd.randint(1, 50), room, day, at, m])
        if rnd.random() < 0.04:
            later = min(now, at + datetime.timedelta(seconds=rnd.uniform(1, 7200)))
            dm = [micros(later) + 10] if mode == "history" else []
            deletes.append(dm + [room, day, at, m])
    for stmt, args in ((ins, inserts), (upd, updates), (dele, deletes)):
        for ok, res in execute_concurrent_with_args(s, stmt, args, concurrency=64, raise_on_first_error=True):
            pass

    rows, per_room = {}, {}
    for r in s.execute(f"SELECT room, day FROM {table}"):
        k = (r.room, str(r.day))
        rows[k] = rows.get(k, 0) + 1
        per_room[r.room] = per_room.get(r.room, 0) + 1
    json.dump({
        "partitions": len(rows), "rows": sum(rows.values()), "largest": max(rows.values()),
        "rooms": len(per_room), "days": len({d for _, d in rows}),
        "inserts": len(inserts), "updates": len(updates), "deletes": len(deletes),
    }, sys.stdout)
    cluster.shutdown()


if __name__ == "__main__":
    main()
