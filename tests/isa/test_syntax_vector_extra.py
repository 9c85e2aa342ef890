"""Packed math (VOP3P), matrix ops (WMMA/SWMMAC, MFMA/SMFMAC, scaled MFMA), dual issue (VOPD) and
SDWA: LLVM 22's own (bytes, text) pairs, both directions, and llvm-mc's assembly errors."""
import pytest

from gpubench.isa.arch import ISA
from gpubench.isa.asm import AssemblyError, assemble
from gpubench.isa.decoder import decode
from gpubench.isa.disasm import disassemble

# (target, wave size or None, bytes as LLVM encodes them, LLVM's text)
PAIRS = [
    # RDNA3 VOP3P: packed arrays, mixed-precision neg/abs, literals, DPP
    ("gfx1100", None, "014812cc02070218", "v_pk_max_f16 v1, v2, v3 op_sel:[1,0]"),
    ("gfx1100", None, "00ca0fcc01050230",
     "v_pk_add_f16 v0, v1, v2 op_sel:[1,0] op_sel_hi:[0,1] neg_lo:[1,0] neg_hi:[0,1] clamp"),
    ("gfx1100", None, "014220cc0207121c", "v_fma_mix_f32 v1, v2, |v3|, v4 op_sel_hi:[1,1,1]"),
    ("gfx1100", None, "000020cc01050682", "v_fma_mix_f32 v0, v1, v2, neg(1)"),
    ("gfx1100", None, "01400cccff060218f0ffffff", "v_pk_max_u16 v1, lit(0xfffffff0), v3"),
    ("gfx1100", None, "00400fcc01ff01180000003c", "v_pk_add_f16 v0, v1, 0x3c000000"),
    ("gfx1100", None, "00400fcc01e50118", "v_pk_add_f16 v0, v1, 1.0"),
    ("gfx1100", None, "014013ccff06101c78563412", "v_dot2_f32_f16 v1, 0x12345678, s3, v4"),
    ("gfx1100", None, "014022ccfa040efc04e400ff",
     "v_fma_mixhi_f16_e64_dpp v1, -v4, -v2, -v3 op_sel_hi:[1,1,1] quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf"),
    ("gfx1100", None, "01401acce9040e1c0488c6fa", "v_dot2_f32_bf16_e64_dpp v1, v4, v2, v3 dpp8:[0,1,2,3,4,5,6,7]"),
    # RDNA3 WMMA: fragments halve in wave64 (the accumulator only), 1/(2*pi) is printed as an f64
    ("gfx1100", 32, "00c044cc0819027c",
     "v_wmma_i32_16x16x16_iu8 v[0:7], v[8:11], v[12:15], v[0:7] neg_lo:[1,1,0] clamp"),
    ("gfx1100", 64, "00c044cc0819027c",
     "v_wmma_i32_16x16x16_iu8 v[0:3], v[8:11], v[12:15], v[0:3] neg_lo:[1,1,0] clamp"),
    ("gfx1100", 32, "006042cc0821021c", "v_wmma_f16_16x16x16_f16 v[0:7], v[8:15], v[16:23], v[0:7] op_sel:[0,0,1]"),
    ("gfx1100", 32, "004040cc0011e21b", "v_wmma_f32_16x16x16_f16 v[0:7], v[0:7], v[8:15], 0.15915494309189532"),
    # RDNA3 VOPD: halves, shared literal, LLVM's unmarked literal after an X fmamk
    ("gfx1100", 32, "030be4ca040d0201", "v_dual_min_f32 v1, v3, v5 :: v_dual_and_b32 v2, v4, v6"),
    ("gfx1100", 32, "010112ca02070000", "v_dual_mov_b32 v0, v1 :: v_dual_cndmask_b32 v1, v2, v3"),
    ("gfx1100", 32, "030ba0c8ff0c02010000803f",
     "v_dual_fmamk_f32 v1, v3, 0x3f800000, v5 :: v_dual_add_nc_u32 v2, lit(0x3f800000), v6"),
    ("gfx1100", 32, "010546c8f20800000000803f",
     "v_dual_fmaak_f32 v0, v1, v2, 0x3f800000 :: v_dual_mul_f32 v1, 1.0, v4"),
    # RDNA4: SWMMAC index key, fp8 dot DPP, an f16 accumulator's 16-bit literal, VOPD renames
    ("gfx1201", 32, "004850cc0819521c", "v_swmmac_f32_16x16x32_f16 v[0:7], v[8:11], v[12:19], v20 index_key:1"),
    ("gfx1201", 64, "085051cc1031821c", "v_swmmac_f32_16x16x32_bf16 v[8:11], v[16:17], v[24:27], v32 index_key:2"),
    ("gfx1201", None, "014025ccfa040e1c04e400ff",
     "v_dot4_f32_bf8_fp8_e64_dpp v1, v4, v2, v3 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf"),
    ("gfx1201", None, "01401dccff82011878563412", "v_pk_minimum_f16 v1, 0x12345678, -1"),
    ("gfx1201", 32, "ff0ad4ca040d020178563412",
     "v_dual_min_num_f32 v1, 0x12345678, v5 :: v_dual_max_num_f32 v2, v4, v6"),
    # CDNA3: packed 64-bit, matrix cores with AccVGPRs, SDWA
    ("gfx942", None, "0048b3d302090218", "v_pk_mov_b32 v[0:1], v[2:3], v[4:5] op_sel:[1,0]"),
    ("gfx942", None, "0040d8d301010018", "v_accvgpr_read_b32 v0, a1"),
    ("gfx942", None, "0040d9d381000018", "v_accvgpr_write_b32 a0, 1"),
    ("gfx942", None, "0080cdd30005ca1b", "v_mfma_f32_16x16x16_f16 a[0:3], a[0:1], a[2:3], 1.0"),
    ("gfx942", None, "0011c0d300030264", "v_mfma_f32_32x32x1_2b_f32 v[0:31], v0, v1, v[0:31] cbsz:1 abid:2 blgp:3"),
    ("gfx942", None, "0000efd302091ae4", "v_mfma_f64_4x4x4_4b_f64 v[0:1], v[2:3], v[4:5], v[6:7] neg:[1,1,1]"),
    ("gfx942", None, "0001bfd300050204", "v_mfma_f32_32x32x4_xf32 v[0:15], v[0:1], v[2:3], v[0:15] cbsz:1"),
    ("gfx942", None, "0009e2d3040d2a04", "v_smfmac_f32_16x16x32_f16 v[0:3], v[4:5], v[6:9], v10 cbsz:1 abid:1"),
    ("gfx942", None, "f904000201691523",
     "v_add_f32_sdwa v0, -v1, |v2| clamp mul:2 dst_sel:BYTE_1 dst_unused:UNUSED_SEXT src0_sel:WORD_1 src1_sel:BYTE_3"),
    ("gfx942", None, "f90a016801118686",
     "v_add_u32_sdwa v0, s1, 5 dst_sel:BYTE_1 dst_unused:UNUSED_PRESERVE src0_sel:DWORD src1_sel:DWORD"),
    ("gfx942", None, "f904000001110606",
     "v_cndmask_b32_sdwa v0, v1, v2, vcc dst_sel:BYTE_1 dst_unused:UNUSED_PRESERVE src0_sel:DWORD src1_sel:DWORD"),
    ("gfx942", None, "f904847c01820506", "v_cmp_eq_f32_sdwa s[2:3], v1, v2 src0_sel:WORD_1 src1_sel:DWORD"),
    ("gfx942", None, "f902767d0200060e", "v_cmpx_le_u16_sdwa vcc, v2, sext(v1) src0_sel:DWORD src1_sel:DWORD"),
    ("gfx942", None, "f902007e01160600",
     "v_mov_b32_sdwa v0, v1 dst_sel:DWORD dst_unused:UNUSED_PRESERVE src0_sel:DWORD"),
    # CDNA4: the scaled MFMA (a v_mfma_ld_scale_b32 word and an MFMA), f8f6f4 operand sizes
    ("gfx950", None, "0000acd3142b02000008add304190204",
     "v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[0:3], v20, v21 op_sel_hi:[0,0,0]"),
    ("gfx950", None, "0008acd3142b0218008aadd30419ca93",
     "v_mfma_scale_f32_16x16x128_f8f6f4 a[0:3], v[4:9], a[12:15], 1.0, v20, v21 op_sel:[1,0,0] "
     "op_sel_hi:[1,1,0] cbsz:2 blgp:4"),
    ("gfx950", None, "0048acd301020110", "v_mfma_ld_scale_b32 s1, 1 op_sel:[1,0] op_sel_hi:[0,1]"),
    ("gfx950", None, "0000add304190204", "v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[0:3]"),
    ("gfx950", None, "0800c0d32853e203", "v_mfma_f32_32x32x1_2b_f32 v[8:39], v40, v41, 0.15915494"),
    ("gfx950", None, "0240b1d36c0c0218", "v_pk_mul_f32 v[2:3], ttmp[0:1], v[6:7]"),
]

