#!/usr/bin/env python3
"""Compare builds on `store import` of one saved inventory, rounds interleaved: wall time, CPU and peak memory.

Usage: scripts/bench-import.py [--runs 3] [--count 10000] [--seed 1] [--copies 1] [--backend sqlite|postgres]
                               [--reader 'ARGS'] [--out bench-out/store] NAME=BINARY[,VAR=VALUE...] ...

The inventory is bench-store.py's ingest of its generated corpus (made when missing), written once as JSON Lines
by the first build's `inspect`, then repeated --copies times (each copy the same apps again). Each round imports
it with every build in turn, each into a new store (a SQLite file, or a new database on a private PostgreSQL
server started as bench-store.py starts it). Per run it prints the wall time, the command's CPU (user + system)
and its peak memory (ru_maxrss); at the end, per build, the medians and the first build's wall and memory over
this one's. A build that refuses the file (an older one, over its 1 GiB inventory limit) is said, not timed.
With --reader, a reader of the same inventory is timed instead of an import: `BINARY ARGS INVENTORY` (for example
--reader 'who-claims app0001.example --inventory'), its output discarded; exit codes 0 and 1 (an answer of no) pass.
Standard library only.
"""
import argparse
import collections
import importlib.util
import os
import shlex
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def load(name, file):
    """A script of this folder as a module: bench-store.py's helpers, bench-ingest-pairs.py's NAME=BINARY."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, file))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bench = load("bench_store", "bench-store.py")
build = load("bench_ingest_pairs", "bench-ingest-pairs.py").build


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("builds", nargs="+", type=build, metavar="NAME=BINARY[,VAR=VALUE...]")
    ap.add_argument("--runs", type=int, default=3, help="rounds (default 3)")
    ap.add_argument("--count", type=int, default=10000, help="apps in the corpus")
    ap.add_argument("--seed", default="1", help="corpus seed")
    ap.add_argument("--copies", type=int, default=1, help="times the inventory repeats its apps")
    ap.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite", help="the store imported into")
    ap.add_argument("--reader", help="time `BINARY READER INVENTORY` (words split as a shell does) instead")
    ap.add_argument("--out", default=os.path.join(bench.ROOT, "bench-out", "store"),
                    help="where the corpus, the inventory and SQLite's stores go")
    args = ap.parse_args()
    names = [name for name, _, _ in args.builds]
    if args.runs < 1 or args.count < 1 or args.copies < 1:
        ap.error("--runs, --count and --copies must be at least 1")
    if len(set(names)) != len(names):
        ap.error("each build needs a name of its own")
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    folder, _, line = bench.corpus(out, args.count, args.seed, quiet=True)
    bench.log(line)
    one = os.path.join(out, "import-%d-seed%s.jsonl" % (args.count, args.seed))
    if not os.path.exists(one):
        bench.run([args.builds[0][1], "inspect", os.path.join(folder, "ipas"), "--aasa-dir",
                   os.path.join(folder, "aasa"), "--format", "jsonl", "--no-progress"], stdout_path=one + ".part")
        os.replace(one + ".part", one)
    inventory = one
    if args.copies > 1:
        inventory = os.path.join(out, "import-%d-seed%s-x%d.jsonl" % (args.count, args.seed, args.copies))
        if not os.path.exists(inventory):
            with open(inventory + ".part", "wb") as whole:
                for _ in range(args.copies):
                    with open(one, "rb") as part:
                        while True:
                            block = part.read(1 << 24)
                            if not block:
                                break
                            whole.write(block)
            os.replace(inventory + ".part", inventory)
    bench.log("%s: %.0f MiB, %d copies of %d apps" % (inventory, bench.mib(os.path.getsize(inventory)),
                                                      args.copies, args.count))
    reader = shlex.split(args.reader) if args.reader else None
    server = bench.PostgresServer().start() if args.backend == "postgres" and not reader else None
    runs = collections.OrderedDict((name, []) for name in names)
    refused = {}
    try:
        with tempfile.TemporaryDirectory(dir=out) as work:
            for r in range(args.runs):
                for name, binary, env in args.builds:
                    if name in refused:
                        continue
                    store = None if reader else bench.Store(args.backend, work, "import_%d_%s" % (r, name), server)
                    command = ([binary] + reader + [inventory] if reader
                               else [binary, "store", "import", inventory, "--store", store.location])
                    cpu = []
                    try:
                        wall, peak, _, _ = bench.run(command, cpu=cpu, env=dict(os.environ, **env),
                                                     ok=(0, 1) if reader else (0,))
                    except bench.Failed as failure:
                        refused[name] = failure.stderr.strip().splitlines()[-1:] or [str(failure)]
                        bench.log("[round %d/%d] %-10s refused it: %s" % (r + 1, args.runs, name, refused[name][0]))
                        continue
                    runs[name].append((wall, cpu[0], peak))
                    bench.log("[round %d/%d] %-10s %7.2f s, CPU %7.2f s, peak %8.1f MiB"
                              % (r + 1, args.runs, name, wall, cpu[0], peak))
                    if store and args.backend == "sqlite":
                        os.remove(store.path)
                        for extra in ("-wal", "-shm"):
                            if os.path.exists(store.path + extra):
                                os.remove(store.path + extra)
    except bench.Failed as failure:
        sys.exit(str(failure))
    finally:
        if server:
            server.stop()
    first = names[0]
    median = {name: [statistics.median(run[i] for run in values) for i in range(3)]
              for name, values in runs.items() if values}
    print("%-10s %9s %9s %11s %12s %12s" % ("build", "wall s", "CPU s", "peak MiB", "first/this", "memory f/t"))
    for name in names:
        if name not in median:
            print("%-10s refused the file: %s" % (name, refused.get(name, ["?"])[0]))
            continue
        wall, cpu, peak = median[name]
        ratios = ("", "") if name == first or first not in median else (
            "%.3f" % (median[first][0] / wall), "%.2f" % (median[first][2] / peak))
        print("%-10s %9.2f %9.2f %11.1f %12s %12s" % (name, wall, cpu, peak, ratios[0], ratios[1]))
    what = ("read by `%s`" % args.reader) if reader else ("into %s" % args.backend)
    print("medians of %d interleaved rounds, %.0f MiB %s; first/this: %s's wall (memory) over this build's"
          % (args.runs, bench.mib(os.path.getsize(inventory)), what, first))


if __name__ == "__main__":
    main()
