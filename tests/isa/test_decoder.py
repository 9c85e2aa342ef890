"""Decoder behaviour that does not depend on the text syntax."""
import pytest

from gpubench.isa.arch import ISA, UnknownTarget
from gpubench.isa.decoder import DecodeError, decode, decode_all


def test_formats_are_found_by_their_fixed_bits():
    isa = ISA.get("gfx1100")
    assert decode(isa, bytes.fromhex("810080be")).fmt.name == "SOP1"  # SOP1 begins with SOPK's bits
    assert decode(isa, bytes.fromhex("01050006")).name == "V_ADD_F32_E32"


def test_literal_selects_the_lit_variant_and_its_length():
    isa = ISA.get("gfx1100")
    inst = decode(isa, bytes.fromhex("02ff008034120000"))
    assert (inst.fmt.name, inst.size, inst["literal"]) == ("SOP2_LIT", 8, 0x1234)


def test_stream_length_decoding():
    isa = ISA.get("gfx1100")
    stream = bytes.fromhex("02ff008034120000" "810080be" "01050006")
    assert [i.size for i in decode_all(isa, stream)] == [8, 4, 4]
    assert [i.offset for i in decode_all(isa, stream)] == [0, 8, 12]


def test_invalid_word_names_offset_and_bytes():
    isa = ISA.get("gfx1100")
    with pytest.raises(DecodeError) as e:
        decode_all(isa, bytes.fromhex("810080be" "ffffffff"))
    assert e.value.offset == 4
    assert "offset 0x4" in str(e.value) and "0xff,0xff,0xff,0xff" in str(e.value)


def test_truncated_input_is_an_error():
    isa = ISA.get("gfx1100")
    with pytest.raises(DecodeError, match="truncated"):
        decode(isa, bytes.fromhex("02ff0080"))  # the literal is missing
    with pytest.raises(DecodeError, match="fewer than 4"):
        decode(isa, b"\x01\x02")


def test_targets():
    assert ISA.get("gfx942").wave_size == 64
    assert ISA.get("gfx1100").wave_size == 32
    assert ISA.get("gfx1100", 64).wave_size == 64
    with pytest.raises(UnknownTarget):
        ISA.get("gfx906")
    with pytest.raises(UnknownTarget):
        ISA.get("gfx942", 32)


@pytest.mark.parametrize("target", ["gfx1100", "gfx1201"])
def test_sgpr_writing_compare_in_vop3_dpp_form(target):
    """src0 = 250 selects DPP even for compares the spec lists only in VOP3_SDST (a fix-up adds them)."""
    from gpubench.isa.asm import assemble
    from gpubench.isa.disasm import disassemble_at
    isa = ISA.get(target)
    cases = {  # llvm-mc-22's bytes and text
        "050011d4fa04020001e400ff": "v_cmp_lt_f32_e64_dpp s5, v1, v2 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf",
        "050011d4e90402000188c6fa": "v_cmp_lt_f32_e64_dpp s5, v1, v2 dpp8:[0,1,2,3,4,5,6,7]",
    }
    for data, text in cases.items():
        inst, got = disassemble_at(isa, bytes.fromhex(data))
        assert (got, inst.size) == (text, 12)
        assert assemble(isa, text).data.hex() == data


CORPUS_TARGETS = ("gfx1100", "gfx1201", "gfx942", "gfx950")


@pytest.fixture(scope="module")
def corpus_words():
    from gpubench.isa import corpus
    return [(target, bytes.fromhex(e["bytes"])) for target in CORPUS_TARGETS for e in corpus.load_entries(target)]


def test_an_instruction_decodes_the_same_whatever_bytes_follow_it(corpus_words):
    """The decode cache (emu/executor.Program) knows an instruction by its own bytes: that holds only
    if the bytes after an encoding never change it, compound encodings (gfx950's VOP3PX2) excepted."""
    from hypothesis import given, settings, strategies as st
    from gpubench.isa.decoder import decides_alone

    @settings(max_examples=3000, deadline=None, derandomize=True)
    @given(st.sampled_from(corpus_words), st.binary(min_size=12, max_size=12), st.binary(min_size=12, max_size=12))
    def check(entry, after, other):
        target, data = entry
        isa = ISA.get(target)
        try:
            inst = decode(isa, data + after)
        except DecodeError:
            return
        if not decides_alone(inst):
            return
        again = decode(isa, inst.bytes + other)
        assert (again.fmt, again.idef, again.idef_y, again.bytes) == (inst.fmt, inst.idef, inst.idef_y, inst.bytes)

    check()


def test_a_compound_encodings_first_instruction_is_not_decided_alone():
    from gpubench.isa.decoder import decides_alone
    isa = ISA.get("gfx950")
    scale = decode(isa, bytes.fromhex("0040acd300000000"))
    assert scale.name == "V_MFMA_LD_SCALE_B32" and not decides_alone(scale)
    assert decides_alone(decode(isa, bytes.fromhex("810080be")))
