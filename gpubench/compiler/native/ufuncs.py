"""numpy's own float64 inner loops, for native code to call: the transcendental functions exactly as numpy.

The numpy backend evaluates sin, cos, log2 and pow in float64 with numpy's ufuncs (``runtime._via_f64``,
``runtime.pow_positive_base``) and rounds the result. numpy picks its implementation at import time for
the host CPU (its own SIMD code, SVML on AVX-512, or the C library), so a native call of libm is not
guaranteed to give the same bits. The native backend therefore calls the very loop numpy calls: each
ufunc's table of legacy inner loops (``PyUFuncObject.functions`` / ``.data``, numpy's public struct in
``numpy/ufuncobject.h``) is read with ctypes, the entry for ``d->d`` (``dd->d`` for power) is taken
as numpy's own loop selector takes it (the first whose types match), and it is called with numpy's ABI

    void loop(char **args, npy_intp const *dimensions, npy_intp const *steps, void *data)

for one element. Before anything is used the layout is checked against the installed numpy (numpy 2
only): the object's type pointer, nin/nout/nargs, ntypes, the name, every entry of the type table
against ``ufunc.types``, and the loop and data that numpy's dispatch really hands out for float64
(``ufunc._get_strided_loop``: its legacy-loop wrapper's auxdata holds the same two pointers). Any doubt
raises BackendUnsupported, and the instruction stays on the numpy engine.

Addresses differ per process while compiled objects are cached on disk, so the IR names them as
external symbols (``gpubench_numpy_<ufunc>_f64_loop``, a function, and ``..._data``, a global holding
the loop's data pointer) and `register` binds them with ``llvm.add_symbol`` before any engine
finalizes: a cached object relocates against this process's numpy. `environment_key` (part of every
cache key) says which loops resolved, so an object calling one is never loaded where it did not.
"""
from __future__ import annotations

import ctypes
import functools
from dataclasses import dataclass

import numpy as np

from gpubench.compiler.backend.operands import BackendUnsupported

UFUNCS = {"sin": np.sin, "cos": np.cos, "log2": np.log2, "power": np.power}
_PTR = ctypes.sizeof(ctypes.c_void_p)
_CALL_INFO = b"numpy_1.24_ufunc_call_info"


@dataclass(frozen=True)
class Loop:
    """One resolved float64 loop: its address, its data pointer, and the symbols the IR names them by."""

    name: str
    nin: int
    address: int
    data: int

    @property
    def symbol(self) -> str:
        return f"gpubench_numpy_{self.name}_f64_loop"

    @property
    def data_symbol(self) -> str:
        return f"gpubench_numpy_{self.name}_f64_data"


def _read(address: int, ctype):
    return ctype.from_address(address).value


def _resolve(name: str) -> Loop:
    ufunc = UFUNCS[name]
    if int(np.__version__.split(".")[0]) != 2:
        raise BackendUnsupported(f"numpy {np.__version__}: the ufunc layout is checked for numpy 2 only")
    if type(ufunc) is not np.ufunc or ufunc.nout != 1 or ufunc.nin not in (1, 2):
        raise BackendUnsupported(f"np.{name} is not a plain numpy ufunc")
    base = id(ufunc)
    # PyObject_HEAD: ob_refcnt, ob_type (a release build of CPython: no trace-refs fields)
    if _read(base + _PTR, ctypes.c_void_p) != id(np.ufunc):
        raise BackendUnsupported(f"np.{name}: the object header is not the one expected")
    head = 2 * _PTR
    nin, nout, nargs = (_read(base + head + 4 * k, ctypes.c_int) for k in range(3))
    functions = _read(base + head + 16, ctypes.c_void_p)
    data = _read(base + head + 16 + _PTR, ctypes.c_void_p)
    ntypes = _read(base + head + 16 + 2 * _PTR, ctypes.c_int)
    name_ptr = _read(base + head + 24 + 2 * _PTR, ctypes.c_void_p)
    types_ptr = _read(base + head + 24 + 3 * _PTR, ctypes.c_void_p)
    if (nin, nout, nargs) != (ufunc.nin, ufunc.nout, ufunc.nargs) or ntypes != ufunc.ntypes or \
            ntypes != len(ufunc.types) or not functions or not types_ptr or not name_ptr:
        raise BackendUnsupported(f"np.{name}: PyUFuncObject's fields do not match the ufunc's attributes")
    if ctypes.string_at(name_ptr) != ufunc.__name__.encode():
        raise BackendUnsupported(f"np.{name}: PyUFuncObject's name does not match")
    table = ctypes.string_at(types_ptr, nargs * ntypes)
    for j, signature in enumerate(ufunc.types):
        expected = bytes(np.dtype(c).num for c in signature.replace("->", ""))
        if table[j * nargs:(j + 1) * nargs] != expected:
            raise BackendUnsupported(f"np.{name}: PyUFuncObject's type table does not match ufunc.types")
    wanted = bytes([np.dtype(np.float64).num]) * nargs
    j = next((j for j in range(ntypes) if table[j * nargs:(j + 1) * nargs] == wanted), None)  # numpy's choice
    if j is None:
        raise BackendUnsupported(f"np.{name} has no float64 loop")
    loop = _read(functions + j * _PTR, ctypes.c_void_p)
    user_data = _read(data + j * _PTR, ctypes.c_void_p) if data else None
    if not loop:
        raise BackendUnsupported(f"np.{name}: the float64 loop is NULL")
    if _dispatched(ufunc, nargs) != (loop, user_data or None):
        raise BackendUnsupported(f"np.{name}: numpy's dispatch for float64 does not call the first float64 "
                                 "loop of its table")
    return Loop(name, nin, loop, user_data or 0)


