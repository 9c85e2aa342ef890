"""Where real GPUs depart from AMD's pseudocode (gpubench/isa/corrections.py), instruction by instruction,
on both engines: values a reader checks by hand (powers of two, quarter revolutions), and LLVM's
division sequence against IEEE division (numpy) over random magnitudes, denormals included."""
from pathlib import Path

import numpy as np
import pytest
from asm_dispatch import CODE_BASE, Dispatch
from click.testing import CliRunner

from gpubench.cli import main
from gpubench.emu import coverage, executor
from gpubench.emu.native import engine
from gpubench.isa import corrections
from gpubench.isa.arch import ISA
from gpubench.isa.asm import assemble

ENGINES = ("reference", "native")
IEEE, DEFAULT_FLOAT_MODE = 1 << 9, 0xF0
VCC = {"gfx1100": "vcc_lo", "gfx1201": "vcc_lo", "gfx942": "vcc", "gfx950": "vcc"}
KERNELS = Path(__file__).resolve().parents[1] / "data" / "tinygrad_kernels"
TINY_F32 = 2.0**-110  # biased exponent 17: "tiny" (<= 23)
DENORMAL_F32 = 2.0**-140


def f32(values):
    return np.asarray(values, np.float32).view(np.uint32)


def as_f32(bits):
    return np.asarray(bits, np.uint32).view(np.float32)


def f64_words(values):
    words = np.asarray(values, np.float64).view(np.uint64)
    return (words & 0xFFFFFFFF).astype(np.uint32), (words >> 32).astype(np.uint32)


def as_f64(low, high):
    return (low.astype(np.uint64) | (high.astype(np.uint64) << 32)).view(np.float64)


def run(text: str, engine_name: str, target: str = "gfx1100", mode: int | None = None, **registers):
    """One wave runs ``text``; v<n>=per-lane values (padded with the last), mode= MODE."""
    isa = ISA.get(target)
    d = Dispatch(target, isa.wave_size, vgprs=32)
    for name, values in registers.items():
        values = np.atleast_1d(np.asarray(values, np.uint32))
        d.vgpr[0, int(name[1:]), :] = np.concatenate([values, np.repeat(values[-1:], isa.wave_size - len(values))])
    if mode is not None:
        d.waves.mode[:] = mode
    return run_dispatch(d, text, engine_name)


def run_dispatch(d: Dispatch, text: str, engine_name: str):
    d.device.alloc_at(CODE_BASE, assemble(d.isa, text + "\ns_endpgm\n").data)
    d.waves.pc[:] = CODE_BASE
    ctx = d.context()
    (engine.run if engine_name == "native" else executor.run)(ctx, executor.Watchdog())
    return ctx


def vcc_bits(ctx):
    return ctx.waves.read_mask(106, np.arange(1))[0]


# -- V_DIV_SCALE: VCC -------------------------------------------------------------------------------

# (S0, S1 denominator, S2 numerator) -> (D0, VCC)
DIV_SCALE_F32 = [
    ((0.0, 1.0, 0.0), (np.nan, True)),  # zero numerator: the manual's branch leaves VCC clear
    ((1.0, 0.0, 1.0), (np.nan, True)),  # zero denominator
    ((DENORMAL_F32, DENORMAL_F32, 2.0**-40), (2.0**-76, True)),  # denormal denominator: it alone is scaled by 2^64
    ((2.0**-40, DENORMAL_F32, 2.0**-40), (2.0**-40, True)),  # ... and the numerator is not
    ((TINY_F32, 1.0, TINY_F32), (2.0**-46, True)),  # tiny numerator over 1.0: it alone is scaled
    ((1.0, 1.0, TINY_F32), (1.0, True)),  # ... and the denominator is not
    ((TINY_F32, 2.0**-100, TINY_F32), (2.0**-46, False)),  # tiny over a near denominator: both scaled, VCC clear
    ((2.0**-100, 2.0**-100, TINY_F32), (2.0**-36, False)),
    ((3.0, 3.0, 7.0), (3.0, False)),  # ordinary operands: untouched
]


