"""Values of the reference evaluator and the typing rules of the operators.

A typed value is its type and its bit pattern (floats too, so NaN payloads survive moves). An untyped
value is an exact number: an unsuffixed literal (``5``, ``2.0``), a constant (``PI``) or a power
(``2.0F ** n``, a Fraction). It takes the type of the operand it meets, and stays exact until then:
``S0.f32 * 2.0F ** S1.i32`` rounds once, as V_LDEXP_F32 means, even where 2**n alone is not an f32.

Typing follows C, which the manual's pseudocode is modelled on:
  - integers narrower than 32 bits are promoted to 32 bits before arithmetic (so ``S0.u32[7 : 0] +
    S1.u32[7 : 0]`` keeps its carry, and ``SIMM16.i16 * 16'4`` does not wrap at 16 bits);
  - of two integers the wider type wins; at equal width unsigned wins; ``b`` (bits) counts as unsigned;
  - results wrap to the result width (two's complement); ``>>`` is arithmetic on signed types;
  - except ``~``, which keeps its operand's width as in Verilog (the manual concatenates ``~lane[5]``);
  - an integer meeting a float becomes that float; the wider float wins;
  - comparisons give a 1-bit unsigned value. On floats every comparison with a NaN is false except
    ``!=``; ``<>`` is "less or greater" (false for NaN), which is what V_CMP_LG means.
Float arithmetic is exact and rounded once to the result type in the current rounding mode.
"""
from __future__ import annotations

import math
import operator
from dataclasses import dataclass
from fractions import Fraction

from gpubench.compiler.pcode import floats
from gpubench.compiler.pcode.dtypes import F64, U1, DataType

Number = int | float | Fraction

# 2**n for |n| beyond this over- or underflows every modelled format whatever it multiplies, so the
# exponent is clamped rather than building a huge Fraction (V_LDEXP_F64 takes any 32-bit n).
_MAX_EXACT_EXPONENT = 4096

_ARITHMETIC = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}


class PcodeTypeError(TypeError):
    """An operation the typing rules do not define (e.g. a float where bits are required)."""


@dataclass(frozen=True)
class Value:
    dtype: DataType | None
    data: Number  # the bit pattern when typed; the exact number when untyped

    def __repr__(self) -> str:
        if self.dtype is None:
            return f"Value({self.data!r})"
        return f"Value({self.dtype}, {self.data:#x})"


def typed(dtype: DataType, bits: int) -> Value:
    return Value(dtype, bits & dtype.mask)


def from_int(dtype: DataType, n: int) -> Value:
    """An integer converted to ``dtype`` by value: modulo 2**bits for integer types, rounded for floats."""
    if dtype.is_float:
        return typed(dtype, floats.encode(Fraction(n), floats.float_format(dtype)))
    return typed(dtype, n)


def from_bool(flag: bool) -> Value:
    return Value(U1, int(flag))


def is_untyped_real(v: Value) -> bool:
    """An untyped number that is not an integer: ``2.0``, ``PI``, ``INF``, ``2.0F ** -150``."""
    return v.dtype is None and not isinstance(v.data, int)


def is_float(v: Value) -> bool:
    return v.dtype.is_float if v.dtype is not None else is_untyped_real(v)


def int_value(v: Value) -> int:
    """The integer a value stands for (signed types sign-extended)."""
    if v.dtype is None:
        if is_untyped_real(v):
            raise PcodeTypeError(f"expected an integer, got the real number {v.data}")
        return v.data
    if v.dtype.is_float:
        raise PcodeTypeError(f"expected an integer, got a {v.dtype} value")
    if v.dtype.is_signed and v.data >> (v.dtype.bits - 1):
        return v.data - (1 << v.dtype.bits)
    return v.data


def float_value(v: Value) -> float:
    """The number a value stands for, as a Python float (NaN and infinities included)."""
    if v.dtype is None:
        return _to_float(v.data)
    if v.dtype.is_float:
        return floats.decode(v.data, floats.float_format(v.dtype))
    return float(int_value(v))


def exact_value(v: Value) -> Fraction | None:
    """The exact number of a finite value; None for NaN and infinities."""
    if v.dtype is None:
        return None if isinstance(v.data, float) and not math.isfinite(v.data) else Fraction(v.data)
    if not v.dtype.is_float:
        return Fraction(int_value(v))
    x = float_value(v)
    return Fraction(x) if math.isfinite(x) else None


def truthy(v: Value) -> bool:
    if v.dtype is None:
        return v.data != 0
    return float_value(v) != 0.0 if v.dtype.is_float else v.data != 0


def bits_of(v: Value, width: int) -> int:
    """The pattern of ``v`` at ``width`` bits: truncated, or extended (sign-extended for signed ints)."""
    if v.dtype is None:
        if is_untyped_real(v):
            raise PcodeTypeError(f"the real number {v.data} has no bit pattern; give it a type first")
        return v.data & ((1 << width) - 1)
    bits = v.data
    if width > v.dtype.bits and v.dtype.is_signed and bits >> (v.dtype.bits - 1):
        bits |= ((1 << width) - 1) ^ v.dtype.mask
    return bits & ((1 << width) - 1)


