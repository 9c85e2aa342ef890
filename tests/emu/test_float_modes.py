"""MODE's float controls (gpubench/emu/ops/modes.py, float_modes.py, rounding.py): denormal flushing
and directed rounding, per wave, checked against exact rational arithmetic (fractions.Fraction)
rounded by hand here, never against the emulator's own float code."""
from fractions import Fraction
from math import floor

import numpy as np
import pytest
from asm_dispatch import Dispatch

import gpubench
from gpubench.isa.arch import ISA
from gpubench.isa.elfwriter import assemble_code_object

NEAREST, UP, DOWN, TOWARD_ZERO = 0, 1, 2, 3
FORMATS = {16: (5, 10, np.float16, np.uint16), 32: (8, 23, np.float32, np.uint32), 64: (11, 52, np.float64, np.uint64)}
WAVES = 4


# -- the reference: exact values, rounded by hand -----------------------------------------------------


def exact(bits: int, width: int) -> Fraction:
    _, _, ftype, utype = FORMATS[width]
    return Fraction(float(np.array(bits, utype).view(ftype)))


def negative(bits: int, width: int) -> bool:
    return bool(bits >> (width - 1) & 1)


def is_denormal(bits: int, width: int) -> bool:
    exp_bits, man_bits, _, _ = FORMATS[width]
    return (bits >> man_bits) & ((1 << exp_bits) - 1) == 0 and bits & ((1 << man_bits) - 1) != 0


def flushed(bits: int, width: int, flush: bool) -> int:
    return bits & (1 << (width - 1)) if flush and is_denormal(bits, width) else bits


def rounded(q: Fraction, width: int, mode: int, minus: bool) -> int:
    """The bits of q rounded to a float of ``width`` in ``mode``; ``minus``: the sign of a zero result."""
    exp_bits, man_bits, ftype, utype = FORMATS[width]
    sign = 1 << (width - 1)
    if q == 0:
        return sign if minus else 0
    neg, a = q < 0, abs(q)
    bias = (1 << (exp_bits - 1)) - 1
    e = a.numerator.bit_length() - a.denominator.bit_length()
    e += 1 if a >= Fraction(2) ** (e + 1) else -1 if a < Fraction(2) ** e else 0
    ulp = Fraction(2) ** (max(e, 1 - bias) - man_bits)
    m = a / ulp
    n, rest = floor(m), m - floor(m)
    if rest and (mode == NEAREST and (rest > Fraction(1, 2) or rest == Fraction(1, 2) and n % 2)
                 or mode == UP and not neg or mode == DOWN and neg):
        n += 1
    r = n * ulp
    largest = (2 - Fraction(2) ** -man_bits) * Fraction(2) ** bias
    if r > largest:
        away = mode == NEAREST or (mode == UP) != neg and mode != TOWARD_ZERO
        bits = int(np.array(np.inf if away else float(largest), ftype).view(utype))
    else:
        bits = int(np.array(float(r), ftype).view(utype))
    return bits | sign if neg else bits


def reference(terms, width: int, round_mode: int, flush_in: bool, flush_out: bool, kind: str = "fma") -> int:
    """x*y + z (``terms``: bits of x, y, z; y or z None) as the manual says: inputs flushed, one
    rounding, the output flushed; an exact zero sum is -0 toward -inf unless both terms are +0."""
    x, y, z = (None if t is None else flushed(t, width, flush_in) for t in terms)
    product = exact(x, width) * (1 if y is None else exact(y, width))
    product_neg = negative(x, width) != (y is not None and negative(y, width))
    total = product + (0 if z is None else exact(z, width))
    if z is None:
        minus = product_neg
    else:
        same = product == 0 and exact(z, width) == 0 and product_neg == negative(z, width)
        minus = product_neg if same else round_mode == DOWN
    return flushed(rounded(total, width, round_mode, minus), width, flush_out)


# -- inputs --------------------------------------------------------------------------------------------


