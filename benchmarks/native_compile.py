"""Compile cost of the native engine's handler variants, phase by phase, and their disk-cache load.

The variants are those the native binders make for a realistic set of instructions: every gfx1100
SALU/VALU opcode of the ALU sweep (tests/emu/alu_sweep.py, one instruction each, wave32), and the
kernels of tinygrad's compile cache (``~/.cache/tinygrad/cache.db``, when there is one). Each
variant is compiled alone after binding (so with the numpy backend's program of its instruction in
memory, as when a program is bound), and the CPU time of its phases measured:

  ir       the Python lowering: the variant's definition into an llvmlite module, printed as text
  parse    LLVM parsing and verifying that text
  opt      LLVM's optimisation pipeline (jit.optimise)
  codegen  code generation to an object file (TargetMachine.emit_object)
  load     its object added to an MCJIT engine (one for all of them, as the engine's)

Then all of them together as the engine compiles a program's new variants (build.addresses, into a
new disk cache, ``--chunk`` variants per object), as a later process loads them from that cache
(their objects linked by one engine), and each loaded alone (its object linked for it).

With --run, each SALU/VALU variant's compiled handler is also timed (CPU ns per call, the least of a
few rounds of calls from a native loop) on a synthetic wave32 wave: all lanes on, registers random,
the default MODE, operand words naming small registers. That is what a cheaper pipeline could slow.

    python benchmarks/native_compile.py [--limit N] [--no-tinygrad] [--profile] [--run] [--chunk N]
"""
from __future__ import annotations

import argparse
import atexit
import cProfile
import ctypes
import functools
import os
import pstats
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "emu"))
os.environ["GPUBENCH_CACHE_DIR"] = CACHE = tempfile.mkdtemp(prefix="gpubench-native-compile-")
atexit.register(shutil.rmtree, CACHE, True)

import llvmlite.binding as llvm  # noqa: E402
from llvmlite import ir  # noqa: E402

from gpubench.compiler.backend.operands import BackendUnsupported  # noqa: E402
from gpubench.compiler.native import jit  # noqa: E402
from gpubench.emu import executor  # noqa: E402
from gpubench.emu.context import Context  # noqa: E402
from gpubench.emu.memory import AddressSpace  # noqa: E402
from gpubench.emu.native import build, engine  # noqa: E402
from gpubench.emu.native.layout import RECORD_OPERANDS, RECORD_WORDS, Dispatch, Frame  # noqa: E402
from gpubench.emu.ops.modes import DEFAULT_FLOAT_MODE  # noqa: E402
from gpubench.emu.waves import Waves  # noqa: E402
from gpubench.isa.arch import ISA  # noqa: E402

CODE_BASE = 0x10_0000_0000
PHASES = ("ir", "parse", "opt", "codegen", "load")
clock = time.process_time  # CPU seconds: the machine is shared, wall time moves with the others' load
_keep: list[object] = []  # the driver's engine owns its code: it lives as long as the process


def sweep_programs(target: str):
    """One program of every ALU sweep instruction (literals zero), wave32."""
    import alu_sweep

    isa = ISA.get(target, 32)
    code = b"".join(alu_sweep.Case.of(isa, d).data for d in alu_sweep.candidates(isa))
    yield 32, 32, code + bytes.fromhex("0000b0bf")  # s_endpgm


def tinygrad_programs(target: str):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import binding

    yield from binding.kernels(binding.tinygrad_code_objects(binding.TINYGRAD_CACHE, target), target)


def collect(target: str, programs) -> list[build.Code]:
    """The handler variants binding ``programs`` asks for (build.addresses intercepted: none compiled)."""
    codes: dict[str, build.Code] = {}

    def record(asked):
        codes.update((c.key, c) for c in asked)
        return {c.key: BackendUnsupported("collected, not compiled") for c in asked}

    real, build.addresses = build.addresses, record
    try:
        memory = AddressSpace()
        for wave_size, vgprs, code in programs:
            memory.map(CODE_BASE, np.frombuffer(code, np.uint8).copy(), writable=False)
            ctx = Context(ISA.get(target, wave_size), Waves.create(1, wave_size, vgprs), memory,
                          np.zeros((1, 1), np.uint8), np.zeros((1, wave_size, 0), np.uint8))
            program = engine.NativeProgram(ctx, CODE_BASE, memory.find(CODE_BASE).data)
            reference = executor.Program(ctx)
            pcs, pc = [], CODE_BASE
            while pc < CODE_BASE + len(code):
                try:
                    inst, _ = reference.lookup(pc)
                except Exception:  # noqa: BLE001 - data or padding between kernels
                    pc += 4
                    continue
                pcs.append(pc)
                pc += inst.size
            program.bind(ctx, reference, pcs)
            memory.unmap(CODE_BASE)
    finally:
        build.addresses = real
    return list(codes.values())


