"""Loads into LDS (lds_dma.py) against a per-lane reference of the manual's formula
LDS_ADDR = M0[15:0] + inst_offset + lane * 4, and the FLAT-encoded GLOBAL_*_ADDTID_B32.

LLVM 22 has no gfx11 syntax for these loads, so the tests encode them field by field."""
import numpy as np
import pytest
from asm_dispatch import CODE_BASE, Dispatch

from gpubench.emu import executor
from gpubench.emu.executor import GPUPageFault
from gpubench.isa.asm import assemble
from gpubench.isa.encoder import encode

M0, NULL, ZERO = 125, 124, 128  # SGPR numbers: m0, null (saddr off), the inline constant 0 (soffset)
TYPES = {"B32": (4, False), "U8": (1, False), "I8": (1, True), "U16": (2, False), "I16": (2, True)}
LDS_BYTES = 1024
ENGINES = ("reference", "native")


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


@pytest.mark.parametrize("target,fmt,data,offset", [("gfx1100", "FLAT", "data", "offset"),
                                                     ("gfx1201", "VFLAT", "vsrc", "ioffset")])
def test_flat_encoded_addtid_load_and_store(target, fmt, data, offset):
    run = Dispatch(target, 32)
    memory = run.buffer(np.arange(100, 164, dtype=np.uint32))
    run.sgpr_pair(6, memory.address)
    run.vgpr[0, 3, :] = run.lane_ids()[0] + 7000
    execute(run, encoded(run, fmt, "GLOBAL_LOAD_ADDTID_B32", vdst=2, saddr=6, **{offset: 8}),
            encoded(run, fmt, "GLOBAL_STORE_ADDTID_B32", **{data: 3}, saddr=6, **{offset: 128}))
    np.testing.assert_array_equal(run.vgpr[0, 2], np.arange(102, 134))
    np.testing.assert_array_equal(memory.data.view(np.uint32)[32:], np.arange(7000, 7032))


# ---- gfx942 / gfx950: M0 whole, DWORDX3/X4 (gfx950) a lane's 12 or 16 bytes after the previous lane's ----

CDNA_KINDS = {"ubyte": (1, False), "sbyte": (1, True), "ushort": (2, False), "sshort": (2, True), "dword": (4, False)}
GFX950_KINDS = {"dwordx3": (12, False), "dwordx4": (16, False)}
CDNA_CASES = [(t, e, k) for t in ("gfx942", "gfx950") for e in ENGINES for k in CDNA_KINDS] + \
             [("gfx950", e, k) for e in ENGINES for k in GFX950_KINDS]


def cdna_lds(lds: np.ndarray, m0: int, offset: int, active, chunks: list[bytes]) -> np.ndarray:
    """The reference: each active lane's bytes at m0 + offset + lane * len(bytes), in lane order."""
    out = lds.copy()
    for lane, chunk in enumerate(chunks):
        address = m0 + offset + len(chunk) * lane
        if active[lane]:
            for i, byte in enumerate(chunk):
                if 0 <= address + i < out.size:
                    out[address + i] = byte
    return out


def lane_bytes(raw: bytes, size: int, is_signed: bool) -> bytes:
    """What LDS receives: a sub-dword widened to a dword as a VGPR load would, else the bytes loaded."""
    if size >= 4:
        return raw[:size]
    return (int.from_bytes(raw[:size], "little", signed=is_signed) & 0xFFFFFFFF).to_bytes(4, "little")


@pytest.mark.parametrize("target,engine_name,kind", CDNA_CASES)
def test_gfx9_global_and_scratch_loads_to_lds(target, engine_name, kind):
    size, is_signed = {**CDNA_KINDS, **GFX950_KINDS}[kind]
    rng = np.random.default_rng(size * 7 + is_signed)
    run = Dispatch(target, 64, lds_bytes=4096, private_bytes=64)
    source = rng.integers(0, 256, 16 * 64 + 64, dtype=np.uint8)
    memory = run.buffer(source)
    run.lds[:] = rng.integers(0, 256, run.lds.shape, dtype=np.uint8)
    run.scratch[:] = rng.integers(0, 256, run.scratch.shape, dtype=np.uint8)
    before = run.lds[0].copy()
    byte_offsets = rng.permutation(16 * 64)[:64].astype(np.uint32)
    active = rng.random(64) < 0.7
    m0, offset = 0x1000 + 40, -8  # m0 above 64 KiB would be past this LDS: 0x1000 is in it
    run.sgpr_pair(0, memory.address + 16)
    run.sgpr[:, 124] = m0
    run.sgpr[:, 2] = 16  # the scratch load's SGPR offset
    run.vgpr[0, 1, :] = byte_offsets
    run.vgpr[0, 2, :] = rng.integers(0, 64 - 16 - 16 + 8, 64)  # scratch offsets (+16 +offset stay inside)
    run.set_exec(active)
    scratch = kind not in GFX950_KINDS  # gfx950 has no SCRATCH_LOAD_LDS_DWORDX3/X4
    m0_scratch = 0x800
    run(f"global_load_lds_{kind} v1, s[0:1] offset:{offset}" + (
        f"\ns_mov_b32 m0, {m0_scratch}\nscratch_load_lds_{kind} v2, s2 offset:{offset}" if scratch else ""),
        engine_name)
    chunks = [lane_bytes(bytes(source[16 + int(o) + offset:]), size, is_signed) for o in byte_offsets]
    want = cdna_lds(before, m0, offset, active, chunks)
    if scratch:
        chunks = [lane_bytes(bytes(run.scratch[0, lane, 16 + int(run.vgpr[0, 2, lane]) + offset:]), size, is_signed)
                  for lane in range(64)]
        want = cdna_lds(want, m0_scratch, offset, active, chunks)
    np.testing.assert_array_equal(run.lds[0], want)


