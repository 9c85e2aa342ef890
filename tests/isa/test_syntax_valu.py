"""Vector ALU syntax (VOP1, VOP2, VOPC, VOP3, VOP3SD and their variants) against llvm-mc-22 pairs."""
import pytest

from gpubench.isa.arch import ISA
from gpubench.isa.asm import AssemblyError, assemble
from gpubench.isa.decoder import decode
from gpubench.isa.disasm import disassemble
from gpubench.isa.syntax.valu import EncodingError

# (target, wave or None, bytes, text): llvm-mc --disassemble prints text for the bytes, and
# assembles the text back to the same bytes.
HAND_PICKED = [
    # implicit VCC in e32, written per wave size
    ("gfx1100", 32, "01050040", "v_add_co_ci_u32_e32 v0, vcc_lo, v1, v2, vcc_lo"),
    ("gfx1100", 64, "01050040", "v_add_co_ci_u32_e32 v0, vcc, v1, v2, vcc"),
    ("gfx1100", 32, "01050002", "v_cndmask_b32_e32 v0, v1, v2, vcc_lo"),
    ("gfx1100", 32, "0105247c", "v_cmp_eq_f32_e32 vcc_lo, v1, v2"),
    ("gfx1100", 64, "0105247c", "v_cmp_eq_f32_e32 vcc, v1, v2"),
    ("gfx1100", None, "0105247d", "v_cmpx_eq_f32_e32 v1, v2"),
    ("gfx1100", 32, "000012d401050200", "v_cmp_eq_f32_e64 s0, v1, v2"),
    ("gfx1100", 64, "000012d401050200", "v_cmp_eq_f32_e64 s[0:1], v1, v2"),
    ("gfx942", None, "0207227c", "v_cmpx_class_f32_e32 vcc, v2, v3"),
    # true16 halves and op_sel on RDNA3, whole registers on RDNA4
    ("gfx1100", None, "81050064", "v_add_f16_e32 v0.l, v1.h, v2.l"),
    ("gfx1100", None, "000832d501050200", "v_add_f16_e64 v0.l, v1.h, v2.l op_sel:[1,0,0]"),
    ("gfx1100", None, "005832d501050200", "v_add_f16_e64 v0.h, v1.h, v2.h op_sel:[1,1,1]"),
    ("gfx1201", None, "01050064", "v_add_f16_e32 v0, v1, v2"),
    # modifiers, constants, literals
    ("gfx1100", None, "000013d60105c20b", "v_fma_f32 v0, v1, v2, 0.5 mul:2"),
    ("gfx1100", None, "010004d5fd9c0140", "v_sub_f32_e64 v1, src_scc, neg(-14)"),
    ("gfx1100", None, "f8040006", "v_add_f32_e32 v0, 0.15915494, v2"),
    ("gfx1100", None, "ff0400060000c03f", "v_add_f32_e32 v0, 0x3fc00000, v2"),
    ("gfx1100", None, "ff0400060000803f", "v_add_f32_e32 v0, lit(0x3f800000), v2"),
    ("gfx1100", None, "ff0802580000803f", "v_fmamk_f32 v1, lit(0x3f800000), 0x3f800000, v4"),
    # DPP16 and DPP8
    ("gfx1100", None, "fa040006010101ff", "v_add_f32_dpp v0, v1, v2 row_shl:1 row_mask:0xf bank_mask:0xf"),
    ("gfx1100", None, "e902007e01d1581f", "v_mov_b32_dpp v0, v1 dpp8:[1,2,3,4,5,6,7,0]"),
    # VOP3SD and VOP3-only operations
    ("gfx1100", 32, "7c6620d501fba901", "v_add_co_ci_u32_e64 v124, s102, v1, src_scc, vcc_lo"),
    ("gfx942", None, "fe78ced1fdb40b04", "v_alignbit_b32 v254, src_scc, v218, v2 op_sel:[1,1,1,1]"),
]

