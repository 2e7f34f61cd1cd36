"""Read target rows by key with the DataStax Python driver, a client that shares no code
with gocql, so that the checker's reading of values and write times is itself checked.

usage: readrows.py HOSTS KEYSPACE MONTH_TABLE TAGDAY_TABLE < keys.json > rows.json

keys.json: {"month": [[user_id, month, created_at_ms, post_id]...],
            "tagday": [[hashtag, "YYYY-MM-DD", created_at_ms, user_id, post_id]...]}
rows.json: the rows found, keys as given, timestamps in milliseconds since the epoch,
write times in microseconds, sets as sorted lists with their elements' write times.
"""
import calendar
import datetime
import json
import sys
import uuid

from cassandra.cluster import Cluster
from cassandra.util import Date


def ms(t):
    return calendar.timegm(t.timetuple()) * 1000 + t.microsecond // 1000


def ts(m):
    return datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=m)


def main():
    # host or host:port (a container's published port), one port for all, as the driver takes it
    hosts = [(h.rsplit(":", 1)[0], int(h.rsplit(":", 1)[1])) if h.count(":") == 1 else (h, 9042)
             for h in sys.argv[1].split(",") if h]
    ks, month_table, tagday_table = sys.argv[2], sys.argv[3], sys.argv[4]
    req = json.load(sys.stdin)
    cluster = Cluster([h for h, _ in hosts], port=hosts[0][1], protocol_version=4)
    s = cluster.connect(ks)
    out = {"month": [], "tagday": []}
    q = s.prepare("SELECT user_id, month, created_at, post_id, content, writetime(content), ttl(content), "
                  "likes, writetime(likes), hashtags, writetime(hashtags) FROM " + month_table +
                  " WHERE user_id = ? AND month = ? AND created_at = ? AND post_id = ?")
    for user, month, created, post in req["month"]:
        for r in s.execute(q, [uuid.UUID(user), month, ts(created), uuid.UUID(post)]):
            tags = sorted(r.hashtags or [])
            out["month"].append({
                "key": [str(r.user_id), r.month, ms(r.created_at), str(r.post_id)],
                "content": r.content, "content_write": r.writetime_content, "content_ttl": r.ttl_content,
                "likes": r.likes, "likes_write": r.writetime_likes,
                "hashtags": tags, "hashtags_write": list(r.writetime_hashtags or []),
            })
    q = s.prepare("SELECT hashtag, day, created_at, user_id, post_id, content, writetime(content), ttl(content) FROM " +
                  tagday_table + " WHERE hashtag = ? AND day = ? AND created_at = ? AND user_id = ? AND post_id = ?")
    for tag, day, created, user, post in req["tagday"]:
        d = datetime.date.fromisoformat(day)
        for r in s.execute(q, [tag, d, ts(created), uuid.UUID(user), uuid.UUID(post)]):
            out["tagday"].append({
                "key": [r.hashtag, str(r.day.date() if isinstance(r.day, Date) else r.day), ms(r.created_at), str(r.user_id), str(r.post_id)],
                "content": r.content, "content_write": r.writetime_content, "content_ttl": r.ttl_content,
            })
    cluster.shutdown()
    json.dump(out, sys.stdout, sort_keys=True)


if __name__ == "__main__":
    main()
