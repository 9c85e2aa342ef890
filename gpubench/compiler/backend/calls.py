"""Calls to the pseudocode's helper functions (``isNAN``, ``fma``, ``f32_to_i32`` ...) on arrays.

Each lowering mirrors the helper of the same name in ``pcode/helpers.py``; a call whose arguments are
all constants is folded by that helper itself. A helper without a lowering here is refused at compile
time, naming it.
"""
from __future__ import annotations

from collections.abc import Callable

from gpubench.compiler.backend import operands as od
from gpubench.compiler.backend.operands import BackendUnsupported, Const, Operand
from gpubench.compiler.backend.ops import Ops, fmt
from gpubench.compiler.pcode import helpers as ref_helpers
from gpubench.compiler.pcode.dtypes import F16, F32, F64, I32, I64, U1, U32, DataType
from gpubench.compiler.pcode.values import Value, float_value

BF16 = od.BF16
Lowering = Callable[[Ops, list[Operand]], Operand]
LOWERINGS: dict[str, Lowering] = {}


def lowering(*names: str) -> Callable[[Lowering], Lowering]:
    def register(fn: Lowering) -> Lowering:
        for name in names:
            LOWERINGS[name] = fn
        return fn

    return register


def call(ops: Ops, name: str, args: list[Operand]) -> Operand:
    if name in ("nop", "s_nop"):
        return Const(Value(None, 0))
    if all(isinstance(a, Const) for a in args) and name in ref_helpers.HELPERS:
        return ops.fold(ref_helpers.call_helper, name, ops.rounding, [a.value for a in args])
    if name not in LOWERINGS:
        reason = ref_helpers.not_modelled_reason(name) or "no vectorized lowering"
        raise BackendUnsupported(f"{ops.where}: helper {name}() is not supported: {reason}")
    return LOWERINGS[name](ops, args)


def _float_arg(ops: Ops, x: Operand) -> Operand:
    """A float argument (helpers._float_arg): untyped reals are taken as doubles."""
    if x.dtype is not None and x.dtype.is_float:
        return x
    if od.is_real(x):
        return ops.convert(x, F64)
    raise ops.unsupported(f"a helper expects a float argument, got {x.dtype or 'an untyped integer'}")


def _unary_float(runtime_fn: str) -> Lowering:
    def lower(ops: Ops, args: list[Operand]) -> Operand:
        x = _float_arg(ops, args[0])
        return ops.arr(f"rt.{runtime_fn}({ops.code(x)}, {fmt(x.dtype)})", x.dtype)

    return lower


for _name, _fn in (("trunc", "trunc"), ("floor", "floor"), ("fract", "fract"), ("sqrt", "sqrt"), ("log2", "log2"),
                   ("sin", "sin"), ("cos", "cos"), ("mantissa", "mantissa"), ("cvtToQuietNAN", "quiet")):
    LOWERINGS[_name] = _unary_float(_fn)


@lowering("isNAN")
def _is_nan(ops: Ops, args: list[Operand]) -> Operand:
    x = _float_arg(ops, args[0])
    return ops.arr(f"rt.isnan({x.code}, {fmt(x.dtype)})", U1)


def _nan_kind(quiet: bool) -> Lowering:
    def lower(ops: Ops, args: list[Operand]) -> Operand:
        x = _float_arg(ops, args[0])
        f = fmt(x.dtype)
        nan = ops.arr(f"rt.isnan({x.code}, {f})", U1)  # the same code as isNAN's, so computed once
        quiet_bit = ops.arr(f"(rt.bits_of({x.code}, {f}) & {f}.quiet_bit) != 0", U1)
        return ops.logical_and(nan, quiet_bit if quiet else ops.logical_not(quiet_bit))

    return lower


LOWERINGS["isQuietNAN"] = _nan_kind(quiet=True)
LOWERINGS["isSignalNAN"] = _nan_kind(quiet=False)


@lowering("isEven")
def _is_even(ops: Ops, args: list[Operand]) -> Operand:
    x = _float_arg(ops, args[0])
    return ops.arr(f"rt.is_even({x.code}, {fmt(x.dtype)})", U1)


