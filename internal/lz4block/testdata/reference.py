#!/usr/bin/env python3
"""Compress each input file with the liblz4 that Cassandra 5.0.9 runs and print what
lz4block's test compares against: per file the fast block (LZ4_compress_default) and the
high-compression block (LZ4_compress_HC at the levels given), as length and SHA-256.

The library is the native one in Cassandra's lib/lz4-java-*.jar
(net/jpountz/util/linux/amd64/liblz4-java.so, liblz4 1.10.0), the code the node's
LZ4Compressor calls through JNI:

    unzip -o -q ~/.cache/cqlsize/cassandra-5.0.9/lib/lz4-java-1.10.1.jar -d /tmp/lz4jar
    go test ./internal/lz4block -run TestReference -dump /tmp/lz4in
    python3 internal/lz4block/testdata/reference.py \
        /tmp/lz4jar/net/jpountz/util/linux/amd64/liblz4-java.so /tmp/lz4in \
        > internal/lz4block/testdata/reference.json
"""
import ctypes, hashlib, json, os, sys

lib = ctypes.CDLL(sys.argv[1])
indir = sys.argv[2]
levels = [4, 9]
out = {"liblz4": lib.LZ4_versionNumber(), "inputs": []}
for name in sorted(os.listdir(indir)):
    src = open(os.path.join(indir, name), "rb").read()
    cap = len(src) + len(src) // 255 + 16
    dst = ctypes.create_string_buffer(cap)
    n = lib.LZ4_compress_default(src, dst, len(src), cap)
    entry = {"name": name, "size": len(src),
             "fast": {"len": n, "sha256": hashlib.sha256(dst.raw[:n]).hexdigest()}}
    for lv in levels:
        n = lib.LZ4_compress_HC(src, dst, len(src), cap, lv)
        entry["hc%d" % lv] = {"len": n, "sha256": hashlib.sha256(dst.raw[:n]).hexdigest()}
    out["inputs"].append(entry)
json.dump(out, sys.stdout, indent=1)
print()
