"""Where the emulator departs from AMD's pseudocode, as data beside the generated tables.

The generated ``PSEUDOCODE`` tables are AMD's text, unchanged. Real GPUs differ from that text in a
few places, and in a few others the text names values it never defines; each such place is one
`Correction` here: the instructions, the rule in words, the evidence, and the edits that turn the
manual's text into what the emulator compiles. The compiler takes its tables from
`hardware_pseudocode` (gpubench/compiler/backend/cache.py), so a correction reaches the reference
evaluator, the numpy backend and the native backend alike. A correction without edits names an
``operand_rule`` that the emulator's operand code applies (gpubench/emu/ops/valu.py): around the
pseudocode, to the instructions it lists or, with none listed, to every instruction with that field.

Edits apply in table order, each to the text the corrections before it left; every edited fragment
must occur in that text (a regenerated table that no longer has it fails loudly, not silently).
`gpubench isa info` shows an instruction's corrections, `gpubench isa coverage` counts its semantics as
"pseudocode + hardware correction".
"""
from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass

ARCHES = ("rdna3", "rdna4", "cdna")
MEASURED = ("instruction tests whose expected values were measured on real RDNA3/RDNA4/CDNA GPUs "
            "(issue 12 of this project)")


@dataclass(frozen=True)
class Correction:
    """One departure from AMD's pseudocode: what the emulator does instead, and why."""

    instructions: tuple[str, ...]  # the spec's names without an _E32/_E64 suffix; () for a field's rule
    archs: tuple[str, ...]  # the instruction sets it holds for
    rule: str  # what the hardware does, in words
    evidence: str  # how that is known: the manual's prose, compiler or driver source, a measurement
    edits: tuple[tuple[str, str], ...] = ()  # (the manual's text, the emulator's), replaced everywhere
    operand_rule: str | None = None  # an encoding field ("omod") or a result rule the operand code applies
    text: str | None = None  # pseudocode for an instruction the manual gives none (prose only) ...
    keys: tuple[tuple[str, str], ...] = ()  # ... as the (opcode enum, spec name) entries of the table it adds

    def covers(self, arch: str, name: str) -> bool:
        return arch in self.archs and base_name(name) in self.instructions


def base_name(name: str) -> str:
    return name.removesuffix("_E32").removesuffix("_E64")


def _denormal(x: str, literal_suffix: str) -> str:
    """Pseudocode for "x is a denormal of its own type": a zero exponent field, not zero."""
    return f"((exponent({x}) == 0) && ({x} != 0.0{literal_suffix}))"


def _division(bits: int) -> tuple[Correction, ...]:
    """The division helpers' corrections for f32 (bits=32) or f64: readings of the names the manual
    leaves undefined, then the hardware's VCC, scale factors and NaN quotient."""
    t, k = f"f{bits}", "F" if bits == 32 else ""
    bias, scale = (127, 64) if bits == 32 else (1023, 128)
    reciprocal = f"1.0 / 64'F(S1.{t}) == DENORM.f64" if bits == 32 else f"1.0 / S1.{t} == DENORM.{t}"
    scaled = f"D0.{t} = ldexp(S0.{t}, {scale})"
    fma = f"fma(S0.{t}, S1.{t}, S2.{t})"
    corrections = [
        Correction(
            (f"V_DIV_SCALE_F{bits}",), ARCHES,
            f"``x == DENORM`` means x is denormal, tested in the instruction's own precision; D0 is S0 unless a "
            f"branch scales it; VCC is this lane's bit of the mask",
            "the manual's text: DENORM is never defined, and the F32 text's ``1.0 / 64'F(S1.f32) == DENORM.f64`` "
            "taken literally never holds (no f32 divisor has an f64-denormal reciprocal); the operation scales "
            "S0, so a branch that does not scale leaves it; VCC is the VOP3SD lane mask it writes",
            ((f"S2.{t} / S1.{t} == DENORM.{t}", _denormal(f"S2.{t} / S1.{t}", k)),
             (reciprocal, _denormal(f"1.0{k} / S1.{t}", k)),
             (f"S1.{t} == DENORM.{t}", _denormal(f"S1.{t}", k)),
             ("VCC = 0x0LL;", f"VCC.u64[laneId] = 0;\nD0.{t} = S0.{t};"),
             ("VCC = 0x1LL;", "VCC.u64[laneId] = 1;"))),
        Correction(
            (f"V_DIV_SCALE_F{bits}",), ARCHES,
            f"VCC is set also for a zero numerator or denominator, and where one operand alone is scaled: a "
            f"denormal denominator over a numerator of biased exponent {scale + 3} or more (the denominator alone "
            f"is scaled by 2^{scale}), a tiny numerator {scale + 1} or more binades below the denominator (the "
            f"numerator alone); other denormal denominators and tiny numerators scale both operands (the "
            f"quotient unchanged) with VCC clear, as the manual says",
            f"{MEASURED}: VCC set for a zero, a denormal denominator and a tiny numerator. Which denormal "
            f"denominators and tiny numerators is inferred: V_DIV_FMAS's measured scaling (2^+-{scale}, chosen by "
            f"the quotient's exponent) undoes a one-sided scaling only when the scaled quotient lands on the "
            f"side that direction assumes; elsewhere VCC set would make LLVM's division sequence wrong "
            f"(tests/emu/test_hardware_corrections.py runs it over random magnitudes)",
            ((f"D0.{t} = NAN.{t}", f"VCC.u64[laneId] = 1;\nD0.{t} = NAN.{t}"),
             (f"{_denormal(f'S1.{t}', k)} then\n{scaled}",
              f"{_denormal(f'S1.{t}', k)} then\nif exponent(S2.{t}) >= {scale + 3} then\n"
              f"// Only scale the denominator\nVCC.u64[laneId] = 1;\nif S0.{t} == S1.{t} then\n{scaled}\nendif\n"
              f"else\n{scaled}\nendif"),
             (f"// Numerator is tiny\n{scaled}",
              f"// Numerator is tiny\nif exponent(S2.{t}) - exponent(S1.{t}) <= -{scale + 1} then\n"
              f"// Only scale the numerator\nVCC.u64[laneId] = 1;\nif S0.{t} == S2.{t} then\n{scaled}\nendif\n"
              f"else\n{scaled}\nendif"))),
        Correction(
            (f"V_DIV_FMAS_F{bits}",), ARCHES,
            f"with VCC set, the fma is scaled by 2^{scale} if S2's biased exponent is above {bias} (S2 >= 2.0), "
            f"else by 2^-{scale}; the manual says 2^{scale // 2} always",
            f"{MEASURED}: f32 2*3+1 with S2 = 1.0 gives 7*2^-64",
            ((f"D0.{t} = 2.0{k} ** {scale // 2} * {fma}",
              f"if exponent(S2.{t}) > {bias} then\nD0.{t} = 2.0{k} ** {scale} * {fma}\n"
              f"else\nD0.{t} = 2.0{k} ** -{scale} * {fma}\nendif"),)),
        Correction(
            (f"V_DIV_FIXUP_F{bits}",), ARCHES,
            f"UNDERFLOW_F{bits} is a zero, OVERFLOW_F{bits} an infinity, of the result's sign",
            f"the manual's text names UNDERFLOW_F{bits} and OVERFLOW_F{bits} without a value; the underflow branch "
            f"is a quotient below the smallest denormal, the overflow one cannot be reached (an infinite or NaN "
            f"S1 is handled before it)",
            ((f"sign_out ? -UNDERFLOW_F{bits} : UNDERFLOW_F{bits}", f"sign_out ? -0.0{k} : 0.0{k}"),
             (f"sign_out ? -OVERFLOW_F{bits} : OVERFLOW_F{bits}",
              f"sign_out ? -INF.{t} : +INF.{t}" if bits == 32 else "sign_out ? -INF : +INF"))),
    ]
    corrections.append(_nan_quotient(bits))
    return tuple(corrections)