@lowering("sign")
def _sign(ops: Ops, args: list[Operand]) -> Operand:
    x = args[0]
    if od.is_real(x) or (x.dtype is not None and x.dtype.is_float):
        x = _float_arg(ops, x)
        return ops.arr(f"rt.sign({x.code}, {fmt(x.dtype)})", U1)
    if x.dtype is None:
        return ops.arr(f"{x.code} < 0", U1)
    top = ops.bits(x, x.dtype.bits)
    return ops.compare(">=", top, Const(Value(None, 1 << (x.dtype.bits - 1))))


@lowering("exponent")
def _exponent(ops: Ops, args: list[Operand]) -> Operand:
    x = _float_arg(ops, args[0])
    return ops.arr(f"rt.exponent({x.code}, {fmt(x.dtype)})", I32)


@lowering("abs")
def _abs(ops: Ops, args: list[Operand]) -> Operand:
    x = args[0]
    if od.is_real(x) or (x.dtype is not None and x.dtype.is_float):
        x = _float_arg(ops, x)
        return ops.arr(f"rt.fabs({x.code}, {fmt(x.dtype)})", x.dtype)
    if x.dtype is None or not x.dtype.is_signed:
        if x.dtype is None:
            return ops.arr(f"np.abs({x.code})", None, exact=x.exact)
        return x
    if od.is_object(x.dtype):
        raise ops.unsupported(f"abs of a {x.dtype} integer")
    return ops.wrap_raw(f"np.abs({x.code})", x.dtype)  # abs(INT_MIN) wraps, as from_int does


@lowering("pow")
def _pow(ops: Ops, args: list[Operand]) -> Operand:
    base, exponent = _float_arg(ops, args[0]), args[1]
    if not isinstance(base, Const) or not float_value(base.value) > 0:
        raise ops.unsupported("pow() with a base that is not a positive constant")
    if exponent.dtype is not None and exponent.dtype.is_float:
        wide = ops.arr(f"rt.to_f64({exponent.code}, {fmt(exponent.dtype)})", F64)
    else:
        wide = ops.convert(exponent, F64)
    value = float_value(base.value)
    return ops.arr(f"rt.pow_positive_base({value!r}, {ops.code(wide)}, {fmt(base.dtype)})", base.dtype)


@lowering("ldexp")
def _ldexp(ops: Ops, args: list[Operand]) -> Operand:
    x, n = _float_arg(ops, args[0]), args[1]
    if n.dtype is not None and n.dtype.is_float or od.is_real(n):
        raise ops.unsupported("ldexp() with a float exponent")
    exponent = ops.code(n, n.dtype or I64) if isinstance(n, Const) else ops._as_int(n)
    return ops.arr(f"rt.ldexp({ops.code(x)}, {exponent}, {fmt(x.dtype)})", x.dtype)


@lowering("two_over_pi_bits")
def _two_over_pi_bits(ops: Ops, args: list[Operand]) -> Operand:
    return ops.arr(f"rt.two_over_pi_bits({ops._as_int(args[0])})", F64)


def _f32_to_minifloat(kind: str) -> Lowering:
    code_type = DataType("b", ref_helpers.minifloat_width(kind))

    def lower(ops: Ops, args: list[Operand]) -> Operand:
        x = _float_arg(ops, args[0])
        fnuz = ops.code(args[1]) if len(args) > 1 else "False"
        return ops.arr(f"rt.f32_to_minifloat({x.code}, {fmt(x.dtype)}, {fnuz}, {kind!r})", code_type)

    return lower


def _f32_to_minifloat_sr(kind: str) -> Lowering:
    code_type = DataType("b", ref_helpers.minifloat_width(kind))

    def lower(ops: Ops, args: list[Operand]) -> Operand:
        x = _float_arg(ops, args[0])
        random, fnuz = ops._as_int(args[1]), ops.code(args[2]) if len(args) > 2 else "False"
        return ops.arr(f"rt.f32_to_minifloat_sr({x.code}, {fmt(x.dtype)}, {random}, {fnuz}, {kind!r})", code_type)

    return lower


for _kind in ("fp8", "bf8", *ref_helpers.SATURATING):
    LOWERINGS[f"f32_to_{_kind}"] = _f32_to_minifloat(_kind)
    LOWERINGS[f"f32_to_{_kind}_sr"] = _f32_to_minifloat_sr(_kind)