# Texts that LLVM prints but does not assemble again (a WMMA accumulator takes no literal there).
DISASSEMBLY_ONLY = [
    ("gfx1201", 32, "044042cc0819fe1b78563412", "v_wmma_f16_16x16x16_f16 v[4:7], v[8:11], v[12:15], 0x5678"),
    ("gfx1100", 32, "084043cc1031fe1b40000000", "v_wmma_bf16_16x16x16_bf16 v[8:15], v[16:23], v[24:31], 0x40"),
    ("gfx1100", 64, "084043cc1031fe1bf0ffffff",
     "v_wmma_bf16_16x16x16_bf16 v[8:11], v[16:23], v[24:31], lit(0xfffffff0)"),
    ("gfx942", None, "c520b0d3ba016d07",
     "v_pk_fma_f32 v[197:198]/*Invalid register, operand has 'VReg_64_Align2' register class*/, v[186:187], 0, "
     "v[219:220]/*Invalid register, operand has 'VS_64_Align2' register class*/ op_sel:[0,0,1] op_sel_hi:[0,0,0]"),
]


def _isa(target, wave):
    return ISA.get(target, wave)


@pytest.mark.parametrize("target,wave,data,text", PAIRS + DISASSEMBLY_ONLY)
def test_disassembles_like_llvm(target, wave, data, text):
    assert disassemble(decode(_isa(target, wave), bytes.fromhex(data))) == text


