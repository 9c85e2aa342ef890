"""The HIP kernels of tests/kernels, run on the emulated GPU and checked against their numpy references.

RUNS lists the (case, variant) pairs the emulator runs correctly; every other built gfx1100 pair is
a strict xfail, so the day a pair starts to pass, the test says so and it moves into RUNS.
"""
import pytest

from gpubench.emu.executor import GPUPageFault, Watchdog, WatchdogTimeout
from kernel_runner import cases, run_case

VARIANTS = ("gfx1100", "gfx1100-w64")
RUNS = {
    ("reduce_sum", "gfx1100"), ("reduce_sum", "gfx1100-w64"), ("matmul_tiled", "gfx1100-w64"),
    ("atomic_lds", "gfx1100"), ("atomic_lds", "gfx1100-w64"), ("atomic_hist", "gfx1100-w64"),
    ("atomic_ops", "gfx1100-w64"), ("crosslane_lanes", "gfx1100-w64"),
    ("ew_i32", "gfx1100-w64"),
    ("ew_f32", "gfx1100"), ("ew_f32", "gfx1100-w64"), ("ew_f16", "gfx1100"), ("ew_f16", "gfx1100-w64"),
    ("ew_bf16", "gfx1100"), ("ew_bf16", "gfx1100-w64"), ("ew_i8", "gfx1100"), ("ew_i8", "gfx1100-w64"),
    ("ew_u8", "gfx1100"), ("ew_u8", "gfx1100-w64"), ("ew_i32", "gfx1100"), ("ew_i64", "gfx1100"),
    ("ew_i64", "gfx1100-w64"), ("divergence", "gfx1100"), ("divergence", "gfx1100-w64"),
    ("crosslane_dpp", "gfx1100"), ("crosslane_dpp", "gfx1100-w64"), ("dispatch_ids", "gfx1100"),
    ("dispatch_ids", "gfx1100-w64"), ("matmul_tiled", "gfx1100"), ("atomic_hist", "gfx1100"),
    ("atomic_ops", "gfx1100"), ("crosslane_lanes", "gfx1100"), ("crosslane_permlane", "gfx1100"),
    ("crosslane_permlane", "gfx1100-w64"), ("scratch_array", "gfx1100"), ("scratch_array", "gfx1100-w64"),
    ("transcendental", "gfx1100"),
    ("transcendental", "gfx1100-w64"),
    ("wmma_f32_f16", "gfx1100"),
    ("wmma_f32_f16", "gfx1100-w64"),
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


@pytest.mark.parametrize("variant", VARIANTS)
def test_hung_kernel_is_stopped_by_the_watchdog(variant):
    with pytest.raises(WatchdogTimeout) as e:
        run_case(cases.CASES["hang_loop"], variant, watchdog=Watchdog(max_wave_instructions=20_000))
    report = str(e.value)
    assert "watchdog" in report and "exec=0x" in report and "->" in report
