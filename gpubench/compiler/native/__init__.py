"""The native backend (first step): the numpy backend's compiled semantics, as machine code from LLVM.

    ops = compile_instructions("rdna3", [("VOP3Op", "V_FMA_F32"), ("VOP2Op", "V_ADD_F32_E32")])
    op = ops["VOP3Op", "V_FMA_F32"]          # a NativeOp, or the BackendUnsupported it raised
    op(S0=a, S1=b, S2=c)                     # {'D0': uint32 array}: bit for bit the numpy backend's
    op.fn(n, *input_arrays, *output_arrays)  # the raw ctypes function (contiguous arrays of port dtypes)

One C function per instruction, ``void NAME(i64 n, ptr in..., ptr out...)`` looping over n elements,
with the numpy backend's ports (``op.inputs`` / ``op.outputs`` are its PortSpecs, arrays of their
dtypes). Many instructions are compiled in one batch (one LLVM module, one MCJIT engine), and the
object is cached on disk across processes (see ``jit``). Semantics are the numpy backend's (see
``lower`` for how the same typed program is given element semantics); what cannot be lowered exactly
raises the numpy backend's BackendUnsupported, at compile time.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gpubench.compiler.backend.cache import pseudocode
from gpubench.compiler.backend.operands import BackendUnsupported
from gpubench.compiler.backend.ports import PortSpec
from gpubench.compiler.native.jit import STATS, Batch, cfunc, compile_batch, native_cache_dir

__all__ = ["STATS", "BackendUnsupported", "NativeOp", "compile_instructions", "native_cache_dir"]


@dataclass(frozen=True)
class NativeOp:
    """One instruction's native function; called like the numpy backend's CompiledOp."""

    arch: str
    enum: str
    name: str
    inputs: tuple[PortSpec, ...]
    outputs: tuple[PortSpec, ...]
    address: int
    from_disk: bool = False
    fn: object = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_in", tuple((p.name, np.dtype(p.dtype)) for p in self.inputs))
        object.__setattr__(self, "_out", tuple((p.name, np.dtype(p.dtype)) for p in self.outputs))

    def __call__(self, n: int | None = None, **arrays: object) -> dict[str, np.ndarray]:
        args = []
        for name, dtype in self._in:
            if name not in arrays:
                missing = [p.name for p in self.inputs if p.name not in arrays]
                raise TypeError(f"{self.name} reads {', '.join(missing)}; pass them as keyword arrays")
            args.append(np.asarray(arrays[name], dtype=dtype))
        if n is None:
            if not args:
                raise TypeError(f"{self.name} reads no arrays; pass n, the number of elements")
            n = len(args[0])
        shape = (n,)
        for k, a in enumerate(args):  # wave-uniform inputs may be broadcast views: give them n elements
            if a.shape != shape or not a.flags.c_contiguous:
                args[k] = np.ascontiguousarray(np.broadcast_to(a, shape))
        outs = [np.empty(n, dtype=dtype) for _, dtype in self._out]
        self.fn(n, *[a.__array_interface__["data"][0] for a in args],
                *[o.__array_interface__["data"][0] for o in outs])
        return {name: o for (name, _), o in zip(self._out, outs, strict=True)}


def compile_instructions(arch: str, names: list[tuple[str, str]]) -> dict[tuple[str, str], NativeOp | Exception]:
    """Compile ``(enum, name)`` instructions of ``arch`` as one batch (or load it from the disk cache).
    Each maps to its NativeOp or to the BackendUnsupported that refused it. KeyError: no pseudocode."""
    texts = pseudocode(arch)
    entries = [(arch, enum, name, texts[enum, name]) for enum, name in names]
    return _ops(compile_batch(entries))


def _ops(batch: Batch) -> dict:
    result: dict = {}
    for (_, enum, name), message in batch.refused.items():
        result[enum, name] = BackendUnsupported(message)
    for (arch, enum, name), (address, inputs, outputs) in batch.functions.items():
        result[enum, name] = NativeOp(arch, enum, name, inputs, outputs, address, batch.from_disk,
                                      cfunc(address, len(inputs) + len(outputs)))
    return result