def _ir_text(code: build.Code) -> str:
    module = ir.Module(name="variant")
    module.triple = llvm.get_process_triple()
    module.data_layout = str(jit.target_machine().target_data)
    code.define(module, build.symbol(code.key))
    return str(module)


@functools.cache
def _driver():
    """``void drive(i64 handler, ptr frame, ptr record, i64 n)``: calls the handler n times."""
    i64, ptr = ir.IntType(64), ir.PointerType()
    module = ir.Module(name="driver")
    module.triple = llvm.get_process_triple()
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [i64, ptr, ptr, i64]), "drive")
    entry, body, done = (fn.append_basic_block(n) for n in ("entry", "body", "done"))
    b = ir.IRBuilder(entry)
    b.branch(body)
    b.position_at_end(body)
    i = b.phi(i64)
    i.add_incoming(ir.Constant(i64, 0), entry)
    b.call(b.inttoptr(fn.args[0], build.HANDLER_TYPE.as_pointer()), [fn.args[1], fn.args[2]])
    nxt = b.add(i, ir.Constant(i64, 1))
    i.add_incoming(nxt, body)
    b.cbranch(b.icmp_unsigned("<", nxt, fn.args[3]), body, done)
    b.position_at_end(done)
    b.ret_void()
    driver = llvm.create_mcjit_compiler(llvm.parse_assembly(str(module)), jit.target_machine())
    driver.finalize_object()
    _keep.append(driver)
    return ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)(
        driver.get_function_address("drive"))


def _synthetic_wave(rng) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """A frame and a record for a wave32 wave (and the arrays they point into, to keep alive)."""
    sgpr = rng.integers(0, 1 << 32, 128, dtype=np.uint64).astype(np.uint32)
    sgpr[126:128] = 0xFFFFFFFF  # EXEC: every lane
    arrays = {Frame.SGPR: sgpr, Frame.VGPR: rng.standard_normal(256 * 32).astype(np.float32).view(np.uint32),
              Frame.PC: np.zeros(1, np.int64), Frame.SCC: np.zeros(1, np.uint8),
              Frame.MODE: np.array([DEFAULT_FLOAT_MODE], np.uint32)}
    trap_status, dispatch = np.zeros(1, np.uint32), np.zeros(Dispatch.SLOTS, np.int64)
    dispatch[Dispatch.TRAP_STATUS] = trap_status.ctypes.data
    arrays[Frame.DISPATCH] = dispatch
    frame = np.zeros(Frame.SLOTS, np.int64)
    for slot, array in arrays.items():
        frame[slot] = array.ctypes.data
    record = np.zeros(RECORD_WORDS, np.int64)
    record[RECORD_OPERANDS:] = 3 * np.arange(1, RECORD_WORDS - RECORD_OPERANDS + 1)  # registers 3, 6 ... 30
    return frame, record, [*arrays.values(), trap_status]


def run_ns(address: int, calls: int = 1000, rounds: int = 5) -> float:
    """CPU ns per call of the handler at ``address`` on a synthetic wave (the least of ``rounds``)."""
    rng = np.random.default_rng(0)
    best = float("inf")
    for _ in range(rounds):
        frame, record, _arrays = _synthetic_wave(rng)
        start = clock()
        _driver()(address, frame.ctypes.data, record.ctypes.data, calls)
        best = min(best, clock() - start)
    return 1e9 * best / calls


@functools.cache
def _loader():
    """One MCJIT engine for the variants compiled alone, as build.py has one for all its objects."""
    return llvm.create_mcjit_compiler(llvm.parse_assembly(""), jit.target_machine())


