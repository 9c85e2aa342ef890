"""Batches of lowered instructions: one LLVM module, one MCJIT engine, one object file on disk.

A batch is compiled once per host: the object MCJIT emits is kept in ``<cache_dir()>/native`` (the
numpy backend's cache root; ``GPUBENCH_CACHE_DIR=off`` keeps everything in memory) together with a
JSON table of the batch's functions, ports and refusals. A later process with the same key loads that
object through MCJIT's object cache (``ExecutionEngine.set_object_cache``) into an empty module: it
neither lowers the pseudocode again nor runs LLVM's optimiser or code generator.

The key covers everything the object depends on: the gpubench version; the source of the numpy
backend and pcode packages (``compiler_fingerprint``: parser, typing and folding rules, so the IR) and
of this package (the lowering); llvmlite's and LLVM's versions; the host triple, CPU name and CPU
features; the optimisation level; numpy's version and which of its loops the native code may call
(``ufuncs``: their addresses are bound at load time, never stored); and each instruction's arch,
enum, name and pseudocode text. The LLVM IR is a function of exactly these, so keying by them keys by
the IR without building it; the IR's sha256 is recorded in the table for inspection.
"""
from __future__ import annotations

import ctypes
import functools
import hashlib
import json
import time
from pathlib import Path

import llvmlite
import llvmlite.binding as llvm
from llvmlite import ir

import gpubench
from gpubench.compiler.backend.cache import compiler_fingerprint
from gpubench.compiler.backend.operands import BackendUnsupported
from gpubench.compiler.backend.ports import PortSpec
from gpubench.compiler.diskcache import cache_dir, read, write_atomically
from gpubench.compiler.native import ufuncs
from gpubench.compiler.native.lower import ir_digest, lower_instruction

CODEGEN_LEVEL = 3  # the target machine's: O0's code runs 1.5x slower (benchmarks/native_compile.py --run)
PIPELINE_LEVEL = 1  # the optimisation pipeline's (see optimise)
_FORMAT = 1  # of the JSON table
# Counters for tests and measurements: LLVM code generation runs, cache loads, lowered instructions.
STATS = {"codegen": 0, "optimised": 0, "disk_loads": 0, "lowered": 0}
_engines: list[object] = []  # engines own the code: they live as long as the process


@functools.cache
def _initialised() -> bool:
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    ufuncs.register()  # numpy's loops, before any engine (ours or the native engine's) finalizes
    return True


@functools.cache
def target_machine() -> llvm.TargetMachine:
    _initialised()
    triple = llvm.get_process_triple()
    return llvm.Target.from_triple(triple).create_target_machine(
        cpu=llvm.get_host_cpu_name(), features=host_features(), opt=CODEGEN_LEVEL, jit=True)


@functools.cache
def host_features() -> str:
    _initialised()
    return llvm.get_host_cpu_features().flatten()


@functools.cache
def _native_fingerprint() -> str:
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


@functools.cache
def environment_key() -> str:
    """Everything but the instructions that the compiled object depends on."""
    _initialised()
    parts = [gpubench.__version__, compiler_fingerprint(), _native_fingerprint(), llvmlite.__version__,
             ".".join(map(str, llvm.llvm_version_info)), llvm.get_process_triple(), llvm.get_host_cpu_name(),
             host_features(), str(CODEGEN_LEVEL), str(PIPELINE_LEVEL), str(_FORMAT), ufuncs.environment_key()]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def batch_key(entries: list[tuple[str, str, str, str]]) -> str:
    digest = hashlib.sha256(environment_key().encode())
    for arch, enum, name, text in entries:
        digest.update(f"\0{arch}\0{enum}\0{name}\0".encode())
        digest.update(hashlib.sha256(text.encode()).digest())
    return digest.hexdigest()[:32]


def native_cache_dir() -> Path | None:
    root = cache_dir()
    return None if root is None else root / "native"


class Batch:
    """The result of compiling or loading one batch: addresses and ports of its functions, and the
    BackendUnsupported message of each instruction it refused."""

    def __init__(self, key: str, functions: dict, refused: dict, from_disk: bool, seconds: float):
        self.key = key
        self.functions = functions  # (arch, enum, name) -> (address, inputs, outputs)
        self.refused = refused  # (arch, enum, name) -> message
        self.from_disk = from_disk
        self.seconds = seconds


