#!/usr/bin/env python3
"""Write the schema-6 store fixture that StoreMigrationTests migrates, and what every reader printed on it.

Usage: scripts/store-fixture.py --binary IPALINKS --out Tests/Fixtures/store

IPALINKS must be a build whose store has schema 6 (before observations were stored once, issue 46). From the project
root it records three weekly runs of the bundled samples into a new SQLite store, with the clock set by
SOURCE_DATE_EPOCH: week-47 and week-48 as scripts/demo-store.sh makes them (week-48 retrieves a newer
shop.example.com file), then week-49, which changes nothing but adds a second copy of Store.ipa (one app seen twice
in a run) and an input that cannot be read. Then it writes:

- OUT/schema6.json: every row of every table but ipalinks_schema, as {"table": {"columns": [...], "rows": [...]}},
  bytes as {"hex": "..."}; the test makes a store of either backend at schema 6 and inserts these rows;
- OUT/schema6-outputs.json: for each reader command (STORE standing for the store's location), its arguments,
  standard output, standard error and exit code, as IPALINKS printed them.

Standard library only.
"""
import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import tempfile

RUNS = [
    ("week-47", "1795078800", ["samples"], ["samples/aasa"]),
    ("week-48", "1795683600", ["samples"], ["samples/aasa/next", "samples/aasa"]),
    ("week-49", "1795770000", ["samples", "copy/Store.ipa", "Tests/Fixtures/bad/truncated.ipa"],
     ["samples/aasa/next", "samples/aasa"]),
]

# Each reader, and --at for each; STORE is replaced by the store's location.
READERS = [
    ["who-claims", "shop.example.com", "--store", "STORE"],
    ["who-claims", "shop.example.com", "--store", "STORE", "--format", "json"],
    ["who-claims", "https://shop.example.com/buy/gift/card", "--store", "STORE", "--at", "week-47"],
    ["who-claims", "*.example.com", "--store", "STORE", "--format", "jsonl"],
    ["history", "--host", "shop.example.com", "--store", "STORE"],
    ["history", "--host", "shop.example.com", "--store", "STORE", "--format", "json"],
    ["history", "--host", "shop.example.com", "--store", "STORE", "--at", "week-47"],
    ["history", "--app", "com.example.store", "--store", "STORE"],
    ["history", "--app", "com.example.store", "--store", "STORE", "--format", "json"],
    ["history", "--app", "com.example.store", "--store", "STORE", "--at", "week-48"],
    ["diff", "--store", "STORE", "--since", "week-47"],
    ["diff", "--store", "STORE", "--since", "week-47", "--format", "json"],
    ["diff", "--store", "STORE", "--since", "week-47", "--at", "week-48"],
    ["report", "--store", "STORE", "--title", "fixture"],
    ["report", "--store", "STORE", "--title", "fixture", "--at", "week-48"],
    ["report", "--store", "STORE", "--title", "fixture", "--since", "week-47"],
    ["store", "runs", "--store", "STORE"],
    ["store", "runs", "--store", "STORE", "--format", "json"],
    ["blocklist", "--store", "STORE", "--format", "patterns"],
    ["blocklist", "--store", "STORE", "--format", "wkcontentrules", "--at", "week-47"],
    ["blocklist", "--store", "STORE", "--format", "domains", "--at", "week-48"],
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    binary = os.path.abspath(args.binary)
    work = tempfile.mkdtemp()
    store = os.path.join(work, "audit.db")
    try:
        os.makedirs("copy", exist_ok=False)
        shutil.copy("samples/Store.ipa", "copy/Store.ipa")
        for label, epoch, inputs, dirs in RUNS:
            command = [binary, "inspect", *inputs, *[a for d in dirs for a in ("--aasa-dir", d)], "--store", store,
                       "--run-label", label, "-q", "--format", "jsonl"]
            subprocess.run(command, env={**os.environ, "SOURCE_DATE_EPOCH": epoch}, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        db = sqlite3.connect(store)
        version = db.execute("SELECT MAX(version) FROM ipalinks_schema").fetchone()[0]
        if version != 6:
            raise SystemExit("the binary wrote schema %s, not 6" % version)
        tables = {}
        for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
                                  "AND name <> 'ipalinks_schema' ORDER BY name"):
            cursor = db.execute("SELECT * FROM %s ORDER BY rowid" % name)
            columns = [c[0] for c in cursor.description]
            rows = [[{"hex": v.hex()} if isinstance(v, bytes) else v for v in row] for row in cursor]
            tables[name] = {"columns": columns, "rows": rows}
        db.close()
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "schema6.json"), "w") as f:
            json.dump(tables, f, indent=0, sort_keys=True)
            f.write("\n")
        outputs = []
        for reader in READERS:
            done = subprocess.run([binary, *[store if a == "STORE" else a for a in reader]], capture_output=True,
                                  env={**os.environ, "COLUMNS": "100", "NO_COLOR": "1",
                                                                   "SOURCE_DATE_EPOCH": "1795856400"})
            outputs.append({"arguments": reader, "exit": done.returncode,
                            "stdout": done.stdout.decode().replace(store, "STORE"),
                            "stderr": done.stderr.decode().replace(store, "STORE")})
        with open(os.path.join(args.out, "schema6-outputs.json"), "w") as f:
            json.dump(outputs, f, indent=1)
            f.write("\n")
    finally:
        shutil.rmtree("copy", ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
