"""What a compiled expression is at code-generation time, and how each pseudocode type is held in numpy.

A compiled expression is one of:
  - ``Const``: a value known at compile time, held as the reference evaluator's own ``Value`` so that
    constant folding *is* the reference semantics (``values.arithmetic`` etc. on constants);
  - ``Arr``: a numpy array (the name of a local in the generated function) with a static type;
  - ``Pow2``: the exact, untyped ``2.0 ** n`` of a run-time integer n (V_LDEXP), which only a
    multiplication or a cast may consume, so that the product is rounded once.

Containers (the numpy dtype that holds a type; an integer container holds the *value*, sign-extended
for signed types, so numpy's own arithmetic and ``astype`` give C's modular results):
  u1/b1 -> bool; other integers -> the smallest of (u)int8/16/32/64 that holds them; wider than 64
  bits -> object arrays of Python ints; f16/f32/f64 -> float16/32/64; bf16 -> uint16 (its bits).
Untyped run-time values (an unsuffixed literal chosen by a ternary) are int64 or float64 arrays.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from gpubench.compiler.pcode.dtypes import DataType

# Operand typing is the reference evaluator's: one set of rules for both backends.
from gpubench.compiler.pcode.values import PcodeTypeError, Value, int_value, promoted  # noqa: F401  (promoted: used as operands.promoted)
from gpubench.compiler.pcode.values import operand_type as result_type  # noqa: F401

BF16 = DataType("bf", 16)
_IEEE_FLOATS = {16: "np.float16", 32: "np.float32", 64: "np.float64"}
UNTYPED_INT_CONTAINER = "np.int64"
UNTYPED_REAL_CONTAINER = "np.float64"
OBJECT = "object"


class BackendUnsupported(NotImplementedError):
    """The pseudocode uses something the fast backend does not compile; the message names it."""


@dataclass(frozen=True)
class Const:
    value: Value

    @property
    def dtype(self) -> DataType | None:
        return self.value.dtype


@dataclass(frozen=True)
class Arr:
    """A run-time array. ``bound``: a known upper bound of an unsigned value (for shift counts);
    ``exact``: False for an untyped int64 that may have wrapped (only its value mod 2**64 is right);
    ``literals``: for an untyped run-time value, the constants it was selected from."""

    code: str
    dtype: DataType | None
    real: bool = False
    bound: int | None = None
    exact: bool = True
    literals: frozenset = field(default=frozenset())


@dataclass(frozen=True)
class Pow2:
    exponent: Arr  # an integer-typed run-time value


Operand = Const | Arr | Pow2


def is_untyped_real_const(c: Const) -> bool:
    return c.dtype is None and not isinstance(c.value.data, int)


def container(dtype: DataType | None, real: bool = False) -> str:
    """The numpy dtype (as source text) that holds values of ``dtype``."""
    if dtype is None:
        return UNTYPED_REAL_CONTAINER if real else UNTYPED_INT_CONTAINER
    if dtype.is_float:
        if dtype.kind == "f" and dtype.bits in _IEEE_FLOATS:
            return _IEEE_FLOATS[dtype.bits]
        if dtype == BF16:
            return "np.uint16"
        raise BackendUnsupported(f"the float type {dtype} (OCP minifloat) is not modelled")
    return int_container(dtype.bits, dtype.is_signed)


def int_container(bits: int, signed: bool) -> str:
    if bits == 1 and not signed:
        return "np.bool_"
    for width in (8, 16, 32, 64):
        if bits <= width:
            return f"np.{'' if signed else 'u'}int{width}"
    return OBJECT


def container_bits(dtype: DataType) -> int:
    """How many bits the container of an integer type has (bool counts as 1; objects as unbounded)."""
    name = container(dtype)
    if name == "np.bool_":
        return 1
    if name == OBJECT:
        return 1 << 30
    return int(name.rstrip("_").split("int")[1])


def is_native(dtype: DataType) -> bool:
    """An integer type whose width is its container's, so numpy's wrap-around is the type's."""
    return not dtype.is_float and dtype.bits in (8, 16, 32, 64)


def is_bool(dtype: DataType | None) -> bool:
    return dtype is not None and container(dtype) == "np.bool_"


def is_object(dtype: DataType | None) -> bool:
    return dtype is not None and not dtype.is_float and dtype.bits > 64


def is_real(op: Operand) -> bool:
    """An untyped operand that is not an integer (``2.0``, ``PI``, a Pow2)."""
    if isinstance(op, Pow2):
        return True
    if isinstance(op, Const):
        return is_untyped_real_const(op)
    return op.dtype is None and op.real


def const_source(value: Value, dtype: DataType | None = None) -> str:
    """Source text for a numpy scalar holding a typed constant (bit-exact, NaN payloads included)."""
    dtype = dtype or value.dtype
    if dtype is None:
        data = value.data
        if isinstance(data, int):
            return f"np.int64({data})"
        return f"np.float64({_float_literal(float(data))})"
    bits = value.data
    if dtype.is_float:
        box = container(dtype)
        if box == "np.uint16":  # bf16 lives in its bits
            return f"np.uint16({bits:#x})"
        return f"np.uint{dtype.bits}({bits:#x}).view({box})"
    if dtype.is_signed and bits >> (dtype.bits - 1):
        bits -= 1 << dtype.bits
    box = container(dtype)
    if box == "np.bool_":
        return "np.True_" if bits else "np.False_"
    if box == OBJECT:
        return str(bits)
    return f"{box}({bits})"


def _float_literal(x: float) -> str:
    if math.isnan(x):
        return "np.nan"
    if math.isinf(x):
        return "np.inf" if x > 0 else "-np.inf"
    return repr(x)


def int_value_of(value: Value) -> int:
    """The integer a constant stands for, as the reference reads it (signed types sign-extended)."""
    try:
        return int_value(value)
    except PcodeTypeError as e:
        raise BackendUnsupported(str(e)) from None
    if value.dtype.is_float:
        raise BackendUnsupported(f"expected an integer constant, got a {value.dtype} value")
    if value.dtype.is_signed and value.data >> (value.dtype.bits - 1):
        return value.data - (1 << value.dtype.bits)
    return value.data
