"""The fast backend against the reference evaluator: every ALU instruction, lane by lane, bit for bit.

By default a representative sample runs (every 6th rdna3 ALU entry, every 20th of rdna4 and cdna, and
a fixed list of tricky ones); ``-m slow`` runs the full sweep on 300 lanes per instruction and checks
the coverage numbers.
"""
import math
import os
import re
import subprocess
import sys
import zlib
from fractions import Fraction

import numpy as np
import pytest

from gpubench.compiler.backend import BackendUnsupported, clear_memory_cache, compile_instruction, compile_text
from gpubench.compiler.backend import runtime as rt
from gpubench.compiler.backend.agreement import check, random_inputs
from gpubench.compiler.backend.cache import pseudocode
from gpubench.isa.cdna.pseudocode import PSEUDOCODE as CDNA_PSEUDOCODE
from gpubench.isa.rdna3.pseudocode import PSEUDOCODE as RDNA3_PSEUDOCODE
from gpubench.compiler.pcode import Prose, floats, read_pseudocode
from gpubench.compiler.pcode.dtypes import F32

ARCHES = ("rdna3", "rdna4", "cdna")
ALU = ("SOP1Op", "SOP2Op", "SOPCOp", "SOPKOp", "SOPPOp", "VOP1Op", "VOP2Op", "VOP3Op", "VOP3POp", "VOP3SDOp", "VOPCOp")

# Instructions whose semantics have corners worth checking on every run (names without _E32/_E64).
TRICKY = {
    "V_FMA_F32", "V_FMA_F64", "V_FMAC_F16", "V_FMA_F16", "V_PK_FMA_F16", "V_FMA_MIX_F32", "V_FMA_MIXLO_F16",
    "V_FMAC_DX9_ZERO_F32", "V_DIV_FMAS_F32", "V_DIV_FMAS_F64", "V_DIV_FIXUP_F32", "V_DIV_FIXUP_F16",
    "V_MIN_F32", "V_MAX_F64", "V_MED3_F32", "V_MED3_F16", "V_MINMAX_F32", "V_MIN3_U16", "V_MED3_I32",
    "V_MINIMUM_F32", "V_MAX_NUM_F64", "S_MIN_NUM_F16", "V_LDEXP_F32", "V_LDEXP_F16", "V_LDEXP_F64",
    "V_CVT_PK_RTZ_F16_F32", "V_CVT_F16_F32", "V_CVT_F32_F16", "V_CVT_F64_F32", "V_CVT_F32_F64",
    "V_CVT_I32_F32", "V_CVT_U32_F64", "V_CVT_NEAREST_I32_F32", "V_CVT_NORM_I16_F16", "V_CVT_PK_NORM_U16_F32",
    "V_CVT_OFF_F32_I4", "V_CVT_F32_UBYTE3", "V_CVT_PK_I16_I32", "V_FRACT_F32", "V_FRACT_F64", "V_RNDNE_F64",
    "V_RNDNE_F16", "V_FLOOR_F32", "V_CEIL_F16", "V_SQRT_F32", "V_SQRT_F64", "V_RSQ_F64", "V_RCP_F16",
    "V_EXP_F32", "V_EXP_F16", "V_LOG_F32", "V_SIN_F32", "V_COS_F16", "V_FREXP_MANT_F32", "V_FREXP_EXP_I32_F64",
    "V_CMP_CLASS_F32", "V_CMP_CLASS_F16", "V_CMP_LG_F32", "V_CMP_NEQ_F64", "V_CMP_NLT_F16", "V_CMP_U_F32",
    "V_CMPX_GE_I64", "V_CMP_LT_U16", "S_CMP_LG_F32", "S_CMPK_LT_I32", "S_BITCMP1_B64",
    "S_CTZ_I32_B64", "S_CLZ_I32_U32", "S_CLS_I32", "V_CLS_I32", "S_BREV_B64", "V_BFREV_B32", "S_BCNT1_I32_B64",
    "S_BFE_I64", "S_BFE_I32", "V_BFE_I32", "V_BFI_B32", "S_BFM_B64", "S_QUADMASK_B64", "S_WQM_B32",
    "S_BITREPLICATE_B64_B32", "S_BITSET1_B64", "V_PERM_B32", "V_SAD_U8", "V_SAD_HI_U8", "V_MSAD_U8",
    "V_MQSAD_U32_U8", "V_QSAD_PK_U16_U8", "V_LERP_U8", "V_MAD_U64_U32", "V_MAD_I64_I32", "V_MAD_I32_I24",
    "V_MUL_HI_I32", "S_MUL_HI_I32", "V_MUL_HI_U32", "V_MUL_U32_U24", "V_DOT2_F32_F16", "V_DOT2_BF16_BF16",
    "V_DOT2_F16_F16", "V_DOT2_F32_BF16", "V_DOT4_I32_IU8", "V_DOT8_I32_IU4", "V_DOT8_U32_U4", "V_PK_MAX_I16",
    "V_PK_ASHRREV_I16", "V_PK_MUL_F16", "V_PK_MIN_F16", "V_SAT_PK_U8_I16", "V_ADD_CO_CI_U32", "V_SUB_CO_CI_U32",
    "V_SUBREV_CO_CI_U32", "S_ADDC_U32", "S_SUBB_U32", "S_ADD_I32", "S_ADDK_I32", "S_ABSDIFF_I32", "S_ABS_I32",
    "V_CNDMASK_B32", "V_CNDMASK_B16", "V_MBCNT_HI_U32_B32", "V_BCNT_U32_B32", "V_CUBEMA_F32", "V_CUBEID_F32",
    "V_ALIGNBIT_B32", "V_ALIGNBYTE_B32", "V_LSHLREV_B64", "V_ASHRREV_I64", "V_ASHRREV_I16", "S_ASHR_I64",
    "S_LSHL4_ADD_U32", "V_ADD3_U32", "V_XAD_U32", "V_MAD_U16", "V_MAD_I16", "V_SUB_NC_I16", "V_MULLIT_F32",
    "S_AND_SAVEEXEC_B64", "S_OR_NOT1_SAVEEXEC_B32", "S_CSELECT_B64", "S_CMOV_B32", "S_PACK_HL_B32_B16",
    "S_SEXT_I32_I8", "S_CVT_HI_F32_F16", "V_MOV_B16", "V_SWAP_B32", "V_TRIG_PREOP_F64", "V_CVT_PK_U8_F32",
    "V_ADDC_CO_U32", "V_MAC_F16", "V_DOT2C_F32_BF16", "V_BITOP3_B32", "V_CVT_PKACCUM_U8_F32", "V_LSHL_ADD_U64",
    "S_GETPC_B64", "S_CALL_B64", "S_CBRANCH_SCC1", "S_SETPC_B64", "V_CMPX_CLASS_F64",
}


