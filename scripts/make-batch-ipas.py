#!/usr/bin/env python3
"""Generate a corpus of small, realistic IPAs plus their AASA files for batch benchmarks.

    python3 scripts/make-batch-ipas.py OUT_DIR --count N [--seed S] [--subdomains] [--force] [--quiet]

Writes
  OUT_DIR/ipas/NNN/AppXXXX.ipa   N IPAs, 100 per folder (ipas/000/, ipas/001/, ...), plus
                                 ipas/README.txt, which a walk for *.ipa must skip
  OUT_DIR/aasa/<host>[.json]     one AASA file per host the corpus uses (about 5% are
                                 missing on purpose, so those domains come out not-found)
  OUT_DIR/manifest.json          count, seed, generator version, the IPA paths, and what
                                 `ipalinks inspect --aasa-dir` should count: bundles,
                                 associated domains, domain requests (distinct (host,
                                 developer mode) per input), host lookups (the same, distinct
                                 over the batch), domains whose host has no AASA file

Each IPA holds Payload/AppXXXX.app (bundle id com.bench.appXXXX, a URL scheme, a team id
drawn from a pool of 40) with a signed thin arm64 Mach-O whose code signature carries
XML + DER entitlements (the builders of make-samples.py). Each app has 2-6 associated
domains: applinks:appXXXX.example (its own host) plus applinks:, applinks:*. (wildcard)
and webcredentials: entries on a pool of 50 shared hosts shared-K.example, picked with a
Zipf-like skew so that popular hosts serve hundreds of apps. About 10% of the apps have
a PlugIns/Share.appex with its own entitlements (webcredentials on the app's host), and
about a third carry 100-600 KB of filler assets (a stored, incompressible Assets.car and
a deflated JSON catalog). 1000 IPAs take ~85 MB and ~7 s.

With --subdomains (what `make report-demo` uses), about a fifth of the apps also claim
applinks:www.shared-K.example, a named host that other apps' applinks:*.shared-K.example
wildcards cover, so a report shows hosts shared directly and through wildcards; its AASA
file lists those apps in two details entries whose rules overlap. The other draws are
unchanged, so the rest of the corpus is the same as without the flag.

Deterministic: every app is derived from (seed, index) alone, so the first 250 apps of a
1000-app corpus equal a 250-app corpus with the same seed (the AASA files differ: they list
the apps of their own corpus). Re-running with the same count and seed is a no-op once
OUT_DIR/manifest.json matches (--force regenerates). Standard library only.
"""

import argparse
import importlib.util
import json
import os
import random
import shutil
import sys
import time

sys.dont_write_bytecode = True  # don't leave scripts/__pycache__ behind
_spec = importlib.util.spec_from_file_location(
    "make_samples", os.path.join(os.path.dirname(os.path.abspath(__file__)), "make-samples.py"))
ms = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ms)

GENERATOR_VERSION = 1  # bump when the output changes, so old corpora are regenerated
PER_FOLDER = 100
SHARED_HOSTS = 50
TEAMS = 40
ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
WORDS = ("home about product detail search cart checkout account settings profile offer promo "
         "store item list share invite open view order track help login signup news feed "
         "video photo music event ticket map place route").split()


def shared_host(k):
    return "shared-%d.example" % k


def sub_host(k):
    return "www.shared-%d.example" % k


def own_host(i):
    return "app%04d.example" % i


def teams(seed):
    rng = random.Random("%s:teams" % seed)
    return ["".join(rng.choice(ALNUM) for _ in range(10)) for _ in range(TEAMS)]


def host_of(domain):
    """`applinks:*.shared-3.example?mode=developer` -> `shared-3.example` (a wildcard takes
    its AASA file from the apex; the mode does not change the host)."""
    value = domain.split(":", 1)[1].split("?", 1)[0]
    return value[2:] if value.startswith("*.") else value


