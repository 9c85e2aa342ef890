"""Image, export, interpolation and LDS-direct syntax against pairs taken from llvm-mc-22.

Each pair is (LLVM's text, LLVM's bytes); `ROUND_TRIP` pairs go both ways, `DISASSEMBLY_ONLY`
pairs are encodings whose text LLVM itself does not assemble back to the same bytes.
"""
import pytest

from gpubench.isa.arch import ISA
from gpubench.isa.asm import AssemblyError, assemble
from gpubench.isa.decoder import DecodeError, decode
from gpubench.isa.disasm import disassemble, disassemble_at

ROUND_TRIP = {
    "gfx1100": [
        # MIMG: vaddr sized by dim and a16, vdata by dmask, d16 and tfe
        ("image_sample v[0:3], v[4:5], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_2D", "040f6cf004000008"),
        ("image_load v[0:3], v[4:5], s[0:7] dmask:0xf dim:SQ_RSRC_IMG_2D unorm glc slc dlc", "847f00f004000000"),
        ("image_load v[0:1], v4, s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_2D r128 a16 tfe lwe d16", "048103f004006000"),
        ("image_sample_c_d_o v4, v[8:18], s[8:15], s[16:19] dmask:0x1 dim:SQ_RSRC_IMG_3D", "0801acf008040210"),
        ("image_atomic_cmpswap v[0:1], v[4:5], s[0:7] dmask:0x3 dim:SQ_RSRC_IMG_2D glc", "04432cf004000000"),
        ("image_gather4_lz v[4:5], v8, s[8:15], s[16:19] dmask:0x1 dim:SQ_RSRC_IMG_1D d16", "0001caf008040210"),
        ("image_msaa_load v[0:3], v[4:6], s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_2D_MSAA", "180160f004000000"),
        # NSA: separate address VGPRs in a trailing dword; a full list's last register holds the rest
        ("image_sample  v[0:3], [v4, v6], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_2D",
         "050f6cf00400000806000000"),
        ("image_sample_d  v[0:3], [v4, v6, v7, v8, v[9:13]], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_3D",
         "090f70f00400000806070809"),
        ("image_bvh_intersect_ray v[4:7], v[9:19], s[4:7]", "808f64f009040100"),
        ("image_bvh_intersect_ray v[4:7], [v9, v10, v[11:13], v[14:16]], s[4:7] a16", "818f65f0090401000a0b0e00"),
        ("exp mrt0 v1, v2, v3, v4 done row_en", "0f2800f801020304"),
        ("exp pos4 v1, v2, v3, v4", "0f0100f801020304"),
        ("lds_param_load v1, attr32.w wait_vdst:3", "018303ce"),
        ("lds_direct_load v255 wait_vdst:0", "ff0010ce"),
        ("v_interp_p10_f32 v1, -v2, v3, v4 wait_exp:0", "010000cd02071224"),
        ("v_interp_p10_f16_f32 v1, v2.l, v3, v4.h op_sel:[0,0,1,0] wait_exp:0", "012002cd02071204"),
        ("v_interp_p2_f16_f32 v1.h, v2.l, v3, v4 op_sel:[0,0,0,1] wait_exp:0", "014003cd02071204"),
        ("v_interp_p10_f16_f32 v1, v2.l, v3, v4.l clamp wait_exp:0", "018002cd02071204"),
    ],
    "gfx1201": [
        ("image_load v[0:3], [v4, v5], s[0:7] dmask:0xf dim:SQ_RSRC_IMG_2D th:TH_LOAD_NT scope:SCOPE_SE",
         "0100c0d30000140004050000"),
        ("image_load v[0:3], [v4, v5], s[0:7] dmask:0xf dim:SQ_RSRC_IMG_2D th:TH_LOAD_BYPASS scope:SCOPE_SYS",
         "0100c0d300003c0004050000"),
        ("image_load v0, v4, s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_2D a16", "410040d00000000004000000"),
        ("image_atomic_add_uint v0, [v4, v5], s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_2D th:TH_ATOMIC_CASCADE_RT scope:SCOPE_DEV",
         "010043d00000480004050000"),
        ("image_sample v[0:3], [v4, v6], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_2D", "01c0c6e70000000404060000"),
        ("image_sample_d v[0:3], [v4, v5, v6, v[7:12]], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_3D",
         "0200c7e70000000404050607"),
        ("image_msaa_load v[0:3], [v4, v5, v6], s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_2D_MSAA unorm",
         "062046e40000000004050600"),
        ("image_bvh8_intersect_ray v[4:13], [v[9:10], v[11:12], v[13:15], v[16:18], v19], s[4:7]",
         "1040e0d304080013090b0d10"),
        ("export mrt0 v1, off, off, off done", "010800f801000000"),
        ("export mrtz v1, v2, v3, v4", "8f0000f801020304"),
        ("ds_param_load v1, attr3.y wait_va_vdst:2 wait_vm_vsrc:1", "010d82ce"),
        ("v_interp_p2_f16_f32 v1, v2, v3, v4 op_sel:[0,1,0,1] wait_exp:2", "015203cd02071204"),
    ],
}

