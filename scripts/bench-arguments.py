#!/usr/bin/env python3
"""Many URLs or paths on the command line against the same given another way, in one run: wall time and peak memory.

Usage: scripts/bench-arguments.py [--runs 3] [--urls 20000] [--list 1000000] [--paths 1000,5000,10000]
                                  [--binary .build/release/ipalinks] [--before path/to/older/ipalinks]

- `match` of --urls N generated URLs given as arguments (the baseline) and as `--urls FILE`, the outputs compared
  byte for byte; then --list URLs through `--urls FILE` alone, for its rate and its peak memory (bounded: the list is
  read a line at a time), in each --format; with --before, the same with an older build (the baseline), the
  outputs compared byte for byte.
- `inspect --help` with each count of --paths paths (samples/Store.ipa, repeated) as arguments, against the same
  with one folder (the baseline): the time swift-argument-parser takes to read them, before any work.

Medians of --runs runs; each ratio is the slower way's time over the faster's (arguments over --urls, paths over
the folder). Peak memory is GNU time's %M (the time package).
Standard library only; run from the repository root.
"""
import argparse
import os
import random
import statistics
import subprocess
import tempfile
import time

AASA = "samples/aasa/shop.example.com.json"
APP = "ST0REAPP42.com.example.store"


def timed(argv):
    """Runs argv, its output to a file: (seconds, its peak MiB, the output's bytes). The peak is GNU time's: a
    child's own ru_maxrss would count this script's memory, copied by the fork before the exec."""
    with tempfile.TemporaryFile() as out, tempfile.NamedTemporaryFile("r") as peak:
        start = time.perf_counter()
        done = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", peak.name] + argv, stdout=out,
                              stderr=subprocess.DEVNULL)
        seconds = time.perf_counter() - start
        if done.returncode not in (0, 1):
            raise SystemExit("%s … exited with %d" % (" ".join(argv[:4]), done.returncode))
        out.seek(0)
        return seconds, int(peak.read().split()[-1]) / 1024, out.read()


def median(runs, argv):
    results = [timed(argv) for _ in range(runs)]
    return statistics.median(r[0] for r in results), results[-1][1], results[-1][2]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--urls", type=int, default=20000)
    parser.add_argument("--list", type=int, default=1000000)
    parser.add_argument("--paths", default="1000,5000,10000")
    parser.add_argument("--binary", default=".build/release/ipalinks")
    parser.add_argument("--before", help="an older build to compare `match --urls` with")
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    rng = random.Random(1)
    kinds = ["buy", "buy/gift", "about", "p", "help"]
    urls = ["https://shop.example.com/%s/%d" % (rng.choice(kinds), i) for i in range(max(args.urls, args.list))]
    match = [binary, "match", "--aasa", AASA, "--app-id", APP, "--format", "jsonl"]
    with tempfile.TemporaryDirectory() as work:
        some = os.path.join(work, "some.txt")
        with open(some, "w") as f:
            f.write("\n".join(urls[: args.urls]) + "\n")
        given, _, out_given = median(args.runs, match + urls[: args.urls])
        listed, _, out_listed = median(args.runs, match + ["--urls", some])
        same = "the same bytes" if out_given == out_listed else "OUTPUTS DIFFER"
        print("match, %d URLs: as arguments %.2f s, --urls FILE %.3f s: %.1fx (%s)"
              % (args.urls, given, listed, given / listed, same))
        many = os.path.join(work, "many.txt")
        with open(many, "w") as f:
            f.write("\n".join(urls[: args.list]) + "\n")
        for form in ["jsonl", "text"]:
            listing = match[:-1] + [form, "--urls", many]
            seconds, peak, out = median(args.runs, listing)
            print("match --urls FILE --format %s, %d URLs: %.2f s (%.0f URLs/s), peak %.0f MiB"
                  % (form, args.list, seconds, args.list / seconds, peak))
            if args.before:
                older, older_peak, out_older = median(args.runs, [os.path.abspath(args.before)] + listing[1:])
                same = "the same bytes" if out == out_older else "OUTPUTS DIFFER"
                print("  --before: %.2f s, peak %.0f MiB: this build %.2fx as fast (%s)"
                      % (older, older_peak, older / seconds, same))
        folder = os.path.abspath("samples")
        base, _, _ = median(args.runs, [binary, "inspect", "--help", folder])
        for count in [int(c) for c in args.paths.split(",")]:
            paths = [os.path.join(folder, "Store.ipa")] * count
            seconds, _, _ = median(args.runs, [binary, "inspect", "--help"] + paths)
            print("inspect --help, %d paths: %.3f s; one folder %.3f s: %.1fx" % (count, seconds, base, seconds / base))


if __name__ == "__main__":
    main()