# Pairs drawn from the LLVM corpus, a few per format and target.
FROM_CORPUS = [
    ("gfx1100", None, "f7b0027e", "v_exp_f16_e32 v1.l, -4.0"),
    ("gfx1100", None, "fc2ffc7f", "v_trunc_f64_e32 v[254:255], v[252:253]"),
    ("gfx1100", None, "fac4027e02e400fc", "v_sat_pk_u8_i16_dpp v1.l, v2 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xc"),
    ("gfx1100", None, "fa46027e02e410ff", "v_rndne_f32_dpp v1, -v2 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf"),
    ("gfx1100", None, "e91a027e0288c6fa", "v_cvt_floor_i32_f32_dpp v1, v2 dpp8:[0,1,2,3,4,5,6,7]"),
    ("gfx1100", None, "e986027e02437f45", "v_movrels_b32_dpp v1, v2 dpp8:[3,0,5,7,7,2,1,2]"),
    ("gfx1100", None, "ff84fe7f78563412", "v_movreld_b32_e32 v255, 0x12345678"),
    ("gfx1100", None, "ff10fe7f78563412", "v_cvt_i32_f32_e32 v255, 0x12345678"),
    ("gfx1100", None, "7c06026c", "v_fmac_f16_e32 v1.l, null, v3.l"),
    ("gfx1100", None, "f706020c", "v_fmac_dx9_zero_f32_e32 v1, -4.0, v3"),
    ("gfx1100", None, "fa04021803e400fc", "v_mul_hi_u32_u24_dpp v1, v3, v2 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xc"),
    ("gfx1100", None, "fa04024e03e404ff", "v_subrev_nc_u32_dpp v1, v3, v2 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf fi:1"),
    ("gfx1100", None, "ff06024affff0000", "v_add_nc_u32_e32 v1, 0xffff, v3"),
    ("gfx1100", 32, "ff06020240000000", "v_cndmask_b32_e32 v1, lit(0x40), v3, vcc_lo"),
    ("gfx1100", 32, "d004267c", "v_cmp_le_f32_e32 vcc_lo, -16, v2"),
    ("gfx1100", 32, "0105667c", "v_cmp_le_i16_e32 vcc_lo, v1.l, v2.l"),
    ("gfx1100", 64, "ea02327c0288c6fa", "v_cmp_nge_f32 vcc, v2, v1 dpp8:[0,1,2,3,4,5,6,7] fi:1"),
    ("gfx1100", None, "e9fe2d7dfe88c6fa", "v_cmpx_ge_f32 v254, v255 dpp8:[0,1,2,3,4,5,6,7]"),
    ("gfx1100", None, "0100dad502000000", "v_frexp_exp_i16_f16_e64 v1.l, s2"),
    ("gfx1100", None, "01000fd602074203", "v_cubema_f32 v1, v2, v3, -16"),
    ("gfx1100", None, "ff0013d5fafc0300fde400ff", "v_min_u32_e64_dpp v255, v253, v254 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf"),
    ("gfx1100", None, "0100bfd5fa00000002e400af", "v_frexp_exp_i32_f32_e64_dpp v1, v2 quad_perm:[0,1,2,3] row_mask:0xa bank_mask:0xf"),
    ("gfx1100", 64, "6a0027d402090200", "v_cmp_o_f64_e64 vcc, v[2:3], v[4:5]"),
    ("gfx1100", None, "7e0096d4f0040200", "v_cmpx_ge_f32_e64 0.5, v2"),
    ("gfx1100", 64, "0282ffd6040b1a04", "v_mad_i64_i32 v[2:3], s[2:3], v4, v5, v[6:7] clamp"),
    ("gfx1100", 32, "018202d702070200", "v_subrev_co_u32 v1, s2, v2, v3 clamp"),
    ("gfx1100", None, "0100bcd5ff000000f0ffffff", "v_frexp_exp_i32_f64_e64 v1, 0xfffffff0"),
    ("gfx1100", 64, "010001d5ff060a0000000080", "v_cndmask_b32_e64 v1, 0x80000000, v3, s[2:3]"),
    ("gfx1201", None, "0203027e", "v_mov_b32_e32 v1, v2"),
    ("gfx1201", None, "0254027e", "v_rcp_f32_e32 v1, s2"),
    ("gfx1201", None, "0207023c", "v_xnor_b32_e32 v1, v2, v3"),
    ("gfx1201", None, "fcf5fd1d", "v_max_num_f64_e32 v[254:255], v[252:253], v[250:251]"),
    ("gfx1201", None, "e904023a03773905", "v_xor_b32_dpp v1, v3, v2 dpp8:[7,6,5,4,3,2,1,0]"),
    ("gfx1201", None, "ea04025e0388c6fa", "v_cvt_pk_rtz_f16_f32_dpp v1, v3, v2 dpp8:[0,1,2,3,4,5,6,7] fi:1"),
    ("gfx1201", 32, "7c08547c", "v_cmp_nlg_f64_e32 vcc_lo, null, v[4:5]"),
    ("gfx1201", 32, "7c08ac7c", "v_cmp_ge_i64_e32 vcc_lo, null, v[4:5]"),
    ("gfx1201", None, "fa02fa7d02e400fc", "v_cmpx_class_f16 v2, v1 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xc"),
    ("gfx1201", 32, "fa021a7c02e420ff", "v_cmp_neq_f16 vcc_lo, |v2|, v1 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf"),
    ("gfx1201", None, "01001cd77c060200", "v_ldexp_f32 v1, null, v3"),
    ("gfx1201", None, "010039d602071204", "v_msad_u8 v1, v2, v3, v4"),
    ("gfx1201", None, "010030d5e904020003773905", "v_min_num_f16_e64_dpp v1, v3, v2 dpp8:[7,6,5,4,3,2,1,0]"),
    ("gfx1201", None, "01002fd6e9040e840488c6fa", "v_minimum3_f16_e64_dpp v1, v4, v2, -v3 dpp8:[0,1,2,3,4,5,6,7]"),
    ("gfx1201", 64, "0202ffd6040b1200", "v_mad_co_i64_i32 v[2:3], s[2:3], v4, v5, s[4:5]"),
    ("gfx1201", None, "017c02d702070200", "v_subrev_co_u32 v1, null, v2, v3"),
    ("gfx1201", 32, "02001cd4ff04020078563412", "v_cmp_nle_f32_e64 s2, 0x12345678, v2"),
    ("gfx1201", 64, "680029d4fffc030078563412", "v_cmp_nge_f64_e64 s[104:105], 0x12345678, v[254:255]"),
    ("gfx942", None, "fe6ffe7f", "v_screen_partition_4se_b32_e32 v255, v254"),
    ("gfx942", None, "022e047e", "v_trunc_f64_e32 v[2:3], s[2:3]"),
    ("gfx942", None, "fa18027e02e420ff", "v_cvt_rpi_i32_f32_dpp v1, |v2| quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf"),
    ("gfx942", None, "fa0afe7ffee400ff", "v_cvt_f32_i32_dpp v255, v254 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf"),
    ("gfx942", None, "02060278", "v_pk_fmac_f16_e32 v1, s2, v3"),
    ("gfx942", None, "6c06026c", "v_subrev_u32_e32 v1, ttmp0, v3"),
    ("gfx942", None, "fa040268034201ff", "v_add_u32_dpp v1, v3, v2 row_bcast:15 row_mask:0xf bank_mask:0xf"),
    ("gfx942", None, "fafcff4ffde400ff", "v_sub_u16_dpp v255, v253, v254 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf"),
    ("gfx942", None, "0204887d", "v_cmp_gt_i32_e32 vcc, s2, v2"),
    ("gfx942", None, "c104947d", "v_cmp_eq_u32_e32 vcc, -1, v2"),
    ("gfx942", None, "010063d16c000000", "v_rcp_iflag_f32_e64 v1, ttmp0"),
    ("gfx942", None, "01008dd16c000000", "v_cvt_norm_i16_f16_e64 v1, ttmp0"),
    ("gfx942", None, "6400fdd0fef90300", "v_cmpx_ne_u64_e64 s[100:101], v[254:255], v[252:253]"),
    ("gfx942", None, "02003dd005040200", "v_cmpx_neq_f16_e64 s[2:3], s5, v2"),
    ("gfx942", None, "017e1ad102070200", "v_sub_co_u32_e64 v1, exec, v2, v3"),
    ("gfx942", None, "0102e0d102071204", "v_div_scale_f32 v1, s[2:3], v2, v3, v4"),
    ("gfx950", None, "0272027e", "v_cvt_f16_u16_e32 v1, s2"),
    ("gfx950", None, "6c5e027e", "v_ffbh_i32_e32 v1, ttmp0"),
    ("gfx950", None, "ff06022ac3f54840", "v_xor_b32_e32 v1, 0x4048f5c3, v3"),
    ("gfx950", None, "ff0602780000803f", "v_pk_fmac_f16_e32 v1, 0x3f800000, v3"),
    ("gfx950", None, "01055e7c", "v_cmp_tru_f16_e32 vcc, v1, v2"),
    ("gfx950", None, "8708fe7d", "v_cmpx_t_u64_e32 vcc, 7, v[4:5]"),
    ("gfx950", None, "ff008dd1fe010000", "v_cvt_norm_i16_f16_e64 v255, v254"),
    ("gfx950", None, "080058d210810100", "v_cvt_scalef32_pk32_fp6_f16 v[8:13], v[16:31], 64"),
    ("gfx950", None, "0202e9d1d00a1a04", "v_mad_i64_i32 v[2:3], s[2:3], -16, v5, v[6:7]"),
    ("gfx950", None, "0202e8d104811904", "v_mad_u64_u32 v[2:3], s[2:3], v4, 64, v[6:7]"),
]