def _nan_quotient(bits: int) -> Correction:
    """V_DIV_FIXUP_F32/F64/F16 with a NaN quotient estimate of ordinary operands: an infinity."""
    t = f"f{bits}"
    nan = f"isNAN(64'F(S0.{t}))" if bits != 64 else f"isNAN(S0.{t})"
    inf = f"sign_out ? -INF.{t} : +INF.{t}" if bits != 64 else "sign_out ? -INF : +INF"
    evidence = f"{MEASURED}: S0 = 0x7fc00000, S1 = S2 = 1.0 gives 0x7f800000"
    if bits != 32:
        evidence = ("inferred from the f32 measurement (" + evidence + "): the same fixup unit and the same "
                    "branch of the manual's text in every precision; not measured for f" + str(bits))
    return Correction(
        (f"V_DIV_FIXUP_F{bits}",), ARCHES,
        "a NaN quotient estimate (S0) of finite, nonzero operands gives an infinity of the result's sign, "
        "not a NaN", evidence,
        ((f"else\nD0.{t} = sign_out ? -abs(S0.{t}) : abs(S0.{t})",
          f"elsif {nan} then\nD0.{t} = {inf}\nelse\nD0.{t} = sign_out ? -abs(S0.{t}) : abs(S0.{t})"),))


DIV_FIXUP_LEGACY_F16 = Correction(
    ("V_DIV_FIXUP_LEGACY_F16",), ("cdna",),
    "tmp is an f16 in every branch (the NaN, infinity and zero branches write it in the type the others do, "
    "so the result is V_DIV_FIXUP_F16's) and, as V_DIV_FIXUP_F16, a NaN quotient estimate of ordinary operands "
    "gives an infinity of the result's sign",
    "the manual's text assigns tmp an f64 in some branches and an f16 in others and then reads tmp.f16; "
    "V_DIV_FIXUP_F16's text (the same fixup with D0.f16) writes each branch's value as an f16. The NaN "
    "quotient: inferred from the f32 measurement, as for V_DIV_FIXUP_F16 (LLVM's V_DIV_FIXUP_F16 on GFX9 is "
    "this opcode)",
    (("tmp = cvtToQuietNAN(64'F(S2.f16))", "tmp = 16'F(cvtToQuietNAN(64'F(S2.f16)))"),
     ("tmp = cvtToQuietNAN(64'F(S1.f16))", "tmp = 16'F(cvtToQuietNAN(64'F(S1.f16)))"),
     ("tmp = sign_out ? -INF : +INF", "tmp = sign_out ? -INF.f16 : +INF.f16"),
     ("tmp = sign_out ? -0.0 : 0.0", "tmp = sign_out ? -16'0.0 : 16'0.0"),
     ("else\ntmp = sign_out ? -abs(S0.f16) : abs(S0.f16)",
      "elsif isNAN(64'F(S0.f16)) then\ntmp = sign_out ? -INF.f16 : +INF.f16\nelse\n"
      "tmp = sign_out ? -abs(S0.f16) : abs(S0.f16)")))


