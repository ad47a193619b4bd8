"""What the batch benchmarks (bench-batch.py, bench-store.py) share: a generated corpus of IPAs and AASA files
(make-batch-ipas.py, reused while its manifest matches), a warm page cache, and small helpers."""
import json
import os
import resource
import subprocess
import sys

MAKE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "make-batch-ipas.py")


def corpus(out, count, seed, quiet=False):
    """Generate (or reuse) a corpus; returns (dir, manifest, make-batch-ipas.py's report line)."""
    d = os.path.join(out, "corpus-%d-seed%s" % (count, seed))
    res = subprocess.run([sys.executable, MAKE, d, "--count", str(count), "--seed", str(seed)]
                         + (["--quiet"] if quiet else []), stdout=subprocess.PIPE, text=True)
    if res.returncode != 0:
        sys.exit("make-batch-ipas.py failed for %s (exit %d)" % (d, res.returncode))
    with open(os.path.join(d, "manifest.json")) as f:
        manifest = json.load(f)
    return d, manifest, res.stdout.strip()


def warm(d, manifest):
    """Read every IPA once so the first timed run does not pay for a cold page cache."""
    for rel in manifest["ipas"]:
        with open(os.path.join(d, rel), "rb") as f:
            while f.read(1 << 20):
                pass


def tail(text, lines=20):
    """The last `lines` lines of `text`."""
    return "\n".join(text.rstrip("\n").split("\n")[-lines:])


def self_peak_mib():
    """This process's own peak RSS; a child's ru_maxrss cannot read lower."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