# LLVM decodes some encodings that its register classes do not allow and prints a remark: we print
# the same text (llvm-mc --disassemble); the assembler reads past the /* */ remark.
_LO128_V = "/*Invalid register, operand has 'VGPR_32_Lo128' register class*/"
REMARKS = [
    # RDNA4's fake16 e32 16-bit sources reach v0..v127 only
    ("gfx1201", None, "fe17fe7f", "v_cvt_f32_f16_e32 v255, v254/*Invalid register, operand has 'VS_32_Lo128' register class*/"),
    ("gfx1201", None, "fad4fe7ffee400ff", f"v_cvt_i32_i16_dpp v255, v254{_LO128_V} quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf"),
    ("gfx1201", None, "fffe057d78563412", f"v_cmpx_eq_f16_e32 0x5678, v255{_LO128_V}"),
    # constants where a lane mask or a VGPR goes, scalars where a VGPR goes and the other way round
    ("gfx1100", None, "010001d502071e02", "v_cndmask_b32_e64 v1, v2, v3, 7/*Invalid immediate*/"),
    ("gfx1100", None, "0304047e", "v_readfirstlane_b32 s2, s3/*Invalid register, operand has 'VRegOrLds_32' register class*/"),
    ("gfx1100", None, "03053a7f", "v_readfirstlane_b32 29/*Invalid immediate*/, v3"),
    ("gfx1100", None, "0105fa7e", "v_readfirstlane_b32 m0/*Invalid register, operand has 'SReg_32_XM0' register class*/, v1"),
    ("gfx1201", None, "ff04047e78563412", "v_readfirstlane_b32 s2, 0x12345678/*Invalid immediate*/"),
    ("gfx1100", None, "ff0060d7ffd2000078563412", "v_readlane_b32 0x12345678/*Invalid immediate*/, 0x12345678/*Invalid immediate*/, s105"),
    ("gfx1201", None, "7e0080d603000000", "v_s_exp_f32 exec_lo/*Invalid register, operand has 'SReg_32_XEXEC' register class*/, s3"),
    ("gfx942", None, "01008ad203070000", "v_writelane_b32 v1, v3/*Invalid register, operand has 'SReg_32' register class*/, s3"),
    ("gfx1100", None, "64cc047f", "v_swap_b16 v2.h, s100/*Invalid register, operand has 'VGPR_16_Lo128' register class*/"),
    # CDNA's odd VGPR tuples, and its 64-bit DPP controls other than row_newbcast
    ("gfx942", None, "0208027e", "v_cvt_f64_i32_e32 v[1:2]/*Invalid register, operand has 'VReg_64_Align2' register class*/, s2"),
    ("gfx942", None, "fa30047e044301ff", "v_ceil_f64_dpp v[2:3], v[4:5]  /* DP ALU dpp only supports row_newbcast */ row_mask:0xf bank_mask:0xf"),
    ("gfx1100", None, "fa040006013001ff", "v_add_f32_dpp v0, v1, v2 /* wave_shl is not supported starting from GFX10 */ row_mask:0xf bank_mask:0xf"),
    ("gfx942", None, "fa040002016001ff", "v_add_f32_dpp v0, v1, v2 /* row_xmask is not supported on ASICs earlier than GFX10 */ row_mask:0xf bank_mask:0xf"),
    ("gfx1201", None, "fa040006017001ff", "v_add_f32_dpp v0, v1, v2 /* Invalid dpp_ctrl value */ row_mask:0xf bank_mask:0xf"),
    ("gfx942", None, "fa08040806e408ff", "v_fmac_f64_dpp v[2:3], v[6:7], v[4:5]  /* DP ALU dpp only supports row_newbcast */ row_mask:0xf bank_mask:0xf bound_ctrl:1"),
]