def _to_float(x: Number) -> float:
    try:
        return float(x)
    except OverflowError:
        return math.inf if x > 0 else -math.inf


# --- conversions -------------------------------------------------------------------------------------


def reinterpret(v: Value, dtype: DataType, rounding: int) -> Value:
    """A view ``x.T``: the same bits read as ``dtype``. An untyped real (``INF.f32``) is converted."""
    if is_untyped_real(v):
        if not dtype.is_float:
            raise PcodeTypeError(f"cannot view the real number {v.data} as {dtype}")
        return convert(v, dtype, rounding)
    return typed(dtype, bits_of(v, dtype.bits))


def convert(v: Value, dtype: DataType, rounding: int) -> Value:
    """Conversion by value, as a C cast or assignment does."""
    if v.dtype == dtype:
        return v
    if not dtype.is_float:
        if is_float(v):
            if dtype.kind == "b":
                raise PcodeTypeError(f"no conversion of a float to {dtype} bits of another width")
            x = float_value(v)
            if not math.isfinite(x):
                raise PcodeTypeError(f"cannot convert {x} to {dtype}")
            return from_int(dtype, math.trunc(x))
        return from_int(dtype, int_value(v))
    fmt = floats.float_format(dtype)
    if v.dtype is not None and v.dtype.is_float:
        src = floats.float_format(v.dtype)
        if floats.is_nan(v.data, src):
            return typed(dtype, floats.convert_nan(v.data, src, fmt))
    exact = exact_value(v)
    if exact is None or exact == 0:  # infinities and signed zeros: the float carries the sign
        return typed(dtype, floats.encode(float_value(v), fmt))
    return typed(dtype, floats.encode(exact, fmt, rounding))


def cast(v: Value, dtype: DataType, rounding: int) -> Value:
    """``N'T(x)``. Converts by value, except that a bit pattern of exactly the target width is reinterpreted.

    ``32'F(0xffc00000)`` and ``32'F({ S0.b16, 16'0U })`` are bit patterns; ``32'F(S0.f16)`` and the 1201-bit
    integer that V_TRIG_PREOP turns into a double are values. An untyped integer literal counts as a pattern.
    """
    pattern = (v.dtype is None and isinstance(v.data, int)) or (
        v.dtype is not None
        and v.dtype.bits == dtype.bits
        and v.dtype.is_float != dtype.is_float
        and (dtype.is_float or dtype.kind == "b")
    )
    return reinterpret(v, dtype, rounding) if pattern else convert(v, dtype, rounding)


# --- typing of binary operators ----------------------------------------------------------------------


def promoted(t: DataType) -> DataType:
    """C's integer promotion: narrow integers become 32-bit, keeping their sign."""
    if t.is_float:
        return t
    kind = "i" if t.is_signed else "u"
    return DataType(kind, max(t.bits, 32))


def operand_type(a: DataType | None, a_real: bool, b: DataType | None, b_real: bool) -> DataType | None:
    """The type both operands of an arithmetic operator are converted to, from their types (None:
    untyped) and whether an untyped one is a real number; None when both are untyped."""
    if a is None and b is None:
        return None
    if a is None or b is None:
        known, untyped_real = (b, a_real) if a is None else (a, b_real)
        if untyped_real and not known.is_float:
            return F64
        return promoted(known)
    ta, tb = promoted(a), promoted(b)
    if ta.is_float or tb.is_float:
        if ta.is_float and tb.is_float:
            return ta if (ta.bits, ta.kind == "f") >= (tb.bits, tb.kind == "f") else tb
        return ta if ta.is_float else tb
    if ta.bits != tb.bits:
        return ta if ta.bits > tb.bits else tb
    return ta if not ta.is_signed else tb


def result_type(a: Value, b: Value) -> DataType | None:
    """The type both operands are converted to; None when both are untyped."""
    return operand_type(a.dtype, is_untyped_real(a), b.dtype, is_untyped_real(b))


_INT_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "&": operator.and_, "|": operator.or_,
            "^": operator.xor}


def _c_divide(x: int, y: int, op: str) -> int:
    if y == 0:
        raise ZeroDivisionError(f"integer {op} by zero in pseudocode")
    quotient = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)  # C truncates toward zero
    return quotient if op == "/" else x - quotient * y


def arithmetic(op: str, a: Value, b: Value, rounding: int) -> Value:
    """``+ - * / % & | ^`` under the rules in the module docstring."""
    t = result_type(a, b)
    if t is None:
        if is_untyped_real(a) or is_untyped_real(b):
            return Value(None, _untyped_real_op(op, a.data, b.data))
        if op in ("/", "%"):
            return Value(None, _c_divide(a.data, b.data, op))
        return Value(None, _INT_OPS[op](a.data, b.data))
    if t.is_float:
        return float_arithmetic(op, a, b, t, rounding)
    x, y = int_value(a), int_value(b)
    return from_int(t, _c_divide(x, y, op) if op in ("/", "%") else _INT_OPS[op](x, y))