@pytest.mark.parametrize("engine_name", ENGINES)
def test_div_scale_f32_sets_vcc_where_the_hardware_does(engine_name):
    operands = np.array([case for case, _ in DIV_SCALE_F32], np.float32)
    ctx = run("v_div_scale_f32 v4, vcc_lo, v1, v2, v3", engine_name,
              v1=f32(operands[:, 0]), v2=f32(operands[:, 1]), v3=f32(operands[:, 2]))
    got, vcc = as_f32(ctx.waves.vgpr[0, 4, :len(operands)]), vcc_bits(ctx)[:len(operands)]
    for i, (case, (d0, flag)) in enumerate(DIV_SCALE_F32):
        assert (np.isnan(got[i]) if np.isnan(d0) else got[i] == np.float32(d0)), f"{case}: D0 {got[i]}"
        assert vcc[i] == flag, f"{case}: VCC {vcc[i]}"


@pytest.mark.parametrize("engine_name", ENGINES)
def test_div_scale_f64_sets_vcc_for_a_zero_and_a_tiny_numerator(engine_name):
    # lanes: 0/1, tiny 2^-1000 (biased exponent 23 <= 53) over 1.0, and 1.0 over 1.0
    n_lo, n_hi = f64_words([0.0, 2.0**-1000, 1.0])
    d_lo, d_hi = f64_words([1.0, 1.0, 1.0])
    ctx = run("v_div_scale_f64 v[6:7], vcc_lo, v[0:1], v[2:3], v[0:1]", engine_name,
              v0=n_lo, v1=n_hi, v2=d_lo, v3=d_hi)
    w = ctx.waves.vgpr[0]
    got = as_f64(w[6, :3], w[7, :3])
    assert np.isnan(got[0]) and got[1] == 2.0**-872 and got[2] == 1.0  # the tiny numerator scaled by 2^128
    assert list(vcc_bits(ctx)[:3]) == [True, True, False]


# -- V_DIV_FMAS: the scale factor -------------------------------------------------------------------


@pytest.mark.parametrize("engine_name", ENGINES)
def test_div_fmas_f32_scales_by_two_to_the_64_in_the_direction_s2_says(engine_name):
    # fma(2, 3, S2) with VCC set: S2 = 1.0 (biased exponent 127) -> (2*3+1) * 2^-64; S2 = 4.0 (129) -> 10 * 2^64;
    # lane 2 has VCC clear: the plain fma
    ctx = run("s_mov_b32 vcc_lo, 3\nv_div_fmas_f32 v4, v1, v2, v3", engine_name,
              v1=f32([2.0]), v2=f32([3.0]), v3=f32([1.0, 4.0, 1.0]))
    assert list(as_f32(ctx.waves.vgpr[0, 4, :3])) == [np.float32(7 * 2.0**-64), np.float32(10 * 2.0**64), 7.0]


@pytest.mark.parametrize("engine_name", ENGINES)
def test_div_fmas_f64_scales_by_two_to_the_128(engine_name):
    a, b, c = (f64_words([v]) for v in (2.0, 3.0, 1.0))
    big = f64_words([4.0])
    ctx = run("s_mov_b32 vcc_lo, 3\nv_div_fmas_f64 v[6:7], v[0:1], v[2:3], v[4:5]", engine_name,
              v0=a[0], v1=a[1], v2=b[0], v3=b[1], v4=np.array([c[0][0], big[0][0]]), v5=np.array([c[1][0], big[1][0]]))
    w = ctx.waves.vgpr[0]
    assert list(as_f64(w[6, :2], w[7, :2])) == [7 * 2.0**-128, 10 * 2.0**128]


# -- V_DIV_FIXUP_F32: a NaN quotient estimate --------------------------------------------------------