# Remark-laden texts that LLVM assembles again: to its bytes, which for RDNA4's VOPC DPP with a 16-bit
# operand past v127 are the VOP3 (e64) DPP form.
REMARK_ROUND_TRIPS = [
    ("gfx1201", None, "020081d601010000", "v_s_exp_f16 s2, v1/*Invalid register, operand has 'SReg_32' register class*/", "020081d601010000"),
    ("gfx1201", None, "fafefb7dfee400ff", f"v_cmpx_class_f16 v254{_LO128_V}, v255{_LO128_V} quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf",
     "7e00fdd4fafe0300fee400ff"),
    ("gfx1201", 32, "e9fefb7cfe88c6fa", f"v_cmp_class_f16 vcc_lo, v254{_LO128_V}, v255{_LO128_V} dpp8:[0,1,2,3,4,5,6,7]",
     "6a007dd4e9fe0300fe88c6fa"),
]

# Fixed cases, with LLVM's encoding of its own text (canonical: ignored op_sel bits cleared, the
# literal of a 16-bit operand truncated): op_sel as LLVM writes it (none for RDNA4's fake16 operations and CDNA's legacy ones,
# none for packed sources, no destination entry for RDNA's v_cmpx), byte_sel, lane-swap flags,
# operand widths and literals.
FIXED = [
    ("gfx1201", None, "01100ad702070200", "v_max_i16 v1, v2, v3", "01000ad702070200"),
    ("gfx1201", None, "014039d702070200", "v_lshrrev_b16 v1, v2, v3", "010039d702070200"),
    ("gfx1201", None, "014062d7ff06020078563412", "v_and_b16 v1, 0x5678, v3", "010062d7ff06020078560000"),
    ("gfx1201", None, "011067d602071204", "v_dot2_bf16_bf16 v1, v2, v3, v4", "010067d602071204"),
    ("gfx1201", None, "010883d6ff00000078563412", "v_s_log_f16 s1, 0x5678", "010083d6ff00000078560000"),
    ("gfx1201", 32, "01085dd6e9040a000388c6fa", "v_cndmask_b16_e64_dpp v1, v3, v2, s2 dpp8:[0,1,2,3,4,5,6,7]", "01005dd6e9040a000388c6fa"),
    ("gfx1201", None, "0208eed504010000", "v_cvt_pk_f32_fp8_e64 v[2:3], v4 op_sel:[1,0]", "0208eed504010000"),
    ("gfx1201", None, "0110edd5ff00000078563412", "v_cvt_f32_bf8_e64 v1, 0x12345678 byte_sel:1", "0110edd5ff00000078563412"),
    ("gfx1201", None, "0108ecd5ff00000078563412", "v_cvt_f32_fp8_e64 v1, 0x12345678 byte_sel:2", "0108ecd5ff00000078563412"),
    ("gfx1100", 32, "01205dd602070a00", "v_cndmask_b16 v1, v2, v3, s2", "01005dd602070a00"),
    ("gfx1100", None, "011066d602071204", "v_dot2_f16_f16 v1.l, v2, v3, v4.l", "010066d602071204"),
    ("gfx1100", None, "7e08bad4e90202000288c6fa", "v_cmpx_eq_u16_e64_dpp v2.h, v1.l op_sel:[1,0] dpp8:[0,1,2,3,4,5,6,7]", "7e08bad4e90202000288c6fa"),
    ("gfx942", None, "0178eed102071204", "v_fma_legacy_f16 v1, v2, v3, v4", "0100eed102071204"),
    ("gfx942", None, "0120ecd102071204", "v_mad_legacy_i16 v1, v2, v3, v4", "0100ecd102071204"),
    ("gfx942", None, "024096d104010000", "v_cvt_pk_f32_fp8_e64 v[2:3], v4", "020096d104010000"),
    ("gfx950", None, "01784fd202071204", "v_cvt_scalef32_sr_pk_fp4_bf16 v1, v2, v3, v4 op_sel:[1,1,1,1]", "01784fd202071204"),
    ("gfx950", None, "080063d218050000", "v_cvt_scalef32_pk32_bf16_bf6 v[8:23], v[24:29], s2", "080063d218050000"),
    ("gfx950", None, "ffb6027effff0000", "v_cvt_f32_bf16_e32 v1, lit(0xffff)", "ffb6027effff0000"),
    ("gfx950", None, "011099d102010000", "v_permlane16_swap_b32_e64 v1, v2 bound_ctrl:1", "011099d102010000"),
    ("gfx950", None, "010899d102010000", "v_permlane16_swap_b32_e64 v1, v2 fi:1", "010899d102010000"),
]

