"""Round trip of a code object's kernels through our own tools: disassemble each instruction,
assemble the text again, and check that the bytes come back unchanged.

    python tools/roundtrip.py tests/data/codeobjects/saxpy-gfx1100.hsaco [--listing]

Words that do not decode (data in the code, as llvm-objdump's `.long` lines) are counted apart.
Exits non-zero if any instruction does not reassemble to its bytes.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gpubench.isa.arch import ISA  # noqa: E402
from gpubench.isa.asm import AssemblyError, assemble  # noqa: E402
from gpubench.isa.codeobject import CodeObject  # noqa: E402


def roundtrip(path: str, listing: bool) -> int:
    obj = CodeObject.load(path)
    failures = total = data_words = 0
    for kernel in obj.kernels:
        isa = ISA.get(obj.target, kernel.wave_size)
        print(f"{path}: kernel {kernel.name} ({obj.target}, wave{kernel.wave_size}, {kernel.size} bytes)")
        for item in kernel.instructions:
            if item.text is None:
                data_words += 1
                continue
            total += 1
            source = item.text
            if item.label is not None:  # objdump names a branch target; llvm-mc syntax wants the offset
                source = f"{item.text.rpartition(' ')[0]} {((item.target - item.address - 4) >> 2) & 0xFFFF}"
            try:
                again = assemble(isa, source).data
            except AssemblyError as e:
                again, error = None, e.message
            if again != item.data:
                failures += 1
                shown = again.hex() if again is not None else f"error: {error}"
                print(f"  {item.address:#08x}: {item.text}: {item.data.hex()} -> {shown}")
            elif listing:
                print(f"  {item.address:#08x}: {item.text:60} // {item.data.hex()}")
    print(f"{path}: {total - failures}/{total} instructions round-trip"
          + (f" ({data_words} data words)" if data_words else ""))
    return failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("code_objects", nargs="+")
    parser.add_argument("--listing", action="store_true", help="print every instruction")
    args = parser.parse_args()
    return 1 if sum(roundtrip(p, args.listing) for p in args.code_objects) else 0


if __name__ == "__main__":
    sys.exit(main())
