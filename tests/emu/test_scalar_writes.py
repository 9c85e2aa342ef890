"""gfx942/gfx950's scalar stores and atomics (scalar_writes.py), the scalar cache controls and gfx12's
prefetches (control.py), on both engines, against a model of the CDNA3 pseudocode written here in
plain Python integers."""
import numpy as np
import pytest
from asm_dispatch import CODE_BASE, Dispatch

from gpubench.emu import executor
from gpubench.emu.executor import GPUPageFault
from gpubench.emu.native import engine
from gpubench.isa.asm import assemble

ENGINES = ("reference", "native")
TARGETS = ("gfx942", "gfx950")
WAVES = 4


def run(target: str, engine_name: str, text: str, setup) -> Dispatch:
    d = Dispatch(target, 64, groups=1, waves_per_group=WAVES)
    setup(d)
    d.device.alloc_at(CODE_BASE, assemble(d.isa, text + "\ns_endpgm\n").data)
    d.waves.pc[:] = CODE_BASE
    (engine.run if engine_name == "native" else executor.run)(d.context(), executor.Watchdog())
    return d


def signed(value: int, bits: int) -> int:
    return value - (1 << bits) if value >> (bits - 1) & 1 else value


def model(op: str, old: int, src: int, cmp: int, bits: int) -> int:
    """MEM[addr] after one update of the CDNA3 pseudocode (old: tmp, src: DATA, cmp: DATA's second half)."""
    mask = (1 << bits) - 1
    return {"add": (old + src) & mask, "sub": (old - src) & mask, "swap": src,
            "cmpswap": src if old == cmp else old, "and": old & src, "or": old | src, "xor": old ^ src,
            "smin": old if signed(old, bits) <= signed(src, bits) else src,
            "smax": old if signed(old, bits) >= signed(src, bits) else src,
            "umin": min(old, src), "umax": max(old, src),
            "inc": 0 if old >= src else old + 1, "dec": src if old == 0 or old > src else old - 1}[op]


OPS = ("add", "sub", "swap", "cmpswap", "and", "or", "xor", "smin", "smax", "umin", "umax", "inc", "dec")
CASES = [(t, e, op, x2, buffer) for t in TARGETS for e in ENGINES for op in OPS for x2 in (False, True)
         for buffer in (False, True)]


@pytest.mark.parametrize("target,engine_name,op,x2,buffer", CASES)
def test_scalar_atomics_serialize_waves_and_return_the_prior_value(target, engine_name, op, x2, buffer):
    bits, words = (64, 2) if x2 else (32, 1)
    rng = np.random.default_rng(OPS.index(op) * 4 + x2 * 2 + buffer)
    memory_words = rng.integers(0, 1 << bits, 8, dtype=np.uint64).astype(np.uint64 if x2 else np.uint32)
    src = [int(v) for v in rng.integers(0, 1 << bits, WAVES, dtype=np.uint64)]
    offset = 1  # the element the offset SGPR picks
    if op in ("inc", "dec"):  # near the bound, so wrapping shows
        memory_words[offset], src = 5, [6 - i % 3 for i in range(WAVES)]
    # wave 1 compares against what wave 0 leaves (its swap done or not), wave 2 against a random value
    cmp = [int(memory_words[offset]), src[0], int(rng.integers(0, 1 << 62)), src[2]]
    name = f"s_{'buffer_' if buffer else ''}atomic_{op}{'_x2' if x2 else ''}"
    dwords = words * (2 if op == "cmpswap" else 1)
    sdata = f"s[20:{20 + dwords - 1}]" if dwords > 1 else "s20"
    base = "s[8:11]" if buffer else "s[8:9]"

    def setup(d):
        d.mem = d.buffer(memory_words)
        d.sgpr_pair(8, d.mem.address | 0x123 << 48 if buffer else d.mem.address - 16)  # a V#: stride above the base
        d.sgpr[:, 10], d.sgpr[:, 11] = 64, 0
        d.sgpr[:, 2] = offset * bits // 8 + (0 if buffer else 16)
        for w in range(WAVES):
            data = [src[w] >> (32 * k) & 0xFFFFFFFF for k in range(words)]
            data += [cmp[w] >> (32 * k) & 0xFFFFFFFF for k in range(words)] if op == "cmpswap" else []
            d.sgpr[w, 20:20 + dwords] = d.sgpr[w, 32:32 + dwords] = data

    second = f"s[32:{31 + dwords}]" if dwords > 1 else "s32"
    d = run(target, engine_name, f"{name} {sdata}, {base}, s2 glc\n{name} {second}, {base}, s2", setup)
    value, seen = int(memory_words[offset]), []
    for w in range(WAVES):  # the first instruction: wave 0, 1, ... one after another, with return
        seen.append(value)
        value = model(op, value, src[w], cmp[w], bits)
    for w in range(WAVES):  # the second, without glc: SDATA keeps its value
        value = model(op, value, src[w], cmp[w], bits)
    after = d.device.to_host(d.mem, np.uint64 if x2 else np.uint32)
    assert int(after[offset]) == value, engine_name
    assert np.delete(after, offset).tolist() == np.delete(memory_words, offset).tolist()
    got = [int(d.sgpr[w, 20]) | (int(d.sgpr[w, 21]) << 32 if x2 else 0) for w in range(WAVES)]
    assert got == seen, engine_name
    if op == "cmpswap":  # only RETURN_DATA's width is written: the compare value stays
        assert [int(d.sgpr[w, 20 + words]) for w in range(WAVES)] == [cmp[w] & 0xFFFFFFFF for w in range(WAVES)]
    assert [int(d.sgpr[w, 32]) for w in range(WAVES)] == [src[w] & 0xFFFFFFFF for w in range(WAVES)]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("engine_name", ENGINES)