def lookup_key(domain):
    """What ipalinks fetches for a domain: (host, developer mode). `?mode=developer` entries
    are fetched direct, so they are a lookup of their own even on a host looked up anyway."""
    return host_of(domain), "mode=developer" in domain.split("?", 1)[-1]


def app_spec(seed, i, team_pool, subdomains=False):
    """Everything about app i, from (seed, i) only."""
    rng = random.Random("%s:app:%d" % (seed, i))
    name = "App%04d" % i
    bid = "com.bench.app%04d" % i
    team = rng.choice(team_pool)
    own = own_host(i)
    weights = [1.0 / (k + 1) ** 0.9 for k in range(SHARED_HOSTS)]
    domains = ["applinks:" + own]
    want = rng.randint(2, 6)
    tries = 0
    while len(domains) < want and tries < 50:
        tries += 1
        k = rng.choices(range(SHARED_HOSTS), weights)[0]
        kind = rng.choices(["applinks", "wildcard", "webcredentials", "own-webcredentials",
                            "own-developer"], [5, 2, 3, 1, 0.3])[0]
        d = {"applinks": "applinks:" + shared_host(k),
             "wildcard": "applinks:*." + shared_host(k),
             "webcredentials": "webcredentials:" + shared_host(k),
             "own-webcredentials": "webcredentials:" + own,
             # the own host again: a second entry, but not a second request
             "own-developer": "applinks:" + own + "?mode=developer"}[kind]
        if d not in domains:
            domains.append(d)
    if subdomains:
        # Its own stream, so the draws above (and so the corpus without the flag) stay the same.
        sub = random.Random("%s:sub:%d" % (seed, i))
        if sub.random() < 0.2:
            k = sub.choices(range(SHARED_HOSTS), weights)[0]
            domains.append("applinks:" + sub_host(k))
    schemes = ["benchapp%04d" % i]
    if rng.random() < 0.3:
        schemes.append("fb%010d" % rng.randrange(10 ** 10))
    spec = {
        "index": i, "name": name, "bundle_id": bid, "team": team, "domains": domains,
        "schemes": schemes,
        "info_format": "binary" if rng.random() < 0.3 else "xml",
        "der_form": "set" if rng.random() < 0.2 else "app16",
        "appex": rng.random() < 0.10,
        "filler": None,
        "missing_own": rng.random() < 0.05,
        "aasa_json_suffix": rng.random() < 0.8,
    }
    if rng.random() < 0.35:
        total = rng.randint(100, 600) * 1024
        car = int(total * rng.uniform(0.4, 0.8))
        spec["filler"] = {"car": car, "catalog": total - car,
                          "seed": "%s:filler:%d" % (seed, i)}
    return spec


def catalog_json(size, seed):
    """Compressible JSON-ish text of about `size` bytes (deflates to ~25%)."""
    rng = random.Random(seed)
    parts, n, k = ["{\n"], 2, 0
    while n < size:
        line = '  "%s_%d": {"title": "%s", "path": "/%s/%s/%d", "weight": %d},\n' % (
            rng.choice(WORDS), k, " ".join(rng.choices(WORDS, k=4)), rng.choice(WORDS),
            rng.choice(WORDS), rng.randrange(100000), rng.randrange(100))
        parts.append(line)
        n += len(line)
        k += 1
    parts.append('  "end": true\n}\n')
    return "".join(parts).encode()