def random_floats(rng, width: int, n: int) -> np.ndarray:
    """Bits of finite floats: any exponent, denormals, values near 1 (ties, carries), huge values."""
    exp_bits, man_bits, _, utype = FORMATS[width]
    top = (1 << exp_bits) - 1
    exponent = rng.choice([rng.integers(0, top), 0, (1 << (exp_bits - 1)) - 1, top - 1, top - 2], size=n)
    exponent = np.where(rng.random(n) < 0.5, rng.integers(0, top, n), exponent).astype(np.uint64)
    mantissa = rng.integers(0, 1 << man_bits, n, dtype=np.uint64)
    mantissa = np.where(rng.random(n) < 0.2, mantissa & np.uint64(0xF), mantissa)  # few bits: exact ties
    sign = rng.integers(0, 2, n).astype(np.uint64)
    return ((sign << np.uint64(width - 1)) | (exponent << np.uint64(man_bits)) | mantissa).astype(utype)


def pairs(rng, width: int, n: int):
    """x, y, z for two-input and three-input operations, with cancellations and ties planted."""
    x, y, z = (random_floats(rng, width, n) for _ in range(3))
    sign = np.array(1 << (width - 1), x.dtype)
    y[::7] = x[::7] ^ sign  # x + y == 0 exactly
    _, man_bits, ftype, utype = FORMATS[width]
    one, half_ulp = np.array(1.0, ftype).view(utype), np.array(2.0 ** (-man_bits - 1), ftype).view(utype)
    x[3::11], y[3::11] = one, half_ulp  # 1 + ulp/2: a tie under nearest even
    z[5::13] = x[5::13] ^ sign  # fma near cancellation
    return x, y, z


def wave_modes(rng, shift_round: int, shift_denorm: int) -> np.ndarray:
    """One MODE per wave: every round mode once, random denormal modes, other types' fields random."""
    modes = rng.integers(0, 256, WAVES)
    modes &= ~((3 << shift_round) | (3 << shift_denorm))
    return modes | (np.arange(WAVES) << shift_round) | (rng.integers(0, 4, WAVES) << shift_denorm)


def dispatch(text: str, registers: dict[int, np.ndarray], modes: np.ndarray, wave_size: int = 32):
    """Run ``text`` after s_setreg sets each wave's MODE[7:0] from s10; VGPRs from ``registers``."""
    run = Dispatch("gfx1100", wave_size, groups=1, waves_per_group=WAVES, vgprs=40)
    for reg, values in registers.items():
        run.vgpr[:, reg, :] = values.reshape(WAVES, wave_size)
    run.sgpr[:, 10] = modes
    run("s_setreg_b32 hwreg(HW_REG_MODE, 0, 8), s10\n" + text)
    return run.vgpr


def split64(values: np.ndarray):
    return (values & np.uint64(0xFFFFFFFF)).astype(np.uint32), (values >> np.uint64(32)).astype(np.uint32)


# -- f32 ----------------------------------------------------------------------------------------------

F32_PROGRAM = """
v_add_f32 v10, v1, v2
v_sub_f32 v11, v1, v2
v_subrev_f32 v12, v1, v2
v_mul_f32 v13, v1, v2
v_fma_f32 v14, v1, v2, v3
v_mov_b32 v15, v3
v_fmac_f32 v15, v1, v2
v_fmaak_f32 v16, v1, v2, 0x3e99999a
v_dual_mul_f32 v20, v1, v2 :: v_dual_add_f32 v21, v1, v3
"""


