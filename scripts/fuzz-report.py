#!/usr/bin/env python3
"""The table `make fuzz` prints: per harness, executions, executions per second, libFuzzer's edge and feature
counts, and the share of edges covered in the harness's own parser files (from `-print_coverage=1` over the final
corpus), plus whether anything was found. Exits 1 when a harness found a crash, leak, timeout or OOM.

usage: fuzz-report.py WORK_DIR HARNESS...
"""

import pathlib
import re
import sys

# The files each harness exists to exercise; coverage is reported over these only, not over NIO or Foundation.
TARGET_FILES = {
    "FuzzZip": ["Sources/IPALinksKit/Archive/ZipArchive.swift", "Sources/IPALinksKit/Archive/ByteSource.swift"],
    "FuzzInspect": ["Sources/IPALinksKit/Inventory/Inspector.swift", "Sources/IPALinksKit/Inventory/BundleLocator.swift",
                    "Sources/IPALinksKit/Entitlements/", "Sources/IPALinksKit/Archive/ZipArchive.swift"],
    "FuzzPlist": ["Sources/IPALinksKit/Plist/"],
    "FuzzMachO": ["Sources/IPALinksKit/MachO/"],
    "FuzzCodeSignature": ["Sources/IPALinksKit/CodeSignature/CodeSignature.swift"],
    "FuzzDER": ["Sources/IPALinksKit/CodeSignature/DEREntitlements.swift"],
    "FuzzCMS": ["Sources/UniversalLinks/Signed/", "Sources/IPALinksKit/CodeSignature/ProvisioningProfile.swift"],
    "FuzzAASA": ["Sources/UniversalLinks/JSON/", "Sources/UniversalLinks/Model/", "Sources/UniversalLinks/Validation/"],
    "FuzzMatch": ["Sources/UniversalLinks/Match/"],
    "FuzzEntitlementStrings": ["Sources/IPALinksKit/Fetch/ConnectToRule.swift",
                               "Sources/IPALinksKit/Entitlements/AssociatedDomain.swift"],
}
FUNC = re.compile(r"^(UN)?COVERED_FUNC: hits: \d+ edges: (\d+)/(\d+) \S+ (\S+):\d+")


def stat(log, name):
    m = re.findall(rf"stat::{name}:\s*(\d+)", log)
    return m[-1] if m else "?"


def main():
    work = pathlib.Path(sys.argv[1])
    found = False
    print(f"\n{'harness':<24}{'runs':>10}{'exec/s':>9}{'cov':>7}{'ft':>7}{'corpus':>8}  {'own files: edges':<22}result")
    for harness in sys.argv[2:]:
        log = (work / "logs" / f"{harness}.log").read_text(errors="replace")
        last = [l for l in log.splitlines() if re.match(r"^#\d+\s+\S+\s+cov: ", l)]
        fields = dict(re.findall(r"(cov|ft|corp): (\d+)", last[-1])) if last else {}
        covered = total = 0
        cov_file = work / "logs" / f"{harness}.coverage"
        if cov_file.exists():
            for line in cov_file.read_text(errors="replace").splitlines():
                m = FUNC.match(line)
                if m and any(t in m.group(4) for t in TARGET_FILES.get(harness, [])):
                    covered += int(m.group(2))
                    total += int(m.group(3))
        share = f"{covered}/{total} ({100 * covered / total:.0f}%)" if total else "?"
        bad = re.search(r"^==\d+==ERROR|^SUMMARY: |deadly signal|ERROR: libFuzzer", log, re.M)
        result = "ok"
        if bad:
            found = True
            unit = re.findall(r"Test unit written to (\S+)", log)
            result = "FINDING " + (unit[-1] if unit else "(see log)")
        print(f"{harness:<24}{stat(log, 'number_of_executed_units'):>10}{stat(log, 'average_exec_per_sec'):>9}"
              f"{fields.get('cov', '?'):>7}{fields.get('ft', '?'):>7}{fields.get('corp', '?'):>8}  {share:<22}{result}")
    print(f"(logs in {work}/logs; findings in {work}/findings)")
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
