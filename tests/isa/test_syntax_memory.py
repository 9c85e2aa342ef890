"""LDS and global/flat/scratch/buffer memory syntax (ds.py, flat.py, buffer.py) against LLVM pairs.

Every pair is llvm-mc-22's: `bytes` disassemble to `text`, and `text` assembles to `asm` (the
canonical encoding, which differs from `bytes` where LLVM ignores bits).
"""
import pytest

from gpubench.isa.arch import ISA
from gpubench.isa.asm import AssemblyError, assemble
from gpubench.isa.decoder import DecodeError
from gpubench.isa.disasm import disassemble_at

# (target, wave or None, bytes, LLVM's text, LLVM's bytes for the text or None if same as bytes)
PAIRS = [
    # DS
    ("gfx1100", None, "0000b2d802030401", "ds_mskor_rtn_b32 v1, v2, v3, v4 gds", None),
    ("gfx1100", None, "ff00b8d9080a0c04",
     "ds_storexchg_2addr_rtn_b64 v[4:7], v8, v[10:11], v[12:13] offset0:255", None),
    ("gfx1100", None, "000066d801000000", "ds_gws_init v1 gds", None),
    ("gfx1100", None, "5880d4d8000000ff", "ds_swizzle_b32 v255, v0 offset:swizzle(QUAD_PERM,0,2,1,1)", None),
    ("gfx1100", None, "b700d4d80200000a", 'ds_swizzle_b32 v10, v2 offset:swizzle(BITMASK_PERM,"p01p1")',
     "b200d4d80200000a"),
    ("gfx1100", None, "04ffd4d801000005", "ds_swizzle_b32 v5, v1 offset:swizzle(FFT,4)", "04e0d4d801000005"),
    ("gfx1201", None, "00ff1cd901020000", "ds_min_u64 v1, v[2:3] offset:65280", None),
    ("gfx1201", None, "000180d802030001", "ds_add_rtn_u32 v1, v2, v3 offset:256", None),
    ("gfx942", None, "ff00eed808000004", "ds_read2_b64 v[4:7], v8 offset0:255", None),
    ("gfx942", None, "0000ecda04000002", "ds_read_b64 a[2:3], v4", None),
    ("gfx942", None, "7f001dda02000500", "ds_write2_b32 v2, a0, a5 offset0:127", "7f001cda02000500"),
    ("gfx942", None, "00002bd801020000", "ds_add_f32 v1, v2", "00002ad801020000"),
    ("gfx942", None, "000039d900000000", "ds_gws_sema_p gds", None),
    ("gfx942", None, "00005cd802040801",
     "ds_wrxchg2_rtn_b32 v[1:2]/*Invalid register, operand has 'VReg_64_Align2' register class*/, v2, v4, v8", False),
    ("gfx950", None, "0000c2d902000001", "ds_read_b96_tr_b6 v[1:3], v2", None),
    # FLAT / GLOBAL / SCRATCH
    ("gfx1100", None, "004040dd02047c01", "flat_atomic_cmpswap_f32 v1, v[2:3], v[4:5] glc", None),
    ("gfx1100", None, "000040dd02047c01", "flat_atomic_cmpswap_f32 v[2:3], v[4:5]", "000040dd02047c00"),
    ("gfx1100", None, "100070dc02047c00", "flat_store_b96 v[2:3], v[4:6] offset:16", None),
    ("gfx1100", None, "00005adcfa0068fc", "global_load_b96 v[252:254], v250, s[104:105]", None),
    ("gfx1100", None, "f8ff52dc02007c00", "global_load_b32 v0, v[2:3], off offset:-8 glc slc dlc", None),
    ("gfx1100", None, "0000a2dc00000201", "global_load_addtid_b32 v1, s[2:3]", None),
    ("gfx1100", None, "bd9342dcff007efe",
     "global_load_u8 v254, v255, exec/*Invalid register, operand has 'SReg_64_XEXEC_XNULL' register class*/ "
     "offset:-3139 slc", False),
    ("gfx1100", None, "00005ddc0800fc04", "scratch_load_b128 v[4:7], v8, off", None),
    ("gfx1201", None, "7c4007ec0000000202f8ffff", "flat_store_b128 v[2:3], v[4:7] offset:-8", None),
    ("gfx1201", None, "028010ee0200300404000000",
     "global_atomic_cmpswap_b64 v[2:3], v4, v[8:11], s[2:3] th:TH_ATOMIC_NT_RETURN", None),
    ("gfx1201", None, "020015ee0000080402000000", "global_store_block v2, v[8:39], s[2:3] scope:SCOPE_DEV", None),
    ("gfx1201", 32, "02c015ee0400000008000000", "global_load_tr_b128 v[4:7], v8, s[2:3]", None),
    ("gfx1201", 64, "02c015ee0400000008000000", "global_load_tr_b128 v[4:5], v8, s[2:3]", None),
    ("gfx1201", None, "7cc00aee0000000002000000", "global_inv", "7cc00aee0000000000000000"),
    ("gfx1201", None, "7c0015ed0000020401000000", "scratch_store_block v1, v[8:39], off", None),
    ("gfx942", None, "0080a8dc02007f01", "global_load_lds_dword v[2:3], off", "0080a8dc02007f00"),
    ("gfx942", None, "006074dc01020200", "scratch_store_dwordx2 v1, v[2:3], s2", None),
    ("gfx942", None, "ff0f53de02000001", "flat_load_dword v1, v[2:3] offset:4095 sc0 nt sc1", None),
    # MUBUF / MTBUF / VBUFFER
    ("gfx1100", None, "000050e002014108", "buffer_load_b32 v1, v2, s[4:7], s8 offen", None),
    ("gfx1100", None, "ff2054e0fe0ab705", "buffer_load_b64 v[10:12], v254, s[92:95], s5 idxen offset:255 dlc tfe",
     None),
    ("gfx1100", None, "0000b0e802010108", "tbuffer_load_format_x v1, off, s[4:7], s8 format:[BUF_FMT_32_FLOAT]",
     "0000b0e800010108"),
    ("gfx1100", None, "0000ace002010280", "buffer_gl0_inv", "0000ace000000000"),
    ("gfx1201", None, "02c00fc40108900002000000", "buffer_atomic_inc_u32 v1, off, s[4:7], s2 th:TH_ATOMIC_RETURN",
     "02c00fc40108900000000000"),
    ("gfx1201", None, "02000dc40208804004000000", "buffer_atomic_cmpswap_b32 v[2:3], v4, s[4:7], s2 offen", None),
    ("gfx1201", None, "000001c464083c8070010000",
     "buffer_store_format_x v100, v112, s[4:7], s0 idxen offset:1 th:TH_STORE_BYPASS scope:SCOPE_SYS",
     "000001c46408bc8070010000"),
    ("gfx942", None, "000051e002010108", "buffer_load_dword off, s[4:7], s8 lds", "000051e000000108"),
    ("gfx942", None, "008009ea08040108",
     "tbuffer_load_format_xyzw v[4:7], off, s[4:7], s8 format:[BUF_NUM_FORMAT_UINT]",
     "008009ea00040108"),
    ("gfx942", None, "0000a6e000000000", "buffer_inv", "0000a4e000000000"),
    ("gfx950", None, "ffdf52e002010203", "buffer_load_dword v1, v2, s[8:11], s3 offen offset:4095 sc0 nt sc1", None),
]