def build_bundle(spec):
    i, bid, team, name = spec["index"], spec["bundle_id"], spec["team"], spec["name"]
    slices = [("arm64", "xml", spec["der_form"])]
    children = []
    if spec["appex"]:
        sbid = bid + ".share"
        children.append(ms.Bundle(
            "Payload/%s.app/PlugIns/Share.appex" % name, "app-extension", sbid, team, "Share",
            "Share", slices=slices,
            ents=ms.base_ents(team, sbid, **{
                ms.AD: ["webcredentials:" + own_host(i)],
                "keychain-access-groups": ["%s.%s" % (team, bid)]}),
            info_extra={"NSExtension": {
                "NSExtensionPointIdentifier": "com.apple.share-services",
                "NSExtensionPrincipalClass": "ShareViewController"}}))
    extra = []
    f = spec["filler"]
    if f:
        rng = random.Random(f["seed"])
        extra.append(("Assets.car", rng.randbytes(f["car"]), 0o100644))
        extra.append(("Resources/catalog.json", catalog_json(f["catalog"], f["seed"]),
                      0o100644))
    ents = ms.base_ents(team, bid, **{
        ms.AD: spec["domains"], "get-task-allow": False,
        "keychain-access-groups": ["%s.%s" % (team, bid)]})
    return ms.Bundle(
        "Payload/%s.app" % name, "app", bid, team, name, "Bench %04d" % i,
        url_types=[{"CFBundleURLName": bid, "CFBundleURLSchemes": spec["schemes"]}],
        info_format=spec["info_format"], ents=ents, slices=slices, extra_files=extra,
        children=children)


def write_ipa(path, bundle):
    """Directory entries first (as Xcode's exporter writes them), Assets.car STORED (it is
    incompressible), everything else DEFLATED at level 6."""
    entries = ms.bundle_entries(bundle)
    with open(path, "wb") as fp:
        zw = ms.ZipWriter(fp, level=6)
        seen = set()
        for name, data, mode in entries:
            parts = name.split("/")[:-1]
            for j in range(1, len(parts) + 1):
                d = "/".join(parts[:j]) + "/"
                if d not in seen:
                    seen.add(d)
                    zw.add(d, b"", method=0, mode=0o40755)
            zw.add(name, data, mode=mode, method=0 if name.endswith("/Assets.car") else 8)
        zw.close()
        return zw.pos


def aasa_components(rng, prefix):
    pool = [
        [{"/": "/%s/*" % prefix}],
        [{"/": "/%s/private/*" % prefix, "exclude": True}, {"/": "/%s/*" % prefix}],
        [{"/": "/%s/item/*" % prefix, "?": {"ref": "?*"}}, {"/": "/%s/list" % prefix}],
        [{"/": "/%s/*" % prefix, "#": "no_universal_links", "exclude": True},
         {"/": "/%s/?*/detail" % prefix, "caseSensitive": False}],
        [{"/": "/*"}],
    ]
    return rng.choice(pool)


