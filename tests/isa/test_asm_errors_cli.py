"""`gpubench asm` on a source with bad lines behaves as llvm-mc: the valid lines on stdout, every
error on stderr, exit status 1."""
import shutil
import subprocess
import sys

import pytest

LLVM_MC = shutil.which("llvm-mc-22")
SOURCE = "v_add_f32 v0, v1, v2\nv_bogus v1\ns_nop 0\nv_add_f32_e32 v0, v1, s2\ns_endpgm\n"


def gpubench_asm(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gpubench.cli", "asm", *args], input=SOURCE,
                          capture_output=True, text=True, check=False)


def test_bad_lines_are_reported_and_the_rest_printed():
    result = gpubench_asm("-mcpu", "gfx1100", "-show-encoding")
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        '\t.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"',
        "\tv_add_f32_e32 v0, v1, v2                ; encoding: [0x01,0x05,0x00,0x06]",
        "\ts_nop 0                                 ; encoding: [0x00,0x00,0x80,0xbf]",
        "\ts_endpgm                                ; encoding: [0x00,0x00,0xb0,0xbf]",
    ]
    assert result.stderr.splitlines() == [
        "<stdin>:2:1: error: invalid instruction", "v_bogus v1", "^",
        "<stdin>:4:23: error: invalid operand for instruction", "v_add_f32_e32 v0, v1, s2", " " * 22 + "^",
    ]


def test_no_output_file_on_errors(tmp_path):
    out = tmp_path / "code.bin"
    result = gpubench_asm("-mcpu", "gfx1100", "-o", str(out))
    assert result.returncode == 1
    assert not out.exists() or out.read_bytes() == b""


@pytest.mark.llvm
@pytest.mark.skipif(LLVM_MC is None, reason="needs llvm-mc-22")
@pytest.mark.parametrize("target", ["gfx1100", "gfx950"])
def test_same_streams_and_status_as_llvm_mc(target):
    llvm = subprocess.run([LLVM_MC, "-triple=amdgcn-amd-amdhsa", f"-mcpu={target}", "-show-encoding"], input=SOURCE,
                          capture_output=True, text=True, check=False)
    ours = gpubench_asm("-mcpu", target, "-show-encoding")
    assert (ours.returncode, ours.stdout, ours.stderr) == (llvm.returncode, llvm.stdout, llvm.stderr)
