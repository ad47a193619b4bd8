#!/usr/bin/env python3
"""Count what `who-claims --urls`'s scan costs per URL, in instructions and simulated cache misses, against the
per-app matcher: figures that a shared machine's speed does not move, where `make bench-scan`'s URLs per second
can vary 2x from one run to the next.

Usage: scripts/bench-scan-count.py [--binary .build/release/ScanBenchmark] [--apps 1000] [--urls 20000] [--ll-kib 32768]

It runs `BINARY --count APPS URLS` under callgrind (valgrind), which decides URLS generated URLs through the scan
(`scanEach`) and the first tenth of them through every app's own matcher (`perAppEach`), and counts each of the two
functions alone. The simulated caches are the development machine's: a 32 KiB, 8-way first-level data cache and a
32 MiB, 16-way last level. `--ll-kib 1024` simulates its 1 MiB second level as the last one instead: the L3 beyond
it is shared with the machine's neighbours, and a thousand apps' rules do not fit in the L2. Prints, per URL,
instructions, first-level data misses and last-level misses of each, then the ratios. The run takes a few minutes:
valgrind runs the whole program, the building of the inventory included, about fifty times slower.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# callgrind's event columns, in the order `callgrind_annotate` prints them.
EVENTS = ["Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw"]


def ensure_valgrind():
    if shutil.which("valgrind") and shutil.which("callgrind_annotate"):
        return
    command = ["apt-get", "install", "-y", "-qq", "valgrind"]
    if shutil.which("apt-get") and os.geteuid() == 0:
        print("+ " + " ".join(command), flush=True)
        subprocess.run(["apt-get", "update", "-qq"], check=True)
        subprocess.run(command, check=True, env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
        return
    sys.exit("bench-scan-count needs valgrind: install it (apt-get install valgrind, brew install valgrind)")


def inclusive_costs(out_file, function):
    """The inclusive costs of the one function whose mangled name holds `function`, by event."""
    annotated = subprocess.run(
        ["callgrind_annotate", "--inclusive=yes", "--show-percs=no", "--threshold=100", out_file],
        check=True, capture_output=True, text=True).stdout
    for line in annotated.splitlines():
        if function not in line:
            continue
        # The event columns, then `file:function`; a zero is printed as `.`.
        cells = line.split()
        numbers = cells[:len(EVENTS)]
        if all(re.fullmatch(r"[\d,]+|\.", n) for n in numbers):
            return dict(zip(EVENTS, [0 if n == "." else int(n.replace(",", "")) for n in numbers]))
    sys.exit(f"callgrind counted nothing in {function}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/release/ScanBenchmark"))
    parser.add_argument("--apps", type=int, default=1000)
    parser.add_argument("--urls", type=int, default=20000)
    parser.add_argument("--ll-kib", type=int, default=32768, help="the simulated last level's size, 16-way")
    args = parser.parse_args()
    ensure_valgrind()
    with tempfile.TemporaryDirectory() as work:
        out_file = os.path.join(work, "callgrind.out")
        run = subprocess.run(
            ["valgrind", "--tool=callgrind", "--cache-sim=yes", "--D1=32768,8,64", f"--LL={args.ll_kib * 1024},16,64",
             "--toggle-collect=*scanEach*", "--toggle-collect=*perAppEach*", f"--callgrind-out-file={out_file}",
             args.binary, "--count", str(args.apps), str(args.urls)],
            capture_output=True, text=True)
        print(run.stdout, end="")
        if run.returncode != 0:
            sys.exit(f"{args.binary} --count failed (exit {run.returncode}):\n{run.stderr[-2000:]}")
        scan = inclusive_costs(out_file, "scanEach")
        baseline = inclusive_costs(out_file, "perAppEach")
    scanned, compared = args.urls, max(1, args.urls // 10)
    rows = [("scan", scan, scanned), ("per-app matcher", baseline, compared)]
    size = f"{args.ll_kib // 1024} MiB" if args.ll_kib % 1024 == 0 else f"{args.ll_kib} KiB"
    print(f"per URL (callgrind; simulated caches: D1 32 KiB 8-way, LL {size} 16-way):")
    print(f"  {'':16} {'instructions':>12} {'D1 misses':>10} {'LL misses':>10}")
    for name, costs, count in rows:
        d1 = (costs["D1mr"] + costs["D1mw"]) / count
        ll = (costs["DLmr"] + costs["DLmw"]) / count
        print(f"  {name:16} {costs['Ir'] / count:12,.0f} {d1:10.2f} {ll:10.2f}")

    def ratio(event_names):
        before = sum(baseline[e] for e in event_names) / compared
        after = sum(scan[e] for e in event_names) / scanned
        return before / after if after else float("inf")

    print(f"ratio: the per-app matcher takes {ratio(['Ir']):.1f}x the instructions,")
    print(f"  {ratio(['D1mr', 'D1mw']):.1f}x the D1 misses and {ratio(['DLmr', 'DLmw']):.1f}x the LL misses")


if __name__ == "__main__":
    main()
