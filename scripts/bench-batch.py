#!/usr/bin/env python3
"""Benchmark `ipalinks inspect` in batch mode: throughput with 1 and 2 jobs, and whether peak
memory stays flat as the corpus grows.

Usage: scripts/bench-batch.py [--count 1000] [--small 250] [--runs 3] [--seed 1]
                              [--binary .build/release/ipalinks] [--out bench-out/batch]
                              [--limit-ratio [1.5]]

Builds two corpora with scripts/make-batch-ipas.py (reused when their manifest matches):
OUT/corpus-<count>-seed<seed> and OUT/corpus-<small>-seed<seed>, each with ipas/ and aasa/.
Then runs, --runs times each and interleaved,

    BINARY inspect DIR/ipas --format jsonl --aasa-dir DIR/aasa --jobs J --no-progress

for J = 1 and 2 on the large corpus and J = 2 on the small one. Every run must exit 0 and
write exactly one JSON line with an `input` key per IPA of the corpus, each IPA once;
otherwise the script stops with the stderr tail. The numbers ipalinks prints in its stderr
summary (and the not-found domains in the reports) are compared with the corpus manifest;
disagreements are printed as warnings. Time is wall time around the child (median of the
runs); peak memory is the child's ru_maxrss from wait4() (the highest of the runs), so
nothing else on the machine is counted; CPU s is the child's user + system time (median),
which shows whether 2 jobs keep 2 cores busy.

Prints a table (inputs, jobs, median s, IPAs/s, peak MiB, CPU s, each run's time), then
  throughput jobs 2 / jobs 1: X.XXx        (how well 2 jobs use 2 cores; ideal 2)
  peak memory <count> / <small> inputs: X.XXx   (both with 2 jobs; flat means ~1)
and the summary line ipalinks wrote for the large corpus with 2 jobs (AASA hosts looked up
vs domain requests shows that each host is fetched once for the whole batch).
--limit-ratio fails the run when the memory ratio is above the limit (1.5 if given bare).
"""
import argparse
import collections
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

from batchcorpus import corpus, self_peak_mib, tail, warm

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUMMARY = re.compile(
    r"(?P<inputs>\d+) inputs? in .*?: (?P<complete>\d+) complete, (?P<partial>\d+) partial, "
    r"(?P<unreadable>\d+) unreadable; (?P<bundles>\d+) bundles, (?P<domains>\d+) associated "
    r"domains(?:; (?P<lookups>\d+) AASA hosts looked up for (?P<requests>\d+) domain requests)?")










def run(binary, d, jobs, check):
    """One timed run; check(stdout file, stderr text) validates the output. Returns (seconds,
    peak MiB, CPU seconds, check's result).

    Linux starts a child's ru_maxrss at its parent's peak RSS (the parent's memory is what
    gets forked, and exec folds its high-water mark into the child's), so the child's peak
    can never read below this script's own. The output is therefore streamed from a file,
    never held whole, to keep this process small (see the floor printed under the table)."""
    cmd = [binary, "inspect", os.path.join(d, "ipas"), "--format", "jsonl",
           "--aasa-dir", os.path.join(d, "aasa"), "--jobs", str(jobs), "--no-progress"]
    # Files rather than pipes: nothing to drain while we sit in wait4().
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
        if code != 0:
            sys.exit("FAIL: %s exited %d; stderr tail:\n%s"
                     % (" ".join(cmd), code, tail(stderr)))
        out.seek(0)
        result = check(out, stderr)
    cpu = usage.ru_utime + usage.ru_stime
    return elapsed, usage.ru_maxrss / 1024.0, cpu, result  # KiB -> MiB on Linux


