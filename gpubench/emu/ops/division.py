"""The division helpers whose manual text names values it never defines (manual).

Compilers divide with V_DIV_SCALE (scale the operands away from the float range's ends), an rcp
and fma refinement, V_DIV_FMAS (undo the scaling VCC asks for) and V_DIV_FIXUP (special cases).
The ISA manual's pseudocode of two of them uses names without a definition:

- V_DIV_FIXUP_F32/F64: UNDERFLOW_F32/F64 and OVERFLOW_F32/F64. The overflow branch
  (``exponent(S1) == 255``) cannot be reached: infinite and NaN S1 were handled before it. The
  underflow branch (``exponent(S2) - exponent(S1) < -150``: the quotient is below the smallest
  denormal, 2^-149) is read as a zero of the result's sign: an assumption, the manual gives no value.
  The rest is the manual's pseudocode, compiled with those names replaced.
- V_DIV_SCALE_F32/F64: ``x == DENORM`` means "x is denormal" (nonzero with a zero exponent field),
  tested in the instruction's own precision (the F32 text's ``1.0 / 64'F(S1.f32) == DENORM.f64``
  taken literally could never hold: no f32 divisor has an f64-denormal reciprocal). D0 is S0 unless
  a branch scales it, as the operation's purpose (scaling S0) implies. Written here in numpy, branch
  for branch as the manual orders them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from gpubench.compiler.backend import BackendUnsupported, PortSpec, compile_text
from gpubench.emu.ops import Unsupported
from gpubench.isa.decoder import Instruction


@dataclass(frozen=True)
class ManualOp:
    """Semantics written by hand, with a compiled op's calling convention (see CompiledOp)."""

    name: str
    fn: object
    inputs: tuple[PortSpec, ...]
    outputs: tuple[PortSpec, ...]


@dataclass(frozen=True)
class FloatFormat:
    ftype: type
    itype: type
    mantissa_bits: int
    near_max: int  # exponent difference at which the quotient nears the largest float
    tiny: int  # numerator exponent at or below which it is scaled up
    scale: int  # the power of two the scaling multiplies by


FORMATS = {32: FloatFormat(np.float32, np.uint32, 23, 96, 23, 64),
           64: FloatFormat(np.float64, np.uint64, 52, 768, 53, 128)}
QUIET_NAN = {32: 0x7FC00000, 64: 0x7FF8000000000000}
FIXUP_CONSTANTS = {"F32": ("0.0F", "INF.f32"), "F64": ("0.0", "INF")}


def semantics(inst: Instruction):
    """The division helper's semantics for ``inst``, or None if it is not one of them."""
    name = inst.idef.name.removesuffix("_E64")
    if name in ("V_DIV_SCALE_F32", "V_DIV_SCALE_F64"):
        return _div_scale(name, int(name[-2:]))
    if name in ("V_DIV_FIXUP_F32", "V_DIV_FIXUP_F64"):
        return _div_fixup(inst, name[-3:])
    return None


def _div_fixup(inst: Instruction, precision: str):
    underflow, overflow = FIXUP_CONSTANTS[precision]
    text = inst.pseudocode()
    text = re.sub(rf"(-?)OVERFLOW_{precision}", lambda m: ("-" if m.group(1) else "+") + overflow, text)
    text = text.replace(f"UNDERFLOW_{precision}", underflow)
    try:
        return compile_text(text, inst.isa.arch, inst.idef.enum, inst.idef.name)
    except BackendUnsupported as e:
        raise Unsupported(str(e)) from None


def _div_scale(name: str, bits: int) -> ManualOp:
    f = FORMATS[bits]
    exponent_mask = f.itype((1 << (bits - 1 - f.mantissa_bits)) - 1)

    def exponent(x: np.ndarray) -> np.ndarray:
        return ((x.view(f.itype) >> f.itype(f.mantissa_bits)) & exponent_mask).astype(np.int64)

    def denormal(x: np.ndarray) -> np.ndarray:
        return (exponent(x) == 0) & (x != 0)

    def ldexp(x: np.ndarray, power: int) -> np.ndarray:  # exact in f64 for f32, then one rounding
        return np.ldexp(x.astype(np.float64), power).astype(f.ftype)

    def fn(n, s0, s1, s2):
        s0, s1, s2 = (np.asarray(v, f.itype).view(f.ftype) for v in (s0, s1, s2))
        quotient, reciprocal = s2 / s1, f.ftype(1) / s1
        up, down = ldexp(s0, f.scale), ldexp(s0, -f.scale)
        nan = np.full(s0.shape, QUIET_NAN[bits], f.itype).view(f.ftype)
        branches = [  # (condition, D0, VCC), the first that holds wins
            ((s2 == 0) | (s1 == 0), nan, False),
            (exponent(s2) - exponent(s1) >= f.near_max, np.where(s0 == s1, up, s0), True),
            (denormal(s1), up, False),
            (denormal(reciprocal) & denormal(quotient), np.where(s0 == s1, up, s0), True),
            (denormal(reciprocal), down, False),
            (denormal(quotient), np.where(s0 == s2, up, s0), True),
            (exponent(s2) <= f.tiny, up, False),
        ]
        conditions = [c for c, _, _ in branches]
        d0 = np.select(conditions, [d for _, d, _ in branches], s0)
        vcc = np.select(conditions, [np.full(s0.shape, v) for _, _, v in branches], False)
        return d0.view(f.itype), vcc

    ports = tuple(PortSpec(s, bits, False, True, False) for s in ("S0", "S1", "S2"))
    return ManualOp(name, fn, ports, (PortSpec("D0", bits, False, False, True), PortSpec("VCC", 1, True, False, True)))
