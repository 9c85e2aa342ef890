"""The accumulation registers (AGPRs) of gfx942/gfx950: the unified VGPR file (a[n] is VGPR
ACCUM_OFFSET + n), v_accvgpr_read/write/mov, MFMA with C/D (ACC_CD) and A/B (ACC bits) in AGPRs, and
DS / FLAT / GLOBAL / SCRATCH / MUBUF data in AGPRs (the ACC bit).

References are numpy written from the manuals' descriptions (register layouts from AMD's matrix
instruction calculator for CDNA3), not from the emulator's code.
"""
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from asm_dispatch import Dispatch

import gpubench
from gpubench.emu.context import ExecutionError
from gpubench.isa.arch import ISA
from gpubench.isa.elfwriter import assemble_code_object

CLANG = shutil.which("clang-22")
KERNELS = Path(__file__).resolve().parents[1] / "kernels"
TARGETS = ("gfx942", "gfx950")
OFFSET = 32  # ACCUM_OFFSET of the hand-made waves: a[n] is unified register 32 + n
LANES = np.arange(64, dtype=np.uint32)


def dispatch(target: str, vgprs: int = 64, **kw) -> Dispatch:
    run = Dispatch(target, 64, vgprs=vgprs, **kw)
    run.waves.accum_offset = OFFSET
    return run


def agpr(run: Dispatch, n: int) -> np.ndarray:
    return run.vgpr[:, OFFSET + n, :]


# -- moves -------------------------------------------------------------------------------------


@pytest.mark.parametrize("target", TARGETS)
def test_accvgpr_write_read_and_mov_move_32_bits_per_lane(target):
    run = dispatch(target)
    run.vgpr[:, 1, :] = LANES * 0x01010101 + 0x80000000
    run.sgpr[:, 5] = 0xDEADBEEF
    run("""
        v_accvgpr_write_b32 a1, v1
        v_accvgpr_write_b32 a2, s5
        v_accvgpr_write_b32 a3, -7
        v_accvgpr_write_b32 a4, 1.0
        v_accvgpr_mov_b32 a5, a1
        v_accvgpr_read_b32 v6, a5
        v_accvgpr_read_b32 v7, a2
    """)
    np.testing.assert_array_equal(agpr(run, 1)[0], LANES * 0x01010101 + 0x80000000)
    assert (agpr(run, 2) == 0xDEADBEEF).all()
    assert (agpr(run, 3) == np.uint32(2**32 - 7)).all()
    assert (agpr(run, 4) == 0x3F800000).all()  # an inline float constant: its f32 bits
    np.testing.assert_array_equal(agpr(run, 5), agpr(run, 1))
    np.testing.assert_array_equal(run.vgpr[:, 6], agpr(run, 1))
    assert (run.vgpr[:, 7] == 0xDEADBEEF).all()
    assert not run.vgpr[:, 2:6].any() and not run.vgpr[:, 8:OFFSET].any()  # no VGPR but v6, v7 (and v1) written


@pytest.mark.parametrize("target", TARGETS)
def test_accvgpr_moves_write_only_active_lanes(target):
    run = dispatch(target)
    run.vgpr[:, 1, :] = LANES + 100
    agpr(run, 2)[:] = 5
    run.vgpr[:, 3, :] = 9
    active = LANES % 3 != 0
    run.set_exec(active)
    run("v_accvgpr_write_b32 a2, v1\nv_accvgpr_read_b32 v3, a2")
    np.testing.assert_array_equal(agpr(run, 2)[0], np.where(active, LANES + 100, 5))
    np.testing.assert_array_equal(run.vgpr[0, 3], np.where(active, LANES + 100, 9))


@pytest.mark.parametrize("target", TARGETS)
def test_accvgpr_mov_dpp_row_shift(target):
    run = dispatch(target)
    agpr(run, 1)[:] = LANES + 1
    agpr(run, 2)[:] = 0xAAAA
    agpr(run, 3)[:] = 0xAAAA
    # row_shr:1: lane j of each 16-lane row reads lane j-1; the first lane of a row has no source:
    # bound_ctrl:0 (BOUND_CTRL set) gives it 0, without it the lane keeps its value
    run("v_accvgpr_mov_b32_dpp a2, a1 row_shr:1 bound_ctrl:0\nv_accvgpr_mov_b32_dpp a3, a1 row_shr:1")
    first = LANES % 16 == 0
    np.testing.assert_array_equal(agpr(run, 2)[0], np.where(first, 0, LANES))
    np.testing.assert_array_equal(agpr(run, 3)[0], np.where(first, 0xAAAA, LANES))


