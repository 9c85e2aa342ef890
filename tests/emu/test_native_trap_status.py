"""gfx12's vector min/max (v_min_num/max_num, v_minimum/maximum on f16/f32/f64, VOP1-3 and VOPD)
raise the trap status's INVALID when an active lane reads a signaling NaN. They run natively: no
wave-instruction goes to the reference engine, results and the trap status are the reference
engine's bit for bit, and INVALID is set exactly when the model (a signaling NaN in an active lane's
sources) says so."""
import numpy as np
import pytest
from asm_dispatch import Dispatch

from gpubench.emu.ops import valu

SIGNALING = {16: 0x7C01, 32: 0x7F80_0001, 64: 0x7FF0_0000_0000_0001}
QUIET = {16: 0x7E00, 32: 0x7FC0_0000, 64: 0x7FF8_0000_0000_0000}
# (assembly, element bits, the VGPRs read as sources)
CASES = [
    ("v_max_num_f32 v3, v1, v2", 32, (1, 2)),
    ("v_min_num_f32 v3, s1, v2", 32, (2,)),
    ("v_max_num_f32_e64 v3, -v1, |v2|", 32, (1, 2)),
    ("v_maximum_f32 v3, v1, v2", 32, (1, 2)),
    ("v_minimum_f32 v3, v1, v2", 32, (1, 2)),
    ("v_max_num_f16 v3, v1, v2", 16, (1, 2)),
    ("v_minimum_f16 v3, v1, v2", 16, (1, 2)),
    ("v_max_num_f64 v[6:7], v[2:3], v[4:5]", 64, (2, 4)),
    ("v_minimum_f64 v[6:7], v[2:3], v[4:5]", 64, (2, 4)),
    ("v_dual_max_num_f32 v3, v1, v2 :: v_dual_min_num_f32 v6, v4, v5", 32, (1, 2, 4, 5)),
    ("v_dual_mul_f32 v3, v1, v2 :: v_dual_max_num_f32 v6, v4, v5", 32, (4, 5)),
]


def _values(rng, bits: int, lanes: int, snan_lanes) -> np.ndarray:
    """Random non-NaN values, quiet NaNs in some lanes and signaling ones in ``snan_lanes``."""
    exponent = {16: 0x7C00, 32: 0x7F80_0000, 64: 0x7FF0_0000_0000_0000}[bits]
    values = rng.integers(0, 1 << bits, lanes, dtype=np.uint64) & ~np.uint64(exponent >> 1 & exponent)
    values[rng.integers(0, lanes, 4)] = QUIET[bits]
    values[snan_lanes] = SIGNALING[bits]
    return values


def _run(asm: str, bits: int, sources, snan_lanes, exec_mask: int, native: bool, wave: int):
    rng = np.random.default_rng(bits + len(asm))
    run = Dispatch("gfx1201", wave, vgprs=8)
    for reg in (1, 2, 4, 5) if bits < 64 else (2, 4):
        values = _values(rng, bits, wave, snan_lanes if reg in sources else [])
        run.vgpr[0, reg] = values & 0xFFFF_FFFF
        if bits == 64:
            run.vgpr[0, reg + 1] = values >> 32
    run.sgpr[0, 1] = QUIET[32]
    run.set_exec(np.array([(exec_mask >> lane) & 1 for lane in range(wave)], bool))
    ctx = run(asm, "native" if native else "reference")
    return run.vgpr.copy(), valu.trap_status(ctx).copy(), sum(ctx.stats.get("by_reference", {}).values())


@pytest.mark.parametrize("wave", [32, 64])
@pytest.mark.parametrize("asm, bits, sources", CASES, ids=[c[0].split(" ")[0] + ("" if "::" not in c[0] else "+vopd")
                                                        + ("_e64" if "e64" in c[0] else "") for c in CASES])
def test_a_signaling_nan_in_an_active_lane_raises_invalid(asm, bits, sources, wave):
    if wave == 64 and "::" in asm:
        pytest.skip("VOPD is wave32 only")
    full = (1 << wave) - 1
    for snan_lanes, exec_mask in (([], full), ([5], full), ([5], full & ~(1 << 5)), ([0, wave - 1], 1)):
        expected, got = (_run(asm, bits, sources, snan_lanes, exec_mask, native, wave) for native in (False, True))
        assert np.array_equal(expected[0], got[0]), f"{asm}: VGPRs differ"
        assert np.array_equal(expected[1], got[1]), f"{asm}: the trap status differs"
        raised = any((exec_mask >> lane) & 1 for lane in snan_lanes)
        assert bool(got[1][0] & valu.INVALID) == raised, (asm, snan_lanes, hex(exec_mask))
        assert got[2] == 0, f"{asm}: ran on the reference engine"
