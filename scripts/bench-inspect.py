#!/usr/bin/env python3
"""Benchmark `ipalinks inspect` on a large IPA: peak memory, and time as a ratio to `unzip -p`.

Usage: scripts/bench-inspect.py [--size-mib 1024] [--exec-mib 300] [--runs 3] [--binary PATH]

Builds bench-out/Big-<size>-<exec>[-stored].ipa with scripts/make-big-ipa.py when missing, then for each
variant (executable deflated, executable stored) runs both commands `--runs` times and prints medians.
Peak memory is each child's ru_maxrss from wait4(), so nothing else on the machine is counted.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd, stdout=subprocess.DEVNULL):
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"{' '.join(cmd)} exited {code}: {proc.stderr.read().decode()[:500]}")
    return elapsed, usage.ru_maxrss / 1024.0  # KiB -> MiB on Linux


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size-mib", type=int, default=1024)
    ap.add_argument("--exec-mib", type=int, default=300)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build/release/ipalinks"))
    ap.add_argument("--limit-mib", type=float, default=64.0, help="fail when peak memory exceeds this")
    args = ap.parse_args()

    out = os.path.join(ROOT, "bench-out")
    os.makedirs(out, exist_ok=True)
    failed = False
    print(f"ipalinks inspect vs unzip -p, {args.size_mib} MiB IPA, {args.exec_mib} MiB executable, median of {args.runs}")
    print(f"{'variant':<10} {'inspect s':>10} {'unzip -p s':>11} {'ratio':>7} {'inspect peak MiB':>17} {'unzip peak MiB':>15}")
    for stored in (False, True):
        name = f"Big-{args.size_mib}-{args.exec_mib}{'-stored' if stored else ''}.ipa"
        ipa = os.path.join(out, name)
        if not os.path.exists(ipa):
            cmd = [sys.executable, os.path.join(ROOT, "scripts/make-big-ipa.py"), ipa,
                   "--size-mib", str(args.size_mib), "--exec-mib", str(args.exec_mib)]
            if stored:
                cmd.append("--exec-stored")
            subprocess.run(cmd, check=True)
        inspect, unzip = [], []
        for _ in range(args.runs):
            inspect.append(run([args.binary, "inspect", ipa, "--format", "json"]))
            unzip.append(run(["unzip", "-p", ipa, "Payload/Big.app/Big"]))
        ti = statistics.median(t for t, _ in inspect)
        tu = statistics.median(t for t, _ in unzip)
        mi = max(m for _, m in inspect)
        mu = max(m for _, m in unzip)
        variant = "stored" if stored else "deflated"
        print(f"{variant:<10} {ti:>10.3f} {tu:>11.3f} {ti / tu:>7.3f} {mi:>17.1f} {mu:>15.1f}")
        if mi > args.limit_mib:
            print(f"FAIL: inspect peaked at {mi:.1f} MiB, over the {args.limit_mib} MiB budget")
            failed = True
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