def test_agprs_follow_the_vgprs_in_the_unified_file():
    """a[n] and v[ACCUM_OFFSET + n] are one register."""
    run = dispatch("gfx942")
    run.vgpr[:, 1, :] = LANES * 3
    run(f"v_accvgpr_write_b32 a0, v1\nv_mov_b32 v2, v{OFFSET}\nv_add_u32 v{OFFSET + 1}, 1, v1\n"
        "v_accvgpr_read_b32 v3, a1")
    np.testing.assert_array_equal(run.vgpr[0, 2], LANES * 3)
    np.testing.assert_array_equal(run.vgpr[0, 3], LANES * 3 + 1)


def test_an_agpr_without_an_accumulation_offset_stops_the_dispatch():
    run = Dispatch("gfx942", 64, vgprs=64)  # accum_offset left unset
    with pytest.raises(ExecutionError, match="AGPR"):
        run("v_accvgpr_write_b32 a0, 0")


def test_an_agpr_beyond_the_register_file_stops_the_dispatch():
    run = dispatch("gfx942", vgprs=40)  # a0..a7 exist
    with pytest.raises(ExecutionError, match="beyond"):
        run("v_accvgpr_write_b32 a9, 0")


KERNEL = """
	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.amdhsa_code_object_version 5
	.text
	.globl acc
	.p2align 8
	.type acc,@function
acc:                            // out[tid] = v[ACCUM_OFFSET] after a0 = tid * 5
	s_load_dwordx2 s[2:3], s[0:1], 0x0
	v_mul_u32_u24 v1, 5, v0
	v_accvgpr_write_b32 a0, v1
	v_lshlrev_b32 v2, 2, v0
	s_waitcnt lgkmcnt(0)
	v_mov_b32 v3, v12
	global_store_dword v2, v3, s[2:3]
	s_endpgm
.Lacc_end:
	.size acc, .Lacc_end-acc

	.rodata
	.p2align 6
	.amdhsa_kernel acc
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_kernarg_size 8
		.amdhsa_next_free_vgpr 16
		.amdhsa_next_free_sgpr 4
		.amdhsa_accum_offset 12
	.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.kernels:
  - .agpr_count:     1
    .args:
      - { .address_space: global, .offset: 0, .size: 8, .value_kind: global_buffer }
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 8
    .max_flat_workgroup_size: 1024
    .name:           acc
    .private_segment_fixed_size: 0
    .sgpr_count:     4
    .sgpr_spill_count: 0
    .symbol:         acc.kd
    .vgpr_count:     16
    .vgpr_spill_count: 0
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx942
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
"""


def test_the_kernel_descriptors_accum_offset_places_the_agprs(tmp_path):
    """.amdhsa_accum_offset 12: COMPUTE_PGM_RSRC3.ACCUM_OFFSET = 12/4 - 1 = 2, a0 is v12."""
    path = tmp_path / "acc.hsaco"
    path.write_bytes(assemble_code_object(ISA.get("gfx942", 64), KERNEL))
    dev = gpubench.Device("gfx942")
    out = dev.alloc(4 * 128)
    dev.load(path)["acc"](grid=(1,), block=(128,), args=(out,))  # two waves
    np.testing.assert_array_equal(dev.to_host(out, np.uint32), np.arange(128, dtype=np.uint32) * 5)


# -- MFMA --------------------------------------------------------------------------------------
# CDNA3 layouts (AMD matrix instruction calculator), f16 inputs packed two per VGPR, low half first:
#   v_mfma_f32_16x16x16_f16: A[i][k] in lane i + 16*(k//4), element k%4; B[k][j] in lane j + 16*(k//4),
#     element k%4; C/D[i][j] in lane j + 16*(i//4), VGPR i%4.
#   v_mfma_f32_32x32x8_f16: A[i][k] in lane i + 32*(k//4), element k%4; B[k][j] in lane j + 32*(k//4);
#     C/D[i][j] in lane j + 32*((i//4)%2), VGPR 4*(i//8) + i%4.