def _dispatched(ufunc: np.ufunc, nargs: int) -> tuple[int, int | None]:
    """The (legacy loop, data) pointers in the auxdata of the strided loop numpy's dispatch returns for
    float64 operands with the reference's strides (legacy_array_method.c: NpyAuxData, then the two)."""
    f8 = np.dtype(np.float64)
    try:
        dtypes, capsule = ufunc._resolve_dtypes_and_context((f8,) * nargs)
        strides = (0, 8, 8) if nargs == 3 else (8, 8)
        ufunc._get_strided_loop(capsule, fixed_strides=strides)
    except (AttributeError, TypeError, ValueError) as err:
        raise BackendUnsupported(f"np.{ufunc.__name__}: its float64 loop cannot be inspected ({err})") from None
    if tuple(dtypes) != (f8,) * nargs:
        raise BackendUnsupported(f"np.{ufunc.__name__}: float64 operands resolve to {dtypes}")
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    info = get(capsule, _CALL_INFO)
    strided, auxdata = _read(info, ctypes.c_void_p), _read(info + 2 * _PTR, ctypes.c_void_p)
    requires_pyapi = _read(info + 3 * _PTR, ctypes.c_ubyte)
    if not strided or not auxdata or requires_pyapi:
        raise BackendUnsupported(f"np.{ufunc.__name__}: its float64 loop is not a plain C loop")
    auxdata_base = 4 * _PTR  # NpyAuxData: free, clone, reserved[2]
    loop = _read(auxdata + auxdata_base, ctypes.c_void_p)
    user_data = _read(auxdata + auxdata_base + _PTR, ctypes.c_void_p)
    del capsule  # frees the context and the auxdata
    return loop, user_data


@functools.cache
def resolved(name: str) -> Loop | BackendUnsupported:
    try:
        return _resolve(name)
    except BackendUnsupported as err:
        return err


def loop(name: str) -> Loop:
    """The registered float64 loop of ``np.<name>``, or BackendUnsupported saying why there is none."""
    found = resolved(name)
    if isinstance(found, BackendUnsupported):
        raise BackendUnsupported(str(found))
    register()
    return found


_data_cells: dict[str, ctypes.c_void_p] = {}  # the globals holding each loop's data pointer (kept alive)


@functools.cache
def register() -> bool:
    """Bind every resolved loop's symbols in LLVM's process-wide symbol table (once per process)."""
    import llvmlite.binding as llvm

    for name in UFUNCS:
        found = resolved(name)
        if isinstance(found, BackendUnsupported):
            continue
        cell = _data_cells.setdefault(name, ctypes.c_void_p(found.data or None))
        llvm.add_symbol(found.symbol, found.address)
        llvm.add_symbol(found.data_symbol, ctypes.addressof(cell))
    return True


def environment_key() -> str:
    """Which loops resolved, for the cache keys (numpy's version too: its loops are what objects call)."""
    return f"numpy {np.__version__} " + " ".join(
        f"{name}={'ok' if isinstance(resolved(name), Loop) else 'refused'}" for name in UFUNCS)