def _trigonometry(bits: int) -> Correction:
    t = f"f{bits}"
    return Correction(
        (f"V_SIN_F{bits}", f"V_COS_F{bits}"), ARCHES,
        "the input is in revolutions and is reduced to its fraction (toward zero, exact) before the "
        "2*PI scaling, so large inputs keep their precision; the manual scales the whole input in "
        f"{t} first",
        f"LLVM's ConstantFolding.cpp folds llvm.amdgcn.sin/cos as sin(2*pi*x) with exact results for "
        f"quarter-integer x (the argument counts revolutions); ROCm's device-libs multiply radians by 1/(2*pi) "
        f"before the instruction; {MEASURED}: sin of 132000.0 revolutions is about 0 (-1.2e-12), the "
        f"manual's f32 scaling gives 0.0394. CDNA (GFX9) specifies only [-256, 256]: LLVM reduces there first",
        ((f"(S0.{t} * {bits}'F(PI * 2.0))", f"((S0.{t} - trunc(S0.{t})) * {bits}'F(PI * 2.0))"),))


TRIG_PREOP = Correction(
    ("V_TRIG_PREOP_F64",), ARCHES,
    "the result is the 53 bits of 2/pi's fraction that start `shift` bits after the binary point "
    "(floor(frac(2/pi * 2^shift) * 2^53)), scaled by 2^(-53 - shift) (+128 for S0's exponent >= 1968); "
    "0 from shift 1120 on; a NaN S0 gives S0 quieted",
    "the manual's text shifts the 1201-bit constant left and keeps its low 53 bits, which read literally "
    "are 0 for any shift above 0; its comments (\"bits brought into the whole part\") and LLVM's fold of "
    "llvm.amdgcn.trig.preop (AMDGPUInstCombineIntrinsic.cpp: a 37-word 2/pi table, \"Return 0 for outbound "
    "segment (hardware behavior)\", a NaN folds to itself quieted) read bits from the top. The bits of 2/pi "
    "are computed (helpers.two_over_pi: Machin's formula in integers), not typed",
    (("result = 64'F((1201'B(2.0 / PI)[1200 : 0] << shift.u32) & 1201'0x1fffffffffffff);",
      "result = two_over_pi_bits(shift.u32);"),
     ("D0.f64 = ldexp(result, scale)",
      "if isNAN(S0.f64) then\nD0.f64 = cvtToQuietNAN(S0.f64)\nelse\nD0.f64 = ldexp(result, scale)\nendif")))

CVT_PK_U8 = Correction(
    ("V_CVT_PK_U8_F32",), ARCHES,
    "f32_to_u8 rounds to nearest (ties to even) after clamping to [0, 255]; a NaN gives 0 (the manual names "
    "f32_to_u8 without saying how it rounds)",
    "inferred, not measured here: a library of bit-exact RDNA4 ALU models (goc_rdna4_v_cvt_pk_u8_f32: "
    "\"nearest-even rounding, saturation to [0,255] and NaN-to-zero\"), and shadPS4's \"Fix V_CVT_PK_U8_F32 "
    "rounding, saturation and byte select\" (PR 5194); tinygrad's emulator truncates instead. The byte "
    "select S1[1:0] and the untouched bytes of S2 are the manual's text",
    operand_rule="f32_to_u8")

CVT_PKACCUM_U8 = Correction(
    ("V_CVT_PKACCUM_U8_F32",), ("cdna",),
    "the byte S1[1:0] names of D0 gets f32_to_u8(S0) (rounded as V_CVT_PK_U8_F32's), the other bytes kept: the "
    "manual's run-time bit range written as a mask and a shift",
    "the manual's text (D0.u32[bit + 7U : bit] = ...), rewritten in the operations the compiler has for a "
    "position known only at run time; the rounding: V_CVT_PK_U8_F32's correction above",
    (("D0.u32[bit + 7U : bit] = 32'U(f32_to_u8(S0.f32))",
      "D0.u32 = ((D0.u32 & ~(0xffU << bit)) | (32'U(f32_to_u8(S0.f32)) << bit))"),))


