#!/usr/bin/env python3
"""Seed corpora for the fuzz harnesses, cut from the samples, the test fixtures and ../shared/aasa-corpus/.

Each harness gets the kind of bytes its parser reads: whole IPAs for the zip and inspect harnesses, the
executables inside them for Mach-O, their SuperBlobs and DER entitlement payloads for the signature and DER
harnesses, Info.plists and .xcent files for libplist, profiles and signed AASA files for CMS, and so on.
Nothing here is committed: `make fuzz` writes the seeds under Fuzz/.build/seeds/ on every run.

usage: fuzz-seeds.py OUT_DIR
"""

import hashlib
import json
import pathlib
import struct
import sys
import zipfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
# Larger seeds only slow every execution down; the interesting structure is in the first kilobytes.
MAX_SEED = 256 * 1024


def small_files(folder, pattern="*"):
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.glob(pattern) if p.is_file() and p.stat().st_size <= MAX_SEED)


def ipas():
    found = small_files(ROOT / "samples", "*.ipa") + small_files(ROOT / "Tests/Fixtures/bad", "*.ipa")
    return found + small_files(SHARED / "real-samples", "*.ipa")


def ipa_members(predicate):
    """Yields (name, bytes) of members of every seed IPA for which predicate(name) holds."""
    for ipa in ipas():
        try:
            with zipfile.ZipFile(ipa) as z:
                for info in z.infolist():
                    if predicate(info.filename) and 0 < info.file_size <= 8 * 1024 * 1024:
                        yield info.filename, z.read(info)
        except Exception:  # the bad fixtures are meant to be unreadable
            continue


def executables():
    """Bundle executables: a member whose name equals its .app/.appex folder's name without the extension."""

    def is_executable(name):
        parts = name.split("/")
        return len(parts) >= 2 and parts[-2].rsplit(".", 1)[0] == parts[-1] and "." in parts[-2]

    out = [(name, data) for name, data in ipa_members(is_executable)]
    for p in small_files(ROOT / "Tests/Fixtures/macho"):
        out.append((p.name, p.read_bytes()))
    longtrainz = SHARED / "real-samples/longtrainz--Runner-inhouse"
    if longtrainz.is_file():
        out.append((longtrainz.name, longtrainz.read_bytes()))
    return out


def blobs(data):
    """SuperBlobs and DER entitlement payloads found in an executable by their magic numbers."""
    superblobs, ders = [], []
    start = 0
    while (i := data.find(b"\xfa\xde\x0c\xc0", start)) >= 0:
        length = struct.unpack(">I", data[i + 4 : i + 8])[0] if i + 8 <= len(data) else 0
        if 12 <= length <= len(data) - i:
            superblobs.append(data[i : i + length])
        start = i + 4
    start = 0
    while (i := data.find(b"\xfa\xde\x71\x72", start)) >= 0:
        length = struct.unpack(">I", data[i + 4 : i + 8])[0] if i + 8 <= len(data) else 0
        if 8 < length <= len(data) - i:
            ders.append(data[i + 8 : i + length])
        start = i + 4
    return superblobs, ders


def main():
    out = pathlib.Path(sys.argv[1])
    seeds = {name: [] for name in [
        "FuzzZip", "FuzzInspect", "FuzzPlist", "FuzzMachO", "FuzzCodeSignature", "FuzzDER", "FuzzCMS", "FuzzAASA",
        "FuzzMatch", "FuzzEntitlementStrings"]}

    for ipa in ipas():
        seeds["FuzzZip"].append(ipa.read_bytes())
        seeds["FuzzInspect"].append(ipa.read_bytes())

    for _, data in ipa_members(lambda n: n.endswith(("Info.plist", ".xcent", ".entitlements"))):
        seeds["FuzzPlist"].append(data)
    for p in small_files(ROOT / "Tests/Fixtures/plists") + small_files(SHARED / "real-samples", "*.xcent"):
        seeds["FuzzPlist"].append(p.read_bytes())

    for _, data in executables():
        seeds["FuzzMachO"].append(data[:MAX_SEED])
        superblobs, ders = blobs(data)
        seeds["FuzzCodeSignature"] += superblobs
        seeds["FuzzDER"] += ders

    for _, data in ipa_members(lambda n: n.endswith("embedded.mobileprovision")):
        seeds["FuzzCMS"].append(data)
    for p in (small_files(ROOT / "Tests/Fixtures/profiles") + small_files(SHARED / "real-samples", "*.mobileprovision")
              + small_files(SHARED / "aasa-corpus/signed")):
        seeds["FuzzCMS"].append(p.read_bytes())

    aasa = small_files(SHARED / "aasa-corpus", "*.json") + small_files(ROOT / "samples/aasa")
    aasa += small_files(SHARED / "aasa-corpus/signed")
    seeds["FuzzAASA"] = [p.read_bytes() for p in aasa]

    # Pattern, URL and an optional `$(v)` definition, one per line, from the patterns of the real files.
    patterns = set()
    domains = set()
    for p in aasa:
        try:
            doc = json.loads(p.read_bytes())
        except ValueError:
            continue
        for detail in (doc.get("applinks") or {}).get("details") or []:
            if not isinstance(detail, dict):
                continue
            for c in detail.get("components") or []:
                if isinstance(c, dict):
                    patterns.update(v for k, v in c.items() if k in ("/", "#") and isinstance(v, str))
            patterns.update(v for v in detail.get("paths") or [] if isinstance(v, str))
        domains.add(p.name.removesuffix(".json"))
    urls = ["https://example.com/", "https://example.com/a/b?c=d#e", "https://example.com/%E2%80%A8/x?y=%2F"]
    for i, pattern in enumerate(sorted(patterns)[:200]):
        seeds["FuzzMatch"].append(f"{pattern}\n{urls[i % len(urls)]}\nen|fr|de".encode())
    seeds["FuzzMatch"] += [b"/$(v)/*\nhttps://example.com/en/x\nen|fr", b"?*\nhttps://example.com/?a=b", b"/a?b/*c\n"]

    for d in sorted(domains):
        seeds["FuzzEntitlementStrings"] += [f"applinks:{d}".encode(), f"applinks:*.{d}?mode=developer".encode()]
    seeds["FuzzEntitlementStrings"] += [
        b"example.com:443:127.0.0.1:8443", b"::[::1]:", b"[::1]:443:example.com:",
        b"webcredentials:example.com\nappclips:a.example.com?mode=managed+developer",
    ]

    # Every input a harness ever crashed on (Tests/Fixtures/fuzz/<harness>/, named as FuzzHarness names it), so a
    # short run replays them all under AddressSanitizer.
    by_folder = {name.lower().removeprefix("fuzz"): name for name in seeds}
    for folder in sorted((ROOT / "Tests/Fixtures/fuzz").iterdir()):
        if folder.is_dir():
            seeds[by_folder[folder.name]] += [p.read_bytes() for p in small_files(folder)]

    total = 0
    for name, items in seeds.items():
        folder = out / name
        folder.mkdir(parents=True, exist_ok=True)
        for data in items:
            (folder / hashlib.sha1(data).hexdigest()).write_bytes(data)
        total += len(items)
        print(f"{name}: {len(set(hashlib.sha1(d).hexdigest() for d in items))} seeds")
    if not (SHARED / "aasa-corpus").is_dir():
        print("note: ../shared/aasa-corpus is absent; the AASA seeds come from samples/aasa only")


if __name__ == "__main__":
    main()