@pytest.mark.parametrize("engine_name", ENGINES)
def test_div_fixup_f32_turns_a_nan_quotient_of_finite_operands_into_infinity(engine_name):
    # S0 = quiet NaN, S1 = S2 = 1.0 -> +inf; S1 = -1.0 -> -inf (the result's sign is S1's xor S2's)
    ctx = run("v_div_fixup_f32 v4, v1, v2, v3", engine_name,
              v1=[0x7FC00000], v2=f32([1.0, -1.0]), v3=f32([1.0]))
    assert list(ctx.waves.vgpr[0, 4, :2]) == [0x7F800000, 0xFF800000]


# -- LLVM's division sequences over random magnitudes ------------------------------------------------

F32_DIVISION = """
v_div_scale_f32 v3, s4, v2, v2, v1
v_div_scale_f32 v4, vcc_lo, v1, v2, v1
v_rcp_f32_e32 v5, v3
v_fma_f32 v6, -v3, v5, 1.0
v_fmac_f32_e32 v5, v6, v5
v_mul_f32_e32 v6, v4, v5
v_fma_f32 v7, -v3, v6, v4
v_fmac_f32_e32 v6, v7, v5
v_fma_f32 v3, -v3, v6, v4
v_div_fmas_f32 v3, v3, v5, v6
v_div_fixup_f32 v8, v3, v2, v1"""


def random_magnitudes(rng, count: int) -> np.ndarray:
    """Signed powers of two times a random mantissa across the whole f32 range, denormals included."""
    return (np.where(rng.random(count) < 0.5, -1, 1) * 2.0 ** rng.uniform(-149, 128, count)).astype(np.float32)


@pytest.mark.parametrize("engine_name", ENGINES)
def test_llvms_f32_division_sequence_is_ieee_division_at_every_magnitude(engine_name):
    """clang's expansion of an f32 a/b (div_scale, rcp, fma refinement, div_fmas, div_fixup) with the
    hardware's VCC and scale factors: exactly numpy's a/b, also for tiny numerators, denormal
    denominators, denormal quotients and quotients near the overflow."""
    rng = np.random.default_rng(12)
    for trial in range(8):
        n, d = random_magnitudes(rng, 32), random_magnitudes(rng, 32)
        with np.errstate(all="ignore"):
            if trial % 2:  # quotients near 1: numerator and denominator in the same binade or next to it
                d = (n * rng.uniform(0.5, 2.0, 32)).astype(np.float32)
            expected = (n.astype(np.float64) / d).astype(np.float32)
        ctx = run(F32_DIVISION, engine_name, v1=f32(n), v2=f32(d))
        got = as_f32(ctx.waves.vgpr[0, 8])
        wrong = ~((got == expected) | (np.isnan(got) & np.isnan(expected)))
        assert not wrong.any(), [(n[i], d[i], got[i], expected[i]) for i in np.flatnonzero(wrong)]


# -- omod in IEEE mode -------------------------------------------------------------------------------


@pytest.mark.parametrize("engine_name", ENGINES)
@pytest.mark.parametrize("target,ieee,expected", [
    ("gfx1100", True, 4.0), ("gfx1100", False, 8.0),  # IEEE mode on: omod ignored
    ("gfx942", True, 4.0), ("gfx942", False, 8.0),
    ("gfx1201", False, 8.0),  # RDNA4 has no IEEE mode: omod always applies
])
def test_omod_is_ignored_in_ieee_mode(engine_name, target, ieee, expected):
    ctx = run("v_add_f32_e64 v3, v1, v2 mul:2", engine_name, target, mode=DEFAULT_FLOAT_MODE | (IEEE if ieee else 0),
              v1=f32([3.0]), v2=f32([1.0]))
    assert np.all(as_f32(ctx.waves.vgpr[0, 3]) == expected)


# -- V_SIN / V_COS: revolutions ----------------------------------------------------------------------

REVOLUTIONS = [0.25, 1000.25, -0.75, 0.5, 132000.0, 2.0**-30]