def _untyped_real_op(op: str, x: Number, y: Number) -> Number:
    if op not in _ARITHMETIC:
        raise PcodeTypeError(f"operator {op} is not defined on real numbers")
    if op == "/" and y == 0:
        return math.nan if x == 0 else math.copysign(math.inf, x) * math.copysign(1.0, y)
    return _ARITHMETIC[op](x, y)


def float_arithmetic(op: str, a: Value, b: Value, dtype: DataType, rounding: int) -> Value:
    """``+ - * /`` giving ``dtype``: typed operands converted to it, untyped ones kept exact; rounded once."""
    if op not in _ARITHMETIC:
        raise PcodeTypeError(f"operator {op} is not defined on {dtype}")
    fmt = floats.float_format(dtype)
    a, b = (v if v.dtype is None else convert(v, dtype, rounding) for v in (a, b))
    for v in (a, b):
        if v.dtype is not None and floats.is_nan(v.data, fmt):
            return typed(dtype, floats.quiet(v.data, fmt))
    qx, qy = exact_value(a), exact_value(b)
    x, y = float_value(a), float_value(b)
    if qx is None or qy is None or (op == "/" and qy == 0):
        return typed(dtype, floats.encode(_special_float_op(op, x, y), fmt))
    exact = _ARITHMETIC[op](qx, qy)
    if exact == 0:
        return typed(dtype, floats.encode(_signed_zero(op, x, y, rounding), fmt))
    return typed(dtype, floats.encode(exact, fmt, rounding))


def _special_float_op(op: str, x: float, y: float) -> float:
    """Infinities, NaN literals and division by zero, where Python's float arithmetic is IEEE's."""
    if op == "/" and y == 0.0:
        return math.nan if x == 0.0 or math.isnan(x) else math.copysign(math.inf, x) * math.copysign(1.0, y)
    return _ARITHMETIC[op](x, y)


def _signed_zero(op: str, x: float, y: float, rounding: int) -> float:
    """The sign of an exact zero result (IEEE 754 6.3)."""
    if op in ("*", "/"):
        return math.copysign(0.0, x) * math.copysign(1.0, y)
    addend = y if op == "+" else -y
    x_negative, addend_negative = math.copysign(1.0, x) < 0, math.copysign(1.0, addend) < 0
    if x == 0.0 and addend == 0.0 and x_negative == addend_negative:
        return -0.0 if x_negative else 0.0  # (+0) + (+0) and (-0) + (-0) keep their sign
    return -0.0 if rounding == floats.ROUND_TOWARD_NEGATIVE else 0.0


def compare(op: str, a: Value, b: Value, rounding: int) -> Value:
    t = result_type(a, b)
    if t is None:
        x, y = a.data, b.data
    elif t.is_float:
        x, y = (float_value(v) if v.dtype is None else float_value(convert(v, t, rounding)) for v in (a, b))
    else:
        x, y = (int_value(convert(v, t, rounding)) for v in (a, b))
    result = {
        "==": x == y,
        "!=": x != y,
        "<>": x < y or x > y,
        "<": x < y,
        "<=": x <= y,
        ">": x > y,
        ">=": x >= y,
    }[op]
    return from_bool(result)


def shift(op: str, a: Value, b: Value) -> Value:
    """``<< >>``: the result has the (promoted) type of the left operand."""
    count = int_value(b)
    if count < 0:
        raise PcodeTypeError(f"negative shift count {count}")
    x = int_value(a)
    r = x << count if op == "<<" else x >> count
    return Value(None, r) if a.dtype is None else from_int(promoted(a.dtype), r)


def power(a: Value, b: Value) -> Value:
    """``2.0F ** n``: an exact, untyped result (see the module docstring)."""
    x = float_value(a)
    if not is_float(b) and math.isfinite(x) and x != 0:
        n = max(-_MAX_EXACT_EXPONENT, min(_MAX_EXACT_EXPONENT, int_value(b)))
        return Value(None, Fraction(x) ** n)
    try:
        return Value(None, math.pow(x, float_value(b)))
    except OverflowError:
        return Value(None, math.inf)
    except ValueError:  # a negative base to a fractional power
        return Value(None, math.nan)


def negate(v: Value) -> Value:
    if v.dtype is None:
        return Value(None, -v.data)
    if v.dtype.is_float:
        return typed(v.dtype, v.data ^ floats.float_format(v.dtype).sign_bit)  # IEEE negate: flip the sign
    return from_int(promoted(v.dtype), -int_value(v))


def complement(v: Value) -> Value:
    """``~x`` keeps the width of x, as in Verilog: V_PERMLANE64 concatenates ``{ ~lane[5], lane[4 : 0] }``."""
    if v.dtype is None:
        return Value(None, ~int_value(v))
    return from_int(v.dtype, ~int_value(v))


def promote(v: Value) -> Value:
    """Unary plus: the usual promotion and nothing else."""
    return v if v.dtype is None else convert(v, promoted(v.dtype), floats.ROUND_NEAREST_EVEN)
