"""CDNA's 16-bit VALU results that clear the high half of their VGPR (isa/corrections.py's zero-high-half
rule) run natively (gpubench/emu/native/alu.py) on gfx942 and gfx950: VGPRs bit for bit with the reference
engine, EXEC partly off, none left to it; the integer ones against a model (the 16-bit result, bits 31:16
zero in the lanes EXEC enables, the other lanes kept), the float ones' high halves zero."""
import numpy as np
import pytest
from one_wave import exec_bits, run_line

MASK = 0xFFFF
INTEGER = {  # the low 16 bits of the result from the low halves a, b
    "v_add_u16 v4, v1, v2": lambda a, b: a + b, "v_sub_u16_e64 v4, v1, v2": lambda a, b: a - b,
    "v_mul_lo_u16 v4, v1, v2": lambda a, b: a * b, "v_lshlrev_b16 v4, v1, v2": lambda a, b: b << (a & 15),
    "v_lshrrev_b16 v4, v1, v2": lambda a, b: b >> (a & 15),
    "v_max_i16 v4, v1, v2": lambda a, b: max(a - (a >> 15 << 16), b - (b >> 15 << 16)),
}
FLOAT = ["v_mul_f16 v4, v1, v2", "v_add_f16_e64 v4, -v1, |v2|", "v_cvt_f16_f32 v4, v1", "v_exp_f16 v4, v1",
         "v_sqrt_f16 v4, v1", "v_mad_legacy_f16 v4, v1, v2, v3", "v_max_f16_e64 v4, v1, v2 clamp"]


def _agree(target: str, text: str, seed: int):
    (_, (expected, _), _), ((before, _), (got, _), by_reference) = (run_line(target, text, seed, native)
                                                                    for native in (False, True))
    assert np.array_equal(expected, got), f"{text} seed {seed}: VGPRs differ"
    assert by_reference == 0, f"{text}: left to the reference engine"
    active = exec_bits(64)
    assert np.array_equal(got[4][~active], before[4][~active]), f"{text}: an inactive lane was written"
    return before, got, active


@pytest.mark.parametrize("target", ["gfx942", "gfx950"])
@pytest.mark.parametrize("text", sorted(INTEGER))
def test_an_integer_16_bit_result_clears_the_high_half_natively(target, text):
    for seed in range(3):
        before, got, active = _agree(target, text, seed)
        model = [INTEGER[text](int(a) & MASK, int(b) & MASK) & MASK for a, b in zip(before[1], before[2], strict=True)]
        assert np.array_equal(got[4][active], np.array(model, np.uint32)[active]), f"{text} seed {seed}"


@pytest.mark.parametrize("target", ["gfx942", "gfx950"])
@pytest.mark.parametrize("text", FLOAT)
def test_a_float_16_bit_result_clears_the_high_half_natively(target, text):
    for seed in range(3):
        _, got, active = _agree(target, text, seed)
        assert not (got[4][active] >> 16).any(), f"{text} seed {seed}: the high half is not cleared"