@pytest.mark.parametrize("seed", range(3))
def test_f32_arithmetic_in_every_round_and_denormal_mode_per_wave(seed):
    rng = np.random.default_rng(seed)
    n = WAVES * 32
    x, y, z = pairs(rng, 32, n)
    modes = wave_modes(rng, 0, 4)
    vgpr = dispatch(F32_PROGRAM, {1: x, 2: y, 3: z}, modes)
    k = 0x3E99999A
    expected = {10: lambda a, b, c: (a, None, b), 11: lambda a, b, c: (a, None, b ^ 1 << 31),
                12: lambda a, b, c: (b, None, a ^ 1 << 31), 13: lambda a, b, c: (a, b, None),
                14: lambda a, b, c: (a, b, c), 15: lambda a, b, c: (a, b, c), 16: lambda a, b, c: (a, b, k),
                20: lambda a, b, c: (a, b, None), 21: lambda a, b, c: (a, None, c)}
    for i in range(n):
        mode = int(modes[i // 32])
        a, b, c = int(x[i]), int(y[i]), int(z[i])
        for reg, terms in expected.items():
            want = reference(terms(a, b, c), 32, mode & 3, not mode >> 4 & 1, not mode >> 5 & 1)
            got = int(vgpr[i // 32, reg, i % 32])
            assert got == want, (reg, hex(mode), hex(a), hex(b), hex(c), hex(got), hex(want))


def test_overflow_gives_max_float_toward_zero_and_inf_away_from_it():
    big = np.full(WAVES * 32, 0x7F000000, np.uint32)  # 2**127: big * 4 overflows, big + big == 2**128
    big.reshape(WAVES, 32)[:, 16:] |= 0x80000000
    vgpr = dispatch("v_mul_f32 v10, 4.0, v1\nv_add_f32 v11, v1, v1", {1: big}, np.array([0, 1, 2, 3]) | 0xF0)
    inf, largest = 0x7F800000, 0x7F7FFFFF
    want = {0: (inf, inf), 1: (inf, largest), 2: (largest, inf), 3: (largest, largest)}  # (positive, negative)
    for wave, (pos, neg) in want.items():
        for reg in (10, 11):
            assert vgpr[wave, reg, 0] == pos and vgpr[wave, reg, 31] == neg | 0x80000000


# -- f16 and f64 --------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(2))
def test_f16_arithmetic_follows_the_f16_f64_fields_only(seed):
    rng = np.random.default_rng(seed)
    n = WAVES * 32
    x, y, z = (v.astype(np.uint32) for v in pairs(rng, 16, n))
    modes = wave_modes(rng, 2, 6)
    vgpr = dispatch("v_add_f16 v10, v1, v2\nv_mul_f16 v11, v1, v2\nv_fma_f16 v12, v1, v2, v3\n"
                    "v_sub_f16 v13, v1, v2", {1: x, 2: y, 3: z}, modes)
    for i in range(n):
        mode = int(modes[i // 32])
        a, b, c = int(x[i]), int(y[i]), int(z[i])
        for reg, terms in {10: (a, None, b), 11: (a, b, None), 12: (a, b, c), 13: (a, None, b ^ 0x8000)}.items():
            want = reference(terms, 16, mode >> 2 & 3, not mode >> 6 & 1, not mode >> 7 & 1)
            got = int(vgpr[i // 32, reg, i % 32]) & 0xFFFF
            assert got == want, (reg, hex(mode), hex(a), hex(b), hex(c), hex(got), hex(want))


@pytest.mark.parametrize("seed", range(2))
def test_f64_add_and_mul_in_directed_modes(seed):
    rng = np.random.default_rng(seed)
    n = WAVES * 32
    x, y, _ = pairs(rng, 64, n)
    y[1::9] = (y[1::9] & np.uint64(0x800FFFFFFFFFFFFF)) | np.uint64(0x0010000000000000)  # products into denormals
    x[1::9] = (x[1::9] & np.uint64(0x800FFFFFFFFFFFFF)) | np.uint64(0x3C00000000000000)
    modes = wave_modes(rng, 2, 6)
    (xl, xh), (yl, yh) = split64(x), split64(y)
    vgpr = dispatch("v_add_f64 v[10:11], v[1:2], v[3:4]\nv_mul_f64 v[12:13], v[1:2], v[3:4]",
                    {1: xl, 2: xh, 3: yl, 4: yh}, modes)
    for i in range(n):
        mode = int(modes[i // 32])
        a, b = int(x[i]), int(y[i])
        for reg, terms in {10: (a, None, b), 12: (a, b, None)}.items():
            want = reference(terms, 64, mode >> 2 & 3, not mode >> 6 & 1, not mode >> 7 & 1)
            got = int(vgpr[i // 32, reg, i % 32]) | int(vgpr[i // 32, reg + 1, i % 32]) << 32
            assert got == want, (reg, hex(mode), hex(a), hex(b), hex(got), hex(want))


def test_conversions_round_in_the_result_types_mode():
    rng = np.random.default_rng(7)
    n = WAVES * 32
    f32 = random_floats(rng, 32, n)
    f64 = random_floats(rng, 64, n)
    ints = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    modes = np.array([0, 1, 2, 3]) * 0x5 | 0xF0  # FP_ROUND: the same mode for f32 and f16/f64
    lo, hi = split64(f64)
    vgpr = dispatch("v_cvt_f16_f32 v10, v1\nv_cvt_f32_f64 v11, v[2:3]\nv_cvt_f32_i32 v12, v4\n"
                    "v_cvt_f32_u32 v13, v4", {1: f32, 2: lo, 3: hi, 4: ints}, modes)
    for i in range(n):
        mode = int(modes[i // 32]) & 3
        got = [int(vgpr[i // 32, reg, i % 32]) for reg in (10, 11, 12, 13)]
        signed = int(ints[i]) - (1 << 32 if ints[i] >> 31 else 0)
        want = [rounded(exact(int(f32[i]), 32), 16, mode, negative(int(f32[i]), 32)),
                rounded(exact(int(f64[i]), 64), 32, mode, negative(int(f64[i]), 64)),
                rounded(Fraction(signed), 32, mode, False), rounded(Fraction(int(ints[i])), 32, mode, False)]
        assert [got[0] & 0xFFFF] + got[1:] == want, (hex(mode), hex(f32[i]), hex(f64[i]), hex(ints[i]))


# -- denormal modes, instructions that set MODE, what is not emulated ---------------------------------


def test_input_and_output_flushing_are_separate():
    tiny, small = 0x00000003, 0x00800000  # a denormal, the least normal
    values = np.tile(np.array([tiny, small], np.uint32), WAVES * 16)
    # wave: s_denorm_mode (f32 field): 3 keep all, 2 flush inputs, 1 flush outputs, 0 flush all
    run = Dispatch("gfx1100", 32, groups=1, waves_per_group=WAVES, vgprs=16)
    run.vgpr[:, 1, :] = values.reshape(WAVES, 32)
    program = "".join(f"s_cmp_eq_u32 s0, {w}\ns_cbranch_scc0 .Lnot{w}\ns_denorm_mode {0xC | (3 - w)}\n.Lnot{w}:\n"
                      for w in range(WAVES))
    run.sgpr[:, 0] = np.arange(WAVES)
    run(program + "v_mul_f32 v2, 0x4b000000, v1\nv_mul_f32 v3, 0.5, v1\nv_max_f32 v4, v1, v1\n"
        "v_cmp_class_f32 vcc_lo, v1, 0x80\nv_cndmask_b32 v5, 0, 1, vcc_lo")
    up = int(np.array(3 * 2.0 ** -149 * 2.0 ** 23, np.float32).view(np.uint32))  # tiny * 2**23: normal
    for wave in range(WAVES):
        flush_in, flush_out = wave in (1, 3), wave in (2, 3)
        assert run.vgpr[wave, 2, 0] == (0 if flush_in else up)
        assert run.vgpr[wave, 3, 1] == (0 if flush_out else 0x00400000)  # least normal / 2: a denormal
        assert run.vgpr[wave, 4, 0] == (0 if flush_in or flush_out else tiny)
        assert run.vgpr[wave, 5, 0] == 1  # v_cmp_class sees the raw denormal in every mode


def test_round_mode_instruction_and_setreg_write_the_fields():
    run = Dispatch("gfx1100", 32, groups=1, waves_per_group=1, vgprs=16)
    run.vgpr[:, 1, :] = 0x3F800000  # 1.0
    run.vgpr[:, 2, :] = 0x33000000  # 2**-25: 2**-25 - 1 is a tie
    run("s_round_mode 0x1\nv_add_f32 v3, v1, v2\ns_round_mode 0x0\nv_add_f32 v4, v1, v2\n"
        "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 2), 2\nv_sub_f32 v5, v2, v1\n"
        "s_mov_b32 s0, 3\ns_setreg_b32 hwreg(HW_REG_MODE, 0, 2), s0\nv_sub_f32 v6, v2, v1")
    assert [int(run.vgpr[0, r, 0]) for r in (3, 4, 5, 6)] == [0x3F800001, 0x3F800000, 0xBF800000, 0xBF7FFFFF]


def test_the_kernel_descriptors_denormal_mode_is_the_dispatchs_starting_mode(tmp_path):
    kernel = """
	.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
	.text
	.globl scale
	.p2align 8
	.type scale,@function
scale:
	s_load_b128 s[4:7], s[0:1], 0x0
	v_lshlrev_b32 v1, 2, v0
	s_waitcnt lgkmcnt(0)
	global_load_b32 v2, v1, s[4:5]
	s_waitcnt vmcnt(0)
	v_mul_f32 v2, 1.0, v2
	global_store_b32 v1, v2, s[6:7]
	s_endpgm
.Lscale_end:
	.size scale, .Lscale_end-scale

	.rodata
	.p2align 6
	.amdhsa_kernel scale
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_kernarg_size 16
		.amdhsa_next_free_vgpr 3
		.amdhsa_next_free_sgpr 8
		.amdhsa_float_denorm_mode_32 DENORM
		.amdhsa_float_denorm_mode_16_64 3
	.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - { .address_space: global, .offset: 0, .size: 8, .value_kind: global_buffer, .name: in }
      - { .address_space: global, .offset: 8, .size: 8, .value_kind: global_buffer, .name: out }
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 16
    .max_flat_workgroup_size: 64
    .name:           scale
    .private_segment_fixed_size: 0
    .sgpr_count:     8
    .symbol:         scale.kd
    .vgpr_count:     3
    .wavefront_size: 32
amdhsa.target:   amdgcn-amd-amdhsa--gfx1100
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
"""
    data = np.array([1e-40, -1e-40, 1.0, 2.0 ** -126] * 16, np.float32)
    results = {}
    for denorm in (0, 3):
        path = tmp_path / f"scale{denorm}.hsaco"
        path.write_bytes(assemble_code_object(ISA.get("gfx1100"), kernel.replace("DENORM", str(denorm))))
        dev = gpubench.Device("gfx1100")
        out = dev.alloc(data.nbytes)
        dev.load(path)["scale"](grid=(1,), block=(64,), args=(dev.to_device(data), out))
        results[denorm] = dev.to_host(out, np.uint32)[:4]
    assert list(results[0]) == [0, 0x80000000, 0x3F800000, 0x00800000]  # flushed, sign kept
    assert list(results[3]) == list(data[:4].view(np.uint32))


def test_an_operation_outside_rounding_py_rounds_in_the_directed_mode_too():
    run = Dispatch("gfx1100", 32, groups=1, waves_per_group=1, vgprs=16)
    run.vgpr[:, 1, :] = 0x00000100  # a denormal
    run("s_denorm_mode 0xc\nv_sqrt_f32 v2, v1")  # f32 denormals flushed, rounding to nearest
    assert run.vgpr[0, 2, 0] == 0
    # sqrt(2) = 1.41421356...: nearest (and toward zero) 0x3fb504f3 lies below it, toward +inf is 0x3fb504f4
    for mode, want in ((0x0, 0x3FB504F3), (0x1, 0x3FB504F4), (0x3, 0x3FB504F3), (0xC, 0x3FB504F3)):
        run = Dispatch("gfx1100", 32, groups=1, waves_per_group=1, vgprs=16)
        run.vgpr[:, 1, :] = 0x40000000
        run(f"s_round_mode {mode:#x}\nv_sqrt_f32 v2, v1\nv_max_f32 v3, v1, v1\nv_floor_f32 v4, v1")
        assert (run.vgpr[0, 2, 0], run.vgpr[0, 3, 0], run.vgpr[0, 4, 0]) == (want, 0x40000000, 0x40000000), mode


def test_salu_float_operations_round_in_the_directed_mode():
    for mode, want in ((0x0, 0x3F800000), (0x1, 0x3F800001)):  # 1 + 2^-30 rounded to f32
        run = Dispatch("gfx1150", 32, groups=1, waves_per_group=1, vgprs=16)
        run.sgpr[:, 2], run.sgpr[:, 3] = 0x3F800000, 0x30800000
        run(f"s_round_mode {mode:#x}\ns_add_f32 s1, s2, s3")
        assert run.sgpr[0, 1] == want, mode