@pytest.mark.parametrize("engine_name", ENGINES)
def test_gfx9_load_to_lds_that_faults_writes_no_lds(engine_name):
    run = Dispatch("gfx942", 64, lds_bytes=1024)
    memory = run.buffer(np.arange(64, dtype=np.uint32))  # 256 bytes, a guard page after them
    run.lds[:] = 0xAB
    run.sgpr_pair(0, memory.address)
    run.vgpr[0, 1, :] = np.arange(64) * 4
    run.vgpr[0, 1, 63] = 256  # the last lane reads past the buffer
    with pytest.raises(GPUPageFault) as error:
        run("global_load_lds_dword v1, s[0:1]", engine_name)
    assert error.value.fault.address == memory.address + 256 and error.value.fault.lane == 63
    assert (run.lds == 0xAB).all()


MUBUF_KINDS = {"ubyte": (1, False), "sbyte": (1, True), "ushort": (2, False), "sshort": (2, True), "dword": (4, False)}
MUBUF_CASES = [(t, e, k) for t in ("gfx942", "gfx950") for e in ENGINES for k in MUBUF_KINDS] + \
              [("gfx950", e, k) for e in ENGINES for k in GFX950_KINDS]


@pytest.mark.parametrize("target,engine_name,kind", MUBUF_CASES)
def test_gfx9_buffer_loads_with_the_lds_bit(target, engine_name, kind):
    size, is_signed = {**MUBUF_KINDS, **GFX950_KINDS}[kind]
    rng = np.random.default_rng(size * 3 + is_signed)
    run = Dispatch(target, 64, lds_bytes=4096)
    source = rng.integers(0, 256, 16 * 64 + 64, dtype=np.uint8)
    memory = run.buffer(source)
    run.lds[:] = rng.integers(0, 256, run.lds.shape, dtype=np.uint8)
    before = run.lds[0].copy()
    records = 16 * 48  # bytes: lanes reading past them get 0 (dword by dword)
    run.sgpr[:, 8:12] = [memory.address & 0xFFFFFFFF, memory.address >> 32, records, 0]
    run.sgpr[:, 2] = 8  # soffset: the memory address only
    run.sgpr[:, 124] = m0 = 0x200
    offsets = rng.permutation(16 * 60)[:64].astype(np.uint32)
    run.vgpr[0, 1, :] = offsets
    run.vgpr[0, 2:6, :] = 0xDEADBEEF
    active = rng.random(64) < 0.7
    run.set_exec(active)
    run(f"buffer_load_{kind} v1, s[8:11], s2 offen offset:12 lds", engine_name)

    def loaded(offset: int) -> bytes:
        start = 8 + offset + 12
        pieces = [(p, min(4, size - p)) for p in range(0, size, 4)]
        return b"".join(bytes(source[start + p:start + p + n]) if offset + 12 + p + n <= records else bytes(n)
                        for p, n in pieces)

    chunks = [lane_bytes(loaded(int(o)), size, is_signed) for o in offsets]
    np.testing.assert_array_equal(run.lds[0], cdna_lds(before, m0, 12, active, chunks))
    np.testing.assert_array_equal(run.vgpr[0, 1, :], offsets)  # vdata is not written


@pytest.mark.parametrize("engine_name", ENGINES)
def test_gfx9_buffer_load_format_x_with_the_lds_bit(engine_name):
    run = Dispatch("gfx942", 64, lds_bytes=1024)
    source = np.arange(64, dtype=np.uint16) * 1000
    memory = run.buffer(source)
    dfmt, nfmt = 2, 0  # BUF_DATA_FORMAT_16, BUF_NUM_FORMAT_UNORM
    run.sgpr[:, 8:12] = [memory.address & 0xFFFFFFFF, memory.address >> 32, 128, 0xFAC | nfmt << 12 | dfmt << 15]
    run.sgpr[:, 124] = 0
    run.vgpr[0, 1, :] = np.arange(64) * 2
    run("buffer_load_format_x v1, s[8:11], 0 offen lds", engine_name)
    want = (source.astype(np.float64) / 65535).astype(np.float32)  # u / (2^16 - 1), rounded once
    np.testing.assert_array_equal(run.lds[0, :256].view(np.float32), want)
