"""Bound programs kept on disk, so that a later process binds nothing an earlier one bound.

What binding makes of a program (engine.NativeProgram: the table, the records, the instruction
names) depends only on the code bytes, the target, the wave size, the VGPRs and gpubench itself:
the decoder's tables, how the handlers read their operands, the native binders. It is saved as
``<native cache>/programs/<digest>.pickle``, the digest covering all of those (every source file of
the package, and the native compiler's environment key); a record names its handler by its code key,
not by an address of this process. Loading finds each handler's object in the disk cache
(build.load); when one is missing the program is bound afresh.
"""
from __future__ import annotations

import functools
import hashlib
import pickle
import zlib
from pathlib import Path

import numpy as np

import gpubench
from gpubench.compiler.diskcache import read, write_atomically
from gpubench.compiler.native.jit import environment_key, native_cache_dir
from gpubench.emu.native import alu, build
from gpubench.emu.native.layout import RECORD_FN, Binding

FORMAT = 2  # of the saved file: a change makes every earlier file a miss
STATE = {"length", "positions", "entries", "records", "keys", "names", "bound"}


@functools.cache
def _gpubench_fingerprint() -> str:
    digest = hashlib.sha256(f"{FORMAT}\0{environment_key()}".encode())
    package = Path(gpubench.__file__).parent
    for path in sorted(package.rglob("*.py")):
        digest.update(str(path.relative_to(package)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _path(target: str, wave_size: int, vgprs: int, code: bytes) -> Path | None:
    root = native_cache_dir()
    if root is None:
        return None
    digest = hashlib.sha256(f"{_gpubench_fingerprint()}\0{target}\0{wave_size}\0{vgprs}\0".encode())
    digest.update(code)
    return root / "programs" / f"{digest.hexdigest()[:32]}.pickle"


def save(program) -> None:
    """Keep ``program``'s binding (a failed write only costs a later process the binding)."""
    path = _path(program.target, program.wave_size, program.vgprs, program.code)
    if path is None:
        return
    keys = sorted(set(program.keys))
    index = {key: i for i, key in enumerate(keys)}
    records = program.records.copy()
    records[:, RECORD_FN] = [index[key] for key in program.keys]
    positions = np.flatnonzero(program.table != Binding.UNBOUND).astype(np.int32)  # most of a window is not code
    state = dict(length=len(program.table), positions=positions, entries=program.table[positions], records=records,
                 keys=keys, names=program.names, bound=program.bound)
    try:
        write_atomically(path, zlib.compress(pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL), 1))
    except OSError:
        pass


def load(program) -> bool:
    """Fill the new, unbound ``program`` from its saved binding; False if there is none to use."""
    path = _path(program.target, program.wave_size, program.vgprs, program.code)
    data = read(path)
    if data is None:
        return False
    try:
        state = pickle.loads(zlib.decompress(data))
    except (zlib.error, pickle.UnpicklingError, EOFError, AttributeError, ValueError):
        return False
    if not isinstance(state, dict) or set(state) != STATE:
        return False
    addresses = build.load(state["keys"])
    if addresses is None or state["length"] != len(program.table):
        return False
    records = state["records"]
    program.keys = [state["keys"][i] for i in records[:, RECORD_FN].tolist()]
    records[:, RECORD_FN] = [addresses[key] for key in program.keys]
    program.table[state["positions"]] = state["entries"]
    program.records = records
    program.names, program.bound = state["names"], state["bound"]
    program.uses_trap_status = any(alu.uses_trap_status(key) for key in state["keys"])
    return True
