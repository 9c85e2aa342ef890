"""Compiling the native engine's code: the wave loop and the handler variants.

Every piece of code is a `Code`: a key (text naming everything its IR depends on) and a function that
defines it in a module. The codes a process has neither compiled nor found on disk are compiled in
chunks of up to CHUNK: each is defined in a module of its own, and a chunk's modules are linked into
one, optimised and compiled to one object file, so that LLVM's cost per module and per object is paid
once a chunk. A program's new objects and those read from disk are linked by one MCJIT engine.

On disk, in ``<cache_dir()>/native/engine/``, a chunk's object is ``<chunk>.chunk``, behind its
members' digests and a checksum of both; each code has a ``<digest>.ref`` naming the chunk that holds
it. A digest covers the key and the compiler's whole environment (`jit.environment_key`: gpubench and
LLVM versions, the host CPU and its features, the sources of the pseudocode compiler and of its
native backend), and so do the sources of this package's modules that generate IR (not the engine's
scheduling). A later process reads a code's reference and links its chunk, which gives every member
its address, and generates no code. A reference or chunk that is missing, damaged or names other
codes is a miss: the code is compiled again.
"""
from __future__ import annotations

import functools
import hashlib
import threading
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
CHUNK = 16  # codes per object at most (benchmarks/native_compile.py --chunk)
CHUNK_MAGIC = b"gpubench native chunk 1\n"  # a chunk file: this, sha256 of the rest, members, newline, object
STATS = {"compiled": 0, "loaded": 0, "refused": 0}  # codes, for tests and measurements


@dataclass(frozen=True)
class Code:
    key: str  # everything the IR depends on
    define: Callable[[ir.Module, str], None]  # adds the function of that name to the module


_addresses: dict[str, int] = {}  # by digest: every member of every chunk this process linked
_refusals: dict[str, BackendUnsupported] = {}  # by key
_building = threading.RLock()  # one batch at a time: they share the engine and the dictionaries


@functools.cache
def _engine():
    """The process's MCJIT engine, which owns all the code (so lives as long as the process). Each
    batch adds its objects to it: adding and finalizing an object costs about 0.1 ms however many
    the engine holds, a new engine about 1 ms."""
    return llvm.create_mcjit_compiler(llvm.parse_assembly(""), target_machine())


def addresses(codes: list[Code]) -> dict[str, int | BackendUnsupported]:
    """Each code's function address (compiled, or loaded from the disk cache), or the refusal that
    its definition raised."""
    with _building:
        missing = {c.key: c for c in codes if digest(c.key) not in _addresses and c.key not in _refusals}
        if missing:
            _build(list(missing.values()))
    return {c.key: _addresses.get(digest(c.key)) or _refusals[c.key] for c in codes}


class _NotOnDisk(BackendUnsupported):
    """A code `load` expected in the disk cache is not there: it can only be compiled by its binder."""


def _not_on_disk(module: ir.Module, name: str) -> None:
    raise _NotOnDisk("not in the disk cache")


def load(keys: list[str]) -> dict[str, int] | None:
    """Each code's address, from this process or from the disk cache without its definition (a saved
    program names its handlers by key); None if one is in neither."""
    directory = _cache_directory()
    missing = [key for key in keys if digest(key) not in _addresses]
    if missing and (directory is None or not all(_reference_path(directory, digest(key)).exists() for key in missing)):
        return None
    with _building:
        _build([Code(key, _not_on_disk) for key in missing if digest(key) not in _addresses])
        for key in missing:  # gone from the disk meanwhile: not a refusal, the binder compiles it later
            if isinstance(_refusals.get(key), _NotOnDisk):
                del _refusals[key]
    if any(digest(key) not in _addresses for key in keys):
        return None
    return {key: _addresses[digest(key)] for key in keys}


@functools.cache
def _package_fingerprint() -> str:
    digest = hashlib.sha256(environment_key().encode())
    for path in sorted(p for p in Path(__file__).parent.glob("*.py") if p.name not in NOT_IN_CODE):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


@functools.cache
def digest(key: str) -> str:
    return hashlib.sha256(f"{_package_fingerprint()}\0{key}".encode()).hexdigest()[:32]


def symbol(key: str) -> str:
    return _symbol(digest(key))


def _symbol(code_digest: str) -> str:
    return f"gbn_{code_digest}"


def _cache_directory() -> Path | None:
    root = native_cache_dir()
    return None if root is None else root / "engine"


