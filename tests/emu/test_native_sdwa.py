"""CDNA's SDWA forms (VOP1/VOP2/VOPC with src*_sel, sext, dst_sel and dst_unused) run natively
(gpubench/emu/native/alu.py) on gfx942 and gfx950: VGPRs, SGPRs and VCC bit for bit with the reference
engine over random selections, neg/abs, SGPR sources and EXEC partly off, none left to it; and the
integer ones against a model of the selections written here (a byte or word of each source, zero- or
sign-extended; the result's low bits placed at dst_sel, the rest 0, its sign or the VGPR's own)."""
import numpy as np
import pytest
from one_wave import exec_bits, run_line

SELECTS = {"BYTE_0": (0, 8), "BYTE_1": (8, 8), "BYTE_2": (16, 8), "BYTE_3": (24, 8), "WORD_0": (0, 16),
           "WORD_1": (16, 16), "DWORD": (0, 32)}
UNUSED = ["UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE"]
INTEGER = {"v_and_b32": lambda a, b: a & b, "v_add_u32": lambda a, b: a + b, "v_xor_b32": lambda a, b: a ^ b,
           "v_lshrrev_b32": lambda a, b: b >> (a & 31)}
FLOAT = ["v_mul_f16", "v_sub_f16", "v_add_f32", "v_max_f16"]
UNARY = ["v_cvt_f32_i32", "v_cvt_f32_f16", "v_cvt_f16_f32", "v_mov_b32"]
COMPARES = ["v_cmp_eq_u32", "v_cmp_lt_i16", "v_cmp_gt_f16", "v_cmp_ne_u16"]


def _select(value: int, name: str, sign_extend: bool) -> int:
    offset, width = SELECTS[name]
    field = value >> offset & ((1 << width) - 1)
    if sign_extend and width < 32 and field >> (width - 1):
        field -= 1 << width
    return field & 0xFFFF_FFFF


def _placed(result: int, name: str, unused: str, old: int) -> int:
    offset, width = SELECTS[name]
    field = result & ((1 << width) - 1)
    if unused == "UNUSED_SEXT" and field >> (width - 1):
        field |= 0xFFFF_FFFF & ~((1 << width) - 1)
    placed = field << offset & 0xFFFF_FFFF
    if unused == "UNUSED_PRESERVE":
        keep = 0xFFFF_FFFF & ~(((1 << width) - 1) << offset)
        placed = old & keep | placed & ~keep
    return placed


def _agree(target: str, text: str, seed: int):
    (_, expected, _), (before, got, by_reference) = (run_line(target, text, seed, native) for native in (False, True))
    assert np.array_equal(expected[0], got[0]) and np.array_equal(expected[1], got[1]), f"{text}: registers differ"
    assert by_reference == 0, f"{text}: left to the reference engine"
    return before, got


def _source(rng, name: str, register: str, negate: bool) -> tuple[str, str, bool]:
    """A source's text with sext() or neg/abs, its select and whether it is sign-extended."""
    select = list(SELECTS)[rng.integers(0, len(SELECTS))]
    sign_extend = name.startswith(("v_and", "v_add_u", "v_xor", "v_lshr", "v_cvt_f32_i32", "v_mov", "v_cmp_eq_u32")) \
        and bool(rng.integers(0, 2))
    text = f"sext({register})" if sign_extend else register
    if negate:
        text = {0: text, 1: f"-{text}", 2: f"|{text}|"}[int(rng.integers(0, 3))]
    return text, select, sign_extend


def _text(rng, name: str) -> str:
    is_float = "_f" in name.removeprefix("v_cvt_f32_i32")
    first = "s8" if rng.integers(0, 4) == 0 else "v1"
    src0, sel0, _ = _source(rng, name, first, is_float)
    src1, sel1, _ = _source(rng, name, "v2", is_float)
    dst_sel, unused = list(SELECTS)[rng.integers(0, len(SELECTS))], UNUSED[rng.integers(0, len(UNUSED))]
    if name in COMPARES:
        sdst = "vcc" if rng.integers(0, 2) else "s[10:11]"
        return f"{name}_sdwa {sdst}, {src0}, {src1} src0_sel:{sel0} src1_sel:{sel1}"
    if name in UNARY:
        return f"{name}_sdwa v4, {src0} dst_sel:{dst_sel} dst_unused:{unused} src0_sel:{sel0}"
    return f"{name}_sdwa v4, {src0}, {src1} dst_sel:{dst_sel} dst_unused:{unused} src0_sel:{sel0} src1_sel:{sel1}"


@pytest.mark.parametrize("target", ["gfx942", "gfx950"])
@pytest.mark.parametrize("name", sorted(INTEGER) + FLOAT + UNARY + COMPARES)
def test_an_sdwa_form_gives_the_reference_engines_bits_natively(target, name):
    rng = np.random.default_rng(len(name))
    for seed in range(6):
        _agree(target, _text(rng, name), seed)


@pytest.mark.parametrize("name", sorted(INTEGER))
def test_an_integer_sdwa_form_matches_the_selection_model(name):
    rng = np.random.default_rng(3)
    active = exec_bits(64)
    for seed in range(6):
        sel0, sel1, dst_sel = (list(SELECTS)[k] for k in rng.integers(0, len(SELECTS), 3))
        sext0, sext1 = (bool(k) for k in rng.integers(0, 2, 2))
        unused = UNUSED[rng.integers(0, len(UNUSED))]
        text = (f"{name}_sdwa v4, {'sext(v1)' if sext0 else 'v1'}, {'sext(v2)' if sext1 else 'v2'} dst_sel:{dst_sel} "
                f"dst_unused:{unused} src0_sel:{sel0} src1_sel:{sel1}")
        (vgpr, _), (got, _) = _agree("gfx942", text, seed)
        model = [_placed(INTEGER[name](_select(int(a), sel0, sext0), _select(int(b), sel1, sext1)), dst_sel, unused,
                         int(old)) if on else int(old)
                 for a, b, old, on in zip(vgpr[1], vgpr[2], vgpr[4], active, strict=True)]
        assert np.array_equal(got[4], np.array(model, np.uint32)), text
