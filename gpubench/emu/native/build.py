"""Compiling the native engine's code: the wave loop and the handler variants, each one LLVM module.

Every piece of code is a `Code`: a key (text naming everything its IR depends on) and a function that
defines it in a module. Each code a process has not compiled yet is compiled to an object file of
its own, and a program's new objects (and those read from disk) are linked by one MCJIT engine. Each
object is kept on disk as ``<cache_dir()>/native/engine/<digest>.o``, the digest covering the key and
the compiler's whole environment (`jit.environment_key`: gpubench and LLVM versions, the host CPU and
its features, the sources of the pseudocode compiler and of its native backend); so are the sources
of this package's modules that generate IR (not the engine's scheduling). A later process links the
object from the disk and generates no code.
"""
from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import llvmlite.binding as llvm
from llvmlite import ir

from gpubench.compiler.backend.operands import BackendUnsupported
from gpubench.compiler.diskcache import read, write_atomically
from gpubench.compiler.native.jit import environment_key, native_cache_dir, optimise, target_machine
from gpubench.compiler.native.lower import counted_loop  # noqa: F401 - the handlers' lane loops

I1, I8, I32, I64 = ir.IntType(1), ir.IntType(8), ir.IntType(32), ir.IntType(64)
PTR = ir.PointerType()
HANDLER_TYPE = ir.FunctionType(I32, [PTR, PTR])  # i32 handler(ptr frame, ptr record)
NOT_IN_CODE = ("__init__.py", "engine.py", "saved.py")  # the package's modules that generate no IR (not in the key)
STATS = {"compiled": 0, "loaded": 0, "refused": 0}  # modules, for tests and measurements


@dataclass(frozen=True)
class Code:
    key: str  # everything the IR depends on
    define: Callable[[ir.Module, str], None]  # adds the function of that name to the module


_addresses: dict[str, int] = {}
_refusals: dict[str, BackendUnsupported] = {}
_engines: list[object] = []  # engines own the code: they live as long as the process


def addresses(codes: list[Code]) -> dict[str, int | BackendUnsupported]:
    """Each code's function address (compiled, or loaded from the disk cache), or the refusal that
    its definition raised."""
    missing = {c.key: c for c in codes if c.key not in _addresses and c.key not in _refusals}
    if missing:
        _build(list(missing.values()))
    return {c.key: _addresses.get(c.key) or _refusals[c.key] for c in codes}


class _NotOnDisk(BackendUnsupported):
    """A code `load` expected in the disk cache is not there: it can only be compiled by its binder."""


def _not_on_disk(module: ir.Module, name: str) -> None:
    raise _NotOnDisk("not in the disk cache")


def load(keys: list[str]) -> dict[str, int] | None:
    """Each code's address, from this process or from the disk cache without its definition (a saved
    program names its handlers by key); None if one is in neither."""
    directory = _cache_directory()
    missing = [key for key in keys if key not in _addresses]
    if missing and (directory is None or not all((directory / f"{digest(key)}.o").exists() for key in missing)):
        return None
    if missing:
        _build([Code(key, _not_on_disk) for key in missing])
    for key in missing:  # removed from the disk meanwhile: not a refusal, the binder compiles it later
        if isinstance(_refusals.get(key), _NotOnDisk):
            del _refusals[key]
    return None if any(key not in _addresses for key in keys) else {key: _addresses[key] for key in keys}


@functools.cache
def _package_fingerprint() -> str:
    digest = hashlib.sha256(environment_key().encode())
    for path in sorted(p for p in Path(__file__).parent.glob("*.py") if p.name not in NOT_IN_CODE):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def digest(key: str) -> str:
    return hashlib.sha256(f"{_package_fingerprint()}\0{key}".encode()).hexdigest()[:32]


def symbol(key: str) -> str:
    return f"gbn_{digest(key)}"


def _cache_directory() -> Path | None:
    root = native_cache_dir()
    return None if root is None else root / "engine"


def _build(codes: list[Code]) -> None:
    """Each code's object, from the disk cache or compiled (and stored there), linked by one MCJIT
    engine. The objects are handed to the engine as object files, not as modules behind its object
    cache: llvmlite finds a module's Python object by scanning the engine's modules on every cache
    callback, a cost quadratic in the batch (1 ms per variant when a batch of 900 is loaded)."""
    directory = _cache_directory()
    objects = []
    for code in codes:
        name = digest(code.key)
        path = directory / f"{name}.o" if directory else None
        data = read(path)
        if data is None:
            try:
                data = _compile(code, name)
            except BackendUnsupported as refusal:
                _refusals[code.key] = refusal
                STATS["refused"] += 1
                continue
            STATS["compiled"] += 1
            if path is not None:
                try:
                    write_atomically(path, data)
                except OSError:
                    pass  # a read-only cache only costs the next process a compile
        else:
            STATS["loaded"] += 1
        objects.append((code, data))
    if not objects:
        return
    engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), target_machine())
    for _, data in objects:
        engine.add_object_file(llvm.ObjectFileRef.from_data(data))
    engine.finalize_object()
    _engines.append(engine)
    for code, _ in objects:
        address = engine.get_function_address(symbol(code.key))
        if not address:
            raise RuntimeError(f"native engine: {symbol(code.key)} is missing from its object ({code.key})")
        _addresses[code.key] = address


def _compile(code: Code, name: str) -> bytes:
    """The object of one code: its IR defined, verified, optimised and compiled to machine code."""
    module = ir.Module(name=name)
    module.triple = llvm.get_process_triple()
    module.data_layout = str(target_machine().target_data)
    code.define(module, symbol(code.key))
    parsed = llvm.parse_assembly(str(module))
    parsed.verify()
    optimise(parsed)
    return target_machine().emit_object(parsed)


# -- IR helpers shared by the loop and the handlers ---------------------------------------------------


def word(b: ir.IRBuilder, block: ir.Value, slot: int, typ: ir.Type = I64) -> ir.Value:
    """Slot ``slot`` of a block of 64-bit words (the dispatch block, a frame, a record)."""
    return b.load(b.gep(block, [ir.Constant(I64, int(slot))], source_etype=I64), typ=typ)


def set_word(b: ir.IRBuilder, block: ir.Value, slot: int, value: ir.Value) -> None:
    b.store(value, b.gep(block, [ir.Constant(I64, int(slot))], source_etype=value.type))


def element(b: ir.IRBuilder, base: ir.Value, index: ir.Value, typ: ir.Type) -> ir.Value:
    """A pointer to element ``index`` of an array of ``typ`` at ``base``."""
    return b.gep(base, [index], source_etype=typ)


def const(value: int, typ: ir.Type = I64) -> ir.Constant:
    return ir.Constant(typ, value)
