"""Directed rounding (MODE.FP_ROUND = toward +inf, -inf or zero) of float results, in numpy (manual).

The compiled pseudocode rounds to nearest even. For the operations listed in `DIRECTED` the exact
result is recomputed here as an unevaluated float64 sum ``hi + lo`` and rounded in the wave's mode:

  - f32/f16 results: a product of two f32 (or f16) values is exact in float64 (48 <= 53 bits, and
    the exponent range cannot leave float64's), so x*y + z is exactly hi + lo with TwoSum (Knuth),
    which needs no FMA. ``r = float32(hi)`` (nearest) is within one unit of the exact value, and
    ``d = (hi - r) + lo`` has the sign of exact - r: hi - r is exact (Sterbenz: r and hi are within a
    factor of 2, or hi - r is a small multiple of a fine binade), and a rounded sum keeps its exact
    sign. The directed result is r or its neighbour on d's side: one rounding from the exact value,
    so double rounding cannot occur (r is only a bracket, never rounded again).
  - f64 results (add, mul): r is numpy's float64 result; exact - r comes from TwoSum for add and from
    TwoProduct (Dekker's split, no FMA) on the mantissas scaled to [0.5, 1), so neither the split nor
    the error term can overflow or underflow; r scaled by the same power of 2 stays exact.
  - A finite exact value beyond the largest float becomes MAX_FLOAT toward zero and inf away from
    it: toward zero / -inf of a positive overflow is MAX_FLOAT, not inf.
  - An exactly zero sum of nonzero or opposite-signed zero terms is -0 toward -inf, +0 otherwise
    (IEEE 754 6.3); a zero product keeps the sign the nearest-even result has.
NaN, infinite operands and infinite results of infinite operands are exact: the pseudocode's
result (quieted NaN payloads) is kept for them. f64 fma and every operation not listed are rounded
by the reference evaluator instead (evaluated.py), lane by lane.
"""
from __future__ import annotations

import numpy as np

UP, DOWN, TOWARD_ZERO = 1, 2, 3  # FP_ROUND values (0 = nearest even)
# float kind -> (numpy float, unsigned container, bits of MAX_FLOAT)
FORMATS = {16: (np.float16, np.uint16, 0x7BFF), 32: (np.float32, np.uint32, 0x7F7FFFFF),
           64: (np.float64, np.uint64, 0x7FEFFFFFFFFFFFFF)}
SPLIT = 134217729.0  # 2**27 + 1: Dekker's split of a double into two 26-bit halves

# An operation as x * y + z over its ports (y = None: 1; z = None: no addend; "-S0": negated).
TERMS = {"ADD": ("S0", None, "S1"), "SUB": ("S0", None, "-S1"), "SUBREV": ("S1", None, "-S0"),
         "MUL": ("S0", "S1", None), "FMA": ("S0", "S1", "S2"), "FMAC": ("S0", "S1", "D0"),
         "FMAMK": ("S0", "SIMM32", "S1"), "FMAAK": ("S0", "S1", "SIMM32"), "CVT": ("S0", None, None)}
# What is rounded in a directed mode: "ADD_F32" (the operation name without V_, DUAL_ and encoding).
DIRECTED = {f"{op}_{t}" for op in ("ADD", "SUB", "SUBREV", "MUL", "FMA", "FMAC", "FMAMK", "FMAAK")
            for t in ("F32", "F16")} | {"ADD_F64", "MUL_F64"} | \
    {"CVT_F16_F32", "CVT_F32_F64", "CVT_F32_I32", "CVT_F32_U32", "CVT_F16_I16", "CVT_F16_U16"}


def decode(bits: np.ndarray, kind: str) -> np.ndarray:
    """A port's values as float64: kind "F16"/"F32"/"F64" (a float in the low bits) or an integer
    "I32"/"U32"/"I16"/"U16"; every one of them is exact in float64."""
    width = int(kind[1:])
    if kind[0] == "F":
        ftype, utype, _ = FORMATS[width]
        return bits.astype(utype).view(ftype).astype(np.float64)
    utype = {16: np.uint16, 32: np.uint32}[width]
    value = bits.astype(utype)
    return (value.view(np.int16 if width == 16 else np.int32) if kind[0] == "I" else value).astype(np.float64)


