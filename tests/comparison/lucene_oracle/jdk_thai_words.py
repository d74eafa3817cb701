"""Read the words of the JDK's Thai break dictionary, the one Lucene's ThaiTokenizer segments with.

    python tests/comparison/lucene_oracle/jdk_thai_words.py [--java-home DIR] [--out FILE]

Extracts `sun/text/resources/ext/thai_dict` (module jdk.localedata) from the JDK image with `jimage`,
walks its compiled trie (a compressed state table: a character → column map, then per state a row of
next states; -1 ends a word) and writes every word, one a line in code-point order, to FILE, keeping
FILE's '#' header (provenance and the dictionary's licence, legal/jdk.localedata/thaidict.md).
Without --out the words go to stdout. This regenerates src/sounding/analysis/thai_words.txt.

The compiled form (all big-endian): version (1), total length, then length-prefixed arrays: column
index (short), column values (byte), number of columns, number of column groups, row index (short),
row-populated-flags index (short), row-populated flags (int), row shifts (byte), state table (short),
supplementary (int). Written from that layout; the JDK's reader is not copied.
"""
from __future__ import annotations

import argparse
import os
import struct
import subprocess
import sys
import tempfile
from pathlib import Path


def read_trie(data: bytes):
    pos = 0

    def take(fmt: str, n: int = 1):
        nonlocal pos
        size = struct.calcsize(">" + fmt) * n
        out = struct.unpack_from(f">{n}{fmt}", data, pos)
        pos += size
        return out

    def array(fmt: str):
        return take(fmt, take("i")[0])

    version, total = take("i", 2)
    if version != 1 or pos + total != len(data):
        sys.exit("thai_dict: not a version-1 BreakDictionary")
    col_index, col_values = array("h"), array("b")
    n_cols, _groups = take("i", 2)
    row_index, flag_index, flags, shifts, table = array("h"), array("h"), array("i"), array("b"), array("h")
    array("i")  # supplementary characters: none in the Thai dictionary

    def column(ch: int) -> int:
        return col_values[(col_index[ch >> 7] & 0xFFFF) + (ch & 0x7F)]

    def follow(row: int, col: int) -> int:
        f = flag_index[row]
        populated = col == -f if f < 0 else (flags[f + (col >> 5)] >> (col & 31)) & 1
        return table[row_index[row] * n_cols + col + shifts[row]] if populated else 0

    return column, follow


def words(data: bytes) -> list[str]:
    column, follow = read_trie(data)
    by_column: dict[int, list[str]] = {}
    for ch in range(0x10000):
        c = column(ch)
        if c:
            by_column.setdefault(c, []).append(chr(ch))
    out, stack = set(), [(0, "")]
    while stack:
        row, prefix = stack.pop()
        if follow(row, 0) == -1:  # column 0 is the end-of-word column
            out.add(prefix)
        for c, chars in by_column.items():
            nxt = follow(row, c)
            if nxt > 0:
                stack.extend((nxt, prefix + ch) for ch in chars)
    return sorted(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--java-home", default=os.environ.get("JAVA_HOME", ""))
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    jimage = Path(args.java_home, "bin", "jimage")
    if not jimage.exists():
        sys.exit(f"{jimage}: no jimage (set --java-home or JAVA_HOME to a JDK)")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([str(jimage), "extract", "--include", "regex:.*/thai_dict", "--dir", tmp,
                        str(Path(args.java_home, "lib", "modules"))], check=True)
        data = Path(tmp, "jdk.localedata", "sun", "text", "resources", "ext", "thai_dict").read_bytes()
    found = words(data)
    if args.out is None:
        sys.stdout.write("\n".join(found) + "\n")
    else:
        header = [line for line in args.out.read_text("utf-8").splitlines() if line.startswith("#")] if args.out.exists() else []
        args.out.write_text("\n".join(header + found) + "\n", "utf-8")
    print(f"{len(found)} words", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