def _reference_path(directory: Path, code_digest: str) -> Path:
    return directory / f"{code_digest}.ref"


def _chunk_path(directory: Path, name: str) -> Path:
    return directory / f"{name}.chunk"


def _build(codes: list[Code]) -> None:
    """Each code's address: its chunk from the disk cache, or compiled (and stored there) with the
    others not found, the chunks linked by one MCJIT engine. Objects are handed to the engine as object
    files, not as modules behind its object cache: llvmlite finds a module's Python object by scanning
    the engine's modules on every cache callback, a cost quadratic in the batch. Two chunks may hold
    the same code (processes that compiled it at once, or after its reference was pruned): one engine
    links both, and either definition is the same code."""
    directory = _cache_directory()
    wanted = {digest(c.key): c for c in codes}
    chunks: list[tuple[list[str], bytes]] = []
    linking: set[str] = set()
    for code_digest in wanted:
        if code_digest in linking or directory is None:
            continue
        chunk = _read_chunk(directory, read(_reference_path(directory, code_digest)))
        if chunk is not None and code_digest in chunk[0]:
            chunks.append(chunk)
            STATS["loaded"] += len(wanted.keys() & (set(chunk[0]) - linking))
            linking.update(chunk[0])
    rest = [code for code_digest, code in wanted.items() if code_digest not in linking]
    count = -(-len(rest) // CHUNK)
    for k in range(count):  # chunks of equal size: 17 codes are two of 9 and 8, not 16 and 1
        compiled = _compile(rest[len(rest) * k // count:len(rest) * (k + 1) // count])
        if compiled is not None:
            chunks.append(compiled)
            if directory is not None:
                _store(directory, *compiled)
    if not chunks:
        return
    engine = _engine()
    for _, data in chunks:
        engine.add_object_file(llvm.ObjectFileRef.from_data(data))
    engine.finalize_object()
    for members, _ in chunks:
        for code_digest in members:
            address = engine.get_function_address(_symbol(code_digest))
            if not address:
                raise RuntimeError(f"native engine: {_symbol(code_digest)} is missing from its chunk")
            _addresses.setdefault(code_digest, address)


def _compile(codes: list[Code]) -> tuple[list[str], bytes] | None:
    """The digests of the codes whose definition did not refuse, and their object: each code's IR
    defined in a module of its own (so that the names of internal functions and globals never meet),
    the modules linked into one, verified, optimised and compiled to machine code."""
    members, linked = [], None
    for code in codes:
        code_digest = digest(code.key)
        module = ir.Module(name=code_digest)
        module.triple = llvm.get_process_triple()
        module.data_layout = str(target_machine().target_data)
        try:
            code.define(module, _symbol(code_digest))
        except BackendUnsupported as refusal:
            _refusals[code.key] = refusal
            STATS["refused"] += 1
            continue
        parsed = llvm.parse_assembly(str(module))
        if linked is None:
            linked = parsed
        else:
            linked.link_in(parsed)
        members.append(code_digest)
    if linked is None:
        return None
    linked.verify()
    optimise(linked)
    STATS["compiled"] += len(members)
    return members, target_machine().emit_object(linked)


def _store(directory: Path, members: list[str], data: bytes) -> None:
    """The chunk file, then each member's reference to it (a failed write only costs a later process
    a compile)."""
    name = hashlib.sha256(" ".join(members).encode()).hexdigest()[:32]
    body = " ".join(members).encode() + b"\n" + data
    try:
        write_atomically(_chunk_path(directory, name), CHUNK_MAGIC + hashlib.sha256(body).digest() + body)
        for code_digest in members:
            write_atomically(_reference_path(directory, code_digest), name)
    except OSError:
        pass


def _read_chunk(directory: Path, reference: bytes | None) -> tuple[list[str], bytes] | None:
    """The members and object of the chunk ``reference`` names; None if it is not there or does not
    hold what its checksum says (LLVM would crash on a damaged object)."""
    name = reference.decode("ascii", "replace") if reference is not None else ""
    if len(name) != 32 or not all(c in "0123456789abcdef" for c in name):
        return None
    data = read(_chunk_path(directory, name))
    if data is None or not data.startswith(CHUNK_MAGIC):
        return None
    checksum, body = data[len(CHUNK_MAGIC):len(CHUNK_MAGIC) + 32], data[len(CHUNK_MAGIC) + 32:]
    if hashlib.sha256(body).digest() != checksum:
        return None
    members, _, obj = body.partition(b"\n")
    return members.decode("ascii").split(), obj


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