def shared_aasa(seed, k, applinks_ids, webcred_ids):
    rng = random.Random("%s:aasa:%d" % (seed, k))
    doc = {}
    if applinks_ids:
        details = []
        if k % 10 == 3:  # the legacy form: one appID per detail, "paths" with NOT
            for app_id in applinks_ids:
                details.append({"appID": app_id,
                                "paths": ["/s%d/*" % k, "NOT /s%d/private/*" % k]})
            doc["applinks"] = {"apps": [], "details": details}
        else:
            ids = list(applinks_ids)
            for j in range(0, len(ids), 25):  # big sites split their apps over details
                details.append({"appIDs": ids[j:j + 25],
                                "components": aasa_components(rng, "s%d-%d" % (k, j // 25))})
            doc["applinks"] = {"details": details}
            if k % 4 == 1:
                doc["applinks"]["defaults"] = {"caseSensitive": False}
    if webcred_ids:
        doc["webcredentials"] = {"apps": list(webcred_ids)}
    return doc


def sub_aasa(k, app_ids):
    """A named subdomain's file: its apps split over two entries, the first claiming /shop/*, the second
    everything, so the first entry wins /shop/ URLs that the second would also open."""
    half = (len(app_ids) + 1) // 2
    details = [{"appIDs": app_ids[:half], "components": [{"/": "/shop/*"}]}]
    if app_ids[half:]:
        details.append({"appIDs": app_ids[half:], "components": [{"/": "/w%d/*" % k}, {"/": "/*"}]})
    return {"applinks": {"details": details}}


def own_aasa(spec, appex_id):
    app_id = "%s.%s" % (spec["team"], spec["bundle_id"])
    i = spec["index"]
    doc = {"applinks": {"details": [{"appIDs": [app_id], "components": [
        {"/": "/a%04d/admin/*" % i, "exclude": True}, {"/": "/a%04d/*" % i},
        {"/": "/invite", "?": {"code": "?*"}}]}]}}
    web = [app_id] if "webcredentials:" + own_host(i) in spec["domains"] else []
    if appex_id:
        web.append(appex_id)
    if web:
        doc["webcredentials"] = {"apps": web}
    return doc


def generate(out, count, seed, quiet=False, subdomains=False):
    t0 = time.time()
    ipa_root = os.path.join(out, "ipas")
    aasa_root = os.path.join(out, "aasa")
    manifest_path = os.path.join(out, "manifest.json")
    if os.path.exists(manifest_path):  # no manifest until the corpus is whole again
        os.remove(manifest_path)
    for d in (ipa_root, aasa_root):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    with open(os.path.join(ipa_root, "README.txt"), "w") as f:
        f.write("Generated by scripts/make-batch-ipas.py; not an IPA, must be skipped.\n")

    team_pool = teams(seed)
    missing_shared = set(random.Random("%s:missing" % seed).sample(range(SHARED_HOSTS), 3))
    shared_applinks = {}  # k -> [appID] (applinks or wildcard)
    shared_webcred = {}
    sub_applinks = {}  # k -> [appID] claiming www.shared-K.example
    paths = []
    total_bytes = 0
    n_bundles = n_domains = n_requests = 0
    hosts, lookups = set(), set()
    domains_by_host = {}
    specs = []
    for i in range(count):
        spec = app_spec(seed, i, team_pool, subdomains)
        specs.append(spec)
        bundle = build_bundle(spec)
        folder = os.path.join(ipa_root, "%03d" % (i // PER_FOLDER))
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, spec["name"] + ".ipa")
        total_bytes += write_ipa(path, bundle)
        paths.append(os.path.relpath(path, out))
        app_id = "%s.%s" % (spec["team"], spec["bundle_id"])
        keys = set()  # one request per (host, mode) per input, whatever its bundles claim
        for b in ms.all_bundles(bundle):
            ds = b.ents.get(ms.AD, [])
            n_bundles += 1
            n_domains += len(ds)
            for d in ds:
                keys.add(lookup_key(d))
                domains_by_host[host_of(d)] = domains_by_host.get(host_of(d), 0) + 1
        n_requests += len(keys)
        lookups |= keys
        hosts |= {h for h, _ in keys}
        for d in spec["domains"]:
            h = host_of(d)
            if h.startswith("www.shared-"):
                lst = sub_applinks.setdefault(int(h[len("www.shared-"):-len(".example")]), [])
                if app_id not in lst:
                    lst.append(app_id)
            elif h.startswith("shared-"):
                k = int(h[len("shared-"):-len(".example")])
                target = shared_webcred if d.startswith("webcredentials:") else shared_applinks
                lst = target.setdefault(k, [])
                if app_id not in lst:
                    lst.append(app_id)
        if not quiet and (i + 1) % 250 == 0 and i + 1 < count:
            print("[%5.1fs] %d/%d IPAs" % (time.time() - t0, i + 1, count), file=sys.stderr,
                  flush=True)

    missing = []
    aasa_files = 0

    def write_aasa(host, doc, suffix):
        nonlocal aasa_files
        name = host + (".json" if suffix else "")
        with open(os.path.join(aasa_root, name), "w") as f:
            if suffix:  # pretty .json files, compact bare ones, as servers vary
                json.dump(doc, f, indent=2)
            else:
                json.dump(doc, f, separators=(",", ":"))
            f.write("\n")
        aasa_files += 1

    for k in sorted(set(shared_applinks) | set(shared_webcred)):
        if k in missing_shared:
            missing.append(shared_host(k))
            continue
        write_aasa(shared_host(k), shared_aasa(seed, k, shared_applinks.get(k, []),
                                               shared_webcred.get(k, [])), k % 5 != 2)
    for k in sorted(sub_applinks):
        write_aasa(sub_host(k), sub_aasa(k, sub_applinks[k]), True)
    for spec in specs:
        if spec["missing_own"]:
            missing.append(own_host(spec["index"]))
            continue
        appex_id = ("%s.%s.share" % (spec["team"], spec["bundle_id"])) if spec["appex"] else None
        write_aasa(own_host(spec["index"]), own_aasa(spec, appex_id), spec["aasa_json_suffix"])

    manifest = {
        "generator": "scripts/make-batch-ipas.py",
        "version": GENERATOR_VERSION,
        "count": count,
        "seed": seed,
        "subdomains": subdomains,
        "ipa_bytes": total_bytes,
        "expected": {
            "inputs": count,
            "bundles": n_bundles,
            "associated_domains": n_domains,
            "domain_requests": n_requests,
            "host_lookups": len(lookups),
            "hosts": len(hosts),
            "hosts_missing": len(missing),
            "domains_not_found": sum(domains_by_host.get(h, 0) for h in missing),
            "apps_with_appex": sum(1 for s in specs if s["appex"]),
            "apps_with_filler": sum(1 for s in specs if s["filler"]),
        },
        "aasa_files": aasa_files,
        "missing_hosts": sorted(missing),
        "ipas": paths,
    }
    tmp = manifest_path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    os.replace(tmp, manifest_path)  # last: an interrupted run leaves no manifest
    manifest["seconds"] = time.time() - t0
    return manifest


def load_manifest(out, count, seed, subdomains=False):
    """The manifest if OUT_DIR already holds this corpus (same count, seed, version and
    every IPA present), else None."""
    try:
        with open(os.path.join(out, "manifest.json")) as f:
            m = json.load(f)
    except (OSError, ValueError):
        return None
    if (m.get("version"), m.get("count"), m.get("seed"), m.get("subdomains", False)) != (
            GENERATOR_VERSION, count, seed, subdomains):
        return None
    if not all(os.path.isfile(os.path.join(out, p)) for p in m.get("ipas", [])):
        return None
    return m


def ensure(out, count, seed, force=False, quiet=False, subdomains=False):
    """Generate unless up to date; returns (manifest, generated?)."""
    if not force:
        m = load_manifest(out, count, seed, subdomains)
        if m is not None:
            return m, False
    os.makedirs(out, exist_ok=True)
    return generate(out, count, seed, quiet, subdomains), True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", help="output folder (gets ipas/, aasa/ and manifest.json)")
    ap.add_argument("--count", type=int, required=True, help="number of IPAs")
    ap.add_argument("--seed", default="1", help="seed (any string; default 1)")
    ap.add_argument("--subdomains", action="store_true",
                    help="some apps also claim www.shared-K.example, covered by others' wildcards")
    ap.add_argument("--force", action="store_true", help="regenerate even if up to date")
    ap.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = ap.parse_args()
    if args.count < 1:
        ap.error("--count must be at least 1")
    m, generated = ensure(args.out, args.count, args.seed, args.force, args.quiet, args.subdomains)
    e = m["expected"]
    what = ("generated in %.1f s" % m["seconds"]) if generated else "up to date"
    print("%s: %d IPAs, %.1f MiB (%s); %d bundles, %d associated domains, %d hosts "
          "(%d without an AASA file), %d host lookups for %d domain requests; %d AASA files"
          % (args.out, m["count"], m["ipa_bytes"] / (1 << 20), what, e["bundles"],
             e["associated_domains"], e["hosts"], e["hosts_missing"], e["host_lookups"],
             e["domain_requests"], m["aasa_files"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
