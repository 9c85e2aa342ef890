"""Throughput of decode, decode+disassemble and assemble, against llvm-mc-22 in the same run.

    python benchmarks/isa.py [--target gfx1100] [--repeat 3]

The input is the committed LLVM corpus (tests/corpus/<target>.jsonl): every entry our decoder and
syntax accept. llvm-mc is timed on the same instructions in one process (its start-up, ~20 ms,
is included and is small next to the batch). Ratios are printed because the machines are noisy.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gpubench.isa import corpus  # noqa: E402
from gpubench.isa.arch import ISA  # noqa: E402
from gpubench.isa.asm import assemble  # noqa: E402
from gpubench.isa.decoder import decode  # noqa: E402
from gpubench.isa.disasm import disassemble_at  # noqa: E402

LLVM_MC = "llvm-mc-22"


def usable_entries(isa: ISA, target: str) -> list[dict]:
    """Corpus entries of the default wave size that LLVM reassembles and we both disassemble and assemble."""
    result = []
    for entry in corpus.load_entries(target):
        if entry.get("wave") not in (None, isa.wave_size) or entry["asm"] is None:
            continue
        data = bytes.fromhex(entry["bytes"])
        try:
            _, text = disassemble_at(isa, data)
            assemble(isa, text)
        except Exception:  # entries we cannot do yet are left out of the timing, not hidden: counted below
            continue
        result.append(entry)
    return result


def best_of(repeat: int, fn) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def llvm_seconds(args: list[str], text: str, repeat: int) -> float | None:
    if not shutil.which(LLVM_MC):
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
        f.write(text)
        f.flush()
        return best_of(repeat, lambda: subprocess.run([LLVM_MC, *args, f.name], check=True, capture_output=True))


def bench_target(target: str, repeat: int) -> dict:
    isa = ISA.get(target)
    entries = usable_entries(isa, target)
    blobs = [bytes.fromhex(e["bytes"]) for e in entries]
    texts = [e["text"] for e in entries]
    source = "\n".join(texts)
    n = len(blobs)
    decode_s = best_of(repeat, lambda: [decode(isa, b) for b in blobs])
    disasm_s = best_of(repeat, lambda: [disassemble_at(isa, b) for b in blobs])
    asm_s = best_of(repeat, lambda: assemble(isa, source))
    triple = ["-triple=amdgcn-amd-amdhsa", f"-mcpu={target}"]
    hex_lines = "\n".join(",".join(f"0x{x:02x}" for x in b) for b in blobs)
    llvm_disasm = llvm_seconds([*triple, "--disassemble"], hex_lines, repeat)
    llvm_asm = llvm_seconds(triple, source, repeat)
    return dict(target=target, n=n, total=len(corpus.load_entries(target)), decode=n / decode_s,
                disasm=n / disasm_s, asm=n / asm_s,
                llvm_disasm=n / llvm_disasm if llvm_disasm else None, llvm_asm=n / llvm_asm if llvm_asm else None)


def fmt_rate(rate: float | None) -> str:
    return "-" if rate is None else f"{rate / 1e3:8.1f}k"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", action="append")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"{'target':8} {'instrs':>7} {'decode/s':>10} {'disasm/s':>10} {'llvm-mc':>10} {'ratio':>6} "
          f"{'asm/s':>10} {'llvm-mc':>10} {'ratio':>6}")
    for target in args.target or ("gfx1100", "gfx1201", "gfx942", "gfx950"):
        r = bench_target(target, args.repeat)
        ratio_d = f"{r['disasm'] / r['llvm_disasm']:6.2f}" if r["llvm_disasm"] else "     -"
        ratio_a = f"{r['asm'] / r['llvm_asm']:6.2f}" if r["llvm_asm"] else "     -"
        print(f"{target:8} {r['n']:7} {fmt_rate(r['decode']):>10} {fmt_rate(r['disasm']):>10} "
              f"{fmt_rate(r['llvm_disasm']):>10} {ratio_d} {fmt_rate(r['asm']):>10} {fmt_rate(r['llvm_asm']):>10} {ratio_a}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
