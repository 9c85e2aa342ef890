"""Typed operations on compiled operands, emitting numpy code with the evaluator's typing rules.

Every operation first tries constant folding through the evaluator's own functions (``values.py``),
so constants mean exactly what they mean there. On arrays it emits explicit conversions: numpy's
promotion rules never pick a type here (every operand is converted to the C-rule result type first,
and constants are numpy scalars of that type).
"""
from __future__ import annotations

import math
from fractions import Fraction

from gpubench.compiler.backend import operands as od
from gpubench.compiler.backend.emitter import Emitter
from gpubench.compiler.backend.operands import Arr, BackendUnsupported, Const, Operand, Pow2
from gpubench.compiler.pcode import floats
from gpubench.compiler.pcode import values as ref
from gpubench.compiler.pcode.dtypes import F64, I64, U1, DataType
from gpubench.compiler.pcode.values import PcodeTypeError, Value

TRUE = Const(Value(U1, 1))
FALSE = Const(Value(U1, 0))
_NUMPY_OPS = {"+": "+", "-": "-", "*": "*", "&": "&", "|": "|", "^": "^"}
_FLOAT_OPS = {"+": "add", "-": "sub", "*": "mul", "/": "div"}
_COMPARES = {"==": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
_FMT = {DataType("f", 16): "rt.F16", DataType("f", 32): "rt.F32", DataType("f", 64): "rt.F64",
        od.BF16: "rt.BF16"}


def fmt(dtype: DataType) -> str:
    try:
        return _FMT[dtype]
    except KeyError:
        raise BackendUnsupported(f"the float type {dtype} (OCP minifloat) is not modelled") from None


class Ops:
    def __init__(self, emitter: Emitter, where: str):
        self.e = emitter
        self.where = where  # the instruction, for error messages
        self.rounding = floats.ROUND_NEAREST_EVEN

    def unsupported(self, what: str) -> BackendUnsupported:
        return BackendUnsupported(f"{self.where}: {what}")

    # --- emitting ------------------------------------------------------------------------------------

    def code(self, op: Operand, dtype: DataType | None = None) -> str:
        """Source for an operand's array, or for a constant as a numpy scalar of its container."""
        if isinstance(op, Arr):
            return op.code
        if isinstance(op, Pow2):
            raise self.unsupported("2.0 ** n used where only a product or a cast may take it")
        value = op.value
        if dtype is not None and value.dtype != dtype:
            value = self.fold(ref.convert, value, dtype, self.rounding).value
        return self.e.constant(od.const_source(value, dtype or value.dtype))

    def arr(self, code: str, dtype: DataType | None, **kw) -> Arr:
        return Arr(self.e.temp(code), dtype, **kw)

    def fold(self, fn, *args):
        """Evaluate a constant expression with the evaluator's own function."""
        try:
            return Const(fn(*args))
        except (PcodeTypeError, ZeroDivisionError, NotImplementedError, ValueError) as err:
            raise self.unsupported(f"a constant expression has no value: {err}") from None

    # --- conversions ---------------------------------------------------------------------------------

    def convert(self, op: Operand, t: DataType) -> Operand:
        """Conversion by value (values.convert): a C cast or an assignment."""
        if isinstance(op, Const):
            return self.fold(ref.convert, op.value, t, self.rounding)
        if isinstance(op, Pow2):
            if not t.is_float:
                raise self.unsupported(f"2.0 ** n converted to {t}")
            return self.arr(f"rt.pow2({op.exponent.code}, {fmt(t)})", t)
        if op.dtype == t:
            return op
        if t.is_float:
            return self._to_float(op, t)
        if op.dtype is not None and op.dtype.is_float:
            if t.kind == "b":
                raise self.unsupported(f"no conversion of a {op.dtype} value to {t} bits of another width")
            wrapped = self.arr(f"rt.float_to_int_wrapped({op.code}, {fmt(op.dtype)})", I64)
            return self.wrap_int(wrapped, t)
        if op.dtype is None and op.real:
            raise self.unsupported(f"an untyped real run-time value converted to {t}")
        return self.wrap_int(op, t)

    def _to_float(self, op: Arr, t: DataType) -> Operand:
        if op.dtype is None:
            if op.real:
                self._check_literals_fit(op, t)
                return self.arr(f"rt.narrow_f64({op.code}, {fmt(t)})", t)
            if not op.exact:
                raise self.unsupported("an untyped integer that may have wrapped is converted to a float")
        elif op.dtype.is_float:
            return self.arr(f"rt.convert_float({op.code}, {fmt(op.dtype)}, {fmt(t)}, {self.rounding})", t)
        elif od.is_object(op.dtype):
            raise self.unsupported(f"a {op.dtype} integer converted to {t}")
        return self.arr(f"rt.int_to_float({self._as_int(op)}, {fmt(t)}, {self.rounding})", t)

    def _check_literals_fit(self, op: Arr, t: DataType) -> None:
        for lit in op.literals:
            x = float(lit)
            if math.isfinite(x) and Fraction(ref.float_value(ref.convert(Value(None, lit), t, 0))) != Fraction(lit):
                raise self.unsupported(f"the literal {lit} is not exactly a {t}")

    def wrap_int(self, op: Arr, t: DataType) -> Operand:
        """An integer array (value semantics) taken modulo 2**bits into ``t`` (two's complement)."""
        src = op.dtype
        box = od.container(t)
        if self._fits(op, t):
            if od.container(src, op.real) == box:
                return Arr(op.code, t, bound=op.bound)
            return self.arr(f"{op.code}.astype({box})", t, bound=op.bound)
        if od.is_bool(t):
            return self.arr(f"({self._as_int(op)} & 1) != 0", t)
        if od.is_object(t):
            value = op.code if od.is_object(src) else f"{op.code}.astype(object)"
            if t.is_signed:
                half = 1 << (t.bits - 1)
                return self.arr(f"(({value} + {half}) & {t.mask}) - {half}", t)
            return self.arr(f"{value} & {t.mask}", t)
        if od.is_object(src):
            unsigned = od.int_container(t.bits, False)
            pattern = self.arr(f"({op.code} & {t.mask}).astype({unsigned})", DataType("b", t.bits))
            return self.from_bits(pattern, t)
        if od.is_native(t):
            return self.arr(f"{self._as_int(op)}.astype({box})", t)
        unsigned = od.int_container(t.bits, False)
        pattern = self.arr(f"{self._as_int(op)}.astype({unsigned}) & {self._k(t.mask, unsigned)}",
                           DataType("b", t.bits))
        return self.from_bits(pattern, t)

    def _as_int(self, op: Arr) -> str:
        return f"{op.code}.astype(np.uint8)" if od.is_bool(op.dtype) else op.code

    def _k(self, value: int, box: str) -> str:
        return self.e.constant(f"{box}({value})")

    @staticmethod
    def _range(op: Arr) -> tuple[int, int] | None:
        t = op.dtype
        if t is None:
            if op.bound is not None:
                return 0, op.bound
            return None if op.real or not op.exact else (-(1 << 63), (1 << 63) - 1)
        if t.is_float:
            return None
        if op.bound is not None and not t.is_signed:
            return 0, op.bound
        return (-(1 << (t.bits - 1)), (1 << (t.bits - 1)) - 1) if t.is_signed else (0, t.mask)

    def _fits(self, op: Arr, t: DataType) -> bool:
        have = self._range(op)
        if have is None:
            return False
        low, high = (-(1 << (t.bits - 1)), (1 << (t.bits - 1)) - 1) if t.is_signed else (0, t.mask)
        return low <= have[0] and have[1] <= high and (od.is_object(t) == od.is_object(op.dtype))

    def bits(self, op: Operand, width: int) -> Operand:
        """The unsigned pattern of ``op`` at ``width`` bits (values.bits_of), typed b<width>."""
        b = DataType("b", width)
        if isinstance(op, Const):
            if od.is_untyped_real_const(op):
                raise self.unsupported(f"the real number {op.value.data} has no bit pattern")
            return Const(ref.typed(b, ref.bits_of(op.value, width)))
        if isinstance(op, Pow2) or (op.dtype is None and op.real):
            raise self.unsupported("an untyped real value has no bit pattern")
        if op.dtype is not None and op.dtype.is_float:
            if op.dtype == od.BF16:
                raw = Arr(op.code, DataType("b", 16))
            else:
                raw = self.arr(f"{op.code}.view(np.uint{op.dtype.bits})", DataType("b", op.dtype.bits))
            return raw if width == op.dtype.bits else self.wrap_int(raw, b)
        if op.dtype is not None and op.dtype.kind in "ub" and op.dtype.bits == width:
            return Arr(op.code, b, bound=op.bound)
        return self.wrap_int(op, b)

    def from_bits(self, pattern: Operand, t: DataType) -> Operand:
        """Read a b<t.bits> pattern as ``t`` (values.typed)."""
        if isinstance(pattern, Const):
            return Const(ref.typed(t, pattern.value.data))
        code = pattern.code
        if t.is_float:
            if t == od.BF16:
                return Arr(code, t)
            return self.arr(f"{code}.view({od.container(t)})", t)
        if not t.is_signed:
            return Arr(code, t, bound=pattern.bound)
        box = od.container(t)
        if od.is_native(t):
            return self.arr(f"{code}.view({box})", t)
        if od.is_object(t):
            sign = 1 << (t.bits - 1)
            return self.arr(f"({code} ^ {sign}) - {sign}", t)
        sign = self._k(1 << (t.bits - 1), box)
        return self.arr(f"({code}.astype({box}) ^ {sign}) - {sign}", t)

    def reinterpret(self, op: Operand, t: DataType) -> Operand:
        """A view ``x.T`` (values.reinterpret): the same bits read as T; an untyped real is converted."""
        if isinstance(op, Const):
            return self.fold(ref.reinterpret, op.value, t, self.rounding)
        if od.is_real(op):
            if not t.is_float:
                raise self.unsupported(f"a real number viewed as {t}")
            return self.convert(op, t)
        if op.dtype == t:
            return op
        return self.from_bits(self.bits(op, t.bits), t)

    def cast(self, op: Operand, t: DataType) -> Operand:
        """``N'T(x)`` (values.cast): a bit pattern of exactly the target width is reinterpreted."""
        if isinstance(op, Const):
            return self.fold(ref.cast, op.value, t, self.rounding)
        if isinstance(op, Pow2):
            return self.convert(op, t)
        untyped_int = op.dtype is None and not od.is_real(op)
        pattern = untyped_int or (
            op.dtype is not None and op.dtype.bits == t.bits and op.dtype.is_float != t.is_float
            and (t.is_float or t.kind == "b"))
        return self.reinterpret(op, t) if pattern else self.convert(op, t)

    # --- booleans and selection ----------------------------------------------------------------------

    def truthy(self, op: Operand) -> Operand:
        if isinstance(op, Const):
            return Const(ref.from_bool(ref.truthy(op.value)))
        if isinstance(op, Pow2):
            return TRUE  # 2**n is never zero
        if od.is_bool(op.dtype):
            return op
        if op.dtype == od.BF16:
            return self.arr(f"({op.code} & np.uint16(0x7fff)) != 0", U1)
        if op.dtype is None and not op.exact:
            raise self.unsupported("the truth of an untyped integer that may have wrapped")
        test = f"({op.code} != 0)"
        return self.arr(f"{test}.astype(bool)" if od.is_object(op.dtype) else test, U1)

    def logical_and(self, a: Operand, b: Operand) -> Operand:
        if isinstance(a, Const):
            return b if a.value.data else FALSE
        if isinstance(b, Const):
            return a if b.value.data else FALSE
        return self.arr(f"{a.code} & {b.code}", U1)

    def logical_or(self, a: Operand, b: Operand) -> Operand:
        if isinstance(a, Const):
            return TRUE if a.value.data else b
        if isinstance(b, Const):
            return TRUE if b.value.data else a
        return self.arr(f"{a.code} | {b.code}", U1)

    def logical_not(self, a: Operand) -> Operand:
        if isinstance(a, Const):
            return FALSE if a.value.data else TRUE
        return self.arr(f"~{a.code}", U1)

    def select(self, mask: Operand, a: Operand, b: Operand) -> Operand:
        """``mask ? a : b`` per lane; both sides are brought to one static type first."""
        if isinstance(mask, Const):
            return a if mask.value.data else b
        if isinstance(a, Const) and isinstance(b, Const) and _identical(a.value, b.value):
            return a
        a, b, t = self.unify(a, b)
        if isinstance(a, Const) and isinstance(b, Const) and {a.value.data, b.value.data} == {0, 1} and \
                (t is None or not t.is_float):  # cond ? 1 : 0 is the condition as a number
            chosen = mask if a.value.data else self.logical_not(mask)
            if od.is_bool(t):
                return Arr(chosen.code, t)
            return self.arr(f"{chosen.code}.astype({od.container(t)})", t, bound=1, literals=frozenset({0, 1}))
        if t is None:
            real = od.is_real(a) or od.is_real(b)
            literals = frozenset(_literals(a) | _literals(b))
            bound = _bound_of(a, b)
            return self.arr(f"rt.select({mask.code}, {self.code(a, None)}, {self.code(b, None)})", None,
                            real=real, literals=literals, bound=bound,
                            exact=not any(isinstance(x, Arr) and not x.exact for x in (a, b)))
        bound = _bound_of(a, b)
        return self.arr(f"{self._where(t)}({mask.code}, {self.code(a, t)}, {self.code(b, t)})", t, bound=bound)

    @staticmethod
    def _where(t: DataType) -> str:
        return "np.where" if od.is_object(t) else "rt.select"

    def unify(self, a: Operand, b: Operand) -> tuple[Operand, Operand, DataType | None]:
        """Two values that one lane or another may produce, brought to one static type.

        Types that differ only in integer width (or an untyped constant that the other type holds
        exactly) merge into the wider type, which every consumer reads alike: C promotion makes
        values of the same sign and number equal, whatever their width."""
        ta, tb = a.dtype, b.dtype
        if isinstance(a, Pow2) or isinstance(b, Pow2):
            raise self.unsupported("2.0 ** n chosen by a condition")
        if ta == tb:
            if ta is None and od.is_real(a) != od.is_real(b):
                raise self.unsupported("a condition chooses between an untyped integer and a real")
            return a, b, ta
        if ta is None or tb is None:
            typed_op, other = (a, b) if ta is not None else (b, a)
            t = typed_op.dtype
            if isinstance(other, Const) and self._holds(t, other.value):
                converted = self.convert(other, t)
                return (typed_op, converted, t) if ta is not None else (converted, typed_op, t)
            raise self.unsupported(f"a condition chooses between a {t} and an untyped value")
        if ta.is_float or tb.is_float:
            raise self.unsupported(f"a condition chooses between a {ta} and a {tb} value")
        if ta.is_signed != tb.is_signed:
            raise self.unsupported(f"a condition chooses between a {ta} and a {tb} value")
        kind = "i" if ta.is_signed else ("u" if "u" in (ta.kind, tb.kind) else "b")
        t = DataType(kind, max(ta.bits, tb.bits))
        return self.convert(a, t), self.convert(b, t), t

    def _holds(self, t: DataType, value: Value) -> bool:
        try:
            converted = ref.convert(value, t, floats.ROUND_NEAREST_EVEN)
        except PcodeTypeError:
            return False
        if t.is_float:
            x = ref.float_value(converted)
            return (math.isnan(x) and math.isnan(float(value.data))) or x == value.data
        return ref.int_value(converted) == value.data

    # --- arithmetic ----------------------------------------------------------------------------------

    def arithmetic(self, op: str, a: Operand, b: Operand) -> Operand:
        """``+ - * / % & | ^`` (values.arithmetic)."""
        if isinstance(a, Const) and isinstance(b, Const):
            return self.fold(ref.arithmetic, op, a.value, b.value, self.rounding)
        if isinstance(a, Pow2) or isinstance(b, Pow2):
            return self._scale_by_pow2(op, a, b)
        t = od.result_type(a.dtype, od.is_real(a), b.dtype, od.is_real(b))
        if t is None:
            return self._untyped_arithmetic(op, a, b)
        if t.is_float:
            if op not in _FLOAT_OPS:
                raise self.unsupported(f"operator {op} on {t}")
            x, y = self._float_operand(a, t), self._float_operand(b, t)
            return self.arr(f"rt.{_FLOAT_OPS[op]}({self.code(x, t)}, {self.code(y, t)}, {fmt(t)})", t)
        x, y = self.convert(a, t), self.convert(b, t)
        if op in ("/", "%"):
            return self._int_divide(op, x, y, t)
        code = f"{self.code(x, t)} {_NUMPY_OPS[op]} {self.code(y, t)}"
        return self.wrap_raw(code, t) if op in "+-*" else self.arr(code, t)

    def wrap_raw(self, code: str, t: DataType) -> Operand:
        """A result computed in t's container (which may carry bits past t's width) taken modulo 2**bits."""
        if od.is_native(t):
            return self.arr(code, t)
        if od.is_object(t):
            if t.is_signed:
                half = 1 << (t.bits - 1)
                return self.arr(f"(({code}) + {half} & {t.mask}) - {half}", t)
            return self.arr(f"({code}) & {t.mask}", t)
        unsigned = od.int_container(t.bits, False)
        pattern = self.arr(f"({code}).astype({unsigned}) & {self._k(t.mask, unsigned)}", DataType("b", t.bits))
        return self.from_bits(pattern, t)

    def _float_operand(self, op: Operand, t: DataType) -> Operand:
        """An operand of a float operation of type t; untyped constants stay exact, so they must be
        representable in t (else the reference's single rounding of the exact result is not numpy's)."""
        if isinstance(op, Const) and op.dtype is None and not self._holds(t, op.value):
            raise self.unsupported(f"the constant {op.value.data} is not exactly a {t}")
        return self.convert(op, t)

    def _scale_by_pow2(self, op: str, a: Operand, b: Operand) -> Operand:
        power, other = (a, b) if isinstance(a, Pow2) else (b, a)
        if op != "*" or other.dtype is None or not other.dtype.is_float:
            raise self.unsupported(f"2.0 ** n meets {op} with a {other.dtype or 'untyped'} value")
        t = other.dtype
        return self.arr(f"rt.ldexp({self.code(other)}, {power.exponent.code}, {fmt(t)})", t)

    def _untyped_arithmetic(self, op: str, a: Operand, b: Operand) -> Operand:
        """Untyped run-time integers (literals a ternary chose) in int64: exact while they stay small."""
        if od.is_real(a) or od.is_real(b):
            raise self.unsupported(f"untyped real arithmetic ({op}) on run-time values")
        if op in ("/", "%"):
            raise self.unsupported(f"untyped integer {op} on run-time values")
        exact = all(not isinstance(x, Arr) or x.exact for x in (a, b))
        ranges = [self._range(x) if isinstance(x, Arr) else (x.value.data, x.value.data) for x in (a, b)]
        if None not in ranges and exact:
            biggest = max(abs(v) for r in ranges for v in r)
            exact = biggest < (1 << 31) or (op in "&|^" and biggest < (1 << 62))
        return self.arr(f"{self.code(a, None)} {_NUMPY_OPS[op]} {self.code(b, None)}", None, exact=exact)

    def _int_divide(self, op: str, x: Operand, y: Operand, t: DataType) -> Operand:
        if t.bits > 32 and t.is_signed or od.is_object(t):
            raise self.unsupported(f"{t} division")
        fn = "c_quotient" if op == "/" else "c_remainder"
        wide = self.arr(f"rt.{fn}({self.code(x, t)}, {self.code(y, t)})", None)
        return self.wrap_int(wide, t)

    def compare(self, op: str, a: Operand, b: Operand) -> Operand:
        """Comparisons (values.compare); ``<>`` is less-or-greater, false for NaN."""
        if isinstance(a, Const) and isinstance(b, Const):
            return self.fold(ref.compare, op, a.value, b.value, self.rounding)
        if op == "<>":
            return self.logical_or(self.compare("<", a, b), self.compare(">", a, b))
        flag = self._bool_against_bit(op, a, b)
        if flag is not None:
            return flag
        t = od.result_type(a.dtype, od.is_real(a), b.dtype, od.is_real(b))
        if t is None:
            for x in (a, b):
                if isinstance(x, Arr) and not x.exact:
                    raise self.unsupported("comparing an untyped integer that may have wrapped")
            return self.arr(f"{self.code(a, None)} {_COMPARES[op]} {self.code(b, None)}", U1)
        if t.is_float:
            x, y = (self._compared_float(v, t) for v in (a, b))
            wide = any(isinstance(v, Arr) and v.dtype == F64 for v in (x, y)) and t != F64
            x, y = (self._widened(v) if wide else v for v in (x, y))
            tt = F64 if wide else t
            return self.arr(f"{self.code(x, tt)} {_COMPARES[op]} {self.code(y, tt)}", U1)
        x, y = self.convert(a, t), self.convert(b, t)
        code = f"{self.code(x, t)} {_COMPARES[op]} {self.code(y, t)}"
        return self.arr(f"({code}).astype(bool)" if od.is_object(t) else code, U1)

    def _bool_against_bit(self, op: str, a: Operand, b: Operand) -> Operand | None:
        """``bit == 1'1U`` and friends: a one-bit value compared with 0 or 1 is itself or its negation."""
        if isinstance(a, Const):
            a, b = b, a
        if not (isinstance(a, Arr) and od.is_bool(a.dtype) and isinstance(b, Const) and op in ("==", "!=")):
            return None
        if b.dtype is not None and b.dtype.is_float or b.value.data not in (0, 1):
            return None
        return a if (op == "==") == (b.value.data == 1) else self.logical_not(a)

    def _compared_float(self, op: Operand, t: DataType) -> Operand:
        """An operand of a float comparison: a constant the type cannot hold is compared in float64,
        exactly as the reference compares Python floats; bfloat16 compares as float32 (exact)."""
        if isinstance(op, Const) and op.dtype is None:
            if self._holds(t, op.value) and t != od.BF16:
                return self.convert(op, t)
            return self.convert(op, F64)
        converted = self.convert(op, t)
        if t == od.BF16:
            return self.arr(f"rt.to_f64({self.code(converted)}, rt.BF16)", F64)
        return converted

    def _widened(self, op: Operand) -> Operand:
        if isinstance(op, Const) or op.dtype == F64:
            return self.convert(op, F64) if isinstance(op, Const) else op
        return self.arr(f"{op.code}.astype(np.float64)", F64)  # NaN payloads do not matter to a compare

    def shift(self, op: str, a: Operand, b: Operand) -> Operand:
        """``<< >>`` (values.shift): the result has the promoted type of the left operand."""
        if isinstance(a, Const) and isinstance(b, Const):
            return self.fold(ref.shift, op, a.value, b.value)
        if isinstance(b, Const):
            count = od.int_value_of(b.value)
            if count < 0:
                raise self.unsupported(f"a negative shift count {count}")
        if a.dtype is None:
            return self._untyped_shift(op, a, b)
        if a.dtype.is_float:
            raise self.unsupported(f"shifting a {a.dtype} value")
        t = od.promoted(a.dtype)
        x = self.convert(a, t)
        box_bits = od.container_bits(t)
        if isinstance(b, Const):
            count = od.int_value_of(b.value)
            if od.is_object(t):
                count_code = str(min(count, t.bits + 1))
            elif count >= box_bits:
                if op == "<<" or not t.is_signed:
                    return Const(ref.from_int(t, 0))
                count_code = self._k(box_bits - 1, od.container(t))
            else:
                count_code = self._k(count, od.container(t))
        else:
            count_code = self._shift_count(b, t)
        code = f"{self.code(x, t)} {op} {count_code}"
        return self.arr(code, t) if op == ">>" else self.wrap_raw(code, t)

    def _shift_count(self, b: Operand, t: DataType) -> str:
        """A run-time shift count in the container of t, clamped so a cast cannot wrap it to a small one."""
        if b.dtype is None or b.dtype.is_float:
            raise self.unsupported("a shift count that is not a typed integer")
        if od.is_object(t):
            return f"np.minimum({b.code}, {t.bits + 1}).astype(object)"
        box = od.container(t)
        limit = od.container_bits(t)
        high = self._range(b)
        if high is not None and high[0] >= 0 and high[1] < limit:
            return f"{b.code}.astype({box})"
        return f"np.minimum({self._as_int(b)}, {limit}).astype({box})"

    def _untyped_shift(self, op: str, a: Operand, b: Operand) -> Operand:
        if od.is_real(a):
            raise self.unsupported("shifting a real number")
        if isinstance(b, Const):
            count = od.int_value_of(b.value)
            count_code = f"np.int64({min(count, 63)})"
            count_bound = count
        else:
            if b.dtype is None or b.dtype.is_float:
                raise self.unsupported("a shift count that is not a typed integer")
            count_code = f"np.minimum({self._as_int(b)}, 64).astype(np.int64)"
            high = self._range(b)
            count_bound = high[1] if high else 1 << 64
        value_range = self._range(a) if isinstance(a, Arr) else (a.value.data, a.value.data)
        if value_range is None:
            raise self.unsupported("shifting an untyped value of unknown range")
        magnitude = max(abs(v) for v in value_range)
        exact = op == ">>" or magnitude.bit_length() + count_bound < 63
        if isinstance(a, Arr):
            exact = exact and a.exact
        return self.arr(f"{self.code(a, None)} {op} {count_code}", None, exact=exact)

    def power(self, a: Operand, b: Operand) -> Operand:
        if isinstance(a, Const) and isinstance(b, Const):
            return self.fold(ref.power, a.value, b.value)
        if isinstance(a, Const) and ref.float_value(a.value) == 2.0 and isinstance(b, Arr) and \
                b.dtype is not None and not b.dtype.is_float and b.dtype.bits <= 64:
            return Pow2(b)
        raise self.unsupported("a power other than 2.0 ** (integer)")

    def negate(self, a: Operand) -> Operand:
        if isinstance(a, Const):
            return self.fold(ref.negate, a.value)
        if isinstance(a, Pow2):
            raise self.unsupported("negating 2.0 ** n")
        if a.dtype is None:
            return self.arr(f"-{a.code}", None, real=a.real, exact=a.exact,
                            literals=frozenset(-x for x in a.literals))
        if a.dtype.is_float:
            return self.arr(f"rt.fneg({a.code}, {fmt(a.dtype)})", a.dtype)
        t = od.promoted(a.dtype)
        return self.wrap_raw(f"-{self.code(self.convert(a, t), t)}", t)

    def complement(self, a: Operand) -> Operand:
        """``~x`` keeps the width of x (values.complement)."""
        if isinstance(a, Const):
            return self.fold(ref.complement, a.value)
        if isinstance(a, Pow2) or a.dtype is None and a.real or a.dtype is not None and a.dtype.is_float:
            raise self.unsupported("~ of a non-integer")
        if a.dtype is None:
            return self.arr(f"~{a.code}", None, exact=a.exact)
        if od.is_bool(a.dtype) or od.is_native(a.dtype) or a.dtype.is_signed:
            return self.arr(f"~{a.code}", a.dtype)
        mask = str(a.dtype.mask) if od.is_object(a.dtype) else self._k(a.dtype.mask, od.container(a.dtype))
        return self.arr(f"~{a.code} & {mask}", a.dtype)

    def promote(self, a: Operand) -> Operand:
        if isinstance(a, Const):
            return self.fold(ref.promote, a.value)
        if isinstance(a, Pow2) or a.dtype is None:
            return a
        return self.convert(a, od.promoted(a.dtype))

    def concat(self, parts: list[Operand]) -> Operand:
        """``{ hi, ..., lo }``: the parts' bit patterns side by side, typed b<total>."""
        if all(isinstance(p, Const) for p in parts):
            try:
                bits, width = 0, 0
                for p in parts:
                    if p.dtype is None:
                        raise PcodeTypeError("a concatenation needs sized parts")
                    bits, width = (bits << p.dtype.bits) | p.value.data, width + p.dtype.bits
            except PcodeTypeError as err:
                raise self.unsupported(str(err)) from None
            return Const(ref.typed(DataType("b", width), bits))
        if any(p.dtype is None for p in parts):
            raise self.unsupported("a concatenation of an untyped value")
        total = sum(p.dtype.bits for p in parts)
        t = DataType("b", total)
        box = od.container(t)
        terms, offset = [], total
        for p in parts:
            width = p.dtype.bits
            offset -= width
            pattern = self.bits(p, width)
            if isinstance(pattern, Const):
                if pattern.value.data:
                    terms.append(str(pattern.value.data << offset) if box == od.OBJECT
                                 else self._k(pattern.value.data << offset, box))
                continue
            widened = pattern.code if od.container(pattern.dtype) == box else (
                f"{self._as_int(pattern)}.astype({box})")
            if offset:
                shift = str(offset) if box == od.OBJECT else self._k(offset, box)
                widened = f"({widened} << {shift})"
            terms.append(widened)
        if not terms:
            return Const(ref.typed(t, 0))
        return self.arr(" | ".join(terms), t)


def _identical(x: Value, y: Value) -> bool:
    """The same constant, telling -0.0 from 0.0 (Value's == does not)."""
    return x.dtype == y.dtype and repr(x.data) == repr(y.data)


def _literals(op: Operand) -> set:
    if isinstance(op, Const):
        return {op.value.data} if op.dtype is None else set()
    if isinstance(op, Arr):
        return set(op.literals)
    return set()


def _bound_of(a: Operand, b: Operand) -> int | None:
    """An upper bound of an unsigned choice between a and b, when both have one."""
    bounds = []
    for x in (a, b):
        if isinstance(x, Const):
            if x.dtype is not None and (x.dtype.is_float or x.dtype.is_signed):
                return None
            if not isinstance(x.value.data, int) or x.value.data < 0:
                return None
            bounds.append(x.value.data)
        elif isinstance(x, Arr) and x.bound is not None:
            bounds.append(x.bound)
        else:
            return None
    return max(bounds)
