#!/usr/bin/env python3
"""Stream a large IPA to disk (for ipalinks' memory benchmark) without holding it in memory.

    python3 scripts/make-big-ipa.py OUT.ipa [--size-mib 1024] [--exec-mib 300] [--exec-stored]

Layout of OUT:
  Payload/Big.app/Info.plist           XML, CFBundleIdentifier com.example.big
  Payload/Big.app/PkgInfo
  Payload/Big.app/Big                  thin arm64 Mach-O of ~exec-mib MiB, DEFLATED (or STORED
                                       with --exec-stored). __TEXT is seeded pseudo-random
                                       filler (5-bit alphabet, deflates to ~2/3); the code
                                       signature SuperBlob (real SHA-1/SHA-256 page hashes,
                                       XML + DER entitlements with applinks:big.example.com)
                                       sits at the END of the file, so a reader has to get
                                       past ~exec-mib MiB to reach it.
  Payload/Big.app/Assets/filler-NNN.bin STORED filler (<= 64 MiB each) sized so that the
                                       archive is exactly --size-mib MiB (when the exec
                                       leaves room for at least one filler entry).

Deterministic for a given --seed. Memory stays at a few MiB plus the signature
(~52 bytes of hashes per 4 KiB page, ~4 MB for a 300 MiB executable). Archives that
would pass 4 GiB are written as ZIP64. Python 3.9+, standard library only; the Mach-O,
signature and zip builders come from make-samples.py in this directory.
"""

import argparse
import importlib.util
import os
import random
import sys
import time

sys.dont_write_bytecode = True  # don't leave scripts/__pycache__ behind
_spec = importlib.util.spec_from_file_location(
    "make_samples", os.path.join(os.path.dirname(os.path.abspath(__file__)), "make-samples.py"))
ms = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ms)

MIB = 1 << 20
CHUNK = 4 * MIB  # multiple of the 4 KiB code-signing page
FILLER_MAX = 64 * MIB
TEAM, BUNDLE_ID = "B1GAPP0001", "com.example.big"
APP = "Payload/Big.app"
LOW5 = bytes(i & 0x1F for i in range(256))


class PageHasher:
    """SHA-1 and SHA-256 of every 4 KiB page of a byte stream (code-directory slots)."""

    def __init__(self):
        self.h = {1: [], 2: []}
        self.pending = b""

    def update(self, data):
        if self.pending:
            data = self.pending + data
            self.pending = b""
        end = len(data) - len(data) % ms.CS_PAGE
        mv = memoryview(data)
        for ht, out in self.h.items():
            fn = ms.HASHES[ht][0]
            out.extend(fn(mv[i:i + ms.CS_PAGE]).digest() for i in range(0, end, ms.CS_PAGE))
        self.pending = bytes(mv[end:])

    def finish(self):
        if self.pending:
            for ht, out in self.h.items():
                out.append(ms.HASHES[ht][0](self.pending).digest())
            self.pending = b""
        return self.h


def log(msg, t0):
    print("[%6.1fs] %s" % (time.time() - t0, msg), file=sys.stderr, flush=True)