def two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """s, e with s = fl(a + b) and s + e = a + b exactly (Knuth; s finite)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _two_product(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """p, e with p = fl(a * b) and p + e = a * b exactly, for |a|, |b| in [0.5, 1) or 0 (Dekker)."""
    p = a * b
    (ah, al), (bh, bl) = _split(a), _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c = a * SPLIT
    high = c - (c - a)
    return high, a - high


def round_sum(hi: np.ndarray, lo: np.ndarray, width: int, mode: np.ndarray) -> np.ndarray:
    """The exact hi + lo (float64, finite) rounded to f16/f32 in ``mode`` (per element): bits."""
    ftype, _, _ = FORMATS[width]
    r = hi.astype(ftype)  # nearest: the exact value lies between r's neighbours
    return step(r, (hi - r.astype(np.float64)) + lo, width, mode)


def f64_add(a: np.ndarray, b: np.ndarray, mode: np.ndarray) -> np.ndarray:
    s, e = two_sum(a, b)
    return step(s, e, 64, mode)


def f64_mul(a: np.ndarray, b: np.ndarray, mode: np.ndarray) -> np.ndarray:
    p = a * b
    (ma, ea), (mb, eb) = np.frexp(a), np.frexp(b)
    ph, pl = _two_product(ma, mb)
    scaled = np.ldexp(p, -(ea + eb))  # exact: p's exponent is near ea + eb, and p is finite
    return step(p, np.where(np.isinf(p), p, (ph - scaled) + pl), 64, mode)


def step(r: np.ndarray, d: np.ndarray, width: int, mode: np.ndarray) -> np.ndarray:
    """The bits of r (the nearest value) moved to the directed result: the exact value is r + (a
    quantity with the sign of d). An infinite r of a finite exact value is first MAX_FLOAT."""
    _, utype, max_bits = FORMATS[width]
    overflow = np.isinf(r)
    d = np.where(overflow, r, d)  # beyond MAX_FLOAT, on r's side
    bits = np.where(overflow, utype(max_bits) | (r.view(utype) & _sign(utype)), r.view(utype))
    positive, negative = (bits & _sign(utype)) == 0, (bits & _sign(utype)) != 0
    nonzero = (bits & ~_sign(utype)) != 0
    up = (d > 0) & ((mode == UP) | ((mode == TOWARD_ZERO) & negative & nonzero))
    down = (d < 0) & ((mode == DOWN) | ((mode == TOWARD_ZERO) & positive & nonzero))
    return np.where(up, _next_up(bits, utype), np.where(down, _next_up(bits ^ _sign(utype), utype) ^ _sign(utype),
                                                         bits))


def _sign(utype):
    return utype(1) << utype(np.dtype(utype).itemsize * 8 - 1)


def _next_up(bits: np.ndarray, utype) -> np.ndarray:
    """The next float toward +inf of finite floats' bits (either zero steps to the least denormal)."""
    sign = _sign(utype)
    return np.where((bits & ~sign) == 0, utype(1), np.where((bits & sign) == 0, bits + utype(1), bits - utype(1)))


def operation(name: str) -> str:
    """"V_DUAL_ADD_F32", "V_ADD_F32_E64" -> "ADD_F32": the operation and its types."""
    key = name.removeprefix("V_").removeprefix("DUAL_")
    for suffix in ("_E32", "_E64"):
        key = key.removesuffix(suffix)
    return key


def directed(key: str):
    """``apply(values, mode, result)`` for an operation in DIRECTED: ``values`` maps ports to the
    (flattened) bits the pseudocode got, ``mode`` is each element's FP_ROUND for the result's type,
    ``result`` the pseudocode's D0 bits; returns D0 with the directed result where mode is not 0."""
    op, dest, *source = key.split("_")
    width, kind = int(dest[1:]), source[0] if source else dest
    x_port, y_port, z_port = TERMS[op]

    def term(values, port):
        if port is None:
            return None
        value = decode(values[port.lstrip("-")], kind)
        return -value if port.startswith("-") else value

    def apply(values: dict, mode: np.ndarray, result: np.ndarray) -> np.ndarray:
        x, y, z = (term(values, port) for port in (x_port, y_port, z_port))
        finite = np.isfinite(x) & (True if y is None else np.isfinite(y)) & (True if z is None else np.isfinite(z))
        if width == 64:
            bits = f64_add(x, z, mode) if op == "ADD" else f64_mul(x, y, mode)
            product, total = x, x + (0.0 if z is None else z)
        else:
            product = x if y is None else x * y  # exact in float64
            total, low = (product, np.zeros_like(product)) if z is None else two_sum(product, z)
            bits = round_sum(total, low, width, mode).astype(result.dtype)
        if z is not None:  # an exact zero sum: -0 toward -inf unless both terms are +0
            both_plus_zero = (product == 0) & ~np.signbit(product) & (z == 0) & ~np.signbit(z)
            minus_zero = (mode == DOWN) & (total == 0) & ~both_plus_zero
            bits = np.where(minus_zero, result.dtype.type(1) << result.dtype.type(width - 1), bits)
        keep = result.dtype.type(0 if width == 64 else ~((1 << width) - 1) & 0xFFFFFFFF)
        return np.where((mode != 0) & finite, (result & keep) | bits.astype(result.dtype), result)

    return apply