DISASSEMBLY_ONLY = {
    "gfx1100": [
        # no 4-dword atomic_dec: LLVM prints the operands at its decoder table's default sizes
        ("image_atomic_dec v4, v8, s[8:15] dmask:0xf dim:SQ_RSRC_IMG_1D", "000f58f008040200"),
        ("image_sample v[0:3], v[4:5], null, s[8:11] dmask:0xf dim:SQ_RSRC_IMG_2D", "040f6cf004001f08"),
        ("exp mrt0 off, off, off, off", "000000f801020304"),
        ("exp invalid_target_9 v1, v2, v3, v4", "9f0000f801020304"),
        ("lds_direct_load v1 wait_vdst:0", "010110ce"),
        ("v_interp_p10_f32 v1, s2/*Invalid register, operand has 'VGPR_32' register class*/, v3, v4 wait_exp:0",
         "010000cd02061204"),
        ("v_interp_p10_f32 v1, v2, v3, 1.0/*Invalid immediate*/ wait_exp:0", "010000cd0207ca03"),
    ],
    "gfx1201": [
        (("image_load v20, [v10, v11], v[44:51]/*Invalid register, operand has 'SReg_256_XNULL' register class*/ "
          "dmask:0x1 dim:SQ_RSRC_IMG_2D"), "010040d0145802000a0b0000"),
        ("image_load_pck v4, v8, s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_1D th:0x7", "008040d00410700008090a0b"),
        ("image_atomic_and v4, v8, s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_1D th:TH_ATOMIC_0x7", "008044d00410700008090a0b"),
    ],
}

# Encodings LLVM rejects: fixed bits of the BVH instructions, reserved LDSDIR bits, a sampler
# on a load, a reserved source, a VIMAGE address byte the opcode does not use.
INVALID = {
    "gfx1100": ["800064f009040100", "014040ce", "000100f008040208", "010000cd02f31104"],
    "gfx1201": ["010040d01410000e0a0b0000"],
}