# Texts LLVM prints but cannot assemble: disassembly only.
DISASSEMBLY_ONLY = REMARKS + [
    ("gfx950", None, "ffb6027e78563412", "v_cvt_f32_bf16_e32 v1, 0x12345678"),
    ("gfx950", None, "ffb6027e00000080", "v_cvt_f32_bf16_e32 v1, lit(0x80000000)"),
    ("gfx1201", None, "01002bd5fa0e010003e400ff", "v_fmac_f32_e64_dpp v1, v3, 0x87 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf"),
    ("gfx1100", None, "010036d5e9e401000388c6fa", "v_fmac_f16_e64_dpp v1.l, v3.l, 0xf2 dpp8:[0,1,2,3,4,5,6,7]"),
    # random words LLVM accepts: flat-scratch bases, odd SGPR pairs, unused source fields
    ("gfx1100", None, "e62e7d56", "v_fmac_f32_e32 v62, src_flat_scratch_base_lo, v151"),
    ("gfx942", None, "daa5e1d1434ed0a3", "v_div_scale_f64 v[218:219], s[36:37], -s[66:67], s[38:39], neg(2.0) clamp"),
    ("gfx1100", None, "0f81a2d4390c4d04", "v_cmpx_eq_f64_e64 |s[56:57]|, 6 clamp"),
]