@pytest.mark.parametrize("engine_name", ENGINES)
@pytest.mark.parametrize("target", ["gfx1100", "gfx1201", "gfx942"])
def test_sin_and_cos_reduce_the_input_in_revolutions(engine_name, target):
    ctx = run("v_sin_f32_e32 v2, v1\nv_cos_f32_e32 v3, v1", engine_name, target, v1=f32(REVOLUTIONS))
    sines, cosines = (as_f32(ctx.waves.vgpr[0, r, :len(REVOLUTIONS)]) for r in (2, 3))
    # a quarter turn, 1000 turns and a quarter, minus three quarters: sin 1; half a turn: cos -1; a whole
    # number of turns (132000): sin 0, cos 1 (the f32 product 132000 * 2pi would give sin 0.0394)
    assert np.allclose(sines[:3], 1.0, atol=1e-6) and np.isclose(cosines[3], -1.0, atol=1e-6)
    assert abs(sines[4]) < 1e-6 and np.isclose(cosines[4], 1.0, atol=1e-6)
    assert np.isclose(sines[5], 2 * np.pi * 2.0**-30, rtol=1e-6)  # a tiny angle keeps its precision


@pytest.mark.parametrize("engine_name", ENGINES)
def test_sin_f16_reduces_in_revolutions(engine_name):
    halves = np.asarray([100.25, 0.5], np.float16).view(np.uint16).astype(np.uint32)
    ctx = run("v_sin_f16_e32 v2, v1\nv_cos_f16_e32 v3, v1", engine_name, v1=halves)
    as_f16 = (ctx.waves.vgpr[0, 2:4, :2] & 0xFFFF).astype(np.uint16).view(np.float16)
    assert as_f16[0, 0] == 1.0 and as_f16[1, 1] == -1.0  # sin of 100 1/4 turns, cos of half a turn


# -- GFX9's 16-bit results clear the high half ---------------------------------------------------------


@pytest.mark.parametrize("engine_name", ENGINES)
@pytest.mark.parametrize("target,program,expected", [
    ("gfx942", "v_sub_u16_e32 v1, v2, v3", 0x0000_0006),  # 7 - 1, bits 31:16 cleared
    ("gfx942", "v_lshrrev_b16_e32 v1, 1, v2", 0x0000_0003),
    ("gfx942", "v_add_f16_e32 v1, v2, v3", 0x0000_4400),  # 3.0 + 1.0 = 4.0
    ("gfx942", "v_mad_legacy_u16 v1, v2, v3, v2", 0x0000_000E),  # 7 * 1 + 7
    ("gfx950", "v_mul_lo_u16_e64 v1, v2, v3", 0x0000_0007),
    ("gfx942", "v_mad_u16 v1, v2, v3, v2", 0xABCD_000E),  # GFX9's op_sel form keeps the high half
    ("gfx1100", "v_sub_nc_u16 v1.l, v2.l, v3.l", 0xABCD_0006),  # RDNA keeps it
])
def test_gfx9_16_bit_results_clear_the_high_half(engine_name, target, program, expected):
    f16_operands = "f16" in program
    ctx = run(program, engine_name, target, v1=[0xABCD_1234], v2=[0x0005_4200 if f16_operands else 0x0005_0007],
              v3=[0x0009_3C00 if f16_operands else 0x0009_0001])
    assert hex(ctx.waves.vgpr[0, 1, 0]) == hex(expected)


def max_pool_input_gradient(x: np.ndarray, grad: np.ndarray) -> np.ndarray:
    """The model: 3x3 windows, stride 3, over x padded by 1 (-inf) into an 8x8 grid; each window's
    output gradient goes to the element equal to its maximum."""
    padded = np.full((8, 8), -np.inf, np.float32)
    padded[1:6, 1:6] = x
    result = np.zeros((8, 8), np.float32)
    for wy in range(2):
        for wx in range(2):
            window = padded[3 * wy:3 * wy + 3, 3 * wx:3 * wx + 3]
            result[3 * wy:3 * wy + 3, 3 * wx:3 * wx + 3] += np.where(window == window.max(), grad[wy, wx], 0)
    return result