ERRORS = {
    "gfx1100": [
        ("image_sample v[0:3], v[4:6], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_2D",
         1, "image address size does not match dim and a16"),
        ("image_sample v[0:2], v[4:5], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_2D",
         1, "image data size does not match dmask, d16 and tfe"),
        ("image_load_pck v[0:2], v[4:5], s[0:7] dmask:0xf dim:2D", 1, "image data size does not match dmask and tfe"),
        ("image_load v[0:3], v[4:5], s[0:7] dmask:0xf dim:SQ_RSRC_IMG_4D", 49, "invalid dim value"),
        ("image_load v[0:3], v[4:5], s[0:7] dmask:0xf", 1, "missing dim operand"),
        ("image_load v[0:3], [v4, v[5:6]], s[0:7] dmask:0xf dim:3D", 25, "invalid operand for instruction"),
        ("image_sample v[0:3], v[4:5], s[0:7], s[9:12] dmask:0xf dim:2D", 38, "invalid register alignment"),
        ("image_load v[0:3], v[4:5], s[0:7] dmask:0xf dim:2D glc glc", 56, "duplicate cache policy modifier"),
        ("image_load v[0:3], v[4:5], s[0:7] dmask:0xf dim:2D lwe tfe", 56, "invalid operand for instruction"),
        ("image_msaa_load v[0:3], v[4:5], s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_2D", 50, "invalid dim; must be MSAA type"),
        ("image_sample v[0:3], v[4:5], s[0:7]", 1, "too few operands for instruction"),
        ("image_bvh_intersect_ray v[4:7], v[9:19], s[4:7] a16", 1, "image address size does not match a16"),
        ("exp mrt8 v1, v2, v3, v4", 5, "invalid exp target"),
        ("exp null v1, v2, v3, v4", 5, "exp target is not supported on this GPU"),
        ("exp mrt0 v1, v2, v3, s4", 22, "invalid operand for instruction"),
        ("exp mrt0 v1, v2, v3, v4 row_en done", 32, "invalid operand for instruction"),
        ("lds_param_load v1, attr64.w", 20, "out of bounds interpolation attribute number"),
        ("lds_param_load v1, attr1.q", 20, "invalid or missing interpolation attribute channel"),
        ("lds_param_load v1, attr1.x wait_vdst:16", 28, "invalid wait_vdst value."),
        ("v_interp_p10_f16_f32 v1, v2.h, v3, v4.l op_sel:[0,0,1,0]", 41,
         "op_sel operand conflicts with 16-bit operand suffix"),
        ("v_interp_p2_f16_f32 v1.l, v2, v3, v4", 27, "invalid operand for instruction"),
        ("v_interp_p10_f32 v1, s2, v3, v4", 22, "invalid operand for instruction"),
        ("v_interp_p10_f32 v1, -v2, v3, v4 clamp wait_exp:8", 40, "invalid wait_exp value."),
    ],
    "gfx1201": [
        ("image_load v[0:3], [v4, v5], s[0:7] dmask:0xf dim:2D th:TH_LOAD_BYPASS", 54,
         "scope and th combination is not valid"),
        ("image_load v[0:3], [v4, v5], s[0:7] dmask:0xf dim:2D th:TH_STORE_NT", 54,
         "invalid th value for load instructions"),
        ("image_atomic_add_uint v0, [v4, v5], s[0:7] dmask:0x1 dim:2D th:TH_ATOMIC_0x4", 64, "invalid th value"),
        ("image_load v[0:3], v[4:5], s[0:7] dmask:0xf dim:SQ_RSRC_IMG_2D", 1,
         "operands are not valid for this GPU or mode"),
        ("image_load v[0:3], [v4, v5], null dmask:0xf dim:2D", 30, "invalid operand for instruction"),
        ("image_load v[0:3], [v4, v5], s[0:7] dmask:0xf dim:2D nv", 54, "nv is not supported on this GPU"),
        ("ds_param_load v1, attr3.y wait_vm_vsrc:1 wait_va_vdst:2", 42, "not a valid operand."),
        ("v_interp_p10_f16_f32 v1, v2.h, v3, v4.l", 1, "operands are not valid for this GPU or mode"),
    ],
}


def _cases(table):
    return [(target, *case) for target, cases in table.items() for case in cases]


@pytest.mark.parametrize("target,text,data", _cases(ROUND_TRIP) + _cases(DISASSEMBLY_ONLY))
def test_disassembly_matches_llvm(target, text, data):
    inst = decode(ISA.get(target), bytes.fromhex(data))
    assert (disassemble(inst), inst.size) == (text, len(data) // 2)


@pytest.mark.parametrize("target,text,data", _cases(ROUND_TRIP))
def test_assembly_matches_llvm(target, text, data):
    assert assemble(ISA.get(target), text).data.hex() == data


@pytest.mark.parametrize("target,data", [(t, d) for t, cases in INVALID.items() for d in cases])
def test_encodings_llvm_rejects_are_decode_errors(target, data):
    with pytest.raises(DecodeError):
        disassemble_at(ISA.get(target), bytes.fromhex(data))


def test_nsa_dword_must_be_present():
    with pytest.raises(DecodeError, match="truncated"):
        decode(ISA.get("gfx1100"), bytes.fromhex("050f6cf004000008"))


@pytest.mark.parametrize("target,text,column,message", _cases(ERRORS))
def test_errors_in_llvm_words_and_columns(target, text, column, message):
    with pytest.raises(AssemblyError) as e:
        assemble(ISA.get(target), text)
    assert (e.value.column, e.value.message) == (column, message)