ROUND_TRIPS = HAND_PICKED + FROM_CORPUS


@pytest.mark.parametrize("target,wave,data,text", ROUND_TRIPS)
def test_disassembles_like_llvm(target, wave, data, text):
    assert disassemble(decode(ISA.get(target, wave), bytes.fromhex(data))) == text


@pytest.mark.parametrize("target,wave,data,text", ROUND_TRIPS)
def test_assembles_like_llvm(target, wave, data, text):
    assert assemble(ISA.get(target, wave), text).data.hex() == data


@pytest.mark.parametrize("target,wave,data,text,encoding", FIXED)
def test_fixed_cases_like_llvm(target, wave, data, text, encoding):
    isa = ISA.get(target, wave)
    assert disassemble(decode(isa, bytes.fromhex(data))) == text
    assert assemble(isa, text).data.hex() == encoding


@pytest.mark.parametrize("target,wave,data,text", DISASSEMBLY_ONLY)
def test_disassembles_remarks_like_llvm(target, wave, data, text):
    assert disassemble(decode(ISA.get(target, wave), bytes.fromhex(data))) == text


@pytest.mark.parametrize("target,wave,data,text,encoding", REMARK_ROUND_TRIPS)
def test_remarks_round_trip_like_llvm(target, wave, data, text, encoding):
    isa = ISA.get(target, wave)
    assert disassemble(decode(isa, bytes.fromhex(data))) == text
    assert assemble(isa, text).data.hex() == encoding