def _ieee_extremum(larger: bool) -> Lowering:
    def lower(ops: Ops, args: list[Operand]) -> Operand:
        result = _float_arg(ops, args[0])
        for other in args[1:]:
            y = _float_arg(ops, other)
            result = ops.arr(f"rt.ieee_extremum({ops.code(result)}, {ops.code(y)}, {fmt(result.dtype)}, {larger})",
                             result.dtype)
        return result

    return lower


def _f32_to_float_sr(dtype: DataType) -> Lowering:
    def lower(ops: Ops, args: list[Operand]) -> Operand:
        x = _float_arg(ops, args[0])
        return ops.arr(f"rt.f32_to_float_sr({x.code}, {fmt(x.dtype)}, {ops._as_int(args[1])}, {fmt(dtype)})", dtype)

    return lower


LOWERINGS["f32_to_f16_sr"], LOWERINGS["f32_to_bf16_sr"] = _f32_to_float_sr(F16), _f32_to_float_sr(BF16)
LOWERINGS["ieee_maximum"], LOWERINGS["ieee_minimum"] = _ieee_extremum(True), _ieee_extremum(False)


def _fp8_to_f32(kind: str) -> Lowering:
    def lower(ops: Ops, args: list[Operand]) -> Operand:
        fnuz = ops.code(args[1]) if len(args) > 1 else "False"
        return ops.arr(f"rt.fp8_to_f32({ops._as_int(args[0])}, {fnuz}, {kind!r})", F32)

    return lower


LOWERINGS["fp8_to_f32"], LOWERINGS["bf8_to_f32"] = _fp8_to_f32("fp8"), _fp8_to_f32("bf8")


@lowering("fma")
def _fma(ops: Ops, args: list[Operand]) -> Operand:
    floats_ = [a.dtype for a in args if a.dtype is not None and a.dtype.is_float]
    t = max(floats_, key=lambda d: d.bits, default=F64)
    a, b, c = (ops.convert(v, t) for v in args)
    return ops.arr(f"rt.fma({ops.code(a, t)}, {ops.code(b, t)}, {ops.code(c, t)}, {fmt(t)})", t)


@lowering("signext")
def _signext(ops: Ops, args: list[Operand]) -> Operand:
    x = args[0]
    if x.dtype is None or x.dtype.is_float:
        return ops.convert(x, I64)
    signed = ops.reinterpret(x, DataType("i", x.dtype.bits))
    return ops.convert(signed, I64)


@lowering("signext_from_bit")
def _signext_from_bit(ops: Ops, args: list[Operand]) -> Operand:
    x, width = args
    t = x.dtype or I32
    if t.is_float or t.bits > 64:
        raise ops.unsupported(f"signext_from_bit of a {t} value")
    value = ops.convert(x, I64)
    width_code = ops.code(width, I64) if isinstance(width, Const) else ops._as_int(width)
    extended = ops.arr(f"rt.signext_from_bit({ops.code(value, I64)}, {width_code})", I64)
    return ops.convert(extended, t)


@lowering("bitCount", "countbits")
def _bit_count(ops: Ops, args: list[Operand]) -> Operand:
    x = args[0]
    if x.dtype is None or x.dtype.bits > 64:
        raise ops.unsupported("bitCount of an untyped or wide value")
    pattern = ops.bits(x, x.dtype.bits)
    if od.is_bool(pattern.dtype):
        return ops.convert(pattern, U32)
    return ops.arr(f"rt.popcount({pattern.code})", U32)


def _float_to_float(dst: DataType) -> Lowering:
    def lower(ops: Ops, args: list[Operand]) -> Operand:
        x = _float_arg(ops, args[0])
        return ops.arr(f"rt.convert_float({x.code}, {fmt(x.dtype)}, {fmt(dst)}, {ops.rounding}, quieten=True)", dst)

    return lower


def _int_to_float(dst: DataType) -> Lowering:
    def lower(ops: Ops, args: list[Operand]) -> Operand:
        x = args[0]
        if od.is_real(x) or (x.dtype is not None and x.dtype.is_float):
            raise ops.unsupported("an integer conversion helper given a float")
        return ops.convert(x, dst)  # by value, as convert(int_value(x)) is

    return lower