def alu_entries(arch: str) -> list[tuple[str, str]]:
    return sorted((enum, name) for (enum, name), text in pseudocode(arch).items()
                  if enum in ALU and not isinstance(read_pseudocode(text), Prose))


def base_name(name: str) -> str:
    return name.removesuffix("_E32").removesuffix("_E64")


def sample(arch: str, every: int) -> list[tuple[str, str, str]]:
    entries = alu_entries(arch)
    return [(arch, enum, name) for i, (enum, name) in enumerate(entries) if i % every == 0 or base_name(name) in TRICKY]


SAMPLE = sample("rdna3", 6) + sample("rdna4", 20) + sample("cdna", 20)
EVERYTHING = [(arch, enum, name) for arch in ARCHES for enum, name in alu_entries(arch)]


@pytest.fixture(autouse=True, scope="module")
def private_cache(tmp_path_factory):
    """Every test module run compiles into its own disk cache, so results never depend on a stale one."""
    patch = pytest.MonkeyPatch()
    patch.setenv("GPUBENCH_CACHE_DIR", str(tmp_path_factory.mktemp("semantics")))
    clear_memory_cache()
    yield
    patch.undo()
    clear_memory_cache()


def agreement(arch: str, enum: str, name: str, lanes: int):
    """Compile and compare on random lanes; None if the backend refuses (the reason is checked apart)."""
    try:
        op = compile_instruction(arch, enum, name)
    except BackendUnsupported as err:
        assert name in str(err)
        return None
    return check(op, random_inputs(op, lanes, np.random.default_rng(zlib.crc32(f"{arch} {name}".encode()))))