def test_scalar_stores_write_sdata_at_the_scalar_address(target, engine_name):
    def setup(d):
        d.mem = d.buffer(np.zeros(64, np.uint32))
        d.sgpr_pair(0, d.mem.address)
        d.sgpr_pair(8, d.mem.address | 0x567 << 48)  # a V#: bits 47:0 the base, stride above
        d.sgpr[:, 10:12] = [256, 0]
        d.sgpr[:, 2] = 0x40
        for w in range(WAVES):
            d.sgpr[w, 12:16] = [0x1000 * w + i for i in range(4)]
        d.sgpr[:, 3] = 0  # only wave 3's stores survive where they overlap: it writes last

    d = run(target, engine_name, """
        s_store_dword s12, s[0:1], 0x4
        s_store_dwordx2 s[12:13], s[0:1], s2
        s_buffer_store_dwordx4 s[12:15], s[8:11], 0x80
        s_scratch_store_dwordx4 s[12:15], s[0:1], 0xc0
        s_dcache_wb
        s_dcache_wb_vol
        s_dcache_inv_vol
        s_dcache_discard s[0:1], 0x0
        s_dcache_discard_x2 s[0:1], s2
    """, setup)
    want = [0] * 64
    last = [0x3000 + i for i in range(4)]
    want[1] = last[0]
    want[16:18] = last[:2]
    want[32:36] = last
    want[48:52] = last
    assert list(d.device.to_host(d.mem, np.uint32)) == want


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("engine_name", ENGINES)
@pytest.mark.parametrize("text,offset", [("s_store_dwordx4 s[12:15], s[0:1], 0x38", 0x38),
                                         ("s_atomic_add_x2 s[12:13], s[0:1], 0x3c glc", 0x3C)])
def test_a_faulting_scalar_write_writes_nothing(target, engine_name, text, offset):
    made = []

    def setup(d):
        d.mem = d.buffer(np.arange(16, dtype=np.uint32))  # 64 bytes, a guard page after them
        d.sgpr_pair(0, d.mem.address)
        d.sgpr[:, 12:16] = 0xFFFF
        made.append(d)

    with pytest.raises(GPUPageFault) as error:
        run(target, engine_name, text, setup)
    fault, d = error.value.fault, made[0]
    assert fault.address == d.mem.address + offset and fault.context["pc"] == f"0x{CODE_BASE:x}"
    assert fault.context["wave"] == 0
    assert d.device.to_host(d.mem, np.uint32).tolist() == list(range(16))


@pytest.mark.parametrize("engine_name", ENGINES)
def test_gfx12_prefetches_change_nothing_and_never_fault(engine_name):
    def setup(d):
        d.sgpr_pair(0, 0xDEAD_0000)  # unmapped
        d.sgpr[:, 8:12] = [0xDEAD_0000, 0, 64, 0]
        d.sgpr[:, 20] = 0x1234

    d = Dispatch("gfx1201", 32, waves_per_group=1)
    setup(d)
    before = d.sgpr.copy()
    d.device.alloc_at(CODE_BASE, assemble(d.isa, """
        s_prefetch_data s[0:1], 0x100, s20, 31
        s_prefetch_data_pc_rel 0x100, null, 3
        s_prefetch_inst s[0:1], 0x0, null, 0
        s_prefetch_inst_pc_rel -0x100, s20, 1
        s_buffer_prefetch_data s[8:11], 0x80, null, 7
        s_endpgm""").data)
    d.waves.pc[:] = CODE_BASE
    (engine.run if engine_name == "native" else executor.run)(d.context(), executor.Watchdog())
    np.testing.assert_array_equal(d.sgpr, before)
