"""Scalar instructions (SOP1, SOP2, SOPC, SOPK, SOPP, SMEM) against pairs taken from llvm-mc-22."""
import pytest

from gpubench.isa.arch import ISA
from gpubench.isa.asm import AssemblyError, assemble
from gpubench.isa.decoder import DecodeError, decode
from gpubench.isa.disasm import disassemble, disassemble_at

# (target, bytes, text): llvm-mc --disassemble prints text for the bytes, and assembles it back.
ROUND_TRIPS = [
    # SOP1 / SOP2 / SOPC
    ("gfx1100", "010080be", "s_mov_b32 s0, s1"),
    ("gfx1100", "7e0182be", "s_mov_b64 s[2:3], exec"),
    ("gfx1100", "004784be", "s_getpc_b64 s[4:5]"),
    ("gfx1100", "044880be", "s_setpc_b64 s[4:5]"),
    ("gfx1100", "6a2080be", "s_and_saveexec_b32 s0, vcc_lo"),
    ("gfx1100", "834c80be", "s_sendmsg_rtn_b32 s0, sendmsg(MSG_RTN_GET_REALTIME)"),
    ("gfx1100", "01ff008034120000", "s_add_u32 s0, s1, 0x1234"),
    ("gfx1100", "01ff00800000803f", "s_add_u32 s0, s1, lit(0x3f800000)"),
    ("gfx1100", "ff0180beffffffff", "s_mov_b64 s[0:1], 0xffffffff"),
    ("gfx1100", "02838084", "s_lshl_b64 s[0:1], s[2:3], 3"),
    ("gfx1100", "007c10bf", "s_cmp_eq_u64 s[0:1], null"),
    ("gfx1100", "6cf307bf", "s_cmp_lg_u32 ttmp0, -1.0"),
    ("gfx1201", "7c0080be", "s_mov_b32 s0, null"),
    ("gfx1201", "01020080", "s_add_co_u32 s0, s1, s2"),
    ("gfx1201", "01ff80a4003c0000", "s_add_f16 s0, s1, lit(0x3c00)"),
    ("gfx1201", "01ff80a434120000", "s_add_f16 s0, s1, 0x1234"),
    ("gfx1201", "ff6980be003c0000", "s_cvt_f32_f16 s0, 0x3c00"),
    ("gfx1201", "ff0151bf00380000", "s_cmp_lt_f16 0x3800, s1"),
    ("gfx1201", "010280a211000000", "s_fmaak_f32 s0, s1, s2, 0x11"),
    ("gfx1201", "01f200a3db0f4940", "s_fmamk_f32 s0, s1, 0x40490fdb, 1.0"),
    ("gfx1201", "c14e80be", "s_barrier_signal -1"),
    ("gfx942", "660180be", "s_mov_b64 s[0:1], flat_scratch"),
    ("gfx942", "680080be", "s_mov_b32 s0, xnack_mask_lo"),
    ("gfx942", "022380be", "s_andn2_saveexec_b64 s[0:1], s[2:3]"),
    ("gfx942", "000911bf", "s_set_gpr_idx_on s0, gpr_idx(SRC0,DST)"),
    ("gfx942", "00028094", "s_cbranch_g_fork s[0:1], s[2:3]"),
    ("gfx942", "008110bf", "s_setvskip s0, 1"),
    # SOPK
    ("gfx1100", "341200b0", "s_movk_i32 s0, 0x1234"),
    ("gfx1100", "feff85b3", "s_cmpk_lt_i32 s5, 0xfffe"),
    ("gfx1100", "810080b8", "s_getreg_b32 s0, hwreg(HW_REG_MODE, 2, 1)"),
    ("gfx1100", "17f803b9", "s_setreg_b32 hwreg(HW_REG_HW_ID1), s3"),
    ("gfx1100", "01f880b978563412", "s_setreg_imm32_b32 hwreg(HW_REG_MODE), 0x12345678"),
    ("gfx1100", "00007cbc", "s_waitcnt_vscnt null, 0x0"),
    ("gfx1100", "04001eba", "s_call_b64 s[30:31], 4"),
    ("gfx1100", "064080b0", "s_version UC_VERSION_GFX11|UC_VERSION_W32_BIT"),
    ("gfx1201", "01f880b8", "s_getreg_b32 s0, hwreg(HW_REG_WAVE_MODE)"),
    ("gfx1201", "090080b0", "s_version UC_VERSION_GFX12"),
    ("gfx942", "04f880b8", "s_getreg_b32 s0, hwreg(HW_REG_HW_ID)"),
    ("gfx942", "011800ba05000000", "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 5"),
    ("gfx942", "040000b8", "s_cbranch_i_fork s[0:1], 4"),
    ("gfx950", "ff7f00b0", "s_movk_i32 s0, 0x7fff"),
    ("gfx950", "14f880b8", "s_getreg_b32 s0, hwreg(HW_REG_XCC_ID)"),
    # SOPP
    ("gfx1100", "0000b0bf", "s_endpgm"),
    ("gfx1100", "000080bf", "s_nop 0"),
    ("gfx1100", "0000bdbf", "s_barrier"),
    ("gfx1100", "00009fbf", "s_code_end"),
    ("gfx1100", "070089bf", "s_waitcnt vmcnt(0) lgkmcnt(0)"),
    ("gfx1100", "f2ff89bf", "s_waitcnt expcnt(2)"),
    ("gfx1100", "910087bf", "s_delay_alu instid0(VALU_DEP_1) | instskip(NEXT) | instid1(VALU_DEP_1)"),
    ("gfx1100", "0300b6bf", "s_sendmsg sendmsg(MSG_DEALLOC_VGPRS)"),
    ("gfx1100", "9f0f88bf", "s_waitcnt_depctr depctr_va_vdst(0)"),
    ("gfx1100", "feffa0bf", "s_branch 65534"),
    ("gfx1100", "0300a5bf", "s_cbranch_execz 3"),
    ("gfx1100", "010085bf", "s_clause 0x1"),
    ("gfx1100", "070083bf", "s_sleep 7"),
    ("gfx1100", "030084bf", "s_set_inst_prefetch_distance 0x3"),
    ("gfx1100", "020090bf", "s_trap 2"),
    ("gfx1100", "0300b5bf", "s_setprio 3"),
    ("gfx1201", "0000c0bf", "s_wait_loadcnt 0x0"),
    ("gfx1201", "0100c7bf", "s_wait_kmcnt 0x1"),
    ("gfx1201", "0000c8bf", "s_wait_loadcnt_dscnt 0x0"),
    ("gfx1201", "9e0f88bf", "s_wait_alu depctr_sa_sdst(0) depctr_va_vdst(0)"),
    ("gfx1201", "ffff94bf", "s_barrier_wait 0xffff"),
    ("gfx1201", "090087bf", "s_delay_alu instid0(SALU_CYCLE_1)"),
    ("gfx1201", "010083bf", "s_sleep 1"),
    ("gfx1201", "8700b6bf", "s_sendmsg sendmsg(MSG_RTN_GET_SE_AID_ID)"),
    ("gfx942", "02009dbf", "s_set_gpr_idx_mode gpr_idx(SRC1)"),
    ("gfx942", "00009cbf", "s_set_gpr_idx_off"),
    ("gfx942", "00008cbf", "s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)"),
    ("gfx942", "7fcf8cbf", "s_waitcnt vmcnt(63) expcnt(7) lgkmcnt(15)"),
    ("gfx942", "220190bf", "s_sendmsg sendmsg(MSG_GS, GS_OP_EMIT, 1)"),
    ("gfx942", "2f0090bf", "s_sendmsg sendmsg(MSG_SYSMSG, SYSMSG_OP_REG_RD)"),
    ("gfx942", "000081bf", "s_endpgm"),
    ("gfx950", "050080bf", "s_nop 5"),
    # SMEM
    ("gfx1100", "000000f4100000f8", "s_load_b32 s0, s[0:1], 0x10"),
    ("gfx1100", "826004f41000000c", "s_load_b64 s[2:3], s[4:5], s6 offset:0x10 glc dlc"),
    ("gfx1100", "000000f4f8ff1ff8", "s_load_b32 s0, s[0:1], -0x8"),
    ("gfx1100", "040128f4000000f8", "s_buffer_load_b128 s[4:7], s[8:11], null"),
    ("gfx1100", "820020f4000000fa", "s_buffer_load_b32 s2, s[4:7], m0"),
    ("gfx1100", "c10088f4100000f8", "s_atc_probe 3, s[2:3], 0x10"),
    ("gfx1100", "000080f400000000", "s_gl1_inv"),
    ("gfx1100", "000084f400000000", "s_dcache_inv"),
    ("gfx1201", "0000e0f400000004", "s_load_b32 s0, s[0:1], s2 offset:0x0 th:TH_LOAD_NT scope:SCOPE_SYS"),
    ("gfx1201", "00a100f4100000f8", "s_load_b96 s[4:6], s[0:1], 0x10"),
    ("gfx1201", "412001f4000080f8", "s_load_u8 s1, s[2:3], -0x800000"),
    ("gfx1201", "8220e2f5ffff7f10",
     "s_buffer_load_b64 s[2:3], s[4:7], s8 offset:0x7fffff th:TH_LOAD_BYPASS scope:SCOPE_SYS"),
    ("gfx1201", "40c104f4100000f8", "s_prefetch_data s[0:1], 0x10, null, 5"),
    ("gfx1201", "40a004f4fcffff06", "s_prefetch_inst_pc_rel -0x4, s3, 1"),
    ("gfx1201", "002004f400000000", "s_dcache_inv"),
    ("gfx942", "000002c010000000", "s_load_dword s0, s[0:1], 0x10"),
    ("gfx942", "000000c002000000", "s_load_dword s0, s[0:1], s2"),
    ("gfx942", "014006c010000008", "s_load_dwordx2 s[0:1], s[2:3], s4 offset:0x10"),
    ("gfx942", "000043c000000000", "s_store_dword s0, s[0:1], 0x0 glc"),
    ("gfx942", "02000bc104000000", "s_buffer_atomic_add s0, s[4:7], 0x4 glc"),
    ("gfx942", "000090c000000000", "s_memtime s[0:1]"),
    ("gfx942", "800094c000000000", "s_memrealtime s[2:3]"),
    ("gfx942", "000084c000000000", "s_dcache_wb"),
    ("gfx942", "0000a0c002000000", "s_dcache_discard s[0:1], s2"),
    ("gfx942", "c0019ac010000000", "s_atc_probe 7, s[0:1], 0x10"),
    ("gfx950", "01000ac0fcff1f00", "s_load_dwordx4 s[0:3], s[2:3], -0x4"),
    ("gfx950", "000017c010000000", "s_scratch_load_dword s0, s[0:1], 0x10 glc"),
]

