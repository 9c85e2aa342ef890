"""GLOBAL/FLAT atomics: lanes on one address are serialized, every kind computes what its pseudocode says."""
import numpy as np
import pytest
from asm_dispatch import Dispatch

from gpubench.emu.executor import GPUPageFault
from gpubench.emu.ops.rmw import AtomicOp, apply, atomic_op, serialize


@pytest.mark.parametrize("target,wave,add,glc", [("gfx1100", 32, "global_atomic_add_u32", "glc"),
                                                 ("gfx1100", 64, "global_atomic_add_u32", "glc"),
                                                 ("gfx942", 64, "global_atomic_add", "sc0")])
def test_returning_add_hands_each_lane_a_distinct_prior_value(target, wave, add, glc):
    run = Dispatch(target, wave, groups=2, waves_per_group=2)
    counter = run.buffer(np.array([5, 0], np.uint32))
    run.sgpr_pair(0, counter.address)
    run.vgpr[:, 1, :] = 0
    run.vgpr[:, 2, :] = 2
    run(f"""
        {add} v3, v1, v2, s[0:1] {glc}
        {add} v1, v2, s[0:1] offset:4
    """)
    n = 4 * wave
    np.testing.assert_array_equal(run.vgpr[:, 3, :].reshape(-1), 5 + 2 * np.arange(n))
    np.testing.assert_array_equal(counter.data.view(np.uint32), [5 + 2 * n, 2 * n])


def test_compare_swap_64_bit_and_float_atomics():
    run = Dispatch("gfx1100", 32)
    memory = run.buffer(np.zeros(8, np.uint32))
    run.sgpr_pair(0, memory.address)
    lane = run.lane_ids()
    run.vgpr[:, 1, :] = 0
    run.vgpr[:, 2, :] = lane + 1  # new value
    run.vgpr[:, 3, :] = lane  # compare: lane k succeeds when memory holds k, i.e. after lane k-1
    run.vgpr[:, 4, :] = (lane.astype(np.float32) + 0.25).view(np.uint32)
    run.vgpr[:, 5, :] = 0xFFFFFFFF
    run.vgpr[:, 6, :] = 0
    run.vgpr[:, 7, :] = lane * 3 - 40
    run("""
        global_atomic_cmpswap_b32 v8, v1, v[2:3], s[0:1] glc
        global_atomic_add_f32 v1, v4, s[0:1] offset:4
        global_atomic_add_u64 v1, v[5:6], s[0:1] offset:8
        global_atomic_min_i32 v9, v1, v7, s[0:1] offset:16 glc
    """)
    words = memory.data.view(np.uint32)
    assert words[0] == 32  # every lane's compare held in turn
    np.testing.assert_array_equal(run.vgpr[0, 8], np.arange(32))
    assert words[1].view(np.float32) == np.float32(sum(np.arange(32, dtype=np.float32) + 0.25))
    assert memory.data[8:16].view(np.uint64)[0] == 32 * 0xFFFFFFFF
    values = (np.arange(32) * 3 - 40)
    np.testing.assert_array_equal(run.vgpr[0, 9].view(np.int32), np.minimum.accumulate(np.r_[0, values])[:-1])


def test_atomic_on_an_unmapped_address_is_a_page_fault_and_changes_nothing():
    run = Dispatch("gfx1100", 32)
    memory = run.buffer(np.zeros(4, np.uint32))
    run.sgpr_pair(0, memory.address)
    run.vgpr[:, 1, :] = np.where(run.lane_ids() == 9, 1 << 20, 0)
    run.vgpr[:, 2, :] = 1
    with pytest.raises(GPUPageFault) as e:
        run("global_atomic_add_u32 v1, v2, s[0:1]")
    assert e.value.fault.lane == 9 and e.value.fault.write is False
    assert not memory.data.any()


@pytest.mark.parametrize("name", ["GLOBAL_ATOMIC_ADD_U32", "GLOBAL_ATOMIC_CMPSWAP_B64", "GLOBAL_ATOMIC_SMIN_X2",
                                  "DS_MAX_RTN_F64", "DS_CMPST_RTN_B32", "BUFFER_ATOMIC_PK_ADD_BF16",
                                  "FLAT_ATOMIC_MAX_NUM_F32", "GLOBAL_ATOMIC_CSUB_U32", "DS_WRAP_RTN_B32"])
def test_mnemonics_name_their_operation(name):
    expected = {"GLOBAL_ATOMIC_ADD_U32": ("add", 32), "GLOBAL_ATOMIC_CMPSWAP_B64": ("cmpswap", 64),
                "GLOBAL_ATOMIC_SMIN_X2": ("smin", 64), "DS_MAX_RTN_F64": ("fmax", 64),
                "DS_CMPST_RTN_B32": ("cmpswap", 32), "BUFFER_ATOMIC_PK_ADD_BF16": ("pk_add_bf16", 32),
                "FLAT_ATOMIC_MAX_NUM_F32": ("fmax_num", 32), "GLOBAL_ATOMIC_CSUB_U32": ("sub_clamp", 32),
                "DS_WRAP_RTN_B32": ("wrap", 32)}[name]
    op = atomic_op(name)
    assert (op.kind, op.bits) == expected


KINDS = ["add", "sub", "rsub", "xor", "and", "or", "smin", "smax", "umin", "umax", "swap", "cmpswap", "inc",
         "dec", "mskor", "wrap", "sub_clamp", "cond_sub", "fadd", "fmin", "fmax", "fmin_num", "fmax_num",
         "pk_add_f16", "pk_add_bf16", "condxchg"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("bits", [32, 64])
def test_serialized_result_equals_one_lane_after_another(kind, bits):
    if bits == 64 and kind in ("pk_add_f16", "pk_add_bf16", "condxchg"):
        pytest.skip("32-bit only")
    rng = np.random.default_rng(len(kind) * bits)
    n, slots = 300, 7
    keys = rng.integers(0, slots, n).astype(np.uint64)
    if kind.startswith(("f", "pk")):
        floats = np.float32 if bits == 32 else np.float64
        a = (rng.integers(-8, 8, n) * 0.5).astype(floats)
        a[::17] = np.nan
        a = a.view(np.uint32 if bits == 32 else np.uint64).astype(np.uint64)
        memory = np.arange(slots).astype(floats).view(np.uint32 if bits == 32 else np.uint64).astype(np.uint64)
    else:
        a = rng.integers(0, 6, n).astype(np.uint64) | (rng.integers(0, 2, n).astype(np.uint64) << np.uint64(bits - 1))
        memory = rng.integers(0, 6, slots).astype(np.uint64)
    b = rng.integers(0, 6, n).astype(np.uint64)
    op = AtomicOp(kind, bits)
    expected_memory, expected = memory.copy(), np.zeros(n, np.uint64)
    for i in range(n):  # the hardware's order: one lane after another
        k = int(keys[i])
        expected[i] = expected_memory[k]
        expected_memory[k] = apply(op, expected_memory[k:k + 1], a[i:i + 1], b[i:i + 1])[0]

    def store(first, values):
        memory[keys[first].astype(int)] = values

    got = serialize(op, keys, a, b, lambda first: memory[keys[first].astype(int)].copy(), store)
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(memory, expected_memory)
