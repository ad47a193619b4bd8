#!/usr/bin/env python3
"""Benchmark what `$(…)` substitution variables can make the blocklist formats do: peak memory, time and output
size of every format for AASA files that use the expansion limit (AASAFile.maximumExpansion, 1,000,000
alternatives) in the two shapes that stress the outputs most, against a baseline with as many literal rules.

Usage: scripts/bench-expansion.py [--binary .build/release/ipalinks] [--out bench-out/expansion]

The files are small (40 to 90 KB, under the 128 KB devices accept), and each replaces shop.example.com (claimed by
samples/Store.ipa) in a copy of samples/aasa. Cases:
  baseline     3,906 literal rules `/litN/pN/*`
  3906x256     3,906 rules `/$(v)/pN/*`, 256 values: every rule just fits the 256 filters a WebKit rule may
               expand to, so the WebKit list would need a million rules (it stops at --max-rules and blocks the
               app's hosts whole)
  1000x1000    1,000 rules, 1,000 values: each rule is widened to `*` in WebKit; the Swift and JS guards carry
               the values
  past-limit   1,000 rules, 1,001 values: refused as expansion-too-large, the domain left uncovered (exit 1)
For each case and format it runs

    BINARY blocklist samples/Store.ipa --aasa-dir DIR --no-cache --format F -o OUT/F/out
    BINARY inspect samples/Store.ipa --aasa-dir DIR --no-cache --format json

Peak memory is the child's ru_maxrss from wait4(), so nothing else is counted; time is wall time. Prints one
row per case and format, then each case's peak memory over the baseline's, per format.
Every run must exit with the expected code or the script stops.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
APP_ID = "ST0REAPP42.com.example.store"
HOST = "shop.example.com"
FORMATS = ["wkcontentrules", "regex", "swift", "js", "patterns", "domains"]
CASES = [("baseline", 3906, 0, 0), ("3906x256", 3906, 256, 0), ("1000x1000", 1000, 1000, 0),
         ("past-limit", 1000, 1001, 1)]


def aasa(rules, values):
    """An AASA file for HOST: literal paths when values == 0, else every rule references $(v)."""
    if values == 0:
        links = {"details": [{"appIDs": [APP_ID], "components": [{"/": "/lit%d/p%d/*" % (i, i)}
                                                                  for i in range(rules)]}]}
    else:
        links = {"substitutionVariables": {"v": ["v%d" % j for j in range(values)]},
                 "details": [{"appIDs": [APP_ID], "components": [{"/": "/$(v)/p%d/*" % i} for i in range(rules)]}]}
    return json.dumps({"applinks": links}, separators=(",", ":"))


def run(argv):
    """Runs argv; returns (exit code, seconds, peak MiB, stderr tail)."""
    start = time.monotonic()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    stderr = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.monotonic() - start
    return os.waitstatus_to_exitcode(status), seconds, usage.ru_maxrss / 1024, stderr.decode(errors="replace")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "ipalinks"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench-out", "expansion"))
    args = ap.parse_args()
    if not os.access(args.binary, os.X_OK):
        sys.exit("no binary at %s: make bench-expansion builds it" % args.binary)
    ipa = os.path.join(ROOT, "samples", "Store.ipa")
    peaks = {}
    print("%-10s %-15s %4s %8s %9s %12s" % ("file", "output", "exit", "seconds", "peak MiB", "output bytes"))
    for name, rules, values, expected in CASES:
        folder = os.path.join(args.out, name)
        shutil.rmtree(folder, ignore_errors=True)
        shutil.copytree(os.path.join(ROOT, "samples", "aasa"), os.path.join(folder, "aasa"))
        text = aasa(rules, values)
        with open(os.path.join(folder, "aasa", HOST + ".json"), "w") as f:
            f.write(text)
        print("%-10s AASA file of %d bytes: %d rules, %d values" % (name, len(text), rules, values))
        runs = [("inspect json", [args.binary, "inspect", ipa, "--format", "json"], None)]
        for fmt in FORMATS:
            out = os.path.join(folder, fmt)  # its own folder: a list too big for one file is split into several
            os.makedirs(out)
            runs.append((fmt, [args.binary, "blocklist", ipa, "--format", fmt, "-o", os.path.join(out, "out")], out))
        for label, argv, out in runs:
            argv = argv + ["--aasa-dir", os.path.join(folder, "aasa"), "--no-cache"]
            code, seconds, peak, stderr = run(argv)
            if code != expected:
                sys.exit("%s %s: exit %d, expected %d\n%s" % (name, label, code, expected, stderr[-800:]))
            if name == "past-limit" and "alternatives, over the limit" not in stderr:
                sys.exit("past-limit %s: stderr does not name the expansion limit\n%s" % (label, stderr[-800:]))
            size = sum(os.path.getsize(os.path.join(out, f)) for f in os.listdir(out)) if out else 0
            peaks[(name, label)] = peak
            print("%-10s %-15s %4d %8.2f %9.1f %12d" % (name, label, code, seconds, peak, size))
    print()
    for name, _, _, _ in CASES[1:]:
        ratios = ["%s %.2fx" % (label, peaks[(name, label)] / peaks[("baseline", label)])
                  for label in ["inspect json"] + FORMATS]
        print("peak memory %s / baseline: %s" % (name, ", ".join(ratios)))


if __name__ == "__main__":
    main()
