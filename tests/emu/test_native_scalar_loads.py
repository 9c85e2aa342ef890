"""gfx12's sub-dword scalar loads (s_load_u8/i8/u16/i16 and their s_buffer_load forms) and the
s_buffer_load dword forms (gfx11, gfx12, CDNA) run natively (gpubench/emu/native/memory.py): SGPRs bit for
bit with the reference engine and with the bytes a model reads (a byte or half zero- or sign-extended; a
buffer's base is bits 47:0 of its descriptor, whose stride bits above are set here), immediate and SGPR
offsets; a load outside every mapping, or past the end of one, is the reference engine's GPUPageFault
with nothing written."""
import numpy as np
import pytest
from asm_dispatch import CODE_BASE, Dispatch

from gpubench.emu import executor
from gpubench.emu.native import engine
from gpubench.isa.asm import assemble

BUFFER_BYTES = 4096
GFX12 = ["s_load_u8 s8, s[2:3], 0x3", "s_load_i8 s8, s[2:3], -0x3", "s_load_u16 s8, s[2:3], 0x6",
         "s_load_i16 s8, s[2:3], s5 offset:0x2", "s_load_i8 s8, s[2:3], s5", "s_load_u16 s8, s[2:3], s5 offset:0x1",
         "s_buffer_load_u8 s8, s[16:19], 0x5", "s_buffer_load_i8 s8, s[16:19], s5 offset:0x1",
         "s_buffer_load_u16 s8, s[16:19], 0x2", "s_buffer_load_i16 s8, s[16:19], 0xa",
         "s_buffer_load_b32 s8, s[16:19], s5",
         "s_buffer_load_b64 s[8:9], s[16:19], 0x8", "s_buffer_load_b96 s[8:10], s[16:19], 0x4",
         "s_buffer_load_b128 s[8:11], s[16:19], 0x10", "s_buffer_load_b256 s[20:27], s[16:19], 0x20",
         "s_buffer_load_b512 s[32:47], s[16:19], 0x40"]
LINES = [*(("gfx1201", line) for line in GFX12), ("gfx1100", "s_buffer_load_b32 s8, s[16:19], 0x10"),
         ("gfx1100", "s_buffer_load_b64 s[8:9], s[16:19], s5"), ("gfx942", "s_buffer_load_dword s8, s[16:19], 0x10"),
         ("gfx942", "s_buffer_load_dwordx4 s[8:11], s[16:19], 0x8")]
SUBDWORD = {"u8": (1, False), "i8": (1, True), "u16": (2, False), "i16": (2, True)}


def _run(target: str, line: str, seed: int, native: bool, where: str = "inside"):
    rng = np.random.default_rng(seed)
    run = Dispatch(target, 64 if target == "gfx942" else 32, vgprs=8)
    data = run.device.to_device(rng.integers(0, 256, BUFFER_BYTES, dtype=np.uint8))
    base = data.address + 512
    if where == "unmapped":
        base = 0x7000_0000_0000
    elif where == "end":  # the access starts in the mapping and ends past it
        base = run.device.memory.find(data.address).end - 1
    run.sgpr[0, :64] = rng.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32)
    run.sgpr_pair(2, base)
    run.sgpr[0, 5] = rng.integers(0, 64)
    run.sgpr[0, 16], run.sgpr[0, 17] = base & 0xFFFF_FFFF, (base >> 32) | (int(rng.integers(1, 1 << 16)) << 16)
    run.device.alloc_at(CODE_BASE, assemble(run.isa, line + "\ns_endpgm\n").data)
    run.waves.pc[:] = CODE_BASE
    before = run.sgpr.copy()
    ctx = run.context()
    try:
        (engine.run if native else executor.run)(ctx, executor.Watchdog())
        error = None
    except executor.GPUPageFault as err:
        error = (err.fault.address, err.fault.write, err.fault.context.get("pc"))
    by_reference = sum(ctx.stats.get("by_reference", {}).values())
    return (error, run.sgpr.copy(), run.waves.pc.copy()), by_reference, before, run.device.to_host(data, np.uint8)


def _model(line: str, sgpr: np.ndarray, memory: np.ndarray) -> np.ndarray:
    """The SGPRs after ``line`` from those before it and the buffer (mapped at s[2:3] - 512)."""
    mnemonic, operands = line.split(" ", 1)
    dst, _, offsets = (part.strip() for part in operands.split(","))
    offset = sum(int(sgpr[5]) if term == "s5" else int(term.removeprefix("offset:"), 0) for term in offsets.split())
    start = 512 + offset
    kind = mnemonic.rsplit("_", 1)[1]
    first, last = (int(reg) for reg in (dst.strip("s[]").split(":") * 2)[:2])
    expected = sgpr.copy()
    if kind in SUBDWORD:
        size, signed = SUBDWORD[kind]
        value = int.from_bytes(memory[start:start + size].tobytes(), "little", signed=signed)
        expected[first] = value & 0xFFFF_FFFF
        return expected
    expected[first:last + 1] = memory[start:start + 4 * (last + 1 - first)].view(np.uint32)
    return expected


@pytest.mark.parametrize(("target", "line"), LINES, ids=[f"{t}:{line}" for t, line in LINES])
def test_a_scalar_load_gives_the_reference_engines_bits_natively(target, line):
    for seed in range(4):
        (expected, _, before, memory), (got, by_reference, _, _) = (_run(target, line, seed, native)
                                                                  for native in (False, True))
        for what, a, b in zip(("fault", "sgpr", "pc"), expected, got, strict=True):
            assert (a == b) if what == "fault" else np.array_equal(a, b), f"{line} seed {seed}: {what} differs"
        assert by_reference == 0
        assert np.array_equal(got[1][0], _model(line, before[0], memory)), f"{line} seed {seed}: differs from the model"


@pytest.mark.parametrize("where", ["unmapped", "end"])
@pytest.mark.parametrize("line", ["s_load_u16 s8, s[2:3], 0x0", "s_load_i8 s8, s[2:3], 0x1",
                                  "s_buffer_load_i16 s8, s[16:19], 0x0", "s_buffer_load_b64 s[8:9], s[16:19], 0x0"])
def test_a_scalar_load_outside_the_mappings_faults_as_on_the_reference_engine(line, where):
    """Unmapped, or from the mapping's last byte on (the byte load: one past it)."""
    (expected, _, before, _), (got, _, _, _) = (_run("gfx1201", line, 0, native, where) for native in (False, True))
    assert expected[0] is not None and got[0] == expected[0]
    assert np.array_equal(got[1], before), "nothing is written"