def pack_f16(elements: np.ndarray) -> np.ndarray:
    """[lanes, 4] f16 -> [2 VGPRs, lanes] uint32."""
    bits = elements.astype(np.float16).view(np.uint16).astype(np.uint32)
    return np.stack([bits[:, 0] | bits[:, 1] << 16, bits[:, 2] | bits[:, 3] << 16])


def layout_16x16x16(A, B, C):
    a, b = np.zeros((64, 4)), np.zeros((64, 4))
    c = np.zeros((4, 64), np.float32)
    for lane in range(64):
        for e in range(4):
            a[lane, e] = A[lane % 16, 4 * (lane // 16) + e]
            b[lane, e] = B[4 * (lane // 16) + e, lane % 16]
    for i in range(16):
        for j in range(16):
            c[i % 4, j + 16 * (i // 4)] = C[i, j]
    return pack_f16(a), pack_f16(b), c.view(np.uint32)


def unlayout_16x16(regs: np.ndarray) -> np.ndarray:
    d = np.zeros((16, 16), np.float32)
    for i in range(16):
        for j in range(16):
            d[i, j] = regs.view(np.float32)[i % 4, j + 16 * (i // 4)]
    return d


def small_matrices(rng, m, n, k):
    A = rng.integers(-8, 9, (m, k)) / 4
    B = rng.integers(-8, 9, (k, n)) / 4
    C = rng.integers(-64, 65, (m, n)).astype(np.float32)
    return A, B, C  # products and sums exact in f32: the order of additions does not matter


@pytest.mark.parametrize("target", TARGETS)
def test_mfma_reads_c_from_and_writes_d_to_agprs(target):
    A, B, C = small_matrices(np.random.default_rng(1), 16, 16, 16)
    a, b, c = layout_16x16x16(A, B, C)
    run = dispatch(target)
    run.vgpr[:, 0:2, :] = a
    run.vgpr[:, 2:4, :] = b
    for r in range(4):
        agpr(run, r)[:] = c[r]
    run.vgpr[:, 4:8, :] = 0x7FC00000  # v[4:7]: must stay as they are (D goes to a[0:3])
    run("v_mfma_f32_16x16x16_f16 a[0:3], v[0:1], v[2:3], a[0:3]\ns_nop 7\ns_nop 7\n"
        "v_accvgpr_read_b32 v8, a0\nv_accvgpr_read_b32 v9, a1\nv_accvgpr_read_b32 v10, a2\nv_accvgpr_read_b32 v11, a3")
    want = (A @ B + C).astype(np.float32)
    np.testing.assert_array_equal(unlayout_16x16(run.vgpr[0, OFFSET:OFFSET + 4]), want)
    np.testing.assert_array_equal(unlayout_16x16(run.vgpr[0, 8:12]), want)
    assert (run.vgpr[:, 4:8] == 0x7FC00000).all()


@pytest.mark.parametrize("target", TARGETS)
def test_mfma_reads_a_and_b_from_agprs_into_vgprs(target):
    A, B, C = small_matrices(np.random.default_rng(2), 16, 16, 16)
    a, b, c = layout_16x16x16(A, B, C)
    run = dispatch(target)
    for r in range(2):
        agpr(run, 4 + r)[:] = a[r]  # A in a[4:5]
        agpr(run, 6 + r)[:] = b[r]  # B in a[6:7]
    run.vgpr[:, 0:4, :] = c  # C in v[0:3]
    run("v_mfma_f32_16x16x16_f16 v[8:11], a[4:5], a[6:7], v[0:3]\n"
        "v_mfma_f32_16x16x16_f16 v[12:15], v[8:9], a[6:7], 0")  # A from VGPRs, B from AGPRs, C = 0
    np.testing.assert_array_equal(unlayout_16x16(run.vgpr[0, 8:12]), (A @ B + C).astype(np.float32))
    # the second reads v[8:9] as A (the f32 D bits reinterpreted as f16 pairs), B from a[6:7]
    a2 = run.vgpr[0, 8:10].T.copy().view(np.float16).astype(np.float64)  # [lanes, 4] elements
    A2 = np.zeros((16, 16))
    for lane in range(64):
        for e in range(4):
            A2[lane % 16, 4 * (lane // 16) + e] = a2[lane, e]
    with np.errstate(all="ignore"):
        want = (A2 @ B).astype(np.float32)
    np.testing.assert_array_equal(unlayout_16x16(run.vgpr[0, 12:16]), want)


@pytest.mark.parametrize("target", TARGETS)
def test_mfma_32x32x8_accumulates_in_sixteen_agprs(target):
    A, B, C = small_matrices(np.random.default_rng(3), 32, 32, 8)
    a, b = np.zeros((64, 4)), np.zeros((64, 4))
    c = np.zeros((16, 64), np.float32)
    for lane in range(64):
        for e in range(4):
            a[lane, e] = A[lane % 32, 4 * (lane // 32) + e]
            b[lane, e] = B[4 * (lane // 32) + e, lane % 32]
    for i in range(32):
        for j in range(32):
            c[4 * (i // 8) + i % 4, j + 32 * ((i // 4) % 2)] = C[i, j]
    run = dispatch(target, vgprs=64)
    run.vgpr[:, 0:2, :] = pack_f16(a)
    run.vgpr[:, 2:4, :] = pack_f16(b)
    run.vgpr[:, OFFSET + 8:OFFSET + 24, :] = c.view(np.uint32)  # C in a[8:23]
    # twice: D = A*B + C into a[8:23] in place, then again on top of it
    run("v_mfma_f32_32x32x8_f16 a[8:23], v[0:1], v[2:3], a[8:23]\ns_nop 7\n"
        "v_mfma_f32_32x32x8_f16 a[8:23], v[0:1], v[2:3], a[8:23]")
    d = run.vgpr[0, OFFSET + 8:OFFSET + 24].view(np.float32)
    got = np.zeros((32, 32), np.float32)
    for i in range(32):
        for j in range(32):
            got[i, j] = d[4 * (i // 8) + i % 4, j + 32 * ((i // 4) % 2)]
    np.testing.assert_array_equal(got, (2 * (A @ B) + C).astype(np.float32))


# -- memory ------------------------------------------------------------------------------------


@pytest.mark.parametrize("target", TARGETS)
def test_global_and_flat_loads_and_stores_with_agpr_data(target):
    run = dispatch(target)
    src = run.buffer(np.arange(64 * 4, dtype=np.uint32) * 7 + 1)
    dst = run.buffer(np.zeros(64 * 6, np.uint32))
    run.sgpr_pair(0, src.address)
    run.sgpr_pair(2, dst.address)
    run.vgpr[:, 1, :] = LANES * 4  # dword offset of lane l
    run.vgpr[:, 2, :] = LANES * 16
    for half, base in ((0, src.address), (1, src.address)):
        run.vgpr[:, 4 + half, :] = (base + LANES.astype(np.uint64) * 4 >> (32 * half)).astype(np.uint32)
    run("""
        global_load_dword a1, v1, s[0:1]
        global_load_dwordx4 a[4:7], v2, s[0:1]
        flat_load_dword a8, v[4:5]
        s_waitcnt vmcnt(0) lgkmcnt(0)
        global_store_dword v1, a1, s[2:3] offset:256
        global_store_dwordx2 v2, a[6:7], s[2:3] offset:512
    """)
    words = np.arange(64 * 4, dtype=np.uint32) * 7 + 1
    np.testing.assert_array_equal(agpr(run, 1)[0], words[:64])
    for e in range(4):
        np.testing.assert_array_equal(agpr(run, 4 + e)[0], words[4 * LANES + e])
    np.testing.assert_array_equal(agpr(run, 8)[0], words[:64])
    assert not run.vgpr[:, 6:OFFSET].any()  # nothing landed in VGPRs
    out = dst.data.view(np.uint32)
    np.testing.assert_array_equal(out[64:128], words[:64])
    pairs = out[128:384].reshape(64, 4)  # dwordx2 of a[6:7] at 512 + 16 * lane: elements 2, 3 of the lane's row
    np.testing.assert_array_equal(pairs[:, :2], words.reshape(64, 4)[:, 2:])
    assert not pairs[:, 2:].any()


@pytest.mark.parametrize("target", TARGETS)
def test_global_atomic_with_agpr_data_returns_to_an_agpr(target):
    run = dispatch(target)
    counter = run.buffer(np.array([1000, 0], np.uint32))
    run.sgpr_pair(0, counter.address)
    agpr(run, 2)[:] = LANES + 1
    agpr(run, 1)[:] = 0xFFFF
    run("v_mov_b32 v1, 0\nglobal_atomic_add a1, v1, a2, s[0:1] sc0\ns_waitcnt vmcnt(0)\n"
        "global_atomic_add v1, a2, s[0:1] offset:4")
    before = agpr(run, 1)[0].astype(np.int64)
    assert counter.data.view(np.uint32)[0] == 1000 + (LANES + 1).sum()
    assert counter.data.view(np.uint32)[1] == (LANES + 1).sum()
    # each lane got the prior value: distinct, from 1000 up, differing by the lanes' addends
    order = np.argsort(before)
    np.testing.assert_array_equal(before[order], 1000 + np.r_[0, np.cumsum((LANES + 1)[order])[:-1]])


@pytest.mark.parametrize("target", TARGETS)
def test_buffer_loads_and_stores_with_agpr_data(target):
    run = dispatch(target)
    memory = run.buffer(np.arange(256, dtype=np.uint32) + 10)
    run.sgpr[:, 8] = memory.address & 0xFFFFFFFF
    run.sgpr[:, 9] = memory.address >> 32
    run.sgpr[:, 10] = 1024  # num_records: bytes (raw buffer, CDNA)
    run.sgpr[:, 11] = 0
    run.vgpr[:, 1, :] = LANES * 4
    agpr(run, 3)[:] = LANES + 5000
    run("""
        buffer_load_dword a1, v1, s[8:11], 0 offen
        buffer_load_dwordx2 a[4:5], v1, s[8:11], 0 offen offset:256
        buffer_store_dword a3, v1, s[8:11], 0 offen offset:768
    """)
    words = np.arange(256, dtype=np.uint32) + 10
    np.testing.assert_array_equal(agpr(run, 1)[0], words[:64])
    np.testing.assert_array_equal(agpr(run, 4)[0], words[64:128])
    np.testing.assert_array_equal(agpr(run, 5)[0], words[65:129])
    np.testing.assert_array_equal(memory.data.view(np.uint32)[192:256], LANES + 5000)


@pytest.mark.parametrize("target", TARGETS)
def test_lds_accesses_with_agpr_data(target):
    run = dispatch(target, lds_bytes=1024)
    run.vgpr[:, 1, :] = LANES * 4
    agpr(run, 1)[:] = LANES * 11
    agpr(run, 2)[:] = LANES + 7
    agpr(run, 6)[:] = 3
    run("""
        ds_write_b32 v1, a1
        ds_write2_b32 v1, a2, a1 offset0:64 offset1:128
        s_waitcnt lgkmcnt(0)
        ds_read_b32 a3, v1
        ds_read2_b32 a[4:5], v1 offset0:64 offset1:128
        ds_add_rtn_u32 a7, v1, a6
        s_waitcnt lgkmcnt(0)
        ds_read_b32 v2, v1
    """)
    lds = run.lds[0].view(np.uint32)
    np.testing.assert_array_equal(agpr(run, 3)[0], LANES * 11)
    np.testing.assert_array_equal(agpr(run, 4)[0], LANES + 7)
    np.testing.assert_array_equal(agpr(run, 5)[0], LANES * 11)
    np.testing.assert_array_equal(agpr(run, 7)[0], LANES * 11)  # the prior value
    np.testing.assert_array_equal(run.vgpr[0, 2], LANES * 11 + 3)
    np.testing.assert_array_equal(lds[:64], LANES * 11 + 3)
    np.testing.assert_array_equal(lds[64:128], LANES + 7)
    np.testing.assert_array_equal(lds[128:192], LANES * 11)


@pytest.mark.parametrize("target", TARGETS)
def test_scratch_loads_and_stores_with_agpr_data(target):
    run = dispatch(target, private_bytes=64)
    agpr(run, 1)[:] = LANES ^ 0x5A5A
    run("scratch_store_dword off, a1, off offset:8\ns_waitcnt vmcnt(0)\nscratch_load_dword a2, off, off offset:8")
    np.testing.assert_array_equal(run.scratch.view(np.uint32)[0, :, 2], LANES ^ 0x5A5A)
    np.testing.assert_array_equal(agpr(run, 2)[0], LANES ^ 0x5A5A)


def test_rdna_is_untouched():
    """RDNA has no AGPRs: its waves carry no accumulation offset, and its handlers never look."""
    run = Dispatch("gfx1100", 32)
    assert run.waves.accum_offset is None
    run("v_mov_b32 v1, 5")
    assert (run.vgpr[:, 1] == 5).all()


# -- a compiled kernel ---------------------------------------------------------------------------

MFMA_HIP = r"""
#include "common.h"
typedef _Float16 half;
typedef _Float16 half4 __attribute__((ext_vector_type(4)));
typedef float float4 __attribute__((ext_vector_type(4)));
#define N 32
// wmma_f32_f16's D = A * B + C (32x32x32) with v_mfma_f32_16x16x16_f16: two waves, two 16x16 tiles
// each; the inline asm pins the accumulator to AGPRs, so LLVM loads C into AGPRs, runs the MFMAs with
// C and D in AGPRs and stores D from AGPRs (LLVM 22 would otherwise keep them in VGPRs).
KERNEL void mfma_agpr(const half *A, const half *B, const float *C, float *D) {
  uint lane = lane_id(), wave = tid_x() / 64;
  uint m = lane % 16, sub = lane / 16;
  for (uint tile = wave; tile < 4; tile += 2) {
    uint row0 = (tile / 2) * 16, col0 = (tile % 2) * 16;
    float4 acc;
    for (uint r = 0; r < 4; r++) acc[r] = C[(row0 + 4 * sub + r) * N + col0 + m];
    for (uint k0 = 0; k0 < N; k0 += 16) {
      half4 a, b;
      for (uint e = 0; e < 4; e++) {
        a[e] = A[(row0 + m) * N + k0 + 4 * sub + e];
        b[e] = B[(k0 + 4 * sub + e) * N + col0 + m];
      }
      acc = __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, acc, 0, 0, 0);
      asm volatile("; accumulator in AGPRs" : "+a"(acc));
    }
    for (uint r = 0; r < 4; r++) D[(row0 + 4 * sub + r) * N + col0 + m] = acc[r];
  }
}
"""


@pytest.mark.llvm
@pytest.mark.skipif(CLANG is None, reason="needs clang-22")
@pytest.mark.parametrize("target", TARGETS)
def test_clang_compiled_mfma_kernel_with_agpr_accumulators(tmp_path, target):
    """End to end: HIP compiled by clang-22 (build.sh's flags), AGPR loads, MFMAs and stores, the
    descriptor's ACCUM_OFFSET; checked with the wmma_f32_f16 case's inputs and reference."""
    source, binary = tmp_path / "mfma_agpr.hip", tmp_path / "mfma_agpr.hsaco"
    source.write_text(MFMA_HIP)
    subprocess.run([CLANG, "-x", "hip", "-std=c++17", "--cuda-device-only", "--no-gpu-bundle-output", "-nogpulib",
                    "-nogpuinc", f"--offload-arch={target}", "-O3", "-mcode-object-version=5", "-ffp-contract=off",
                    "-DWAVE_SIZE=64", f"-I{KERNELS}", str(source), "-o", str(binary)], check=True)
    listing = subprocess.run([shutil.which("llvm-objdump-22") or "llvm-objdump-22", "-d", str(binary)],
                             capture_output=True, text=True, check=False).stdout
    if listing:  # what makes the test worth running: AGPR data in loads, MFMA and stores
        assert "global_load_dword a" in listing and "v_mfma_f32_16x16x16_f16 a[" in listing
        assert "global_store_dword v" in listing and ", a" in listing
    sys.path.insert(0, str(KERNELS))
    import cases
    case = cases.CASES["wmma_f32_f16"]
    inputs = case.inputs(0)
    dev = gpubench.Device(target)
    buffers = {a.name: dev.to_device(inputs[a.name]) for a in case.args}
    dev.load(binary)["mfma_agpr"](grid=(1,), block=(128,), args=tuple(buffers[a.name] for a in case.args))
    got = {"D": dev.to_host(buffers["D"], np.float32).reshape(32, 32)}
    assert case.check(got, case.expected(inputs, "gfx1100")) == []