def _interpolation() -> tuple[Correction, ...]:
    """VINTERP (RDNA3, RDNA4): the pseudocode reads its parameters from other lanes of the quad
    (VGPR[...][SRC0]); the operand code gathers them (valu.py, operand rule "vinterp"), so the text reads
    S0 and S2."""
    rule = ("S0 is src0's VGPR in lane {lane} of the lane's quad{p0}, read whatever EXEC says; neg and op_sel act "
            "on the values read as in VOP3")
    evidence = ("the manual's text (VGPR[(laneId & ~3) + 1][SRC0] ...), rewritten as operands the emulator "
                "gathers; the modifiers: LLVM's VINTERP operand syntax (neg, op_sel on the f16 sources and "
                "destination)")
    p10 = Correction(
        ("V_INTERP_P10_F32", "V_INTERP_P10_F16_F32", "V_INTERP_P10_RTZ_F16_F32"), ("rdna3", "rdna4"),
        rule.format(lane=1, p0=", S2 src2's VGPR in lane 0 of the quad"), evidence,
        (("VGPR[(laneId.u32 & 0xfffffffcU) + 1U][SRC0.u32]", "S0"),
         ("VGPR[laneId.u32 &\n0xfffffffcU][SRC2.u32]", "S2")),
        operand_rule="vinterp")
    p2 = Correction(
        ("V_INTERP_P2_F32", "V_INTERP_P2_F16_F32", "V_INTERP_P2_RTZ_F16_F32"), ("rdna3", "rdna4"),
        rule.format(lane=2, p0=""), evidence, (("VGPR[(laneId.u32 & 0xfffffffcU) + 2U][SRC0.u32]", "S0"),),
        operand_rule="vinterp")
    rtz_evidence = ("the name and LLVM's operand types (v_interp_p2_rtz_f16_f32 has a 16-bit destination); the "
                    "manual gives the _RTZ forms the text of the forms without it (inferred: rounding as "
                    "V_CVT_PK_RTZ_F16_F32 does it, ROUND_MODE set around the operation)")

    def toward_zero(text: str) -> str:
        return f"prev_mode = ROUND_MODE;\nROUND_MODE = ROUND_TOWARD_ZERO;\n{text};\nROUND_MODE = prev_mode"

    p10_rtz = Correction(
        ("V_INTERP_P10_RTZ_F16_F32",), ("rdna3", "rdna4"), "rounds toward zero whatever MODE says", rtz_evidence,
        (("D0.f32 = fma(32'F(S0.f16), S1.f32, 32'F(S2.f16))",
          toward_zero("D0.f32 = fma(32'F(S0.f16), S1.f32, 32'F(S2.f16))")),))
    p2_rtz = Correction(
        ("V_INTERP_P2_RTZ_F16_F32",), ("rdna3", "rdna4"),
        "rounds toward zero whatever MODE says, and writes an f16 (as V_INTERP_P2_F16_F32), not the f32 its "
        "text writes", rtz_evidence,
        (("D0.f32 = fma(32'F(S0.f16), S1.f32, S2.f32)",
          toward_zero("D0.f16 = 16'F(fma(32'F(S0.f16), S1.f32, S2.f32))")),))
    return p10, p2, p10_rtz, p2_rtz


def _fp8_packing(kind: str) -> Correction:
    name = f"V_CVT_PK_{kind.upper()}_F32"
    return Correction(
        (name,), ("rdna4", "cdna"),
        f"f32_to_{kind} rounds to nearest even and does not saturate: an overflow or an infinity is "
        f"{'the NaN 0x7f' if kind == 'fp8' else 'an infinity'} in the OCP format (gfx950, gfx12) and the NaN 0x80 "
        "in the FNUZ one (gfx942; FP8_FNUZ says which: gpubench/compiler/pcode/minifloat_views.py); a NaN is the "
        "format's NaN; denormals are kept; the destination is this lane's D0 (its other half kept). The clamp bit "
        "(saturation) is not emulated",
        "OCP 8-bit FP spec and LLVM's FNUZ formats for the encodings; rounding and overflow: measurements on "
        "gfx942/gfx950 in ROCm/rocm-systems issue 9556 (v_cvt_pk_fp8_f32 448+18 -> 0x7f NaN, bf8 57344+4096 -> "
        "+inf: \"those instructions round; they do not saturate\"); the manual's VGPR[laneId][VDST] is D0",
        (("VGPR[laneId][VDST.u32][15 : 0].b16", "D0[15 : 0].b16"),
         ("VGPR[laneId][VDST.u32][31 : 16].b16", "D0[31 : 16].b16")))


def _fp8_unpacking(kind: str) -> tuple[Correction, ...]:
    names = (f"V_CVT_F32_{kind.upper()}", f"V_CVT_PK_F32_{kind.upper()}")
    decode = Correction(
        names, ("rdna4",),
        f"{kind}_to_f32 is exact (denormals, the OCP infinity and NaN codes kept as f32 values); the source "
        "register is S0 in this lane, whichever operand src0 names",
        "the OCP 8-bit FP spec (gfx12's formats); the manual's VGPR[laneId][SRC0] is this lane's src0",
        (("VGPR[laneId][SRC0.u32]", "S0"),))
    half = Correction(
        names[1:], ("rdna4",),
        "the 16-bit source's half is chosen once, by the operand code (op_sel[0] in VOP3, the .h register in VOP1), "
        "as for every 16-bit operand",
        "LLVM's operand types (a 16-bit src0) and encodings: op_sel:[1,0] sets OPSEL[0]; the manual's text selects "
        "the half itself",
        (("tmp = OPSEL[0].u1 ? S0[31 : 16] : S0[15 : 0];", "tmp = S0[15 : 0];"),))
    return decode, half


