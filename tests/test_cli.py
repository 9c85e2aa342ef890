"""The `gpubench` command as a user runs it: llvm-mc's input and output formats."""
from pathlib import Path

from click.testing import CliRunner

from gpubench.cli import main

DATA = Path(__file__).resolve().parent / "data"


def run(*args, stdin=""):
    return CliRunner().invoke(main, list(args), input=stdin)


def test_asm_prints_canonical_text_and_encoding_like_llvm_mc():
    result = run("asm", "-mcpu", "gfx1100", "-show-encoding", stdin="v_add_f32 v0, v1, v2\ns_endpgm\n")
    assert result.exit_code == 0
    assert result.output.splitlines() == [
        '\t.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"',
        "\tv_add_f32_e32 v0, v1, v2                ; encoding: [0x01,0x05,0x00,0x06]",
        "\ts_endpgm                                ; encoding: [0x00,0x00,0xb0,0xbf]",
    ]


def test_asm_error_names_line_and_column():
    result = run("asm", "--mcpu", "gfx1100", stdin="s_nop 0\nv_add_f32 v0, v1, foo\n")
    assert result.exit_code == 1
    assert "<stdin>:2:" in result.output and "error: " in result.output and "^" in result.output


def test_disasm_reads_llvm_mc_hex_and_reports_invalid_words():
    result = run("disasm", "--mcpu", "gfx1100", stdin="0x01,0x05,0x00,0x06\n0xff,0xff,0xff,0xff\n")
    assert "\tv_add_f32_e32 v0, v1, v2" in result.output
    assert "<stdin>:2:1: warning: invalid instruction encoding" in result.output


def test_disasm_wave64_text():
    result = run("disasm", "-mcpu", "gfx1100", "-mattr=+wavefrontsize64", stdin="0x6a,0x04,0x00,0x7c\n")
    assert result.output == "\tv_cmp_f_f16_e32 vcc, vcc_lo, v2.l\n"  # llvm-mc's text in wave64


def test_disasm_code_object_lists_kernels_like_llvm_objdump():
    path = DATA / "codeobjects" / "saxpy-gfx1100.hsaco"
    result = run("disasm", str(path))
    assert result.exit_code == 0
    assert result.output == (DATA / "codeobjects" / "saxpy-gfx1100.objdump").read_text().replace(
        "saxpy-gfx1100.hsaco", str(path))


def test_isa_info_shows_encodings_operands_and_pseudocode():
    result = run("isa", "info", "--mcpu", "gfx1100", "V_ADD_F32")
    assert result.exit_code == 0
    assert "VOP2Op" in result.output and "VOP3_DPP16" in result.output and "D0.f32 = S0.f32 + S1.f32" in result.output
    assert run("isa", "info", "--mcpu", "gfx1100", "v_no_such_op").exit_code != 0
