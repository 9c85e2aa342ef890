"""CDNA's 4:2-sparse v_smfmac_* (gfx942, gfx950): A keeps two of each four K values of a lane's run of the
MFMA layout, placed by 2-bit fields of the index VGPR's set (ABID when CBSZ is 0, else the first). Matrices
are packed element by element by test_matrix's MFMA layouts and compared with numpy, on both engines."""
import numpy as np
import pytest
from asm_dispatch import CODE_BASE, Dispatch
from test_hardware_instructions import _fp8_values
from test_matrix import (as_codes, mfma_input_place, pack_mfma_input, pack_mfma_output, quarters,
                         unpack_mfma_output)

from gpubench.emu import executor
from gpubench.emu.native import engine
from gpubench.isa.asm import assemble

ENGINES = ("reference", "native")
A_REG, B_REG, INDEX_REG = 16, 32, 48


def sparse(rng, codes: np.ndarray, m: int, k_size: int, index_set: int):
    """A 4:2-sparse A [1, m, K] from random codes: (where it keeps a code [1, m, K], the kept codes
    [1, m, K/2], the index VGPR). The positions of each group's two kept codes go in the index set ``index_set`` of the kept
    elements' lanes, two bits per element, low first; the other sets hold noise."""
    per_lane = m * k_size // 64
    where, kept = np.zeros(codes.shape, bool), np.zeros((1, m, k_size // 2), codes.dtype)
    index = rng.integers(0, 1 << 32, 64, dtype=np.uint64)
    index &= ~np.uint64(((1 << per_lane) - 1) << (index_set * per_lane))
    for i in range(m):
        for group in range(k_size // 4):
            for s, p in enumerate(sorted(rng.choice(4, 2, replace=False))):
                k, c = 4 * group + p, 2 * group + s
                where[0, i, k], kept[0, i, c] = True, codes[0, i, k]
                element, lane = mfma_input_place(m, k_size // 2, 1, 0, i, c)
                index[lane] |= np.uint64(p << (index_set * per_lane + 2 * element))
    return where, kept, index.astype(np.uint32)


def run(text: str, target: str, engine_name: str, d, a, b, index) -> np.ndarray:
    run_ = Dispatch(target, 64, vgprs=64)
    vgpr = run_.vgpr[0]
    vgpr[0:len(d)], vgpr[A_REG:A_REG + len(a)], vgpr[B_REG:B_REG + len(b)], vgpr[INDEX_REG] = d, a, b, index
    run_.device.alloc_at(CODE_BASE, assemble(run_.isa, text + "\ns_endpgm\n").data)
    run_.waves.pc[:] = CODE_BASE
    ctx = run_.context()
    (engine.run if engine_name == "native" else executor.run)(ctx, executor.Watchdog())
    return ctx.waves.vgpr[0, :len(d)].copy()


def fp8_table(kind: str, fnuz: bool) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in _fp8_values(kind, fnuz)])


def operands(rng, kind: str, fnuz: bool, shape):
    """(codes, values) of random elements whose products and sums are exact in f32."""
    if kind in ("f16", "bf16"):
        values = quarters(rng, shape, 4)
        return as_codes(values, kind).astype(np.int64), values
    if kind == "i8":
        codes = rng.integers(0, 256, shape)
        return codes, np.where(codes >= 128, codes - 256, codes).astype(np.float64)
    table = fp8_table(kind, fnuz)
    usable = np.flatnonzero(np.isfinite(table) & (np.abs(table) >= 0.125) & (np.abs(table) <= 8))
    codes = rng.choice(usable, shape)
    return codes, table[codes]


# (target, mnemonic, M, K, A kind, B kind, modifiers, index set)
FORMS = [
    ("gfx942", "v_smfmac_f32_16x16x32_f16", 16, 32, "f16", "f16", "abid:3", 3),
    ("gfx942", "v_smfmac_f32_32x32x16_bf16", 32, 16, "bf16", "bf16", "cbsz:1 abid:1", 0),
    ("gfx942", "v_smfmac_i32_16x16x64_i8", 16, 64, "i8", "i8", "abid:1", 1),
    ("gfx942", "v_smfmac_f32_32x32x32_fp8_bf8", 32, 32, "fp8", "bf8", "", 0),
    ("gfx950", "v_smfmac_f32_16x16x64_f16", 16, 64, "f16", "f16", "abid:1", 1),
    ("gfx950", "v_smfmac_f32_32x32x32_bf16", 32, 32, "bf16", "bf16", "", 0),
    ("gfx950", "v_smfmac_i32_16x16x128_i8", 16, 128, "i8", "i8", "", 0),
    ("gfx950", "v_smfmac_f32_32x32x64_bf8_fp8", 32, 64, "bf8", "fp8", "", 0),
]


@pytest.mark.parametrize("target, mnemonic, m, k_size, a_kind, b_kind, modifiers, index_set", FORMS)
def test_smfmac(target, mnemonic, m, k_size, a_kind, b_kind, modifiers, index_set):
    rng = np.random.default_rng(30)
    fnuz = target == "gfx942"
    bits = 16 if a_kind in ("f16", "bf16") else 8
    a_codes, a_values = operands(rng, a_kind, fnuz, (1, m, k_size))
    b_codes, b_values = operands(rng, b_kind, fnuz, (1, k_size, m))
    where, kept, index = sparse(rng, a_codes, m, k_size, index_set)
    integer = a_kind == "i8"
    if integer:
        c = rng.integers(-5000, 5000, (1, m, m))
        c_regs = pack_mfma_output(c.astype(np.int32).view(np.uint32), m, m, 1, 32)
    else:
        c = quarters(rng, (1, m, m), 16)
        c_regs = pack_mfma_output(as_codes(c, "f32"), m, m, 1, 32)
    a_regs = pack_mfma_input(kept, m, k_size // 2, 1, bits)
    b_regs = pack_mfma_input(b_codes.transpose(0, 2, 1), m, k_size, 1, bits)
    text = (f"{mnemonic} v[0:{len(c_regs) - 1}], v[{A_REG}:{A_REG + len(a_regs) - 1}], "
            f"v[{B_REG}:{B_REG + len(b_regs) - 1}], v{INDEX_REG} {modifiers}")
    want = np.where(where, a_values, 0.0) @ b_values + c
    for engine_name in ENGINES:
        got = unpack_mfma_output(run(text, target, engine_name, c_regs, a_regs, b_regs, index), m, m, 1, 32)
        got = got.astype(np.uint32).view(np.int32 if integer else np.float32)
        np.testing.assert_array_equal(got, want.astype(np.int32 if integer else np.float32), err_msg=engine_name)