@pytest.mark.parametrize("target,wave,data,text,canonical", PAIRS)
def test_disassembly(target, wave, data, text, canonical):
    _, ours = disassemble_at(ISA.get(target, wave), bytes.fromhex(data))
    assert ours == text


@pytest.mark.parametrize("target,wave,data,text,canonical", [p for p in PAIRS if p[4] is not False])
def test_assembly(target, wave, data, text, canonical):
    assert assemble(ISA.get(target, wave), text).data.hex() == (canonical or data)


# (target, line, llvm-mc's message, column)
ERRORS = [
    ("gfx1100", "ds_add_u32 v1, v2 glc", "invalid operand for instruction", 19),
    ("gfx1100", "ds_add_u32 v1, v2 offset:65536", "expected a 16-bit unsigned offset", 19),
    ("gfx1100", "ds_add_u32 v1", "too few operands for instruction", 1),
    ("gfx1100", "ds_add_u32 v1, v2, v3", "invalid operand for instruction", 20),
    ("gfx1100", "ds_add_u32 v1, v[2:3]", "invalid operand for instruction", 16),
    ("gfx1100", "ds_store_2addr_b32 v1, v2, v3 offset:4", "not a valid operand.", 31),
    ("gfx1100", "ds_store_2addr_b32 v1, v2, v3 offset1:255 offset0:3", "not a valid operand.", 43),
    ("gfx1100", "ds_add_u32 v1, v2 gds gds", "invalid operand for instruction", 23),
    ("gfx1100", "ds_add_u32 v1, v2 offset:swizzle(SWAP,16)", "expected absolute expression", 26),
    ("gfx1100", "ds_swizzle_b32 v0, v1 offset:swizzle(FOO,16)", "expected a swizzle mode", 38),
    ("gfx1100", "ds_add_u32 v1, v300", "register index is out of range", 16),
    ("gfx1100", "ds_gws_init v1", "too few operands for instruction", 1),
    ("gfx1201", "ds_add_u32 v1, v2 gds", "gds modifier is not supported on this GPU", 19),
    ("gfx942", "ds_add_rtn_u32 a1, v2, v3", "invalid operand for instruction", 24),
    ("gfx942", "ds_write_b64 v1, v[3:4]", "invalid operand for instruction", 18),
    ("gfx1100", "global_load_b32 v0, v[2:3], off offset:4096", "expected a 13-bit signed offset", 33),
    ("gfx1100", "global_load_b32 v0, v2, off", "invalid operand for instruction", 25),
    ("gfx1100", "global_load_b32 v0, v[2:3]", "too few operands for instruction", 1),
    ("gfx1100", "flat_load_b32 v0, v[2:3] offset:-1", "expected a 12-bit unsigned offset", 26),
    ("gfx1100", "flat_load_b32 v[0:1], v[2:3]", "invalid operand for instruction", 15),
    ("gfx1100", "global_atomic_add_u32 v0, v[2:3], v4, off", "instruction must use glc", 1),
    ("gfx1100", "global_atomic_add_u32 v[2:3], v4, off glc", "instruction must not use glc", 39),
    ("gfx1201", "global_load_b32 v1, v2, s[2:3] th:TH_STORE_NT", "invalid th value for load instructions", 32),
    ("gfx1201", "global_load_b32 v1, v2, s[2:3] nv", "nv is not supported on this GPU", 32),
    ("gfx1201", "global_load_b32 v1, v2, s[2:3] scale_offset", "scale_offset is not supported on this GPU", 32),
    ("gfx942", "global_load_dword v1, v2, null", "'null' operand is not supported on this GPU", 27),
    ("gfx1100", "buffer_load_b32 v0, v1, s[4:7], s2", "too few operands for instruction", 1),
    ("gfx1100", "buffer_load_b32 v0, off, s[4:7], s2 offen", "invalid operand for instruction", 37),
    ("gfx1100", "buffer_load_b32 v0, v[1:2], s[4:7], s2 offen", "invalid operand for instruction", 40),
    ("gfx1100", "buffer_load_b32 v0, off, s[4:7], 0x1234", "invalid operand for instruction", 34),
    ("gfx1100", "buffer_load_b32 v0, off, s[4:8], 0", "invalid operand for instruction", 26),
    ("gfx1100", "buffer_load_b32 v0, off, s[4:7], 0 tfe", "invalid operand for instruction", 36),
    ("gfx1100", "buffer_load_b32 v0, off, s[4:7], 0 offset:4095 glc glc", "duplicate cache policy modifier", 52),
    ("gfx1100", "tbuffer_load_format_x v0, off, s[4:7], 0 format:[BUF_FMT_FOO]", "unsupported format", 50),
    ("gfx1100", "tbuffer_load_format_x v0, off, s[4:7], 0 format:128", "out of range format", 49),
    ("gfx1201", "buffer_load_b32 v1, off, s[4:7], 0", "operands are not valid for this GPU or mode", 1),
    ("gfx942", "buffer_load_dword v1, off, s[8:11], 0 lds", "invalid operand for instruction", 39),
    ("gfx942", "buffer_load_dword v1, off, s[8:11], null", "'null' operand is not supported on this GPU", 37),
    ("gfx942", "tbuffer_load_format_x v1, off, s[8:11], 0 format:[BUF_FMT_32_FLOAT]",
     "unified format is not supported on this GPU", 51),
]