def _stochastic_16_bit(kind: str) -> Correction:
    """gfx950's V_CVT_SR_F16_F32 / V_CVT_SR_BF16_F32."""
    random = "S1[31 : 19].u32" if kind == "f16" else "S1[31 : 16].u32"
    view = kind if kind == "f16" else "bf16"
    return Correction(
        (f"V_CVT_SR_{kind.upper()}_F32",), ("cdna",),
        f"f32_to_{kind}_SR (named f32_to_{kind}_sr as well) rounds as V_CVT_SR_FP8_F32 does: S1's top bits "
        f"({random[:-4]}) added to |S0| as that fraction of the {kind} quantum at |S0|, then truncated; an "
        "overflow is an infinity, a NaN quieted; the half OPSEL[3] names is written in this lane's D0",
        "inferred, not measured: the manual names the helper without defining it. AMD's host model of gfx950's "
        "stochastic conversions (amd_hip_ocp_host.hpp, from_float_sr: the seed shifted right by 9 + M, added "
        "below the kept mantissa bits, then truncated) for the bits; the manual's VGPR[laneId][VDST] is D0",
        ((f"f32_to_{kind}_SR(S0.f32, S1.u32)", f"f32_to_{kind}_sr(S0.f32, {random})"),
         (f"f32_to_{kind}_sr(S0.f32, S1.u32)", f"f32_to_{kind}_sr(S0.f32, {random})"),
         (f"VGPR[laneId][VDST.u32][15 : 0].{view}", f"D0[15 : 0].{view}"),
         (f"VGPR[laneId][VDST.u32][31 : 16].{view}", f"D0[31 : 16].{view}")))


def _sdwa_fp8_unpacking(kind: str) -> tuple[Correction, ...]:
    """CDNA's V_CVT_F32_FP8/BF8 and V_CVT_PK_F32_FP8/BF8: the byte or word is SDWA's src0_sel."""
    chain = (f"if SDWA_SRC0_SEL == BYTE1.b3 then\nD0.f32 = {kind}_to_f32(S0[15 : 8].{kind})\n"
             f"elsif SDWA_SRC0_SEL == BYTE2.b3 then\nD0.f32 = {kind}_to_f32(S0[23 : 16].{kind})\n"
             f"elsif SDWA_SRC0_SEL == BYTE3.b3 then\nD0.f32 = {kind}_to_f32(S0[31 : 24].{kind})\nelse\n"
             f"// BYTE0 implied\nD0.f32 = {kind}_to_f32(S0[7 : 0].{kind})\nendif")
    rule = ("the SDWA form's src0_sel {part} is selected by the operand code, as for every SDWA source, so the text "
            "reads S0's low {part}; the e32 and e64 forms, which have no selection, read {part} 0; "
            f"{kind}_to_f32 is exact in the target's format (FNUZ on gfx942, OCP on gfx950)")
    evidence = ("the manual's text selects by SDWA_SRC0_SEL itself ({part}0 implied without SDWA); LLVM encodes the "
                "{part} as the SDWA src0_sel (v_cvt_f32_fp8_sdwa v1, v2 src0_sel:BYTE_2) and accepts no op_sel on "
                "the e64 form")
    return (Correction((f"V_CVT_F32_{kind.upper()}",), ("cdna",), rule.format(part="byte"),
                       evidence.format(part="BYTE"), ((chain, f"D0.f32 = {kind}_to_f32(S0[7 : 0].{kind})"),)),
            Correction((f"V_CVT_PK_F32_{kind.upper()}",), ("cdna",), rule.format(part="word"),
                       evidence.format(part="WORD"),
                       (("tmp = SDWA_SRC0_SEL[1 : 0] == WORD1.b2 ? S0[31 : 16] : S0[15 : 0];", "tmp = S0[15 : 0];"),)))


def _stochastic_fp8(kind: str) -> Correction:
    random = "S1[31 : 12].u32" if kind == "fp8" else "S1[31 : 11].u32"
    return Correction(
        (f"V_CVT_SR_{kind.upper()}_F32",), ("rdna4", "cdna"),
        f"S1's top bits ({random[:-4]}) are added to |S0| as that fraction of the {kind} quantum at |S0|, with the "
        "carry into the exponent, and the sum is truncated to the format (f32_to_fp8_sr: helpers.py); an overflow, "
        "NaN or infinity is encoded as V_CVT_PK_F32's conversion encodes it (no saturation), in the target's format "
        "(OCP on gfx950/gfx12, FNUZ on gfx942); the byte OPSEL[3:2] names is written in this lane's D0, the "
        "others kept. The manual adds the bits to the 23-bit mantissa field alone (a carry wraps) and then "
        "rounds to nearest even",
        "inferred, not measured: stochastic rounding that rounds to nearest after adding the random bits would "
        "be biased by half a quantum; AMD's host model of gfx950's stochastic conversions (amd_hip_ocp_host.hpp, "
        "from_float_sr: the seed shifted right by 9 + M, the manual's S1 bits, added below the kept mantissa "
        "bits, a carry into the exponent, then truncation, also in the denormal range) and ROCm's older "
        "cast_to_f8 with stoch (hip_f8_impl.h, MIOpen) agree; the manual's VGPR[laneId][VDST] is D0",
        ((f"s = sign(S0.f32);\ne = exponent(S0.f32);\nm = 23'U(32'U(23'B(mantissa(S0.f32))) + {random});\n"
          "tmp = float32(s, e, m);\n", ""),
         (f"f32_to_{kind}(tmp.f32)", f"f32_to_{kind}_sr(S0.f32, {random}, FP8_FNUZ)"),
         ("VGPR[laneId][VDST.u32]", "D0")))