# Non-canonical encodings: LLVM's text, and LLVM's (different) bytes when it assembles that text.
DISASSEMBLY_ONLY = [
    ("gfx1100", "5901e9be", "s_mov_b64 s[104:105], s[88:89]", "5801e8be"),  # unaligned pairs
    ("gfx1100", "fe0080be", "s_mov_b32 s0, src_lds_direct/*Invalid register, operand has 'SReg_32' register class*/",
     None),
    ("gfx1100", "c14080be", "s_movrels_b32 s0, -1/*Invalid immediate*/", None),
    ("gfx1100", "ff0080be0000803f", "s_mov_b32 s0, lit(0x3f800000)", "ff0080be0000803f"),
    ("gfx1100", "0500b0bf", "s_endpgm 5", "0500b0bf"),
    ("gfx1100", "ffff89bf", "s_waitcnt vmcnt(63) expcnt(7) lgkmcnt(63)", "f7ff89bf"),
    ("gfx1100", "ffff88bf", "s_waitcnt_depctr 0xffff", "ffff88bf"),
    ("gfx1100", "861f00f404000030",
     "s_load_b32 exec_lo/*Invalid register, operand has 'SReg_32_XM0_XEXEC' register class*/, s[12:13], s24 offset:0x4",
     None),
    ("gfx942", "dd5e00c010000054", "s_load_dword ttmp15, s[58:59], s42", "dd1e00c02a000000"),
    ("gfx1201", "0c0b40f48ab8b5eb", "s_load_b32 s44, s[24:25], ttmp9 offset:-0x4a4776 scale_offset scope:SCOPE_DEV",
     None),
    ("gfx1201", "ff4c82be", "s_sendmsg_rtn_b32 s2, sendmsg(255, 0, 0)", "ff4c82be"),  # 255 is no literal here
]