def check(label, d, manifest, stdout, stderr):
    """Fail unless stdout (a binary file) has one JSON line per IPA, each once; return
    (summary line, warnings)."""
    want = {os.path.normpath(os.path.join(d, p)) for p in manifest["ipas"]}
    problems = []
    seen = collections.Counter()
    statuses = collections.Counter()
    aasa = collections.Counter()
    lines = 0
    for n, line in enumerate(stdout, 1):
        lines = n
        try:
            obj = json.loads(line)
        except ValueError as e:
            problems.append("line %d is not JSON (%s): %.120r" % (n, e, line))
            continue
        if not isinstance(obj, dict) or "input" not in obj:
            problems.append("line %d has no \"input\": %.120r" % (n, line))
            continue
        seen[os.path.normpath(os.path.join(os.getcwd(), obj["input"]))] += 1
        statuses[obj.get("status")] += 1
        for b in obj.get("bundles") or []:
            for dom in b.get("associatedDomains") or []:
                aasa[(dom.get("aasa") or {}).get("status")] += 1
    if lines != len(want):
        problems.append("%d lines on stdout, expected %d" % (lines, len(want)))
    dupes = [p for p, c in seen.items() if c > 1]
    if dupes:
        problems.append("%d inputs reported more than once, e.g. %s" % (len(dupes), dupes[0]))
    missing = want - set(seen)
    if missing:
        problems.append("%d inputs missing, e.g. %s" % (len(missing), sorted(missing)[0]))
    extra = set(seen) - want
    if extra:
        problems.append("%d unexpected inputs, e.g. %s" % (len(extra), sorted(extra)[0]))
    if problems:
        more = ["... and %d more" % (len(problems) - 10)] if len(problems) > 10 else []
        sys.exit("FAIL (%s):\n  %s\nstderr tail:\n%s"
                 % (label, "\n  ".join(problems[:10] + more), tail(stderr)))

    warnings = []
    e = manifest["expected"]
    summaries = [ln for ln in stderr.splitlines() if SUMMARY.search(ln)]
    others = [ln for ln in stderr.splitlines() if ln.strip() and not SUMMARY.search(ln)]
    if others:
        warnings.append("%d other stderr lines, e.g. %s" % (len(others), others[0]))
    if statuses.get("complete", 0) != len(want):
        warnings.append("report statuses %s, expected all complete" % dict(statuses))
    if aasa.get("not-found", 0) != e["domains_not_found"]:
        warnings.append("%d domains not-found in the reports, the corpus has %d on hosts "
                        "without an AASA file" % (aasa.get("not-found", 0), e["domains_not_found"]))
    if not summaries:
        warnings.append("no summary line recognised on stderr")
        return None, warnings
    m = SUMMARY.search(summaries[-1])
    for key, exp in [("inputs", e["inputs"]), ("complete", e["inputs"]),
                     ("bundles", e["bundles"]), ("domains", e["associated_domains"]),
                     ("lookups", e["host_lookups"]), ("requests", e["domain_requests"])]:
        got = m.group(key)
        if got is None or int(got) != exp:
            warnings.append("summary says %s %s, the corpus expects %d" % (key, got, exp))
    return summaries[-1], warnings


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=1000, help="IPAs in the large corpus")
    ap.add_argument("--small", type=int, default=250, help="IPAs in the small corpus")
    ap.add_argument("--runs", type=int, default=3, help="runs per configuration")
    ap.add_argument("--seed", default="1", help="corpus seed")
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build/release/ipalinks"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench-out", "batch"),
                    help="where the corpora go")
    ap.add_argument("--limit-ratio", type=float, nargs="?", const=1.5, default=None,
                    help="fail when peak memory (count / small) is above this (bare: 1.5)")
    args = ap.parse_args()
    if args.count < 1 or args.small < 1 or args.runs < 1:
        ap.error("--count, --small and --runs must be at least 1")
    if args.small == args.count:
        ap.error("--small must differ from --count")
    binary = os.path.abspath(args.binary)
    if not os.access(binary, os.X_OK):
        sys.exit("no executable at %s (make bench-batch builds it)" % binary)
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)

    load_at_start = os.getloadavg()[0]
    t0 = time.perf_counter()
    big_dir, big, big_line = corpus(out, args.count, args.seed)
    print(big_line, file=sys.stderr)
    small_dir, small, small_line = corpus(out, args.small, args.seed)
    print(small_line, file=sys.stderr)
    for d, m in ((big_dir, big), (small_dir, small)):
        warm(d, m)
    print("corpora ready in %.1f s" % (time.perf_counter() - t0), file=sys.stderr)

    configs = [(args.count, 1, big_dir, big), (args.count, 2, big_dir, big),
               (args.small, 2, small_dir, small)]
    results = {(n, j): [] for n, j, _, _ in configs}
    summary_line = {}
    warnings = collections.OrderedDict()
    for r in range(args.runs):  # interleaved, so drift on the machine hits every config alike
        for n, jobs, d, m in configs:
            label = "%d inputs, %d jobs, run %d/%d" % (n, jobs, r + 1, args.runs)
            secs, mib, cpu, (line, warns) = run(
                binary, d, jobs, lambda out, err: check(label, d, m, out, err))
            results[(n, jobs)].append((secs, mib, cpu))
            summary_line.setdefault((n, jobs), line)
            for w in warns:
                warnings.setdefault("%d inputs, %d jobs: %s" % (n, jobs, w), None)
            print("[%s] %.3f s, %.1f MiB, %.2f s CPU" % (label, secs, mib, cpu), file=sys.stderr,
                  flush=True)

    print()
    print("ipalinks inspect DIR --format jsonl --aasa-dir (%s), median of %d run%s"
          % (os.path.relpath(binary, ROOT) if binary.startswith(ROOT + os.sep) else binary,
             args.runs, "" if args.runs == 1 else "s"))
    print(f"{'inputs':>7} {'jobs':>5} {'median s':>9} {'IPAs/s':>8} {'peak MiB':>9} "
          f"{'CPU s':>7}  runs (s)")
    med, peak = {}, {}
    for n, jobs, _, _ in configs:
        times = [t for t, _, _ in results[(n, jobs)]]
        med[(n, jobs)] = statistics.median(times)
        peak[(n, jobs)] = max(p for _, p, _ in results[(n, jobs)])
        cpu = statistics.median(c for _, _, c in results[(n, jobs)])
        print(f"{n:>7} {jobs:>5} {med[(n, jobs)]:>9.3f} {n / med[(n, jobs)]:>8.1f} "
              f"{peak[(n, jobs)]:>9.1f} {cpu:>7.2f}  {' '.join('%.2f' % t for t in times)}")
    speedup = med[(args.count, 1)] / med[(args.count, 2)]
    ratio = peak[(args.count, 2)] / peak[(args.small, 2)]
    print(f"throughput jobs 2 / jobs 1: {speedup:.2f}x")
    print(f"peak memory {args.count} / {args.small} inputs: {ratio:.2f}x (2 jobs; flat means ~1)")
    e = big["expected"]
    print(f"ipalinks summary ({args.count} inputs, 2 jobs): "
          f"{summary_line[(args.count, 2)] or '(none recognised)'}")
    print(f"corpus manifest: {e['inputs']} inputs, {e['bundles']} bundles, "
          f"{e['associated_domains']} associated domains, {e['hosts']} hosts "
          f"({e['hosts_missing']} without an AASA file), {e['host_lookups']} host lookups "
          f"for {e['domain_requests']} domain requests; {big['ipa_bytes'] / (1 << 20):.1f} MiB")
    floor = self_peak_mib()
    print(f"this script's own peak RSS: {floor:.1f} MiB (a child's peak MiB cannot read lower)")
    if min(peak.values()) < floor + 1:
        print("WARNING: a peak MiB is at this script's floor; the child's real peak may be lower")
    starved = med[(args.count, 1)] / statistics.median(c for _, _, c in results[(args.count, 1)])
    if starved > 1.15 or load_at_start > 0.5:
        print(f"note: machine not idle (load average {load_at_start:.2f} before the corpora; "
              f"1-job runs took {starved:.2f}x their CPU time in wall time): times are noisy")
    for w in warnings:
        print("WARNING: " + w)
    if args.limit_ratio is not None and ratio > args.limit_ratio:
        print(f"FAIL: peak memory grew {ratio:.2f}x from {args.small} to {args.count} inputs, "
              f"over the {args.limit_ratio}x limit")
        sys.exit(1)


if __name__ == "__main__":
    main()
