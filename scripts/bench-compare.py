#!/usr/bin/env python3
"""`aasa diff` of generated file pairs, two builds interleaved in one run: what comparing files by behaviour costs.

Usage: scripts/bench-compare.py [--runs 5] --before path/to/older/ipalinks [--binary .build/release/ipalinks]

The pairs (every file under the 128 KB iOS reads):
- moved-1-of-N: N rules for disjoint paths, one of them moved to the end: no change in behaviour, the case where the
  search for an example looks furthest (every rule, when the moved one decides nothing differently);
- reversed-N: N disjoint rules in reverse order: no change either, the moved rules alone are N - 1;
- covered: `/*` excluded before `/buy/*`, then after it: a change;
- edited-1-of-N: one of N rules edited in place: a change, nothing moved;
- samples: samples/aasa/shop.example.com.json against samples/aasa/next/.

Medians of --runs runs of each build, taken in turn; the ratio is the older build's time over this one's (above 1:
this one is faster). Each pair's output is checked to be a behaviour comparison (exit 0 or 1); the outputs of the
two builds are compared and a difference is printed, since a fix changes what some pairs say.
Standard library only; run from the repository root.
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

APP = "ABCDE12345.com.example.app"


def document(rules):
    return json.dumps({"applinks": {"details": [{"appIDs": [APP], "components": rules}]}}, separators=(",", ":"))


def disjoint(n):
    return [{"/": "/a%d/*" % i} for i in range(n)]


def pairs(folder):
    made = {}
    n = 1000
    rules = disjoint(n)
    moved = rules[: n // 2] + rules[n // 2 + 1:] + [rules[n // 2]]
    made["moved-1-of-%d" % n] = (document(rules), document(moved))
    made["reversed-2000"] = (document(disjoint(2000)), document(list(reversed(disjoint(2000)))))
    made["covered"] = (document([{"/": "/*", "exclude": True}, {"/": "/buy/*"}]),
                       document([{"/": "/buy/*"}, {"/": "/*", "exclude": True}]))
    edited = list(rules)
    edited[n // 2] = {"/": "/b%d/*" % (n // 2)}
    made["edited-1-of-%d" % n] = (document(rules), document(edited))
    out = {}
    for name, (old, new) in made.items():
        paths = []
        for side, text in (("old", old), ("new", new)):
            path = os.path.join(folder, "%s-%s.json" % (name, side))
            with open(path, "w") as f:
                f.write(text)
            paths.append(path)
        out[name] = tuple(paths)
    out["samples"] = ("samples/aasa/shop.example.com.json", "samples/aasa/next/shop.example.com.json")
    return out


def timed(binary, old, new):
    start = time.perf_counter()
    done = subprocess.run([binary, "aasa", "diff", old, new, "--format", "json"], capture_output=True)
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit("%s: aasa diff exited with %d: %s" % (binary, done.returncode, done.stderr.decode()))
    changes = json.loads(done.stdout).get("changes", [])
    return seconds, [c.get("kind") for c in changes]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--binary", default=".build/release/ipalinks")
    parser.add_argument("--before", required=True)
    args = parser.parse_args()
    builds = [("before", os.path.abspath(args.before)), ("now", os.path.abspath(args.binary))]
    with tempfile.TemporaryDirectory() as folder:
        made = pairs(folder)
        print("%-20s %12s %12s %8s  %s" % ("pair", "before", "now", "ratio", "changes (before → now)"))
        for name, (old, new) in made.items():
            times = {label: [] for label, _ in builds}
            kinds = {}
            for _ in range(args.runs):
                for label, binary in builds:
                    seconds, kinds[label] = timed(binary, old, new)
                    times[label].append(seconds)
            before, now = statistics.median(times["before"]), statistics.median(times["now"])
            said = ", ".join(kinds["before"]) or "none"
            if kinds["now"] != kinds["before"]:
                said += " → " + (", ".join(kinds["now"]) or "none")
            print("%-20s %10.3f s %10.3f s %7.2fx  %s" % (name, before, now, before / now, said))


if __name__ == "__main__":
    main()
