"""Python's unbounded integers (the numpy backend's object arrays) as LLVM i128 values with a known range.

The numpy backend computes integers wider than 64 bits (V_MAD_U64_U32's 65-bit sum, the signed
67-bit intermediates of V_MAD_I64_I32) in object arrays of Python ints. The native lowering keeps
each such value as an i128 plus its *span*: the closed range its Python value lies in, worked out
at compile time from the operands' spans. An i128 always holds the Python value modulo 2**128, so
the ring operations (+, -, *, &, |, ^, <<, ~, unary -) are right whatever the spans; when the span
fits in i128 the i128 is the Python value itself (the span is then *exact*, otherwise None).
Operations that need the value itself (>>, comparisons, conversion to a fixed-width dtype or to
bool) need exact operands, and a conversion to a dtype needs the span inside the dtype's range
(numpy raises OverflowError otherwise); where they are not, the lowering refuses at compile time.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir

I128 = ir.IntType(128)
OBJECT = np.dtype(object)
LOWEST, HIGHEST = -(1 << 127), (1 << 127) - 1
SHIFT_LIMIT = 128  # a count past the width: << gives 0 and >> the sign, as on Python ints of this span

Span = tuple[int, int] | None


def exact(lo: int, hi: int) -> Span:
    return (lo, hi) if LOWEST <= lo and hi <= HIGHEST else None


def span_of(dtype: np.dtype) -> tuple[int, int]:
    """The values an array of ``dtype`` (a fixed-width integer or bool) can hold."""
    if dtype == np.bool_:
        return 0, 1
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def fits(span: Span, dtype: np.dtype) -> bool:
    low, high = span_of(dtype)
    return span is not None and low <= span[0] and span[1] <= high


def _magnitude_bits(*spans: tuple[int, int]) -> int:
    return max(max(abs(lo), abs(hi)).bit_length() for lo, hi in spans)


def _products(a: tuple[int, int], b: tuple[int, int]) -> list[int]:
    return [x * y for x in a for y in b]


def combine(op: str, a: Span, b: Span) -> Span:
    """The span of ``a OP b`` (an ast operator name) on Python ints."""
    if op == "BitAnd":  # x & y lies in [0, y] for any x once y >= 0: it keeps only bits y has
        nonnegative = [s[1] for s in (a, b) if s is not None and s[0] >= 0]
        if nonnegative:
            return 0, min(nonnegative)
    if a is None or b is None:
        return None
    if op in ("BitAnd", "BitOr", "BitXor"):
        bits = _magnitude_bits(a, b)
        return (0, (1 << bits) - 1) if a[0] >= 0 and b[0] >= 0 else exact(-(1 << bits), (1 << bits) - 1)
    if op == "Add":
        return exact(a[0] + b[0], a[1] + b[1])
    if op == "Sub":
        return exact(a[0] - b[1], a[1] - b[0])
    if op == "Mult":
        products = _products(a, b)
        return exact(min(products), max(products))
    raise ValueError(op)


def shifted(op: str, a: Span, count: Span) -> Span:
    """The span of ``a << count`` or ``a >> count`` for counts known to be at least 0."""
    if a is None or count is None:
        return None
    if op == "RShift":
        limit = min(count[1], SHIFT_LIMIT)
        return min(a[0] >> count[0], a[0] >> limit), max(a[1] >> count[0], a[1] >> limit)
    if count[1] >= SHIFT_LIMIT:
        return None if a != (0, 0) else a
    ends = [x << k for x in a for k in count]
    return exact(min(ends), max(ends))


def negated(a: Span, inverted: bool) -> Span:
    """The span of ``-a`` or of ``~a`` (= -a - 1)."""
    if a is None:
        return None
    one = 1 if inverted else 0
    return exact(-a[1] - one, -a[0] - one)


def union(a: Span, b: Span) -> Span:
    return None if a is None or b is None else (min(a[0], b[0]), max(a[1], b[1]))