@pytest.mark.parametrize("arch, enum, name", SAMPLE, ids=[f"{a}-{n}" for a, _, n in SAMPLE])
def test_sample_agrees_with_the_evaluator(arch, enum, name):
    report = agreement(arch, enum, name, lanes=40)
    if report is None:
        pytest.skip("not compiled by the backend (reason covered by test_unsupported_reasons_are_named)")
    if report.compared == 0:
        pytest.skip(f"the evaluator completes no lane: {report.first_error}")
    assert not report.mismatches, "\n".join(m for m in report.mismatches if m)


@pytest.mark.slow
@pytest.mark.parametrize("arch, enum, name", EVERYTHING, ids=[f"{a}-{n}" for a, _, n in EVERYTHING])
def test_every_alu_instruction_agrees_with_the_evaluator(arch, enum, name):
    report = agreement(arch, enum, name, lanes=300)
    if report is None or report.compared == 0:
        pytest.skip("not compiled, or not evaluated")
    assert not report.mismatches, "\n".join(m for m in report.mismatches if m)


# Of the ALU code entries (1010 rdna3, 996 rdna4, 962 cdna), how many compile and agree on 32 lanes.
@pytest.mark.slow
@pytest.mark.parametrize("arch, agreeing", [("rdna3", 981), ("rdna4", 944), ("cdna", 875)])
def test_coverage(arch, agreeing):
    agree = 0
    for enum, name in alu_entries(arch):
        report = agreement(arch, enum, name, lanes=32)
        agree += report is not None and report.agrees
    print(f"{arch}: {agree} of {len(alu_entries(arch))} ALU entries compile and agree")
    assert agree >= agreeing


# Why the backend refuses, by the construct it names.
KNOWN_REFUSALS = (
    r"VGPR: cross-lane", r"SGPR: register-file", r"HW_REGISTERS", r"is not wave state the backend knows",
    r"is not state the backend knows", r"helper \w+\(\) is not supported", r"\w+\(\) is not supported",
    r"OCP minifloat", r"bounds only known at run time", r"a while loop", r"depending on which if branch",
    r"a local whose type depends", r"no conversion of a", r"a constant expression has no value",
    r"bit range bound .* is only known at run time", r"never defined by the manual",
)


@pytest.mark.parametrize("arch", ARCHES)
def test_unsupported_reasons_are_named(arch):
    """Every refusal names the instruction and a known construct: nothing is refused for an unknown reason."""
    refused = {}
    for enum, name in alu_entries(arch)[::3]:
        try:
            compile_instruction(arch, enum, name)
        except BackendUnsupported as err:
            refused[name] = str(err)
    for name, reason in refused.items():
        assert reason.startswith(f"{name}: ") and any(re.search(p, reason) for p in KNOWN_REFUSALS), reason
    assert len(refused) < 0.1 * len(alu_entries(arch)) / 3


# --- float corners, against the evaluator and against exact arithmetic -----------------------------


def f32_bits(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float32).view(np.uint32)


def run(arch, enum, name, **arrays):
    return compile_instruction(arch, enum, name)(**arrays)


def test_nan_results_follow_the_reference_not_x86():
    # inf - inf: the default NaN is positive (x86 makes it negative); a NaN operand comes back quieted.
    a = np.array([0x7F800000, 0x7F800001, 0x3F800000, 0xFF800123, 0x7FC00001], dtype=np.uint32)
    b = np.array([0xFF800000, 0x3F800000, 0x7F800005, 0x7FC00002, 0xFF800002], dtype=np.uint32)
    out = run("rdna3", "VOP2Op", "V_ADD_F32_E32", S0=a, S1=b)["D0"]
    assert list(out) == [0x7FC00000, 0x7FC00001, 0x7FC00005, 0xFFC00123, 0x7FC00001]


