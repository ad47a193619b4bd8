#!/usr/bin/env python3
"""What a store that remembers many input files costs a run of a few: the digests a run looks up.

Usage: scripts/bench-digests.py [--runs 5] [--backend sqlite|postgres] [--remembered 520000]
                                [--inputs 1000] [--out bench-out/store] NAME=BINARY ...

An auditor who keeps each week's IPAs in a folder of its own leaves the store a row in
input_digests per file ever inspected (52 weeks of 10,000 apps: 520,000), while each run names
only its week's. Per build this makes two stores of one backend: `fresh`, which has ingested the
week (the first --inputs IPAs of bench-store.py's corpus, hard-linked into a folder) once, and
`year`, the same plus --remembered rows of other files of this machine, written straight into
input_digests. Each round then times, per build and store, the week run again (a batch, every
file known) and one of its IPAs alone (`inspect ONE.ipa --store S`): the wall time and the
command's peak memory, medians over the rounds. The figure is year / fresh, per build and run:
1.00 when a run's cost does not grow with what the store remembers. Standard library only.
"""
import argparse
import collections
import importlib.util
import os
import statistics
import sqlite3
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
_spec = importlib.util.spec_from_file_location("bench_store", os.path.join(HERE, "bench-store.py"))
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

COLUMNS = "machine, path, device, inode, size, modified_ns, changed_ns, file_sha256"


def remember(store, server, count):
    """count rows of other files of the machine the store's first run recorded."""
    if store.backend == "sqlite":
        db = sqlite3.connect(store.path)
        try:
            row = db.execute("SELECT machine FROM input_digests LIMIT 1").fetchone()
            if row is None:
                raise bench.Failed("the week's first run remembered no file")
            machine = row[0]
            db.execute(
                "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?) "
                "INSERT INTO input_digests (%s) SELECT ?, '/archive/week-' || (i / 10000) || '/App' "
                "|| i || '.ipa', 1, i, 4096, i, i, printf('%%064d', i) FROM n" % COLUMNS,
                (count - 1, machine))
            db.commit()
        finally:
            db.close()
    else:
        machine = server.sql("SELECT machine FROM input_digests LIMIT 1", store.name)
        server.sql(
            "INSERT INTO input_digests (%s) SELECT '%s', '/archive/week-' || (i / 10000) || '/App' "
            "|| i || '.ipa', 1, i, 4096, i, i, lpad(i::text, 64, '0') FROM generate_series(0, %d) i; "
            "ANALYZE input_digests" % (COLUMNS, machine.replace("'", "''"), count - 1), store.name)
    return store.count("input_digests")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("builds", nargs="+", metavar="NAME=BINARY")
    ap.add_argument("--runs", type=int, default=5, help="rounds (default 5)")
    ap.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    ap.add_argument("--remembered", type=int, default=520000,
                    help="other files the `year` store remembers (default 520,000)")
    ap.add_argument("--inputs", type=int, default=1000, help="IPAs in the week (default 1,000)")
    ap.add_argument("--out", default=os.path.join(bench.ROOT, "bench-out", "store"),
                    help="where the corpus goes (and, meanwhile, the week and SQLite's stores)")
    args = ap.parse_args()
    builds = []
    for text in args.builds:
        name, sep, binary = text.partition("=")
        if not sep or not os.access(binary, os.X_OK):
            ap.error("a build is NAME=BINARY, an executable: %r" % text)
        builds.append((name, os.path.abspath(binary)))
    if args.runs < 1 or args.inputs < 1 or args.remembered < 1:
        ap.error("--runs, --inputs and --remembered must be at least 1")
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    folder, _, line = bench.corpus(out, max(args.inputs, 1000), "1", quiet=True)
    bench.log(line)
    server = bench.PostgresServer().start() if args.backend == "postgres" else None
    times = collections.defaultdict(list)
    try:
        with tempfile.TemporaryDirectory(dir=out) as work:
            # The week: hard links, so each input is a regular file of its own path (a copy where
            # links cannot be made).
            week = os.path.join(work, "week")
            os.makedirs(week)
            ipas = sorted(os.path.join(d, f) for d, _, files in os.walk(os.path.join(folder, "ipas"))
                          for f in files if f.endswith(".ipa"))[:args.inputs]
            for n, ipa in enumerate(ipas):
                target = os.path.join(week, "App%05d.ipa" % n)
                try:
                    os.link(ipa, target)
                except OSError:
                    with open(ipa, "rb") as src, open(target, "wb") as dst:
                        dst.write(src.read())
            # A file changed in the last 3 s is hashed but not remembered (a link changes its inode).
            time.sleep(3.5)
            one = os.path.join(week, "App00000.ipa")
            aasa = ["--aasa-dir", os.path.join(folder, "aasa")]
            batch = ["inspect", week] + aasa + ["--format", "jsonl", "--no-progress"]
            single = ["inspect", one] + aasa + ["--format", "jsonl"]
            stores = {}
            for name, binary in builds:
                for kind in ("fresh", "year"):
                    store = bench.Store(args.backend, work, "digests_%s_%s" % (name, kind), server)
                    bench.run([binary] + batch + ["--store", store.location])
                    if kind == "year":
                        rows = remember(store, server, args.remembered)
                        bench.log("%s: %s remembers %d files" % (name, kind, rows))
                    stores[name, kind] = store
            for r in range(args.runs):
                for name, binary in builds:
                    for kind in ("fresh", "year"):
                        location = stores[name, kind].location
                        for run, cmd in (("week", batch), ("one", single)):
                            wall, peak, _, _ = bench.run([binary] + cmd + ["--store", location])
                            times[name, kind, run].append((wall, peak))
                bench.log("[round %d/%d] done" % (r + 1, args.runs))
    except bench.Failed as failure:
        sys.exit(str(failure))
    finally:
        if server:
            server.stop()
    print("%-10s %-5s %10s %10s %10s %10s %11s %11s" % (
        "build", "run", "fresh s", "year s", "year/fresh", "fresh MiB", "year MiB", "year/fresh"))
    for name, _ in builds:
        for run in ("week", "one"):
            med = {kind: [statistics.median(t[i] for t in times[name, kind, run]) for i in (0, 1)]
                   for kind in ("fresh", "year")}
            print("%-10s %-5s %10.3f %10.3f %10.2f %10.1f %11.1f %11.2f" % (
                name, run, med["fresh"][0], med["year"][0], med["year"][0] / med["fresh"][0],
                med["fresh"][1], med["year"][1], med["year"][1] / med["fresh"][1]))
    print("%s; medians of %d rounds; week: %d IPAs again, every one known; one: one of them alone; "
          "year: the store remembers %d other files" % (args.backend, args.runs, args.inputs,
                                                          args.remembered))


if __name__ == "__main__":
    main()