@pytest.mark.parametrize("engine_name", ENGINES)
@pytest.mark.parametrize("target", ["gfx942", "gfx950"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_tinygrads_max_pool2d_backward_kernel_on_cdna(engine_name, target, seed):
    """The kernel of tinygrad's test_max_pool2d_ceil_mode_output_size_reduce_by_one: its index
    arithmetic reads 16-bit results as 32-bit values, relying on GFX9 clearing their high halves. With
    seed 0 (x = 0..24) the gradient lands on x[1,1]=6, x[1,4]=9, x[4,1]=21, x[4,4]=24: padded (2,2), (2,5),
    (5,2), (5,5)."""
    rng = np.random.default_rng(seed)
    x = np.arange(25, dtype=np.float32).reshape(5, 5) if seed == 0 else rng.standard_normal((5, 5)).astype(np.float32)
    padded = np.full((8, 8), -np.inf, np.float32)
    padded[1:6, 1:6] = x
    maxima = np.array([[padded[3 * wy:3 * wy + 3, 3 * wx:3 * wx + 3].max() for wx in range(2)] for wy in range(2)],
                      np.float32)
    grad = np.ones((2, 2), np.float32)
    d = Dispatch(target, 64, vgprs=64)
    out = d.buffer(np.zeros(64, np.float32))
    arguments = [out] + [d.buffer(a.ravel()) for a in (x, maxima, grad)]
    d.sgpr_pair(0, d.buffer(np.array([a.address for a in arguments], np.uint64)).address)
    lanes = np.arange(64, dtype=np.uint32)
    d.vgpr[0, 0, :] = (lanes % 8) | ((lanes // 8) << 10)  # work-item ids x, y packed as gfx942 has them
    ctx = run_dispatch(d, (KERNELS / "max_pool2d_backward-gfx942.s").read_text(), engine_name)
    got = d.device.to_host(out, np.float32).reshape(8, 8)
    expected = max_pool_input_gradient(x, grad)
    if seed == 0:
        assert {tuple(p) for p in np.argwhere(expected)} == {(2, 2), (2, 5), (5, 2), (5, 5)}
    np.testing.assert_array_equal(got, expected)
    assert ctx.waves.pc[0] > CODE_BASE


# -- the table and where it shows ----------------------------------------------------------------------


@pytest.mark.parametrize("arch", corrections.ARCHES)
def test_every_correction_edits_text_its_instructions_have(arch):
    table = corrections.hardware_pseudocode(arch)  # raises if an edit's manual text is missing
    corrected = {corrections.base_name(name) for _, name in table if corrections.of(arch, name)}
    for correction in corrections.CORRECTIONS:
        if arch in correction.archs and correction.operand_rule is None:
            assert set(correction.instructions) <= corrected, correction.rule
            assert correction.rule and correction.evidence


@pytest.mark.parametrize("target", ["gfx1100", "gfx1201", "gfx942", "gfx950"])
def test_coverage_names_corrected_semantics(target):
    entries = {e.name: e.source for e in coverage.coverage(target)}
    assert entries["V_DIV_SCALE_F32"] == entries["V_SIN_F32_E32"] == "pseudocode+correction"
    assert entries["V_ADD_F32_E32"] == "pseudocode"


def test_isa_info_shows_the_rule_and_the_evidence():
    result = CliRunner().invoke(main, ["isa", "info", "-mcpu", "gfx1100", "v_div_fmas_f32"])
    assert result.exit_code == 0, result.output
    assert "hardware correction" in result.output and "2^-64" in result.output and "measured" in result.output
    omod = CliRunner().invoke(main, ["isa", "info", "-mcpu", "gfx1100", "v_add_f32"])
    assert "omod" in omod.output and "IEEE" in omod.output