# What LLVM's assembler makes of texts the disassembler does not print.
@pytest.mark.parametrize("target,wave,text,data", [
    ("gfx942", None, "v_nop row_shl:1 row_mask:0xf bank_mask:0xf", "fa00007e000101ff"),
    ("gfx1100", None, "v_pk_fmac_f16 v1, 0.15915494, v3", "ff06027818310000"),  # no inline float
    ("gfx1201", None, "v_pk_fmac_f16 v1, -4.0, v3", "ff06027800c40000"),
    ("gfx1100", None, "v_dot2acc_f32_f16 v1, 0.15915494, v3", "f8060204"),
    ("gfx1100", 64, "v_add_co_ci_u32_e64 v1, null, v2, v3, s[4:5]", "017c20d502071200"),
    ("gfx1201", 32, "v_cmp_u_f16 vcc_lo, v254, v255 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf",
     "6a0008d4fafe0300fee400ff"),
    ("gfx950", None, "v_permlane16_swap_b32_e64 v1, v2 bound_ctrl:0 fi:1", "011899d102010000"),
])
def test_assembles_other_texts_like_llvm(target, wave, text, data):
    assert assemble(ISA.get(target, wave), text).data.hex() == data


# LLVM's choice of encoding for a mnemonic without suffix: e32 when the operands fit, else e64.
@pytest.mark.parametrize("target,text,data", [
    ("gfx1100", "v_add_f32 v0, v1, v2", "01050006"),
    ("gfx1100", "v_add_f32 v0, v1, s2", "000003d501050000"),
    ("gfx1100", "v_add_f32 v0, -v1, v2", "000003d501050220"),
    ("gfx1100", "v_cmp_eq_f32 s0, v1, v2", "000012d401050200"),
    ("gfx1100", "v_cmp_eq_f32 vcc_lo, v1, v2", "0105247c"),
    ("gfx1100", "v_add_f32 v0, v1, v2 row_shl:1", "fa040006010101ff"),
    ("gfx1100", "v_add_f16 v0, v1, v2", "01050064"),
])
def test_picks_encoding_like_llvm(target, text, data):
    assert assemble(ISA.get(target), text).data.hex() == data


@pytest.mark.parametrize("target,text,message,column", [
    ("gfx1100", "v_add_f32_e32 v0, v1, s2", "invalid operand for instruction", 23),
    ("gfx1100", "v_add_f32_e32 v0, v1", "too few operands for instruction", 21),
    ("gfx1100", "v_add_f32_e32 v0, v1, v2, v3", "invalid operand for instruction", 27),
    ("gfx1100", "v_add_f32_e64 v0, v1, v2 mul:3", "invalid operand for instruction", 26),
    ("gfx1100", "v_cmp_eq_f32_e32 s0, v1, v2", "invalid operand for instruction", 18),
    ("gfx1100", "v_add_f32_e64 v0, 0x1234, 0x5678", "only one unique literal operand is allowed", 27),
    ("gfx1100", "v_addd_f32 v0, v1, v2", "invalid instruction", 1),
])
def test_reports_errors_like_llvm(target, text, message, column):
    with pytest.raises(AssemblyError) as error:
        assemble(ISA.get(target), text)
    assert (error.value.message, error.value.column) == (message, column)


@pytest.mark.parametrize("target,data", [
    ("gfx1201", "06116f7f"),  # VOP1 opcode bit 16 (the spec's field stops at bit 15): no such opcode
    ("gfx1201", "c8059065"),  # a 16-bit e32 destination past v127 (fake16 RDNA4)
    ("gfx1201", "00cc4e7e"),  # v_swap_b16 with an SGPR source (fake16 RDNA4)
    ("gfx942", "0500087e"),  # v_nop with operand fields set
    ("gfx1100", "010155d602071204"),  # abs on an integer operation (v_add3_u32)
    ("gfx1100", "018055d602071204"),  # clamp on v_add3_u32, which has none
    ("gfx1100", "000012d401050208"),  # omod on a compare
    ("gfx1100", "fad07a398860ebb4"),  # DPP abs on an integer operation
    ("gfx942", "51ea9ad2e4ede043"),  # CDNA op_sel past the operands
    ("gfx1100", "7d18bb7d"),  # m0 as a 64-bit source
    ("gfx1201", "fe788c7e"),  # src_lds_direct as a 64-bit source
])
def test_rejects_encodings_llvm_rejects(target, data):
    with pytest.raises(EncodingError):
        disassemble(decode(ISA.get(target), bytes.fromhex(data)))
