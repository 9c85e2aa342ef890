"""Loads into LDS (lds_dma.py) against a per-lane reference of the manual's formula
LDS_ADDR = M0[15:0] + inst_offset + lane * 4, and the FLAT-encoded GLOBAL_*_ADDTID_B32.

LLVM 22 has no gfx11 syntax for these loads, so the tests encode them field by field."""
import numpy as np
import pytest
from asm_dispatch import CODE_BASE, Dispatch

from gpubench.emu import executor
from gpubench.isa.asm import assemble
from gpubench.isa.encoder import encode

M0, NULL, ZERO = 125, 124, 128  # SGPR numbers: m0, null (saddr off), the inline constant 0 (soffset)
TYPES = {"B32": (4, False), "U8": (1, False), "I8": (1, True), "U16": (2, False), "I16": (2, True)}
LDS_BYTES = 1024


def encoded(run: Dispatch, fmt_name: str, name: str, **fields) -> bytes:
    fmt = run.isa.formats[fmt_name]
    opcode = fmt.opcode_fields[0]
    idef = next(i for i in run.isa.instructions if i.name == name and i.enum == opcode.enum)
    return encode(fmt, {opcode.name: idef.opcode, **fields})


def execute(run: Dispatch, *pieces: bytes | str) -> None:
    """Run encoded instructions and assembly text, in order, then s_endpgm."""
    code = b"".join(p if isinstance(p, bytes) else assemble(run.isa, p).data for p in (*pieces, "s_endpgm"))
    run.device.alloc_at(CODE_BASE, code)
    run.waves.pc[:] = CODE_BASE
    executor.run(run.context())


def signed13(value: int) -> int:
    return value & 0x1FFF


def widen(raw: bytes, kind: str) -> int:
    size, is_signed = TYPES[kind]
    return int.from_bytes(raw[:size], "little", signed=is_signed) & 0xFFFFFFFF


def expected_lds(lds: np.ndarray, m0: int, offset: int, active, values) -> np.ndarray:
    """The reference: each active lane's dword at m0[15:0] + offset + lane * 4, in lane order."""
    out = lds.copy()
    for lane, value in enumerate(values):
        address = (m0 & 0xFFFF) + offset + 4 * lane
        if active[lane]:
            for i, byte in enumerate(value.to_bytes(4, "little")):
                if 0 <= address + i < out.size:
                    out[address + i] = byte
    return out


@pytest.mark.parametrize("kind", TYPES)
@pytest.mark.parametrize("wave_size", [32, 64])
def test_global_load_lds(kind, wave_size):
    rng = np.random.default_rng(wave_size + len(kind))
    run = Dispatch("gfx1100", wave_size, lds_bytes=LDS_BYTES)
    source = rng.integers(0, 256, 4 * wave_size + 64, dtype=np.uint8)
    memory = run.buffer(source)
    run.lds[:] = rng.integers(0, 256, run.lds.shape, dtype=np.uint8)
    before = run.lds[0].copy()
    byte_offsets = rng.permutation(4 * wave_size)[:wave_size].astype(np.uint32)
    active = rng.random(wave_size) < 0.7
    m0, offset = 0x10000 + 40, -8  # m0's bits above 15 take no part
    run.sgpr_pair(0, memory.address + 16)
    run.sgpr[:, M0] = m0
    run.vgpr[0, 1, :] = byte_offsets
    run.set_exec(active)
    execute(run, encoded(run, "GLOBAL", f"GLOBAL_LOAD_LDS_{kind}", addr=1, saddr=0, offset=signed13(offset)))
    values = [widen(bytes(source[16 + int(o) + offset:]), kind) for o in byte_offsets]
    np.testing.assert_array_equal(run.lds[0], expected_lds(before, m0, offset, active, values))


def test_global_load_lds_vaddr_and_addtid():
    rng = np.random.default_rng(3)
    run = Dispatch("gfx1100", 32, lds_bytes=LDS_BYTES)
    source = rng.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32)
    memory = run.buffer(source)
    address = memory.address + 4 * (31 - run.lane_ids()[0]).astype(np.uint64)  # reversed
    run.vgpr[0, 2, :] = address & 0xFFFFFFFF
    run.vgpr[0, 3, :] = address >> 32
    run.sgpr_pair(4, memory.address)
    execute(run, "s_mov_b32 m0, 0",
            encoded(run, "GLOBAL", "GLOBAL_LOAD_LDS_B32", addr=2, saddr=NULL, offset=0),
            "s_mov_b32 m0, 256",
            encoded(run, "GLOBAL", "GLOBAL_LOAD_LDS_ADDTID_B32", saddr=4, offset=12))
    lds = run.lds[0].view(np.uint32)
    np.testing.assert_array_equal(lds[:32], source[31::-1])
    np.testing.assert_array_equal(lds[67:99], source[3:35])  # 256 + 12 + 4 * lane


