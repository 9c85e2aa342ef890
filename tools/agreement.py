"""Agreement with LLVM on the committed corpus: disasm(bytes) == LLVM text, asm(LLVM text) == bytes.

    python tools/agreement.py                 # the per-target table
    python tools/agreement.py --target gfx1100 --format VOP3 --show 20   # failures to work on

Percentages count every difference; `known` counts those that tests/corpus/known-differences.yaml
explains (the tests require every difference to be explained there).
"""
from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gpubench.isa import corpus  # noqa: E402

TARGETS = ("gfx1100", "gfx1201", "gfx942", "gfx950")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", action="append", help="default: all four")
    parser.add_argument("--format", help="only entries of this spec format (e.g. VOP3, VOP1_DPP16)")
    parser.add_argument("--show", type=int, default=0, help="print this many failures per direction")
    args = parser.parse_args()
    failed = False
    print(f"{'target':8} {'opcodes':>8} {'entries':>8} {'disasm %':>9} {'asm %':>8} {'known':>6}")
    for target in args.target or TARGETS:
        report = corpus.check_target(target, only_format=args.format)
        print(f"{target:8} {report.opcodes:8} {report.entries:8} {report.disasm_pct:9.2f} "
              f"{report.asm_pct:8.2f} {report.known:6}")
        for direction, failures in (("disasm", report.disasm_failures), ("asm", report.asm_failures)):
            by_format = collections.Counter(f.entry["format"] for f in failures if f.known is None)
            if by_format and args.show:
                print(f"  {direction} failures by format: {dict(by_format.most_common(12))}")
            for f in [f for f in failures if f.known is None][:args.show]:
                print(f"  {direction} {f.entry['format']:14} {f.entry['bytes']}\n      llvm: {f.expected}\n      ours: {f.got}")
        failed |= not report.passes
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
