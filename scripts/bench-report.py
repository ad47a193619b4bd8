#!/usr/bin/env python3
"""Size of the HTML report and the time its search takes in a real browser engine, at audit scale: 300 and 2,000
generated apps (scripts/make-batch-ipas.py --subdomains: hosts shared directly and through wildcards), against
the page an earlier ipalinks build writes for the same inventories, in one run.

Usage: scripts/bench-report.py [--binary .build/debug/ipalinks] [--before OTHER_IPALINKS] [--counts 300,2000]
                               [--out .build/report-bench]

For each count it generates the corpus (once; it is reused while up to date), saves its inventory with
`inspect --format jsonl --aasa-dir`, and times `BINARY report INVENTORY -o PAGE` (and --before's). Then it opens
each page of --binary in WebKitGTK under Xvfb (Tests/WebKit/page_harness.py) and, in the page, types three
searches one character at a time (a host, a bundle id, a path), as a person does, timing every keystroke's
filtering; and ticks the "claims a shared host" filter. Prints one row per count and binary, then the ratios.
"""
import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_spec = importlib.util.spec_from_file_location("batch", os.path.join(ROOT, "scripts", "make-batch-ipas.py"))
batch = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(batch)

SEARCHES = ["shared-3.example", "com.bench.app0042", "/a0042/"]

# Types `text` into the search field as keystrokes and times the filtering they trigger; reads what is shown.
TYPE_JS = """(() => {
  const q = document.getElementById('q');
  q.value = '';
  q.dispatchEvent(new InputEvent('input', { bubbles: true }));
  const start = performance.now();
  let slowest = 0;
  for (const c of %s) {
    const t = performance.now();
    q.value += c;
    q.dispatchEvent(new InputEvent('input', { bubbles: true, data: c, inputType: 'insertText' }));
    slowest = Math.max(slowest, performance.now() - t);
  }
  return { ms: performance.now() - start, slowestKeyMs: slowest,
           count: document.getElementById('f-count').textContent };
})()"""

SHARED_JS = """(() => {
  const q = document.getElementById('q');
  q.value = '';
  q.dispatchEvent(new InputEvent('input', { bubbles: true }));
  const box = document.getElementById('f-sh');
  const start = performance.now();
  box.checked = true;
  box.dispatchEvent(new Event('change', { bubbles: true }));
  return { ms: performance.now() - start, count: document.getElementById('f-count').textContent };
})()"""


def inventory(binary, out, count):
    folder = os.path.join(out, str(count))
    manifest, generated = batch.ensure(folder, count, "1", quiet=True, subdomains=True)
    path = os.path.join(folder, "inventory.jsonl")
    if generated or not os.path.exists(path):
        with open(path, "w") as f:
            subprocess.run([binary, "inspect", os.path.join(folder, "ipas"), "--aasa-dir",
                            os.path.join(folder, "aasa"), "--format", "jsonl", "--no-progress", "-q"],
                           stdout=f, check=False)
    return folder, path


def render(binary, inventory_path, page):
    start = time.monotonic()
    result = subprocess.run([binary, "report", inventory_path, "-o", page, "--no-progress", "-q"],
                            capture_output=True, text=True)
    seconds = time.monotonic() - start
    if result.returncode not in (0, 1) or not os.path.exists(page):
        sys.exit("%s report failed (%d): %s" % (binary, result.returncode, result.stderr[-2000:]))
    return seconds, os.path.getsize(page)


def browse(page):
    harness = os.path.join(ROOT, "Tests", "WebKit", "page_harness.py")
    evals = [TYPE_JS % json.dumps(s) for s in SEARCHES] + [SHARED_JS]
    command = ["xvfb-run", "-a", "/usr/bin/python3", harness, "load", page, "--timeout", "120"]
    for e in evals:
        command += ["--eval", e]
    start = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True)
    wall = time.monotonic() - start
    try:
        data = json.loads(result.stdout)
    except ValueError:
        sys.exit("page harness: " + result.stderr[-2000:])
    values = [data["evals"][e].get("value") or {} for e in evals]
    return wall, values


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "ipalinks"))
    ap.add_argument("--before", help="an earlier ipalinks build to compare page sizes and render times with")
    ap.add_argument("--counts", default="300,2000")
    ap.add_argument("--out", default=os.path.join(ROOT, ".build", "report-bench"))
    args = ap.parse_args()
    binaries = [("this", args.binary)] + ([("before", args.before)] if args.before else [])
    rows = {}
    for count in [int(c) for c in args.counts.split(",")]:
        folder, inv = inventory(args.binary, args.out, count)
        for label, binary in binaries:
            page = os.path.join(folder, "report-%s.html" % label)
            seconds, size = render(binary, inv, page)
            rows[(count, label)] = (seconds, size)
            line = "%5d apps  %-6s  %8.2f MiB  render %5.2f s" % (count, label, size / 1048576, seconds)
            if label == "this":
                wall, values = browse(page)
                searches = ", ".join("%r %.0f ms (slowest key %.0f ms; %s)"
                                     % (s, v.get("ms", -1), v.get("slowestKeyMs", -1), v.get("count", "?"))
                                     for s, v in zip(SEARCHES, values))
                line += "  open+evals %.1f s  search: %s; shared filter %.0f ms" % (
                    wall, searches, values[-1].get("ms", -1))
            print(line, flush=True)
    if args.before:
        for count in [int(c) for c in args.counts.split(",")]:
            this, before = rows[(count, "this")], rows[(count, "before")]
            print("%5d apps  size %.2fx of before, render time %.2fx" % (
                count, this[1] / before[1], this[0] / max(before[0], 1e-9)))


if __name__ == "__main__":
    main()