def test_fma_f32_rounds_once_where_float64_alone_would_round_twice():
    # x * y is exactly halfway between two floats; a tiny addend decides the rounding.
    x, y = np.float32(16773120 * 2.0**-23), np.float32(16775168 * 2.0**-24)
    cases = [(x, y, np.float32(z)) for z in (2.0**-100, -(2.0**-100), 2.0**-149, -(2.0**-149), 0.0, 1.0)]
    a, b, c = (np.array([case[i] for case in cases], dtype=np.float32) for i in range(3))
    out = run("rdna3", "VOP3Op", "V_FMA_F32", S0=f32_bits(a), S1=f32_bits(b), S2=f32_bits(c))["D0"]
    for (p, q, r), got in zip(cases, out, strict=True):
        exact = Fraction(float(p)) * Fraction(float(q)) + Fraction(float(r))
        assert got == floats.encode(exact, floats.FORMATS[F32]), (p, q, r)


def test_fma_f64_far_outside_dekkers_range_uses_the_exact_path():
    a = np.array([1e300, 3e-300, 1.0 + 2**-52, 5e-324, -0.0], dtype=np.float64)
    b = np.array([1e10, 7e-200, 1.0 - 2**-53, 2.0**1000, 0.0], dtype=np.float64)
    c = np.array([-1e308, 1e-320, -1.0, 1e-300, -0.0], dtype=np.float64)
    op = compile_instruction("rdna3", "VOP3Op", "V_FMA_F64")
    out = op(S0=a.view(np.uint64), S1=b.view(np.uint64), S2=c.view(np.uint64))["D0"].view(np.float64)
    for x, y, z, got in zip(a, b, c, out, strict=True):
        exact = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
        try:
            want = float(exact) if exact else (-0.0 if math.copysign(1, x * y) < 0 > math.copysign(1, z) else 0.0)
        except OverflowError:
            want = math.inf if exact > 0 else -math.inf
        assert got == want and math.copysign(1, got) == math.copysign(1, want), (x, y, z, got, want)


def test_float16_conversion_in_round_toward_zero_and_nan_payloads():
    op = compile_instruction("rdna3", "VOP2Op", "V_CVT_PK_RTZ_F16_F32_E32")
    report = check(op, random_inputs(op, 400, np.random.default_rng(7)))
    assert report.compared == 400 and not report.mismatches


def test_runtime_round_to_odd_gives_bfloat16_one_rounding():
    x = np.array([1 + 2**-8 + 2**-60, 1 + 2**-8, -(1 + 3 * 2**-8), 2.0**128 * (1 - 2**-9), 1e-41, 3e38])
    got = rt.narrow_f64(x, rt.BF16)
    fmt = floats.FORMATS[rt.BF16.dtype]
    assert list(got) == [floats.encode(Fraction(float(v)), fmt) for v in x]


# --- ports -------------------------------------------------------------------------------------------


def ports(arch, enum, name):
    op = compile_instruction(arch, enum, name)
    return ({p.name: (p.width, p.lane_bit) for p in op.inputs}, {p.name: (p.width, p.lane_bit) for p in op.outputs})


def test_ports_follow_how_the_pseudocode_uses_state():
    assert ports("rdna3", "VOP2Op", "V_ADD_F32_E32") == ({"S0": (32, False), "S1": (32, False)}, {"D0": (32, False)})
    # a compare writes this lane's bit of D0 (the VCC or SGPR mask); v_cndmask reads this lane's VCC bit
    assert ports("rdna3", "VOPCOp", "V_CMP_LT_F32_E32")[1] == {"D0": (1, True)}
    assert ports("rdna3", "VOP2Op", "V_CNDMASK_B32_E32")[0]["VCC"] == (1, True)
    assert ports("cdna", "VOP3Op", "V_CMPX_LT_I32_E64")[1] == {"D0": (1, True), "EXEC": (1, True)}
    # SCC is a flag; a 64-bit operand is uint64
    assert ports("rdna3", "SOP2Op", "S_ADD_U32")[1] == {"D0": (32, False), "SCC": (1, False)}
    assert ports("rdna3", "SOP1Op", "S_MOV_B64") == ({"S0": (64, False)}, {"D0": (64, False)})
    # writing 16 bits of D0 keeps the other 16: the old D0 is read
    assert ports("rdna3", "VOP1Op", "V_CVT_F16_F32_E32")[0] == {"S0": (32, False), "D0": (32, False)}
    # an exhaustive if/else that writes D0 on every path does not read it
    assert "D0" not in ports("rdna3", "VOP2Op", "V_MIN_F32_E32")[0]
    # 128-bit registers are (n, 4) words
    assert ports("rdna3", "VOP3Op", "V_MQSAD_U32_U8")[1] == {"D0": (128, False)}


