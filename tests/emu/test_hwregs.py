"""Hardware registers, clocks, messages, traps and halts (gpubench/emu/ops/hwregs.py)."""
import pytest
from asm_dispatch import CODE_BASE, Dispatch

from gpubench.emu.context import ExecutionError
from gpubench.emu.ops.hwregs import WaveHalted, WaveTrap


def run_program(text, target="gfx1100", wave_size=32, groups=1, waves_per_group=1, mode=0):
    """Run ``text`` on waves with 64 VGPRs and 1 KiB of LDS per workgroup; the context afterwards."""
    run = Dispatch(target, wave_size, groups=groups, waves_per_group=waves_per_group, lds_bytes=1024, vgprs=64)
    run.waves.mode[:] = mode
    return run(text)


def sgprs(ctx, count=4, wave=0):
    return [int(x) for x in ctx.waves.sgpr[wave, :count]]


def test_getreg_reads_a_field_of_mode_and_setreg_writes_only_its_field():
    ctx = run_program("s_getreg_b32 s0, hwreg(HW_REG_MODE)\n"
                      "s_getreg_b32 s1, hwreg(HW_REG_MODE, 4, 4)\n"
                      "s_mov_b32 s5, 0xffff\n"
                      "s_setreg_b32 hwreg(HW_REG_MODE, 0, 2), s5\n"  # only FP_ROUND[1:0] changes
                      "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 6, 2), 0\n"
                      "s_getreg_b32 s2, hwreg(HW_REG_MODE)", mode=0x3F0)
    assert sgprs(ctx, 3) == [0x3F0, 0xF, 0x333]
    assert ctx.waves.mode[0] == 0x333  # the MODE the float semantics read


def test_status_reflects_scc_execz_vccz_and_the_workgroup():
    ctx = run_program("s_cmp_eq_u32 0, 0\ns_getreg_b32 s0, hwreg(HW_REG_STATUS)\n"
                      "s_mov_b32 vcc_lo, 1\ns_mov_b32 exec_lo, 0\ns_getreg_b32 s1, hwreg(HW_REG_STATUS)",
                      waves_per_group=2)
    scc, execz, vccz, in_group, valid = 1, 1 << 9, 1 << 10, 1 << 11, 1 << 16
    assert sgprs(ctx, 2) == [scc | vccz | in_group | valid, scc | execz | in_group | valid]


def test_status_writes_are_ignored():
    ctx = run_program("s_setreg_imm32_b32 hwreg(HW_REG_STATUS), 0xffffffff\ns_getreg_b32 s0, hwreg(HW_REG_STATUS)")
    assert sgprs(ctx, 1) == [(1 << 10) | (1 << 16)]


@pytest.mark.parametrize("wave_size", [32, 64])
def test_allocation_and_identity_registers(wave_size):
    ctx = run_program("s_getreg_b32 s0, hwreg(HW_REG_GPR_ALLOC)\ns_getreg_b32 s1, hwreg(HW_REG_LDS_ALLOC)\n"
                      "s_getreg_b32 s2, hwreg(HW_REG_HW_ID1, 0, 5)\ns_getreg_b32 s3, hwreg(28, 11, 1)",  # IB_STS2.WAVE64
                      wave_size=wave_size, waves_per_group=3)
    for wave in range(3):
        assert sgprs(ctx, wave=wave) == [(64 // 4 - 1) << 8, (1024 // 256) << 12, wave, int(wave_size == 64)]


def test_gfx12_registers():
    ctx = run_program("s_getreg_b32 s0, hwreg(HW_REG_WAVE_MODE)\ns_getreg_b32 s1, hwreg(HW_REG_WAVE_STATUS)\n"
                      "s_getreg_b32 s2, hwreg(HW_REG_WAVE_GPR_ALLOC)\ns_getreg_b32 s3, hwreg(HW_REG_WAVE_LDS_ALLOC)",
                      target="gfx1201", wave_size=64, mode=0xF0)
    assert sgprs(ctx) == [0xF0, 1 << 29, (64 // 4 - 1) << 12, (1024 // 512) << 12]


def test_gfx9_hw_id_names_the_wave_and_its_workgroup():
    ctx = run_program("s_getreg_b32 s0, hwreg(HW_REG_HW_ID)", target="gfx942", wave_size=64, groups=2,
                      waves_per_group=2)
    assert [sgprs(ctx, 1, wave)[0] for wave in range(4)] == [0, 1, 1 << 16, (1 << 16) | 1]


def test_a_register_the_emulator_does_not_model_is_named():
    with pytest.raises(ExecutionError, match="HW_REG_SH_MEM_BASES is not emulated"):
        run_program("s_getreg_b32 s0, hwreg(HW_REG_SH_MEM_BASES)")


def test_clocks_count_the_dispatch_steps():
    ctx = run_program("s_getreg_b32 s0, hwreg(HW_REG_SHADER_CYCLES)\ns_nop 0\n"
                      "s_sendmsg_rtn_b64 s[2:3], sendmsg(MSG_RTN_GET_REALTIME)\n"
                      "s_sendmsg_rtn_b32 s4, sendmsg(MSG_RTN_GET_TBA)")
    assert sgprs(ctx, 5) == [0, 0, 2, 0, 0]
    ctx = run_program("s_memtime s[0:1]\ns_memrealtime s[2:3]", target="gfx942", wave_size=64)
    assert sgprs(ctx) == [0, 0, 1, 0]
    ctx = run_program("s_nop 0\ns_getreg_b32 s0, hwreg(HW_REG_SHADER_CYCLES_LO)\n"
                      "s_getreg_b32 s1, hwreg(HW_REG_SHADER_CYCLES_HI)", target="gfx1201")
    assert sgprs(ctx, 2) == [1, 0]


def test_a_message_the_emulator_cannot_answer_is_named():
    with pytest.raises(ExecutionError, match="MSG_RTN_GET_DOORBELL is not emulated"):
        run_program("s_sendmsg_rtn_b32 s0, sendmsg(MSG_RTN_GET_DOORBELL)")


def test_s_trap_stops_the_dispatch_naming_the_trap_the_pc_and_the_wave():
    run = Dispatch("gfx1100", groups=1, waves_per_group=2)
    run.sgpr[1, 0] = 1
    with pytest.raises(WaveTrap) as e:  # wave 0 branches over the first s_trap, wave 1 reaches it
        run("s_nop 0\ns_cmp_eq_u32 s0, 1\ns_cbranch_scc0 1\ns_trap 2\ns_trap 2")
    trap_pc = CODE_BASE + 12
    assert (e.value.trap_id, e.value.pc, e.value.workgroup, e.value.wave) == (2, trap_pc, 0, 1)
    assert "s_trap 2 (llvm.trap)" in str(e.value) and f"pc 0x{trap_pc:x}" in str(e.value)


def test_debugtrap_continues_without_a_debugger():
    ctx = run_program("s_trap 3\ns_mov_b32 s0, 7")
    assert sgprs(ctx, 1) == [7]


def test_sethalt_1_stops_the_dispatch_and_sethalt_0_does_not():
    with pytest.raises(WaveHalted, match="s_sethalt 1"):
        run_program("s_sethalt 0\ns_sethalt 1")