def main():
    ap = argparse.ArgumentParser(description="Stream a large IPA to disk.")
    ap.add_argument("out", help="output .ipa path")
    ap.add_argument("--size-mib", type=int, default=1024, help="total archive size (MiB)")
    ap.add_argument("--exec-mib", type=int, default=300, help="executable size (MiB, approx.)")
    ap.add_argument("--exec-stored", action="store_true",
                    help="store the executable instead of deflating it")
    ap.add_argument("--level", type=int, default=6, help="deflate level for the executable")
    ap.add_argument("--seed", default="ipalinks-big", help="seed of the filler generator")
    args = ap.parse_args()
    if args.exec_mib < 1:
        ap.error("--exec-mib must be at least 1")
    t0 = time.time()

    ents = ms.base_ents(TEAM, BUNDLE_ID, **{ms.AD: ["applinks:big.example.com"],
                                            "get-task-allow": False})
    bundle = ms.Bundle(APP, "app", BUNDLE_ID, TEAM, "Big", "Big",
                       url_types=[{"CFBundleURLName": BUNDLE_ID, "CFBundleURLSchemes": ["bigapp"]}],
                       ents=ents)
    info = bundle.info_bytes()
    sig = ms.Sig(xml=ms.xml_plist(ents), der=ms.der_entitlements(ents, "app16"),
                 info_plist=info, exec_seg_flags=1)
    text_size = ms.align(args.exec_mib * MIB, ms.SEG_PAGE)
    code_off = ms.SEG_PAGE
    lay = ms.macho_layout("arm64", BUNDLE_ID, TEAM, sig, text_size, None, text_size - code_off)
    assert lay["code_off"] == code_off
    zip64 = args.size_mib * MIB >= 0xFFFFFFFF - 64 * MIB or lay["file_len"] >= 0xFFFFFFFF - MIB

    with open(args.out, "wb") as fp:
        zw = ms.ZipWriter(fp, zip64=zip64, level=args.level)
        zw.add(APP + "/Info.plist", info)
        zw.add(APP + "/PkgInfo", b"APPL????")

        entry = zw.open_stream(APP + "/Big", method=0 if args.exec_stored else 8,
                               mode=0o100755)
        hasher = PageHasher()

        def emit(data):
            hasher.update(data)
            entry.write(data)

        emit(lay["head"] + bytes(code_off - len(lay["head"])))
        rng = random.Random(args.seed)
        left = text_size - code_off
        while left:
            n = min(CHUNK, left)
            emit(rng.randbytes(n).translate(LOW5))
            left -= n
            if left % (64 * MIB) == 0 and left:
                log("executable: %d MiB to go" % (left // MIB), t0)
        tail = ms.STRTAB + bytes(lay["sig_off"] - text_size - len(ms.STRTAB))
        emit(tail)
        hashes = hasher.finish()
        sb, _ = ms.superblob(sig, BUNDLE_ID, TEAM, lay["sig_off"], hashes, text_size)
        datasize = lay["file_len"] - lay["sig_off"]
        assert len(sb) <= datasize
        entry.write(sb + bytes(datasize - len(sb)))  # the signature isn't page-hashed
        entry.close()
        exe_csize = entry.csize
        log("executable: %d bytes, %d in the zip, signature at %d (%d bytes)"
            % (lay["file_len"], exe_csize, lay["sig_off"], len(sb)), t0)

        # Stored filler to reach exactly size-mib MiB.
        target = args.size_mib * MIB
        central = sum(46 + len(c[0].encode()) + (28 if zip64 else 0) for c in zw.central)
        end_records = 22 + (56 + 20 if zip64 else 0)
        names = []
        room = target - zw.pos - central - end_records
        per_entry = lambda name: (30 + len(name) + (20 if zip64 else 0)
                                  + 46 + len(name) + (28 if zip64 else 0))
        sizes = []
        while True:
            name = APP + "/Assets/filler-%03d.bin" % len(sizes)
            over = per_entry(name)
            if room <= over:
                break
            n = min(FILLER_MAX, room - over)
            sizes.append(n)
            names.append(name)
            room -= over + n
        if room and sizes:  # the leftover (< one header) goes into the last filler
            sizes[-1] += room
            room = 0
        block = random.Random(args.seed + ":filler").randbytes(CHUNK)
        for name, size in zip(names, sizes):
            e = zw.open_stream(name, method=0)
            left = size
            while left:
                n = min(CHUNK, left)
                e.write(block if n == CHUNK else block[:n])
                left -= n
            e.close()
        zw.close()
        total = zw.pos
    log("wrote %s: %d bytes (%.1f MiB), %d filler entries, zip64=%s, exec %s"
        % (args.out, total, total / MIB, len(sizes), zip64,
           "stored" if args.exec_stored else "deflated"), t0)
    if sizes and total != target:
        print("warning: size %d != target %d" % (total, target), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