@pytest.mark.parametrize("target,wave,data,text", PAIRS)
def test_assembles_like_llvm(target, wave, data, text):
    assert assemble(_isa(target, wave), text).data.hex() == data


# Encodings that LLVM rejects, for bits it checks that the spec leaves free: a ValueError, no crash.
REJECTED = [
    ("gfx1100", 32, "00408fcc01050218", "bit 23 of VOP3P, outside the spec's fields"),
    ("gfx1100", 32, "00440fcc01050218", "op_sel of a third source of a two-source op"),
    ("gfx1100", 64, "010112ca02070000", "VOPD in wave64"),
    ("gfx1100", 32, "01a912ca02070000", "v_dual_mov_b32 X with a vsrcx1"),
    ("gfx942", None, "01c8d8d302010018", "v_accvgpr_read_b32 with op_sel"),
    ("gfx950", None, "0009e2d3040d2a24", "v_smfmac with blgp"),
]


@pytest.mark.parametrize("target,wave,data,why", REJECTED)
def test_encodings_llvm_rejects_raise_value_error(target, wave, data, why):
    with pytest.raises(ValueError):
        disassemble(decode(_isa(target, wave), bytes.fromhex(data)))


# (target, wave, source line, llvm-mc's message, its 1-based column)
ERRORS = [
    ("gfx1100", None, "v_pk_add_f16 v0, v1", "too few operands for instruction", 1),
    ("gfx1100", None, "v_pk_add_f16 v0, v1, v2, v3", "invalid operand for instruction", 26),
    ("gfx1100", None, "v_pk_add_f16 v0, v1, a2", "invalid operand for instruction", 22),
    ("gfx1100", None, "v_pk_add_f16 v0, v1, v2 op_sel:[2,0]", "invalid op_sel value.", 33),
    ("gfx1100", None, "v_pk_add_f16 v0, v1, v2 op_sel:1", "expected a left square bracket", 32),
    ("gfx1100", None, "v_pk_add_f16 v0, 0x1234, 0x4567", "only one unique literal operand is allowed", 26),
    ("gfx1100", None, "v_fma_mix_f32 v0, v1, v2, 0x12345", "invalid operand for instruction", 27),
    ("gfx1100", None, "v_wmma_f32_16x16x16_f16 v[0:7], s[8:15], v[16:23], v[0:7]",
     "invalid operand for instruction", 33),
    ("gfx1100", 32, "v_dual_mov_b32 v0, v1", "too few operands for instruction", 1),
    ("gfx1100", 32, "v_dual_mov_b32 v0, v1 :: v_dual_mov_b32 v2, v3",
     "one dst register must be even and the other odd", 41),
    ("gfx1100", 32, "v_dual_mov_b32 v0, v1 :: v_add_f32 v1, v2, v3", "invalid VOPDY instruction", 26),
    ("gfx1100", 32, "v_dual_add_f32 v0, 0x1234, v2 :: v_dual_mov_b32 v1, 0x4567",
     "only one unique literal operand is allowed", 53),
    ("gfx1100", 64, "v_dual_mov_b32 v0, v1 :: v_dual_mov_b32 v1, v2", "instruction requires wavesize=32", 1),
    ("gfx1201", None, "v_swmmac_f32_16x16x32_f16 v[0:7], v[8:11], v[12:19], v20 index_key:5",
     "out of range index_key", 58),
    ("gfx942", None, "v_mfma_f32_32x32x1_2b_f32 a[0:31], s0, v1, a[0:31]", "invalid operand for instruction", 36),
    ("gfx942", None, "v_mfma_f32_32x32x1_2b_f32 a[0:31], v0, v1, a[0:31] abid:16", "invalid abid value.", 52),
    ("gfx942", None, "v_accvgpr_read_b32 v0, v1", "invalid operand for instruction", 24),
    ("gfx942", None, "v_add_f32_sdwa v0, v1, v2 dst_sel:BYTE_9", "invalid dst_sel value", 35),
    ("gfx942", None, "v_add_f32_sdwa v0, v1, 0x1234", "invalid operand for instruction", 24),
    ("gfx942", None, "v_mov_b32_sdwa v0, v1 src1_sel:BYTE_1", "not a valid operand.", 23),
    ("gfx950", None, "v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[4:7], v[12:19], v[0:3]",
     "wrong register tuple size for cbsz value 0", 37),
    ("gfx950", None, "v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[0:3], v20, s21",
     "invalid operand for instruction", 75),
]


@pytest.mark.parametrize("target,wave,line,message,column", ERRORS)
def test_errors_like_llvm_mc(target, wave, line, message, column):
    with pytest.raises(AssemblyError) as info:
        assemble(_isa(target, wave), line)
    assert (info.value.message, info.value.column) == (message, column)