def compile_batch(entries: list[tuple[str, str, str, str]]) -> Batch:
    """Compile (or load from the disk cache) the instructions ``(arch, enum, name, pcode text)``."""
    start = time.perf_counter()
    key = batch_key(entries)
    directory = native_cache_dir()
    table_path = directory / f"{key}.json" if directory else None
    object_path = directory / f"{key}.o" if directory else None
    stored, data = read(table_path), read(object_path)
    if stored is not None and data is not None:
        try:
            table = json.loads(stored)
        except ValueError:
            table = None
        if isinstance(table, dict) and table.get("format") == _FORMAT:
            functions = _link(llvm.parse_assembly(""), key, cached=data, table=table, object_path=None)
            STATS["disk_loads"] += 1
            return Batch(key, functions, _refusals(table), True, time.perf_counter() - start)
    table, text = _lower(key, entries)
    module = llvm.parse_assembly(text)
    module.verify()
    optimise(module)
    functions = _link(module, key, cached=None, table=table, object_path=object_path)
    if table_path is not None:
        try:
            write_atomically(table_path, json.dumps(table).encode())
        except OSError:
            pass  # a read-only cache directory only costs the next process a recompile
    return Batch(key, functions, _refusals(table), False, time.perf_counter() - start)


def _refusals(table: dict) -> dict:
    return {tuple(r["id"]): r["message"] for r in table["refused"]}


def _lower(key: str, entries) -> tuple[dict, str]:
    module = ir.Module(name=f"gpubench_native_{key}")
    module.triple = llvm.get_process_triple()
    module.data_layout = str(target_machine().target_data)
    functions, refused = [], []
    for arch, enum, name, text in entries:
        try:
            lowered = lower_instruction(module, arch, enum, name, text)
        except BackendUnsupported as err:
            refused.append({"id": [arch, enum, name], "message": str(err)})
            continue
        STATS["lowered"] += 1
        functions.append({"id": [arch, enum, name], "symbol": lowered.symbol,
                          "inputs": [_spec(p) for p in lowered.inputs],
                          "outputs": [_spec(p) for p in lowered.outputs]})
    text = str(module)
    table = {"format": _FORMAT, "key": key, "ir_sha256": ir_digest(module), "functions": functions,
             "refused": refused}
    return table, text


def _spec(p: PortSpec) -> list:
    return [p.name, p.width, p.lane_bit, p.is_input, p.is_output]


def optimise(module: llvm.ModuleRef) -> None:
    """O1's simplification with the loop vectorizer, one vector per iteration (no interleaving), no
    SLP vectorizer, no unrolling. The lane loops are what is hot, and vectorized they run in half the
    time; O3's further passes, SLP and interleaving cost a fifth of a variant's optimisation and code
    generation and do not make the handlers faster; unrolled lane loops (32 or 64 iterations) cost about
    as much again (benchmarks/native_compile.py, --run for the handlers' run time)."""
    tm = target_machine()
    pto = llvm.create_pipeline_tuning_options(speed_level=PIPELINE_LEVEL)
    pto.loop_vectorization = True
    pto.loop_interleaving = False
    pto.slp_vectorization = False
    pto.loop_unrolling = False
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(module, pb)
    STATS["optimised"] += 1


def _link(module: llvm.ModuleRef, key: str, cached: bytes | None, table: dict, object_path: Path | None) -> dict:
    """An MCJIT engine for the batch. With ``cached`` the object cache hands MCJIT the stored object
    for the (empty) module; otherwise MCJIT generates code and the notify hook stores it."""
    engine = llvm.create_mcjit_compiler(module, target_machine())

    def notify(_module, buffer: bytes) -> None:
        STATS["codegen"] += 1
        if object_path is not None:
            try:
                write_atomically(object_path, bytes(buffer))
            except OSError:
                pass

    def getbuffer(_module) -> bytes | None:
        return cached

    engine.set_object_cache(notify, getbuffer)
    engine.finalize_object()
    _engines.append(engine)
    functions = {}
    for f in table["functions"]:
        address = engine.get_function_address(f["symbol"])
        if not address:
            raise RuntimeError(f"native batch {key}: {f['symbol']} is missing from the object")
        functions[tuple(f["id"])] = (address, tuple(PortSpec(*p) for p in f["inputs"]),
                                     tuple(PortSpec(*p) for p in f["outputs"]))
    return functions


def cfunc(address: int, ports: int):
    """A ctypes function ``void (int64 n, void *ports...)`` at ``address``."""
    return ctypes.CFUNCTYPE(None, ctypes.c_int64, *([ctypes.c_void_p] * ports))(address)