def _scaled_decodes(forms: tuple[str, ...], selection: tuple[tuple[str, str], ...], rule: str,
                    evidence: str, kinds: tuple[str, ...] = ("FP8", "BF8")) -> Correction:
    """gfx950's V_CVT_SCALEF32_<form>_FP8/BF8, the element byte or word taken (and the result placed) as the
    ``selection`` edits say."""
    return Correction(
        tuple(f"V_CVT_SCALEF32_{form}_{kind}" for kind in kinds for form in forms), ("cdna",),
        f"the source register is S0 in this lane; {rule}; {{fp8,bf8,fp4}}_to_{{f32,f16,bf16}}_scale(x, scale) is "
        "x's exact OCP value times 2^(scale - 127), rounded once to the destination type in the current mode, and NaN "
        "for the scale 0xFF (gpubench/compiler/pcode/minifloat_views.py)",
        "the manual names the helpers without defining them; the OCP Microscaling Formats spec v1.0 defines E8M0 "
        "(2^(e - 127), 0xFF NaN) and AMD's host model of gfx950's scaled conversions (amd_hip_ocp_host.hpp) "
        f"applies the scale to the decoded value; the manual's VGPR[laneId][SRC0] is this lane's src0; {evidence}",
        (("VGPR[laneId][SRC0.u32]", "S0"), *selection))


def _placed(position: str, width: int, view: str, value: str) -> tuple[str, str]:
    """The manual's write of ``value`` to ``width`` bits of this lane's VDST from a run-time bit ``position``,
    as a masked write of D0 (its other bits kept)."""
    return (f"VGPR[laneId][VDST.u32][{position} + {width - 1} : {position}].{view} = {value}",
            f"D0.u32 = ((D0.u32 & ~(0x{(1 << width) - 1:x}U << {position}.u32)) | (32'U({value}) << {position}.u32))")


def _scaled_encodes(forms: tuple[str, ...], placement: tuple[str, str], what: str) -> Correction:
    """gfx950's V_CVT_SCALEF32_<form>: f32/f16/bf16 to FP8/BF8/FP4 with an E8M0 scale, the code (or the pair
    of codes) written where OPSEL says."""
    return Correction(
        tuple(f"V_CVT_SCALEF32_{form}" for form in forms), ("cdna",),
        f"{what} goes to the bits OPSEL names of this lane's D0, its other bits kept; "
        "{f32,f16,bf16}_to_{fp8,bf8,fp4}(_sr)_scale(x, [random,] scale) is x / 2^(scale - 127) (exact; NaN for the "
        "scale 0xFF) rounded to the OCP format: to nearest even, or with the SR forms S1's top 23 - M bits added as "
        "that fraction of the quantum and truncated (as V_CVT_SR_FP8_F32), a packed SR form's second element "
        "taking v_prng_b32 of the word (the manual's text); FP8/BF8 do not saturate (an overflow is E4M3's NaN, "
        "E5M2's infinity, as V_CVT_PK_FP8_F32), FP4 (no infinity or NaN) does, and an infinity or a NaN is its "
        "largest magnitude of the value's sign (gpubench/compiler/pcode/minifloat_views.py, helpers.py)",
        "the manual names the helpers without defining them; the OCP Microscaling Formats spec v1.0 quantizes an "
        "element as the value divided by the E8M0 scale 2^(e - 127) and leaves the conversion of an infinity or a "
        "NaN to FP6/FP4 to the implementation (the largest magnitude here: inferred, not measured); the "
        "rounding, overflow and stochastic rules are those of the unscaled conversions above; the manual writes "
        "VDST's bits at an offset known only at run time (OPSEL[3] * 16 or OPSEL[3:2] * 8), the emulator D0 "
        "masked and shifted",
        (placement,))


def _ieee_extrema() -> tuple[Correction, ...]:
    """gfx950's V_MAXIMUM3_F32 / V_MINIMUM3_F32 / V_PK_MAXIMUM3_F16 / V_PK_MINIMUM3_F16 call instructions
    CDNA does not have."""
    calls = {"V_MAXIMUM3_F32": "v_maximum_f32(", "V_MINIMUM3_F32": "v_minimum_f32(",
             "V_PK_MAXIMUM3_F16": "v_maximum3_f16(", "V_PK_MINIMUM3_F16": "v_minimum3_f16("}
    return tuple(Correction(
        (name,), ("cdna",),
        f"{call[:-1]} is the IEEE 754-2019 {'maximum' if 'MAX' in name else 'minimum'} (NaN-propagating, -0 below +0) "
        "of its operands, left to right (helpers.ieee_maximum / ieee_minimum)",
        "the manual's text calls an instruction CDNA has no pseudocode for; RDNA4's V_MAXIMUM_F32 / V_MINIMUM_F32 "
        "(and _F16) text defines it (a signaling NaN quieted first, then a quiet NaN, then the IEEE order) and "
        "LLVM selects these gfx950 instructions for llvm.maximum / llvm.minimum (IEEE 754-2019)",
        ((call, f"ieee_{'maximum' if 'MAX' in name else 'minimum'}("),)) for name, call in calls.items())


def _legacy_transcendental(name: str, text: str, rule: str, observed: str) -> Correction:
    """GFX9's V_EXP_LEGACY_F32 / V_LOG_LEGACY_F32: no text in the CDNA manuals (their e64 forms take it
    from the e32 one, as every CDNA VOP1 operation's)."""
    return Correction(
        (name,), ("cdna",), rule,
        "the CDNA3/CDNA4 manuals give no pseudocode (\"with legacy semantics\"); the opcodes are GCN 1.1's, "
        f"whose behaviour CLRX's GCN documentation describes (GcnInstrsVop1.md: {observed}; inferred to hold on "
        "GFX9, not measured here). How the approximation differs from the non-legacy form (\"slightly different "
        "results\") is not documented: the emulator computes the float64 value rounded once, as for every "
        "transcendental",
        text=text, keys=(("VOP1Op", f"{name}_E32"),))