def _float_to_int(dst: DataType, runtime_fn: str = "float_to_int_saturated") -> Lowering:
    """Truncating saturated conversions; runtime_fn="float_to_int_nearest": f32_to_u8's rounding."""
    low, high = (-(1 << (dst.bits - 1)), (1 << (dst.bits - 1)) - 1) if dst.is_signed else (0, dst.mask)

    def lower(ops: Ops, args: list[Operand]) -> Operand:
        x = _float_arg(ops, args[0])
        box = od.container(dst)
        return ops.arr(f"rt.{runtime_fn}({x.code}, {fmt(x.dtype)}, {low}, {high}, {box})", dst)

    return lower


def _int_to_int(dst: DataType, saturate: bool) -> Lowering:
    low, high = (-(1 << (dst.bits - 1)), (1 << (dst.bits - 1)) - 1) if dst.is_signed else (0, dst.mask)

    def lower(ops: Ops, args: list[Operand]) -> Operand:
        x = args[0]
        if od.is_real(x) or (x.dtype is not None and x.dtype.is_float) or (x.dtype and x.dtype.bits > 64):
            raise ops.unsupported("an integer conversion helper given a float or wide value")
        if not saturate:
            return ops.convert(x, dst)
        value = ops.convert(x, I64) if x.dtype is None or x.dtype.bits < 64 or x.dtype.is_signed else None
        if value is None:  # a u64 value: clip in uint64
            return ops.arr(f"rt.saturate_int({x.code}, {max(low, 0)}, {high}, {od.container(dst)})", dst)
        return ops.arr(f"rt.saturate_int({ops.code(value, I64)}, {low}, {high}, {od.container(dst)})", dst)

    return lower


def _to_norm(dst: DataType, low: float, scale: int) -> Lowering:
    def lower(ops: Ops, args: list[Operand]) -> Operand:
        x = _float_arg(ops, args[0])
        return ops.arr(f"rt.to_norm({x.code}, {fmt(x.dtype)}, {low!r}, {scale}, {od.container(dst)})", dst)

    return lower


_I16, _U16 = DataType("i", 16), DataType("u", 16)
LOWERINGS.update({
    "f32_to_u8": _float_to_int(DataType("u", 8), "float_to_int_nearest"),
    "f16_to_f32": _float_to_float(F32), "bf16_to_f32": _float_to_float(F32), "f32_to_f16": _float_to_float(F16),
    "f32_to_bf16": _float_to_float(BF16), "f32_to_f64": _float_to_float(F64), "f64_to_f32": _float_to_float(F32),
    "i32_to_f32": _int_to_float(F32), "u32_to_f32": _int_to_float(F32), "i32_to_f64": _int_to_float(F64),
    "u32_to_f64": _int_to_float(F64), "i16_to_f16": _int_to_float(F16), "u16_to_f16": _int_to_float(F16),
    "f32_to_i32": _float_to_int(I32), "f32_to_u32": _float_to_int(U32), "f64_to_i32": _float_to_int(I32),
    "f64_to_u32": _float_to_int(U32), "f16_to_i16": _float_to_int(_I16), "f16_to_u16": _float_to_int(_U16),
    "v_cvt_i16_f32": _float_to_int(_I16), "v_cvt_u16_f32": _float_to_int(_U16),  # helpers.py: no such instructions
    "u32_to_u16": _int_to_int(_U16, saturate=True), "i32_to_i16": _int_to_int(_I16, saturate=True),
    "i16_to_i32": _int_to_int(I32, saturate=False), "u16_to_u32": _int_to_int(U32, saturate=False),
    "i8_to_i32": _int_to_int(I32, saturate=False), "u8_to_u32": _int_to_int(U32, saturate=False),
    "i4_to_i32": _int_to_int(I32, saturate=False), "u4_to_u32": _int_to_int(U32, saturate=False),
    "f16_to_snorm": _to_norm(_I16, -1.0, 32767), "f32_to_snorm": _to_norm(_I16, -1.0, 32767),
    "f16_to_unorm": _to_norm(_U16, 0.0, 65535), "f32_to_unorm": _to_norm(_U16, 0.0, 65535),
})