def test_call_checks_inputs_and_broadcasts_constant_outputs():
    op = compile_instruction("rdna3", "VOPCOp", "V_CMP_T_F32_E32")
    assert op.reads == () and list(op(n=3)["D0"]) == [True] * 3
    with pytest.raises(TypeError, match="reads S0, S1"):
        compile_instruction("rdna3", "VOP2Op", "V_ADD_F32_E32")(S2=np.zeros(2, np.uint32))


def test_empty_and_large_inputs():
    op = compile_instruction("rdna3", "VOP3Op", "V_FMA_F32")
    assert op(S0=np.zeros(0, np.uint32), S1=np.zeros(0, np.uint32), S2=np.zeros(0, np.uint32))["D0"].shape == (0,)
    ones = f32_bits(np.ones(100_000, np.float32))
    assert np.all(op(S0=ones, S1=ones, S2=ones)["D0"] == f32_bits(np.float32(2.0)))


@pytest.mark.parametrize("arch, enum, name", [
    ("rdna3", "VOP2Op", "V_MIN_F32_E32"), ("rdna3", "VOPCOp", "V_CMP_CLASS_F32_E32"),
    ("rdna3", "SOP1Op", "S_CTZ_I32_B64"),
    ("rdna3", "VOP3Op", "V_MED3_F16"), ("rdna3", "VOP3POp", "V_FMA_MIX_F32"), ("rdna3", "VOP3Op", "V_DIV_FIXUP_F16"),
    ("rdna3", "VOP3SDOp", "V_MAD_I64_I32"), ("rdna3", "VOP3Op", "V_PERM_B32"),
])
def test_long_arrays_give_the_lanes_short_ones_give(arch, enum, name):
    """Long arrays select by bit blending instead of np.where; lanes must not notice."""
    op = compile_instruction(arch, enum, name)
    inputs = random_inputs(op, 4096, np.random.default_rng(3))
    whole = op(**inputs.ports)
    for start in range(0, 4096, 512):
        part = op(**{k: v[start:start + 512] for k, v in inputs.ports.items()})
        for key, values in part.items():
            assert np.array_equal(whole[key][start:start + 512], values), (name, key, start)


@pytest.mark.slow
@pytest.mark.parametrize("arch", ARCHES)
def test_every_instruction_gives_long_arrays_what_it_gives_short_ones(arch):
    mismatched = []
    for enum, name in alu_entries(arch):
        try:
            op = compile_instruction(arch, enum, name)
        except BackendUnsupported:
            continue
        inputs = random_inputs(op, 4096, np.random.default_rng(5))
        try:
            whole = op(4096, **inputs.ports)
            parts = [op(256, **{k: v[s:s + 256] for k, v in inputs.ports.items()}) for s in range(0, 4096, 256)]
        except rt.UndefinedState:
            continue
        if any(not np.array_equal(np.concatenate([p[key] for p in parts]), whole[key]) for key in whole):
            mismatched.append(name)
    assert mismatched == []


# --- generated code ----------------------------------------------------------------------------------


def function_body(op) -> list[str]:
    """The generated function's statements: what follows its docstring, up to the port table."""
    after_docstring = op.source.split('"""')[2].split("FUNCTION = ")[0]
    return [line.strip() for line in after_docstring.splitlines() if line.strip()]


def test_control_flow_becomes_masked_vector_code_not_python_loops():
    for enum, name in [("SOP1Op", "S_CTZ_I32_B64"), ("VOP3Op", "V_PERM_B32"), ("VOP2Op", "V_MIN_F32_E32"),
                       ("VOP3POp", "V_FMA_MIX_F32"), ("VOP1Op", "V_SAT_PK_U8_I16_E32")]:
        body = [line for line in function_body(compile_instruction("rdna3", enum, name)) if not line.startswith("#")]
        assert not any(re.match(r"(for|while|if|elif|else)\b", line) for line in body), name
        assert body[-1].startswith("return (")


