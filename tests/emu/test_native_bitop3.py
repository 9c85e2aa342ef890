"""gfx950's v_bitop3_b32/b16 run natively (gpubench/emu/native/bitop3.py): VGPRs bit for bit with the
reference engine over random truth tables, VGPR/SGPR/constant sources, op_sel halves and EXEC partly off,
none left to it; and against a model that looks each result bit up in the table."""
import numpy as np
import pytest
from one_wave import exec_bits, run_line

SOURCES = ["v1", "v2", "v3", "s8", "7", "-1"]


def _operand(name: str, vgpr: np.ndarray, sgpr: np.ndarray) -> np.ndarray:
    if name[0] == "v":
        return vgpr[int(name[1:])].astype(np.int64)
    if name[0] == "s":
        return np.full(64, int(sgpr[int(name[1:])]), np.int64)
    return np.full(64, int(name) & 0xFFFF_FFFF, np.int64)


def _model(table: int, values: list[np.ndarray], bits: int) -> np.ndarray:
    result = np.zeros(64, np.int64)
    for k in range(bits):
        row = sum((v >> k & 1) << (2 - i) for i, v in enumerate(values))
        result |= (table >> row & 1) << k
    return result


@pytest.mark.parametrize("half", [False, True], ids=["b32", "b16"])
def test_bitop3_gives_the_reference_engines_bits_natively(half):
    rng = np.random.default_rng(int(half))
    active = exec_bits(64)
    for seed in range(24):
        table = int(rng.integers(0, 256))
        names = ["v1", *(SOURCES[k] for k in rng.integers(0, len(SOURCES), 2))]
        opsel = [int(k) for k in rng.integers(0, 2, 4)]
        text = f"v_bitop3_b{16 if half else 32} v4, {', '.join(names)} bitop3:{table:#x}"
        if half:
            text += f" op_sel:[{','.join(map(str, opsel))}]"
        (_, (expected, _), _), ((vgpr, sgpr), (got, _), by_reference) = (run_line("gfx950", text, seed, native)
                                                                        for native in (False, True))
        assert np.array_equal(expected, got), f"{text}: VGPRs differ"
        assert by_reference == 0
        values = [_operand(name, vgpr, sgpr) for name in names]
        if half:
            values = [v >> 16 & 0xFFFF if opsel[i] else v & 0xFFFF for i, v in enumerate(values)]
            shift = 16 if opsel[3] else 0
            model = (vgpr[4].astype(np.int64) & (0xFFFF_FFFF ^ 0xFFFF << shift)) | (_model(table, values, 16) << shift)
        else:
            model = _model(table, values, 32)
        assert np.array_equal(got[4][active], model[active].astype(np.uint32)), text
        assert np.array_equal(got[4][~active], vgpr[4][~active])
