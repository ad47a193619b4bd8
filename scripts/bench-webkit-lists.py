#!/usr/bin/env python3
"""Size of the WebKit content-rule list, its compile time in the real WebKit, and how many rules it widens, for
AASA files whose rules use substitution variables: the cost of exact variables against the list an earlier
ipalinks build writes for the same files, in one run.

Usage: scripts/bench-webkit-lists.py [--binary .build/debug/ipalinks] [--before OTHER_IPALINKS] [--out DIR]

Cases (each replaces shop.example.com, which samples/Store.ipa claims, in a copy of samples/aasa):
  1000-patterns  the matcher benchmark's 1,000-pattern file (Benchmarks/MatchBenchmark): prefixes, excludes,
                 query items, 125 rules `/$(lang)/cN/*`, case-insensitive rules, leading stars
  lang+region    40 rules alternating `/$(lang)/aN/*` and `/$(region)/bN/*`, and 20 rules `/o/$(digit)$(digit)/$(alpha)`

For each case and binary it runs `BINARY blocklist samples/Store.ipa --aasa-dir DIR --no-cache -o OUT --report R`,
then compiles OUT in WebKitGTK under Xvfb (Tests/WebKit/webkit_harness.py, which reports `compileMs`). Prints
one row per case and binary, then each case's ratios of the binary over --before.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
APP = "ST0REAPP42.com.example.store"


def thousand_patterns():
    out = []
    for i in range(1000):
        k = i % 8
        out.append([
            {"/": f"/s{i}/private/*", "exclude": True},
            {"/": f"/s{i}/*"},
            {"/": f"/p{i}/*/item-?*", "?": {"ref": "?*"}},
            {"/": f"/$(lang)/c{i}/*"},
            {"/": f"/x{i}/*", "#": "no-app", "exclude": True},
            {"/": f"/A{i}", "caseSensitive": False},
            {"/": f"*/t{i}/*.html"},
            {"/": "/q", "?": f"id={i}&*"},
        ][k])
    return out


def lang_region():
    out = []
    for i in range(40):
        out.append({"/": f"/$(lang)/a{i}/*"} if i % 2 == 0 else {"/": f"/$(region)/b{i}/*"})
    out += [{"/": f"/o{i}/$(digit)$(digit)/$(alpha)"} for i in range(20)]
    return out


CASES = [("1000-patterns", thousand_patterns), ("lang+region", lang_region)]


def run_case(binary, aasa_dir, out_dir):
    rules_path = os.path.join(out_dir, "rules.json")
    report_path = os.path.join(out_dir, "report.json")
    result = subprocess.run(
        [binary, "blocklist", os.path.join(ROOT, "samples/Store.ipa"), "--aasa-dir", aasa_dir, "--no-cache",
         "-o", rules_path, "--report", report_path],
        capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"{binary} blocklist exited {result.returncode}: {result.stderr[-2000:]}")
    with open(rules_path) as f:
        rules = json.load(f)
    with open(report_path) as f:
        notes = json.load(f).get("notes", [])
    urls = os.path.join(out_dir, "urls.json")
    with open(urls, "w") as f:
        json.dump(["https://shop.example.com/s1/a"], f)
    harness = subprocess.run(
        ["xvfb-run", "-a", "/usr/bin/python3", os.path.join(ROOT, "Tests/WebKit/webkit_harness.py"), "rules",
         rules_path, urls], capture_output=True, text=True)
    document = json.loads(harness.stdout or "{}")
    if "compileMs" not in document:
        sys.exit(f"WebKit did not compile the list: {harness.stdout[:500]} {harness.stderr[-1000:]}")
    return {"rules": len(rules), "bytes": os.path.getsize(rules_path),
            "wider": sum(1 for n in notes if n.get("kind") == "wider"), "compileMs": document["compileMs"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/debug/ipalinks"))
    parser.add_argument("--before", help="another ipalinks build to compare with, in the same run")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    out_root = args.out or tempfile.mkdtemp(prefix="ipalinks-webkit-lists-")
    binaries = ([("before", args.before)] if args.before else []) + [("this", args.binary)]
    rows = {}
    print(f"{'case':<15} {'binary':<7} {'rules':>8} {'bytes':>11} {'widened':>8} {'compile ms':>11}")
    for name, make in CASES:
        aasa_dir = os.path.join(out_root, name, "aasa")
        shutil.copytree(os.path.join(ROOT, "samples/aasa"), aasa_dir, dirs_exist_ok=True)
        document = {"applinks": {"details": [{"appIDs": [APP], "components": make()}]}}
        with open(os.path.join(aasa_dir, "shop.example.com.json"), "w") as f:
            json.dump(document, f)
        for label, binary in binaries:
            out_dir = os.path.join(out_root, name, label)
            os.makedirs(out_dir, exist_ok=True)
            row = run_case(binary, aasa_dir, out_dir)
            rows[(name, label)] = row
            print(f"{name:<15} {label:<7} {row['rules']:>8} {row['bytes']:>11} {row['wider']:>8} {row['compileMs']:>11}")
    if args.before:
        for name, _ in CASES:
            a, b = rows[(name, "before")], rows[(name, "this")]
            print(f"{name}: rules x{b['rules'] / a['rules']:.2f}, bytes x{b['bytes'] / a['bytes']:.2f}, "
                  f"compile time x{b['compileMs'] / max(a['compileMs'], 1):.2f}, widened {a['wider']} -> {b['wider']}")


if __name__ == "__main__":
    main()