# Encodings that LLVM rejects although every field holds a value.
INVALID = [
    ("gfx1100", "0500bdbf"),  # s_barrier takes no immediate
    ("gfx1100", "004080f400000000"),  # s_gl1_inv takes no cache policy
    ("gfx1201", "fe1902f4ffffffe0"),  # a negative buffer offset
    ("gfx1201", "419a00f400000010"),  # s[104:119] runs past s105
    ("gfx942", "5e9f92c010000000"),  # s_memtime takes no offset
]


def isa(target):
    return ISA.get(target)


@pytest.mark.parametrize("target,data,text", ROUND_TRIPS)
def test_llvm_pairs_round_trip(target, data, text):
    assert disassemble(decode(isa(target), bytes.fromhex(data))) == text
    assert assemble(isa(target), text).data.hex() == data


@pytest.mark.parametrize("target,data,text,reassembled", DISASSEMBLY_ONLY)
def test_non_canonical_encodings(target, data, text, reassembled):
    assert disassemble(decode(isa(target), bytes.fromhex(data))) == text
    if reassembled is None:
        with pytest.raises(AssemblyError):
            assemble(isa(target), text)
    else:
        assert assemble(isa(target), text).data.hex() == reassembled


@pytest.mark.parametrize("target,data", INVALID)
def test_encodings_llvm_rejects_are_decode_errors(target, data):
    with pytest.raises(DecodeError):
        disassemble_at(isa(target), bytes.fromhex(data))


