"""A compiled instruction: the generated function, its ports, and the source to trace it back."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gpubench.compiler.backend.ports import PortSpec


@dataclass(frozen=True)
class CompiledOp:
    """One instruction's semantics over n elements (lanes x waves for VALU, waves for SALU).

    ``fn(n, *inputs)`` is the raw generated function: inputs in ``reads`` order, each an array of the
    port's dtype (``inputs[i].dtype``), returning a tuple in ``writes`` order. It expects the caller to
    hold ``np.errstate(all="ignore")`` (lanes a mask discards may overflow). Outputs may share memory
    with inputs: treat them as read-only. ``__call__`` is the convenient form: keyword arrays in,
    a dict out, dtypes coerced and warnings silenced.
    """

    arch: str
    enum: str
    name: str
    text: str
    source: str
    fn: object = field(repr=False)
    inputs: tuple[PortSpec, ...]
    outputs: tuple[PortSpec, ...]
    from_disk: bool = False

    @property
    def reads(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.inputs)

    @property
    def writes(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.outputs)

    def __call__(self, n: int | None = None, **arrays: object) -> dict[str, np.ndarray]:
        missing = [name for name in self.reads if name not in arrays]
        if missing:
            raise TypeError(f"{self.name} reads {', '.join(missing)}; pass them as keyword arrays")
        args = [np.asarray(arrays[p.name], dtype=p.dtype) for p in self.inputs]
        if n is None:
            if not args:
                raise TypeError(f"{self.name} reads no arrays; pass n, the number of elements")
            n = len(args[0])
        with np.errstate(all="ignore"):
            results = self.fn(n, *args)
        return dict(zip(self.writes, results, strict=True))