LEGACY_TRANSCENDENTALS = (
    _legacy_transcendental(
        "V_EXP_LEGACY_F32", "if S0.f32 < -126.0F then\nD0.f32 = 0.0F\nelse\nD0.f32 = pow(2.0F, S0.f32)\nendif",
        "D0 = 2^S0, and 0 for S0 below -126.0 whatever MODE says (no denormal results)",
        "\"for values smaller than -126.0 always returns 0 regardless floatmode in MODE register\""),
    _legacy_transcendental(
        "V_LOG_LEGACY_F32",
        "if exponent(S0.f32) == 0 then\n// a zero or a denormal, flushed whatever MODE says\nD0.f32 = -INF.f32\n"
        "elsif S0.f32 < 0.0F then\nD0.u32 = 0xffc00000U\nelse\nD0.f32 = log2(S0.f32)\nendif",
        "D0 = log2(S0); a denormal is read as a zero (-inf) whatever MODE says; a negative S0 gives the NaN "
        "0xffc00000 (negative)",
        "\"doesn't handle denormalized values regardless FLOAT MODE register setup\", \"if SRC0 is negative then "
        "store -NaN\""),
)


# GFX9's 16-bit VALU operations that clear the high half of their VGPR (LLVM's zeroesHigh16BitsOfDest, in
# the spec's names: LLVM's V_MAD_F16/U16/I16, V_FMA_F16 and V_DIV_FIXUP_F16 are GFX9's *_LEGACY_* opcodes).
GFX9_ZEROING_16_BIT = (
    "V_CVT_F16_F32", "V_CVT_F16_U16", "V_CVT_F16_I16", "V_RCP_F16", "V_RSQ_F16", "V_SQRT_F16", "V_LOG_F16",
    "V_EXP_F16", "V_SIN_F16", "V_COS_F16", "V_FLOOR_F16", "V_CEIL_F16", "V_TRUNC_F16", "V_RNDNE_F16", "V_FRACT_F16",
    "V_FREXP_MANT_F16", "V_FREXP_EXP_I16_F16", "V_LDEXP_F16", "V_LSHLREV_B16", "V_LSHRREV_B16", "V_ASHRREV_I16",
    "V_ADD_U16", "V_SUB_U16", "V_SUBREV_U16", "V_MUL_LO_U16", "V_ADD_F16", "V_SUB_F16", "V_SUBREV_F16", "V_MUL_F16",
    "V_MAX_F16", "V_MIN_F16", "V_MAX_U16", "V_MIN_U16", "V_MAX_I16", "V_MIN_I16", "V_MAD_LEGACY_F16",
    "V_MAD_LEGACY_U16", "V_MAD_LEGACY_I16", "V_FMA_LEGACY_F16", "V_DIV_FIXUP_LEGACY_F16")