def test_generated_source_traces_back_to_the_pcode():
    op = compile_instruction("rdna3", "SOP2Op", "S_ADD_U32")
    assert op.text in op.source  # the docstring is the manual's pseudocode
    assert "# SCC = ((tmp >= 64'U(4294967296)) ? 1'U(1) : 1'U(0))" in op.source  # each statement heads its code
    compile(op.source, "generated", "exec")


def test_unsupported_constructs_are_refused_at_compile_time_naming_them():
    cases = {
        ("rdna3", "VOP3Op", "V_READLANE_B32"): "VGPR: cross-lane VGPR access",
        ("rdna4", "SOP1Op", "S_ALLOC_VGPR"): r"WaitIdleExceptStoreCnt\(\) is not supported",
        ("rdna3", "SOPKOp", "S_SETREG_B32"): "S_SETREG_B32: ",
    }
    for (arch, enum, name), message in cases.items():
        with pytest.raises(BackendUnsupported, match=message):
            compile_instruction(arch, enum, name)
    # the manual's V_DIV_FIXUP_LEGACY_F16 (corrections.py types every branch's tmp alike)
    with pytest.raises(BackendUnsupported, match="the local tmp is a f64 or a f16"):
        compile_text(CDNA_PSEUDOCODE["VOP3Op", "V_DIV_FIXUP_LEGACY_F16_E64"], "cdna", "VOP3Op",
                     "V_DIV_FIXUP_LEGACY_F16_E64")


def test_lanes_reading_constants_the_manual_never_defines_make_the_call_raise():
    # The manual's V_DIV_FIXUP_F32 (without corrections.py's reading of the name) reads UNDERFLOW_F32 only
    # for quotients far below the smallest denormal.
    op = compile_text(RDNA3_PSEUDOCODE["VOP3Op", "V_DIV_FIXUP_F32"], "rdna3", "VOP3Op", "V_DIV_FIXUP_F32")
    ordinary = op(S0=f32_bits([1.5]), S1=f32_bits([3.0]), S2=f32_bits([4.5]))["D0"]
    assert list(ordinary.view(np.float32)) == [1.5]
    with pytest.raises(rt.UndefinedState, match=r"lanes \[1\] read UNDERFLOW_F32"):
        op(S0=f32_bits([1.5, 2.0]), S1=f32_bits([3.0, 1e30]), S2=f32_bits([4.5, 1e-30]))


def test_compile_text_and_the_while_loop_refusal():
    op = compile_text("D0.u32 = S0.u32 + 1U", name="INC")
    assert list(op(S0=np.array([1, 0xFFFFFFFF], np.uint32))["D0"]) == [2, 0]
    with pytest.raises(BackendUnsupported, match="while loop"):
        compile_text("while S0.u32 > 0U do\nD0.u32 = 1U\nendwhile", name="SPIN")


# --- caching -----------------------------------------------------------------------------------------


def test_disk_cache_serves_a_new_process_with_the_same_code(tmp_path):
    program = (
        "import os, sys\n"
        "from gpubench.compiler.backend import compile_instruction\n"
        "op = compile_instruction('rdna3', 'VOP3Op', 'V_FMA_F32')\n"
        "print(op.from_disk, len(op.source))\n"
    )
    env = {**os.environ, "GPUBENCH_CACHE_DIR": str(tmp_path)}
    first = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True, text=True, check=True)
    second = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True, text=True, check=True)
    assert first.stdout.split()[0] == "False" and second.stdout.split()[0] == "True"
    assert first.stdout.split()[1] == second.stdout.split()[1]
    assert len(list(tmp_path.glob("rdna3_V_FMA_F32_*.py"))) == 1


def test_memory_cache_returns_the_same_object():
    first = compile_instruction("rdna3", "VOP1Op", "V_MOV_B32_E32")
    assert compile_instruction("rdna3", "VOP1Op", "V_MOV_B32_E32") is first
