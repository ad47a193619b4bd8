#!/usr/bin/env python3
"""List public declarations in Sources/ that have no `///` doc comment (the project's rule: every public
declaration says what it is for). Exit 1 when any is missing, so `make lint` can enforce it.

    python3 scripts/undocumented.py [--count]
"""
import pathlib
import re
import sys

DECL = re.compile(
    r"^\s*(?:@[\w().,: \"]+\s+)*(?:(?:nonisolated|final|static|override|mutating|indirect|required|convenience)\s+)*"
    r"public\s+(?!extension\b|import\b)(?:(?:final|static|override|mutating|indirect|required|convenience|nonisolated)\s+)*"
    r"(?:func|var|let|struct|enum|class|actor|protocol|typealias|init|subscript|case)\b")


def missing(path):
    lines = path.read_text().splitlines()
    out = []
    for i, line in enumerate(lines):
        if not DECL.match(line):
            continue
        j = i - 1
        # Attributes and the closing lines of a multi-line attribute sit between the comment and the declaration.
        while j >= 0 and lines[j].strip().startswith("@"):
            j -= 1
        if j < 0 or not lines[j].strip().startswith("///"):
            out.append((i + 1, line.strip()))
    return out


def main():
    root = pathlib.Path(__file__).resolve().parent.parent
    total = 0
    rows = []
    for path in sorted((root / "Sources").rglob("*.swift")):
        for number, text in missing(path):
            rows.append(f"{path.relative_to(root)}:{number}: {text}")
    if "--count" not in sys.argv:
        print("\n".join(rows))
    print(f"{len(rows)} public declarations without a /// comment", file=sys.stderr)
    return 1 if rows else 0


if __name__ == "__main__":
    sys.exit(main())
