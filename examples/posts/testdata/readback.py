"""Read posts back with the DataStax Python driver, an independent client.

usage: readback.py HOSTS KEYSPACE < request.json > rows.json

The request lists posts as {"id", "user_id", "month", "hashtags"}; the answer has, for each
table, the rows found for those keys, with values in plain JSON (UUIDs as strings,
timestamps as milliseconds since the epoch, sets as sorted lists).
"""
import json
import sys
import uuid

from cassandra.cluster import Cluster


def split_host(h):
    if h.count(":") == 1:
        host, port = h.split(":")
        return host, int(port)
    return h, 9042


def ms(t):
    if t is None:
        return None
    # The driver returns naive UTC datetimes.
    import calendar
    return calendar.timegm(t.timetuple()) * 1000 + t.microsecond // 1000


def main():
    hosts = [split_host(h) for h in sys.argv[1].split(",") if h]
    keyspace = sys.argv[2]
    req = json.load(sys.stdin)
    cluster = Cluster([h for h, _ in hosts], port=hosts[0][1], protocol_version=4)
    s = cluster.connect(keyspace)
    out = {"posts_by_id": [], "posts_by_user": [], "posts_by_hashtag": []}
    seen_users = set()
    for p in req["posts"]:
        pid = uuid.UUID(p["id"])
        for r in s.execute("SELECT post_id, user_id, content, hashtags, created_at FROM posts_by_id WHERE post_id = %s", [pid]):
            out["posts_by_id"].append({
                "post_id": str(r.post_id), "user_id": str(r.user_id), "content": r.content,
                "hashtags": sorted(r.hashtags or []), "created_at": ms(r.created_at),
            })
        key = (p["user_id"], p["month"])
        if key not in seen_users:
            seen_users.add(key)
            for r in s.execute("SELECT user_id, month, post_id, content, hashtags FROM posts_by_user WHERE user_id = %s AND month = %s",
                               [uuid.UUID(p["user_id"]), p["month"]]):
                out["posts_by_user"].append({
                    "user_id": str(r.user_id), "month": r.month, "post_id": str(r.post_id),
                    "content": r.content, "hashtags": sorted(r.hashtags or []),
                })
        for tag in p["hashtags"] or []:
            for r in s.execute("SELECT hashtag, month, post_id, user_id, content FROM posts_by_hashtag WHERE hashtag = %s AND month = %s AND post_id = %s",
                               [tag, p["month"], pid]):
                out["posts_by_hashtag"].append({
                    "hashtag": r.hashtag, "month": r.month, "post_id": str(r.post_id),
                    "user_id": str(r.user_id), "content": r.content,
                })
    cluster.shutdown()
    json.dump(out, sys.stdout, sort_keys=True)


if __name__ == "__main__":
    main()