@pytest.mark.parametrize("target,text,message,column", [
    ("gfx1100", "s_mov_b32 s0, v1", "invalid operand for instruction", 15),
    ("gfx1100", "s_mov_b64 s[1:2], s[4:5]", "invalid register alignment", 11),
    ("gfx1100", "s_mov_b32 s0", "too few operands for instruction", 1),
    ("gfx1100", "s_mov_b32 s0, s1 glc", "invalid operand for instruction", 18),
    ("gfx1100", "s_add_u32 s0, 0x1234, 0x5678", "only one unique literal operand is allowed", 23),
    ("gfx1100", "s_movk_i32 s0, 0x10000", "invalid operand for instruction", 16),
    ("gfx1100", "s_barrier 5", "invalid operand for instruction", 11),
    ("gfx1100", "s_getreg_b32 s0, hwreg(HW_REG_MODE, 32, 1)", "invalid bit offset: only 5-bit values are legal", 37),
    ("gfx1100", "s_getreg_b32 s0, hwreg(HW_REG_FOO)", "expected a register name or an absolute expression", 24),
    ("gfx1100", "s_sendmsg sendmsg(MSG_FOO)", "expected a message name or an absolute expression", 19),
    ("gfx1100", "s_waitcnt vmcnt(100)", "too large value for vmcnt", 17),
    ("gfx1100", "s_waitcnt foo(1)", "invalid counter name foo", 11),
    ("gfx1100", "s_branch 65536", "expected a 16-bit signed jump offset", 10),
    ("gfx1100", "s_branch nowhere", "undefined label 'nowhere'", 10),
    ("gfx1100", "s_load_b32 s0, s[0:1], 0x100000", "expected a 21-bit signed offset", 24),
    ("gfx1100", "s_buffer_load_b32 s0, s[0:3], -8", "expected a 20-bit unsigned offset", 31),
    ("gfx1100", "s_load_b32 exec_lo, s[0:1], s2", "invalid operand for instruction", 12),
    ("gfx1201", "s_buffer_load_b32 s0, s[0:3], -8", "expected a 23-bit unsigned offset for buffer ops", 31),
    ("gfx1201", "s_load_b32 s0, s[0:1], s2 th:TH_LOAD_LU scope:SCOPE_SYS", "scope and th combination is not valid", 27),
    ("gfx1201", "s_load_b32 s0, s[0:1], s2 offset:0x10 scale_offset", "scale_offset is not supported on this GPU", 39),
    ("gfx1201", "s_load_b32 s0, s[0:1], 0x10 offset:0x10", "invalid operand for instruction", 29),
    ("gfx942", "s_mov_b32 s0, null", "'null' operand is not supported on this GPU", 15),
])
def test_errors_name_the_offending_column(target, text, message, column):
    with pytest.raises(AssemblyError) as e:
        assemble(isa(target), text)
    assert (e.value.message, e.value.column) == (message, column)


def test_branch_to_a_label_counts_dwords_from_the_next_instruction():
    program = assemble(isa("gfx1100"), "back:\n  s_nop 0\n  s_cbranch_scc0 back\n  s_branch ahead\n  s_nop 0\nahead:\n")
    assert program.data.hex() == "000080bf" "feffa1bf" "0100a0bf" "000080bf"


def test_wait_counters_accept_llvm_separators():
    assert assemble(isa("gfx1100"), "s_waitcnt vmcnt(0) & lgkmcnt(1)").data.hex() == "170089bf"
    assert assemble(isa("gfx1100"), "s_waitcnt vmcnt(0), lgkmcnt(1)").data.hex() == "170089bf"
    assert assemble(isa("gfx1100"), "s_waitcnt vmcnt_sat(100)").data.hex() == "f7ff89bf"
