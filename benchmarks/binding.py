"""Binding cost: what the native engine pays the first time a process dispatches a program.

Every kernel of a set of code objects is decoded and bound as its first dispatch would (each
instruction decoded, its native handler chosen and its operand words worked out, new handler
variants compiled or loaded from the disk cache), in a fresh process with empty in-memory caches.
The kernels are those of tinygrad's compile cache (``~/.cache/tinygrad/cache.db``: run a tinygrad
suite on MOCKKFD first) and/or code object files given on the command line.

    python benchmarks/binding.py [--tinygrad-cache PATH] [--target gfx1100] [--limit N] [FILE.hsaco ...]
    python benchmarks/binding.py --profile        # once, with gpubench's own cache, under cProfile

Three fresh processes one after the other, over one new disk cache: empty (every handler variant
compiled), then with the handler objects on disk but not the bound programs, then with both.
Reports programs, instructions, seconds and µs per instruction, and the handler modules compiled
and loaded from the disk.
"""
from __future__ import annotations

import argparse
import cProfile
import json
import os
import pickle
import pstats
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gpubench.emu import abi, executor  # noqa: E402
from gpubench.emu.context import Context  # noqa: E402
from gpubench.emu.memory import AddressSpace  # noqa: E402
from gpubench.emu.native import build, engine  # noqa: E402
from gpubench.emu.waves import Waves  # noqa: E402
from gpubench.isa.arch import ISA  # noqa: E402
from gpubench.isa.codeobject import DESCRIPTOR_SIZE, CodeObject, CodeObjectError, KernelDescriptor  # noqa: E402

CODE_BASE = 0x10_0000_0000
TINYGRAD_CACHE = Path.home() / ".cache" / "tinygrad" / "cache.db"


def tinygrad_code_objects(path: Path, target: str) -> list[bytes]:
    """The ELF images tinygrad's AMD:LLVM compiler cached for ``target`` (pickled bytes per entry)."""
    if not path.exists():
        return []
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        tables = [name for (name,) in db.execute("select name from sqlite_master where type='table'")
                  if name.startswith(f"compile_llvm_{target}_")]
        return [pickle.loads(value) for table in tables for (value,) in db.execute(f'select val from "{table}"')]


def kernels(images: list[bytes], target: str):
    """(wave size, VGPRs, code bytes) of every kernel in ``images`` built for ``target``. tinygrad
    caches relocatable objects (it links them itself): their code is the executable section, their
    descriptor the `.kd` symbol's bytes in its section."""
    for image in images:
        try:
            code_object = CodeObject.load(image)
        except CodeObjectError:
            continue
        if code_object.target != target:
            continue
        for kernel in code_object.kernels:
            yield kernel.wave_size, abi.vgpr_count(kernel.descriptor, kernel.wave_size), kernel.code
        if code_object.relocatable:
            code = b"".join(s.data for s in code_object.sections if s.executable)
            for index, symbols in code_object.section_symbols.items():
                for symbol in symbols:
                    if symbol.name.endswith(".kd"):
                        data = code_object.sections[index].data[symbol.address:symbol.address + DESCRIPTOR_SIZE]
                        descriptor = KernelDescriptor.parse(data, code_object.arch)
                        yield descriptor.wave_size, abi.vgpr_count(descriptor, descriptor.wave_size), code


def bind_all(target: str, programs) -> tuple[int, int, float]:
    """Bind each program as its first dispatch in a process does (engine.run); (programs,
    instructions bound or left to the reference engine, seconds)."""
    memory = AddressSpace()
    count = instructions = 0
    seconds = 0.0
    for wave_size, vgprs, code in programs:
        memory.map(CODE_BASE, np.frombuffer(code, np.uint8).copy(), writable=False)
        waves = Waves.create(1, wave_size, vgprs)
        ctx = Context(ISA.get(target, wave_size), waves, memory, np.zeros((1, 1), np.uint8),
                      np.zeros((1, wave_size, 0), np.uint8))
        start = time.perf_counter()
        program = engine.NativeProgram.for_dispatch(ctx, CODE_BASE)
        if program.bound == 0:
            program.bind(ctx, executor.Program(ctx), [CODE_BASE], forward=True)
        seconds += time.perf_counter() - start
        memory.unmap(CODE_BASE)
        count += 1
        instructions += int((program.table != int(engine.Binding.UNBOUND)).sum())
    return count, instructions, seconds


def measure(args) -> dict:
    images = tinygrad_code_objects(args.tinygrad_cache, args.target) + [f.read_bytes() for f in args.files]
    programs = list(kernels(images, args.target))[:args.limit or None]
    if not programs:
        raise SystemExit(f"no {args.target} kernels: run a tinygrad suite on MOCKKFD first, or name code objects")
    profiler = cProfile.Profile() if args.profile else None
    if profiler:
        profiler.enable()
    count, instructions, seconds = bind_all(args.target, programs)
    if profiler:
        profiler.disable()
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("cumulative").print_stats(40)
    return dict(programs=count, instructions=instructions, seconds=seconds, **build.STATS)


SCENARIOS = (("empty caches", None), ("handler objects on disk", "programs"), ("bound programs on disk too", ""))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", type=Path, help="code objects to bind too")
    parser.add_argument("--tinygrad-cache", type=Path, default=TINYGRAD_CACHE)
    parser.add_argument("--target", default="gfx1100")
    parser.add_argument("--limit", type=int, default=0, help="bind only the first N kernels")
    parser.add_argument("--profile", action="store_true",
                        help="one run in this process, with gpubench's own cache, under cProfile")
    parser.add_argument("--side", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.profile or args.side:
        print(json.dumps(measure(args)))
        return 0
    side = [sys.executable, __file__, "--side", "--target", args.target, "--tinygrad-cache", str(args.tinygrad_cache),
            "--limit", str(args.limit), *map(str, args.files)]
    print(f"{'disk cache':28} {'programs':>8} {'instructions':>12} {'seconds':>8} {'µs/instruction':>15} "
          f"{'compiled':>9} {'loaded':>7}")
    with tempfile.TemporaryDirectory() as cache:
        for name, remove in SCENARIOS:
            if remove:
                shutil.rmtree(Path(cache) / "native" / remove, ignore_errors=True)
            out = subprocess.run(side, capture_output=True, text=True, check=True,
                                 env=dict(os.environ, GPUBENCH_CACHE_DIR=cache))
            r = json.loads(out.stdout)
            print(f"{name:28} {r['programs']:8} {r['instructions']:12} {r['seconds']:8.2f} "
                  f"{1e6 * r['seconds'] / max(1, r['instructions']):15.1f} {r['compiled']:9} {r['loaded']:7}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