@pytest.mark.parametrize("kind", ["B32", "I8", "U16"])
def test_scratch_load_lds(kind):
    rng = np.random.default_rng(11)
    run = Dispatch("gfx1100", 32, lds_bytes=LDS_BYTES, private_bytes=64)
    run.scratch[:] = rng.integers(0, 256, run.scratch.shape, dtype=np.uint8)
    lane_offsets = rng.integers(0, 24, 32).astype(np.uint32)
    run.vgpr[0, 1, :] = lane_offsets
    run.sgpr[:, 2] = 8
    run.sgpr[:, M0] = 64
    execute(run, encoded(run, "SCRATCH", f"SCRATCH_LOAD_LDS_{kind}", addr=1, saddr=2, sve=1, offset=4))
    values = [widen(bytes(run.scratch[0, lane, 8 + int(o) + 4:]), kind) for lane, o in enumerate(lane_offsets)]
    np.testing.assert_array_equal(run.lds[0], expected_lds(np.zeros(LDS_BYTES, np.uint8), 64, 4, [True] * 32, values))


def descriptor(run: Dispatch, base: int, records: int, word3: int) -> None:
    run.sgpr_pair(8, base)
    run.sgpr[:, 10] = records
    run.sgpr[:, 11] = word3


@pytest.mark.parametrize("kind", ["B32", "U8", "I16"])
def test_buffer_load_lds_range_check(kind):
    rng = np.random.default_rng(5)
    run = Dispatch("gfx1100", 32, lds_bytes=LDS_BYTES)
    source = rng.integers(0, 256, 256, dtype=np.uint8)
    memory = run.buffer(source)
    records = 50
    descriptor(run, memory.address, records, 3 << 28)  # raw: num_records counts bytes
    run.vgpr[0, 1, :] = run.lane_ids()[0] * 3
    run.sgpr[:, M0] = 4
    run.lds[:] = 0xAB
    execute(run, encoded(run, "MUBUF", f"BUFFER_LOAD_LDS_{kind}", vaddr=1, srsrc=2, soffset=ZERO, offen=1, offset=2))
    size = TYPES[kind][0]
    values = [widen(bytes(source[3 * lane + 2:]), kind) if 3 * lane + 2 + size <= records else 0 for lane in range(32)]
    np.testing.assert_array_equal(run.lds[0], expected_lds(np.full(LDS_BYTES, 0xAB, np.uint8), 4, 2, [True] * 32, values))


def test_buffer_load_lds_format_x_converts():
    rng = np.random.default_rng(9)
    run = Dispatch("gfx1100", 32, lds_bytes=LDS_BYTES)
    source = rng.integers(-32768, 32768, 32).astype(np.int16)
    memory = run.buffer(source)
    snorm16 = 8  # BUF_FMT_16_SNORM
    descriptor(run, memory.address, 64, (3 << 28) | (snorm16 << 12) | 0xFAC)
    run.vgpr[0, 1, :] = run.lane_ids()[0] * 2
    execute(run, "s_mov_b32 m0, 0",
            encoded(run, "MUBUF", "BUFFER_LOAD_LDS_FORMAT_X", vaddr=1, srsrc=2, soffset=ZERO, offen=1))
    expected = np.array([max(int(s) / 32767, -1.0) for s in source], np.float64).astype(np.float32)
    np.testing.assert_array_equal(run.lds[0, :128].view(np.float32), expected)  # s / 32767: one rounding
    assert not run.lds[0, 128:].any()


def test_flat_encoded_addtid_load_and_store():
    run = Dispatch("gfx1100", 32)
    memory = run.buffer(np.arange(100, 164, dtype=np.uint32))
    run.sgpr_pair(6, memory.address)
    run.vgpr[0, 3, :] = run.lane_ids()[0] + 7000
    execute(run, encoded(run, "FLAT", "GLOBAL_LOAD_ADDTID_B32", vdst=2, saddr=6, offset=8),
            encoded(run, "FLAT", "GLOBAL_STORE_ADDTID_B32", data=3, saddr=6, offset=128))
    np.testing.assert_array_equal(run.vgpr[0, 2], np.arange(102, 134))
    np.testing.assert_array_equal(memory.data.view(np.uint32)[32:], np.arange(7000, 7032))
