"""A scripted debugging session on a kernel with a planted bug, and the session's stops."""
import numpy as np
from tests.debug.conftest import KERNELS

import gpubench
from gpubench.debug import Session


def lanes(output: str) -> list[str]:
    """The values of a `p` of one VGPR: the first row's cells."""
    return output.splitlines()[1].split("]", 1)[1].split()


def run(session, *commands):
    return [session.command(c) for c in commands]


def test_planted_bug_found_by_stepping_and_reversing(reverse_session):
    s, _, _ = reverse_session
    assert s.command("break reverse").startswith("breakpoint 1 at")
    assert "<reverse>" in s.command("continue")  # stops before the kernel's first instruction
    s.command("break ds_load_b32")
    stop = s.command("continue")
    assert stop.startswith("breakpoint 2") and "ds_load_b32 v4, v3" in stop
    s.command("stepi")
    # lane 0 should read in[63] = 163; it reads 0, past the end of what was stored; lane 1 reads 163
    assert lanes(s.command("p/u v4@0:3")) == ["0", "163", "162", "161"]
    assert "ds_load_b32 v4, v3" in s.command("reverse-stepi")
    assert lanes(s.command("p/u v4@0:3")) == ["0", "0", "0", "0"]  # not loaded yet
    # back to the writes that made the address: the shift, then the off-by-one subtraction
    assert "v_lshlrev_b32_e32 v3, 2, v3" in s.command("last-write v3")
    assert lanes(s.command("p/d v3@0:1")) == ["64", "63"]
    assert "v_sub_nc_u32_e32 v3, 64, v0" in s.command("last-write v3")
    assert "<mirror>" in s.command("where")
    # LDS holds in[0..63] at this point; byte 256 (index 64) is past the 256-byte allocation
    assert s.command("x/4wu lds:0xf0") == "lds:0xf0: 160 161 162 163"
    assert s.command("x/1wx lds:0x100").startswith("error:")


def test_info_waves_wave_selection_and_disassembly(reverse_session):
    s, _, _ = reverse_session
    run(s, "break mirror", "continue")
    table = s.command("info waves").splitlines()
    assert table[1].split()[:5] == ["*", "0", "0", "0", "running"]
    assert s.command("wave 1").startswith("wave 1 (workgroup 0, wave 1, running)")
    assert lanes(s.command("p/d v0@0:1")) == ["32", "33"]
    listing = s.command("disas 1")
    assert any(line.startswith("=>") and "v_sub_nc_u32" in line for line in listing.splitlines())
    assert "mirror:" in listing
    assert s.command("p exec").splitlines()[1] == "  lanes  0-31: 11111111 11111111 11111111 11111111"
    assert s.command("p/x s[4:5]").endswith(f"(s[4:5] = 0x{int(s.waves.sgpr[1, 4]) | int(s.waves.sgpr[1, 5]) << 32:016x})")


def test_finish_and_full_reverse_restore_memory(reverse_session):
    s, dev, out = reverse_session
    assert s.command("finish").startswith("wave 0 (workgroup 0, wave 0, done)")
    s.command("continue")
    after = dev.to_host(out, np.uint32).copy()
    assert after[0] == 0 and after[1] == 163  # the bug, in the result
    assert s.reverse_stepi(10_000).reason == "history-start"
    assert not dev.to_host(out, np.uint32).any() and not s.ctx.lds.any()  # stores and LDS undone
    assert s.cont().reason == "exited"  # and the same run again
    assert np.array_equal(dev.to_host(out, np.uint32), after)


def test_watchpoints_forward_and_backward(reverse_session):
    s, _, _ = reverse_session
    s.command("watch v3")
    stop = s.command("continue")
    assert stop.startswith("watchpoint: watchpoint 1: v3") and "v_sub_nc_u32" not in stop.splitlines()[-1]
    s.command("watch lds:0,4")
    assert "0x100005500" not in s.command("continue")
    assert s.reverse_continue().reason == "watchpoint"


def test_catch_nan(tmp_path):
    from gpubench.isa.arch import ISA
    from gpubench.isa.elfwriter import assemble_code_object
    text = (KERNELS.parent.parent / "debug" / "reverse.s").read_text()
    text = text.replace("v_sub_nc_u32 v3, 64, v0", "v_mul_f32 v3, 0x7f800000, v3")  # inf * 0
    text = text.replace(".amdhsa_next_free_sgpr 8", ".amdhsa_next_free_sgpr 8\n.amdhsa_float_denorm_mode_32 3\n"
                        ".amdhsa_float_denorm_mode_16_64 3")  # the float modes compute kernels run with
    path = tmp_path / "nan.hsaco"
    path.write_bytes(assemble_code_object(ISA.get("gfx1100"), text))
    dev = gpubench.Device("gfx1100")
    s = Session.load(dev, path, "reverse", (1,), (64,), (dev.alloc(256), dev.alloc(256)))
    s.command("catch nan")
    stop = s.command("continue")
    assert stop.startswith("nan: NaN written to v3 in lanes [0, 1,") and "v_mul_f32" in stop


def test_page_fault_stops_before_the_faulting_instruction():
    dev = gpubench.Device("gfx1100")
    out = dev.alloc(4 * 128)
    s = Session.load(dev, KERNELS / "fault_oob-gfx1100.hsaco", "fault_oob", (2,), (64,), (out, 1 << 24))
    stop = s.cont()
    assert stop.reason == "fault" and f"0x{out.address + (4 << 24):x}" in stop.message
    assert "global_store" in s.command("where")
    assert s.command("continue").startswith("fault:")  # the same fault again, state unchanged
