"""VOP3P packed operands on the native engine against the reference engine, bit for bit: op_sel,
op_sel_hi, neg_lo and neg_hi on each source (operands.packed_halves), f16 and i16 halves, SGPR and
constant sources, EXEC partly off; and that they run natively."""
import numpy as np
import pytest
from asm_dispatch import CODE_BASE, Dispatch

from gpubench.emu import executor
from gpubench.emu.native import engine
from gpubench.emu.waves import EXEC_LO
from gpubench.isa.asm import assemble

LINES = [
    "v_pk_add_f16 v3, v1, v2", "v_pk_add_f16 v3, v1, v2 op_sel:[1,0] op_sel_hi:[0,1]",
    "v_pk_mul_f16 v3, v1, v2 neg_lo:[1,0] neg_hi:[0,1]", "v_pk_fma_f16 v3, v1, v2, v4 op_sel:[0,1,1] neg_hi:[1,1,0]",
    "v_pk_max_f16 v3, v1, s2 op_sel_hi:[1,0]", "v_pk_min_f16 v3, v1, 1.0", "v_pk_add_u16 v3, v1, v2 op_sel:[1,1]",
    "v_pk_sub_i16 v3, v1, v2 op_sel_hi:[0,0]", "v_pk_lshlrev_b16 v3, v1, v2", "v_pk_mad_u16 v3, v1, v2, v4 op_sel:[1,0,1]",
    "v_pk_mul_lo_u16 v3, v1, 4",
]


def _run(line: str, seed: int, native: bool):
    rng = np.random.default_rng(seed)
    run = Dispatch("gfx1100", 32, vgprs=8)
    run.vgpr[0] = rng.integers(0, 1 << 32, run.vgpr.shape[1:], dtype=np.uint64).astype(np.uint32)
    run.vgpr[0, 1, :4] = [0x7C00FC00, 0x7E00FE01, 0x80000000, 0x03FF8001]  # infinities, NaNs, zeros, denormals
    run.sgpr[0, 2] = rng.integers(0, 1 << 32)
    run.sgpr[0, EXEC_LO] = 0xEFFF_FF7E
    run.device.alloc_at(CODE_BASE, assemble(run.isa, line + "\ns_endpgm\n").data)
    run.waves.pc[:] = CODE_BASE
    ctx = run.context()
    (engine.run if native else executor.run)(ctx, executor.Watchdog())
    return run.vgpr.copy(), run.sgpr.copy(), ctx.stats["wave_instructions"], ctx.stats.get("by_reference", {})


@pytest.mark.parametrize("line", LINES)
def test_a_packed_operation_gives_the_reference_engines_bits_natively(line):
    for seed in range(3):
        (v, s, n, _), (nv, ns, nn, left) = _run(line, seed, native=False), _run(line, seed, native=True)
        assert np.array_equal(v, nv) and np.array_equal(s, ns) and n == nn, f"{line} seed {seed}"
        assert left == {}, f"{line} ran on the reference engine"