@pytest.mark.parametrize("target,line,message,column", ERRORS)
def test_assembly_errors(target, line, message, column):
    with pytest.raises(AssemblyError) as error:
        assemble(ISA.get(target), line)
    assert (error.value.message, error.value.column) == (message, column)


# Encodings the format allows but LLVM rejects: a DecodeError, not wrong text.
REJECTED = [
    ("gfx1100", "000000d802040801"),  # ds_add_u32 with a data1 and a vdst it does not have
    ("gfx1100", "000064d802000000"),  # ds_gws_init without gds
    ("gfx1100", "ff8042dc0200ea02"),  # a global load with scratch's sve bit
    ("gfx1100", "000050dc02000201"),  # a flat load with an saddr
    ("gfx1100", "0000b5dc02007c00"),  # scratch_load_lds_u8: LLVM has none for gfx11
    ("gfx1100", "0400d4e0050a3fc1"),  # a buffer atomic with tfe
    ("gfx1100", "000050e0000000ff"),  # a literal soffset (llvm-mc crashes on it)
    ("gfx1201", "724dc2d9be175835"),  # DS with gfx11's gds bit set
    ("gfx1201", "fd4000c40a000040ff000080"),  # a buffer offset beyond 23 bits
    ("gfx942", "044b6de293b83c23"),  # the lds bit on a store
    ("gfx942", "528aabde7860cbf1"),  # a global load into LDS with the acc bit
    ("gfx942", "641e25e980ffe991"),  # an AGPR range past a255
]


@pytest.mark.parametrize("target,data", REJECTED)
def test_rejected_encodings(target, data):
    with pytest.raises(DecodeError):
        disassemble_at(ISA.get(target), bytes.fromhex(data))