CORRECTIONS: tuple[Correction, ...] = (
    *_division(32), *_division(64), _trigonometry(32), _trigonometry(16), _nan_quotient(16), TRIG_PREOP, CVT_PK_U8,
    CVT_PKACCUM_U8, DIV_FIXUP_LEGACY_F16,
    *_interpolation(), _fp8_packing("fp8"), _fp8_packing("bf8"),
    *_fp8_unpacking("fp8"), *_fp8_unpacking("bf8"), _stochastic_fp8("fp8"), _stochastic_fp8("bf8"),
    *_sdwa_fp8_unpacking("fp8"), *_sdwa_fp8_unpacking("bf8"), *_ieee_extrema(),
    _stochastic_16_bit("f16"), _stochastic_16_bit("bf16"), _scaled_decodes(
        ("F32",), (("src = S0[srcbyte + 7 : srcbyte]", "srcbits = S0.u32 >> srcbyte.u32;\nsrc = srcbits[7 : 0]"),),
        "the byte OPSEL[1:0] names is S0 shifted right by its offset (the text slices at an offset known only at "
        "run time)", "LLVM encodes the byte as op_sel[0] + 2 * op_sel[1] (gfx950_asm_vop3.s: op_sel:[0,1,0])"),
    _scaled_decodes(
        ("PK_F32", "PK_F16", "PK_BF16"),
        (("src = S0[srcbyte + 7 : srcbyte]", "srcbits = S0.u32 >> srcbyte.u32;\nsrc = srcbits[7 : 0]"),),
        "the byte of two FP4 elements OPSEL[1:0] names is S0 shifted right by its offset (the text slices at an "
        "offset known only at run time)", "LLVM encodes the byte as op_sel[0] + 2 * op_sel[1]", ("FP4",)),
    _scaled_decodes(
        ("PK_F32", "PK_F16", "PK_BF16"), (("src = S0[srcword + 15 : srcword]", "src = S0[15 : 0]"),),
        "the 16-bit source's half is chosen once, by the operand code (op_sel[0]), as for every 16-bit operand",
        "LLVM's operand types (a 16-bit src0) and op_sel:[1,0,0] for the high word; the manual's text selects "
        "the half itself"),
    _scaled_decodes(
        ("F16",), (("src = S0[srcbyte + 7 : srcbyte]", "srcbits = S0.u32 >> srcbyte.u32;\nsrc = srcbits[7 : 0]"),
                   ("// OPSEL[3] controls destination hi/lo\nD0 = tmp.b32",
                    "if OPSEL[3].u1 then\nD0[31 : 16].f16 = tmp\nelse\nD0[15 : 0].f16 = tmp\nendif")),
        "the byte OPSEL[1:0] names is S0 shifted right by its offset, and the f16 result is written to the half "
        "of D0 OPSEL[3] names, the other half kept", "the manual's comment \"OPSEL[3] controls destination "
        "hi/lo\" beside a 32-bit write; LLVM encodes the byte as op_sel[0] + 2 * op_sel[1] and the half as "
        "the third op_sel bit (op_sel:[0,0,1])"),
    _scaled_encodes(tuple(f"PK_{kind}_{src}" for kind in ("FP8", "BF8") for src in ("F32", "F16", "BF16")),
                    _placed("dstword", 16, "b16", "{ tmp1, tmp0 }"), "the pair of 8-bit codes"),
    *(_scaled_encodes(tuple(f"SR_{kind}_{src}" for src in ("F32", "F16", "BF16")),
                      _placed("dstbyte", 8, kind.lower(), "tmp"), "the 8-bit code") for kind in ("FP8", "BF8")),
    _scaled_encodes(tuple(f"{sr}PK_FP4_{src}" for sr in ("", "SR_") for src in ("F32", "F16", "BF16")),
                    _placed("dstbyte", 8, "b8", "{ tmp1, tmp0 }"), "the byte of two 4-bit codes"),
    Correction(
        (), ("rdna3", "cdna"),
        "omod (the x2, x4, /2 output modifier) is ignored while MODE.IEEE is set",
        f"LLVM's SIFoldOperands.cpp: \"omod is ignored by hardware if IEEE bit is enabled\" (it folds a "
        f"multiply into omod only without IEEE mode); {MEASURED}: v_add_f32 3.0 + 1.0 omod:2 gives 4.0. "
        f"RDNA4 has no IEEE mode",
        operand_rule="omod"),
    Correction(
        GFX9_ZEROING_16_BIT, ("cdna",),
        "a 16-bit result written to the low half of a VGPR clears the high half (bits 31:16); the manual's "
        "``D0.u16 = ...`` keeps it (as RDNA does)",
        "LLVM's GCNSubtarget::zeroesHigh16BitsOfDest (AMDGPUSubtarget.cpp), \"mostly derived from experimentation\": "
        "these opcodes zero the high bits through GFX9 (CDNA is GFX9), and LLVM drops the v_and_b32 0xffff "
        "that would clear them (SIFoldOperands); V_MAC/V_MADAK/V_MADMK/V_FMAC_F16 and the op_sel forms keep them "
        "on GFX9. tinygrad's test_max_pool2d_ceil_mode_output_size_reduce_by_one on gfx942/gfx950 reads such a "
        "register as 32 bits",
        operand_rule="zero-high-half"),
    Correction(
        (), ("rdna3",),
        "DPP16 control 0x142 (GFX9's row_bcast:15) executes on gfx11 although LLVM rejects it from GFX10: every "
        "lane reads lane 0 of its own row (lanes 0, 16, 32, 48 are the sources; like row_share:0), BOUND_CTRL and "
        "the row/bank masks as for any DPP16 control; the other GFX9-only controls stay unemulated",
        f"{MEASURED}: the hardware executes row_bcast15 on gfx11 (lanes 0, 16, 32, 48 with bound_ctrl). Which "
        f"lane each lane reads is inferred: tinygrad's emulator (test/mockgpu/amd/emu.py, row_bcast: the row's "
        f"first lane), which passes those measured tests; RDNA3's manual lists no 0x142 control",
        operand_rule="dpp"),
    *LEGACY_TRANSCENDENTALS,
)


def of(arch: str, name: str) -> tuple[Correction, ...]:
    """The corrections that name the instruction (not the rules of an encoding field), in table order."""
    return tuple(c for c in CORRECTIONS if c.covers(arch, name))


def field_rules(arch: str, fields: set[str]) -> tuple[Correction, ...]:
    """The operand rules of ``arch`` for every instruction that has one of the encoding ``fields``."""
    return tuple(c for c in CORRECTIONS if not c.instructions and c.operand_rule in fields and arch in c.archs)


def operand_rule(arch: str, name: str, rule: str) -> bool:
    """Whether the operand rule ``rule`` holds for instruction ``name`` (or for every instruction)."""
    return any(c.operand_rule == rule and arch in c.archs and (not c.instructions or c.covers(arch, name))
               for c in CORRECTIONS)


def corrected(arch: str, name: str, text: str) -> str:
    """The manual's pseudocode ``text`` of instruction ``name`` with its corrections applied."""
    for correction in of(arch, name):
        for manual, hardware in correction.edits:
            if manual not in text:
                raise ValueError(f"correction of {name} ({arch}): the pseudocode has no {manual!r}")
            text = text.replace(manual, hardware)
    return text


@functools.cache
def hardware_pseudocode(arch: str) -> dict[tuple[str, str], str]:
    """``arch``'s generated PSEUDOCODE table with every correction applied: what the emulator compiles."""
    table = importlib.import_module(f"gpubench.isa.{arch}.pseudocode").PSEUDOCODE
    supplied = {key: c.text for c in CORRECTIONS if c.text is not None and arch in c.archs for key in c.keys}
    return {(enum, name): corrected(arch, name, text) for (enum, name), text in {**table, **supplied}.items()}