def phases(code: build.Code, run: bool = False) -> dict[str, float] | None:
    """Seconds of each phase for one variant compiled alone (and with ``run``, an ALU variant's ns per
    call in "run"); None if its definition refuses."""
    t = {}
    start = clock()
    try:
        text = _ir_text(code)
    except BackendUnsupported:
        return None
    t["ir"] = clock() - start
    start = clock()
    module = llvm.parse_assembly(text)
    module.verify()
    t["parse"] = clock() - start
    start = clock()
    jit.optimise(module)
    t["opt"] = clock() - start
    start = clock()
    data = jit.target_machine().emit_object(module)
    t["codegen"] = clock() - start
    start = clock()
    loader = _loader()
    loader.add_object_file(llvm.ObjectFileRef.from_data(data))
    loader.finalize_object()
    address = loader.get_function_address(build.symbol(code.key))
    assert address
    t["load"] = clock() - start
    if run and code.key.startswith(("salu ", "valu ")):
        t["run"] = run_ns(address)
    return t


def _forget() -> None:
    """As in a new process: every variant only on disk."""
    build._addresses.clear()
    build._refusals.clear()


def together(codes: list[build.Code]) -> tuple[float, float, float, int]:
    """CPU seconds to compile ``codes`` as the engine does (one batch, into the disk cache), then to
    load them all from that disk cache with nothing in memory, then to load each alone (its whole
    chunk linked for it, as for a program that needs one variant of another's chunk); and how many
    compiled."""
    start = clock()
    compiled = build.addresses(codes)
    compile_seconds = clock() - start
    _forget()
    start = clock()
    build.addresses(codes)
    load_seconds = clock() - start
    alone_seconds = 0.0
    for code in codes:
        _forget()
        start = clock()
        build.addresses([code])
        alone_seconds += clock() - start
    return compile_seconds, load_seconds, alone_seconds, sum(isinstance(a, int) for a in compiled.values())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", default="gfx1100")
    parser.add_argument("--limit", type=int, default=0, help="only the first N variants")
    parser.add_argument("--no-tinygrad", action="store_true", help="only the ALU sweep's variants")
    parser.add_argument("--profile", action="store_true", help="the batch compile under cProfile")
    parser.add_argument("--run", action="store_true", help="time each ALU variant's handler on a synthetic wave")
    parser.add_argument("--chunk", type=int, default=build.CHUNK, help="variants per object in the batch")
    args = parser.parse_args()
    build.CHUNK = args.chunk
    programs = list(sweep_programs(args.target))
    if not args.no_tinygrad:
        programs += list(tinygrad_programs(args.target))
    codes = collect(args.target, programs)[:args.limit or None]
    jit.target_machine()
    print(f"{len(codes)} handler variants, pipeline O{jit.PIPELINE_LEVEL}, code generation O{jit.CODEGEN_LEVEL}")
    rows = [r for r in (phases(c, args.run) for c in codes) if r is not None]
    print(f"{'phase':8} {'median ms':>10} {'mean ms':>8} {'p90 ms':>7}")
    for phase in PHASES + ("compile",):
        values = [1e3 * (sum(r[p] for p in PHASES[:-1]) if phase == "compile" else r[phase]) for r in rows]
        values.sort()
        print(f"{phase:8} {statistics.median(values):10.2f} {statistics.fmean(values):8.2f} "
              f"{values[int(0.9 * (len(values) - 1))]:7.2f}")
    ran = sorted(r["run"] for r in rows if "run" in r)
    if ran:
        print(f"run: {len(ran)} ALU handlers, ns per call on a synthetic wave32 wave: "
              f"median {statistics.median(ran):.1f}, mean {statistics.fmean(ran):.1f}, total {sum(ran):.0f}")
    profiler = cProfile.Profile() if args.profile else None
    if profiler:
        profiler.enable()
    compile_seconds, load_seconds, alone_seconds, count = together(codes)
    if profiler:
        profiler.disable()
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("tottime").print_stats(30)
    each = 1e3 / max(1, count)
    print(f"together ({build.CHUNK} variants per object): {count} compiled in one batch {1e3 * compile_seconds:.0f} ms "
          f"({each * compile_seconds:.2f} ms each); loaded from disk {1e3 * load_seconds:.0f} ms "
          f"({each * load_seconds:.3f} ms each), each alone {each * alone_seconds:.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
