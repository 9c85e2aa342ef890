"""The HIP kernels of tests/kernels, run on the emulated GPU and checked against their numpy references.

RUNS lists the (case, variant) pairs the emulator runs correctly; every other built gfx1100 pair is
a strict xfail, so the day a pair starts to pass, the test says so and it moves into RUNS.
"""
import pytest

from gpubench.emu.executor import GPUPageFault, Watchdog, WatchdogTimeout
from kernel_runner import cases, run_case

VARIANTS = ("gfx1100", "gfx1100-w64")
RUNS = {
    ("ew_i32", "gfx1100-w64"),
    ("transcendental", "gfx1100"),
    ("transcendental", "gfx1100-w64"),
}
PAIRS = [(name, variant) for name, case in cases.CASES.items() if case.expect == "ok"
         for variant in VARIANTS if variant in case.variants]


@pytest.mark.parametrize("name,variant", [
    pytest.param(n, v, marks=() if (n, v) in RUNS else pytest.mark.xfail(strict=True, reason="not emulated yet"))
    for n, v in PAIRS])
def test_kernel_matches_reference(name, variant):
    case = cases.CASES[name]
    inputs, _, outputs, stats = run_case(case, variant, watchdog=Watchdog(max_seconds=120))
    assert case.check(outputs, case.expected(inputs, variant)) == []
    assert stats.wave_instructions > 0


@pytest.mark.parametrize("variant", VARIANTS)
def test_out_of_bounds_store_is_a_page_fault(variant):
    case = cases.CASES["fault_oob"]
    with pytest.raises(GPUPageFault) as e:
        run_case(case, variant)
    fault = e.value.fault
    assert fault.write and fault.lane is not None
    assert {"pc", "instruction", "workgroup", "wave"} <= set(fault.context)


@pytest.mark.parametrize("variant", [
    pytest.param("gfx1100", marks=pytest.mark.xfail(strict=True, reason="VOPD not emulated yet")), "gfx1100-w64"])
def test_hung_kernel_is_stopped_by_the_watchdog(variant):
    with pytest.raises(WatchdogTimeout) as e:
        run_case(cases.CASES["hang_loop"], variant, watchdog=Watchdog(max_wave_instructions=20_000))
    report = str(e.value)
    assert "watchdog" in report and "exec=0x" in report and "->" in report
