#!/usr/bin/env python3
"""Compare store builds on bench-store.py's ingest, many runs interleaved: what one run of the
benchmark cannot tell (on a shared VM the same build's ratio moves by +-0.03 even over ten runs).

Usage: scripts/bench-ingest-pairs.py [--runs 10] [--count 10000] [--seed 1] [--backend postgres|sqlite|none]
                                     [--rerun] [--corpus DIR] [--format jsonl|json] [--out bench-out/store]
                                     NAME=BINARY[,VAR=VALUE...] ...

Each round runs, in turn, the baseline (the first build's binary without a store) and every
build with a store (a new SQLite file, or a new database on a private PostgreSQL server started
as bench-store.py starts it), with the given environment variables set; with --backend none,
every build without a store and no baseline, each compared with the first: the ingest command of
bench-store.py, on its corpus (made when missing). Per run it prints the wall time, the command's
CPU (user + system, from wait4) and the server's (its processes' /proc times, read half a second
after the run). At the end, per build: the medians, baseline/store of the wall medians (the
benchmark's figure; with --backend none, the first build's over this one's), and in how many
rounds the build was faster than the first build. With --rerun, each build's store first takes
the same ingest once, untimed, and the run timed is the second: a weekly run in which nothing
changed. --corpus takes another folder of the same shape (ipas/ and aasa/), such as one of large
IPAs. --format json writes the indented document instead of JSON Lines. Exits 1 when a run fails. Standard library only.
"""
import argparse
import collections
import importlib.util
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
_spec = importlib.util.spec_from_file_location("bench_store", os.path.join(HERE, "bench-store.py"))
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


def build(text):
    """NAME=BINARY[,VAR=VALUE...] as (name, binary, environment)."""
    name, sep, rest = text.partition("=")
    parts = rest.split(",")
    if not sep or not name or not parts[0]:
        raise argparse.ArgumentTypeError("a build is NAME=BINARY[,VAR=VALUE...]: %r" % text)
    env = {}
    for part in parts[1:]:
        var, sep, value = part.partition("=")
        if not sep or not var:
            raise argparse.ArgumentTypeError("not VAR=VALUE: %r in %r" % (part, text))
        env[var] = value
    binary = os.path.abspath(parts[0])
    if not os.access(binary, os.X_OK):
        raise argparse.ArgumentTypeError("no executable at %s" % binary)
    return name, binary, env


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("builds", nargs="+", type=build, metavar="NAME=BINARY[,VAR=VALUE...]")
    ap.add_argument("--runs", type=int, default=10, help="rounds (default 10)")
    ap.add_argument("--count", type=int, default=10000, help="apps in the corpus")
    ap.add_argument("--seed", default="1", help="corpus seed")
    ap.add_argument("--backend", choices=["sqlite", "postgres", "none"], default="postgres",
                    help="the store each build writes (none: no store, and no baseline)")
    ap.add_argument("--rerun", action="store_true",
                    help="time each store's second ingest of the corpus, not its first")
    ap.add_argument("--corpus", help="a folder with ipas/ and aasa/ to ingest instead of the generated corpus")
    ap.add_argument("--format", choices=["jsonl", "json"], default="jsonl", help="inspect's --format")
    ap.add_argument("--out", default=os.path.join(bench.ROOT, "bench-out", "store"),
                    help="where the corpus goes (and, meanwhile, SQLite's stores)")
    args = ap.parse_args()
    names = [name for name, _, _ in args.builds]
    if args.runs < 1 or args.count < 1:
        ap.error("--runs and --count must be at least 1")
    if args.rerun and args.backend == "none":
        ap.error("--rerun needs a store")
    if len(set(names)) != len(names) or "baseline" in names:
        ap.error("each build needs a name of its own, other than baseline")
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    if args.corpus:
        folder = os.path.abspath(args.corpus)
        if not all(os.path.isdir(os.path.join(folder, d)) for d in ("ipas", "aasa")):
            ap.error("%s has no ipas/ and aasa/ folders" % folder)
        bench.log("%s: %d inputs" % (folder, len(os.listdir(os.path.join(folder, "ipas")))))
    else:
        folder, _, line = bench.corpus(out, args.count, args.seed, quiet=True)
        bench.log(line)
    ingest = [None, "inspect", os.path.join(folder, "ipas"), "--aasa-dir",
              os.path.join(folder, "aasa"), "--format", args.format, "--no-progress"]
    server = bench.PostgresServer().start() if args.backend == "postgres" else None
    stored = args.backend != "none"
    reference = "baseline" if stored else names[0]
    runs = collections.OrderedDict((name, []) for name in (["baseline"] if stored else []) + names)
    try:
        with tempfile.TemporaryDirectory(dir=out) as work:
            for r in range(args.runs):
                baseline = [("baseline", args.builds[0][1], {})] if stored else []
                for name, binary, env in baseline + args.builds:
                    cmd = [binary] + ingest[1:]
                    if stored and name != "baseline":
                        store = bench.Store(args.backend, work, "pairs_%d_%s" % (r, name), server)
                        cmd += ["--store", store.location]
                        if args.rerun:
                            bench.run(cmd, env=dict(os.environ, **env))
                            if server:
                                time.sleep(0.5)
                    before = server.cpu_seconds() if server else None
                    cpu = []
                    wall, _, _, _ = bench.run(cmd, cpu=cpu, env=dict(os.environ, **env))
                    if server:
                        time.sleep(0.5)  # the run's backend exits after the command: let it be reaped
                    after = server.cpu_seconds() if server else None
                    served = after - before if before is not None and after is not None else 0.0
                    runs[name].append((wall, cpu[0], served))
                    bench.log("[round %d/%d] %-12s %6.2f s, CPU %6.2f s + %5.2f s the server's"
                              % (r + 1, args.runs, name, wall, cpu[0], served))
    except bench.Failed as failure:
        sys.exit(str(failure))
    finally:
        if server:
            server.stop()
    median = {name: [statistics.median(run[i] for run in values) for i in range(3)]
              for name, values in runs.items()}
    first = names[0]
    print("%-12s %8s %8s %8s %10s %8s" % ("build", "wall s", "CPU s", "server s",
                                          "base/store" if stored else "first/this", "faster"))
    for name, (wall, cpu, served) in median.items():
        ratio = "" if name == reference else "%.3f" % (median[reference][0] / wall)
        faster = ""
        if name not in ("baseline", first):
            wins = sum(1 for a, b in zip(runs[name], runs[first]) if a[0] < b[0])
            faster = "%d/%d" % (wins, args.runs)
        print("%-12s %8.2f %8.2f %8.2f %10s %8s" % (name, wall, cpu, served, ratio, faster))
    print("medians of %d interleaved rounds; %s of the wall medians; faster: rounds in which the "
          "build beat %s%s" % (args.runs, "baseline/store" if stored else "first/this", first,
                               "; each store's second ingest" if args.rerun else ""))


if __name__ == "__main__":
    main()
