"""CDNA's v_pk_mov_b32 runs natively (gpubench/emu/native/packed_move.py) on gfx942 and gfx950: VGPRs bit
for bit with the reference engine for every op_sel, VGPR and SGPR pairs and constants, EXEC partly off,
none left to it; and against a model (the low dword from the dword op_sel[0] picks of src0, the high one
from the dword op_sel[1] picks of src1)."""
import numpy as np
import pytest
from one_wave import exec_bits, run_line

PAIRS = {"v[0:1]": 0, "v[2:3]": 2, "v[6:7]": 6, "s[8:9]": 8}


@pytest.mark.parametrize("target", ["gfx942", "gfx950"])
@pytest.mark.parametrize("op_sel", [(0, 0), (0, 1), (1, 0), (1, 1)], ids=str)
@pytest.mark.parametrize(("src0", "src1"), [("v[0:1]", "v[2:3]"), ("s[8:9]", "v[6:7]"), ("v[6:7]", "s[8:9]"),
                                            ("v[2:3]", "-1")])
def test_a_packed_move_gives_the_reference_engines_bits_natively(target, op_sel, src0, src1):
    text = f"v_pk_mov_b32 v[4:5], {src0}, {src1} op_sel:[{op_sel[0]},{op_sel[1]}]"
    active = exec_bits(64)
    for seed in range(3):
        (_, (expected, _), _), ((vgpr, sgpr), (got, _), by_reference) = (run_line(target, text, seed, native)
                                                                        for native in (False, True))
        assert np.array_equal(expected, got), f"{text}: VGPRs differ"
        assert by_reference == 0

        def dword(name: str, high: int) -> np.ndarray:
            if name not in PAIRS:
                return np.full(64, 0xFFFF_FFFF, np.uint32)  # the constant -1, sign-extended to 64 bits
            reg = PAIRS[name] + high
            return vgpr[reg] if name[0] == "v" else np.full(64, sgpr[reg], np.uint32)

        assert np.array_equal(got[4][active], dword(src0, op_sel[0])[active]), text
        assert np.array_equal(got[5][active], dword(src1, op_sel[1])[active]), text
        assert np.array_equal(got[4:6][:, ~active], vgpr[4:6][:, ~active])
