"""The HIP kernels of tests/kernels, run on the emulated GPU and checked against their numpy references,
on every target they are built for: gfx1100 (wave32 and wave64), gfx1201 (RDNA4), gfx942 (CDNA3) and
gfx950 (CDNA4).

Every built (case, variant) pair runs; NOT_YET lists the pairs the emulator does not run correctly,
as strict xfails, so the day one starts to pass the test says so and it leaves the list. SLOW marks
the pairs that take seconds (run them with ``-m slow``; none today).
"""
import pytest
from kernel_runner import cases, run_case

from gpubench.emu.executor import GPUPageFault, Watchdog, WatchdogTimeout

VARIANTS = tuple(cases.VARIANTS)  # gfx1100, gfx1100-w64, gfx1201, gfx942, gfx950
NOT_YET: dict[tuple[str, str], str] = {}  # (case, variant) -> why
SLOW: set[tuple[str, str]] = set()
PAIRS = [(name, variant) for name, case in cases.CASES.items() if case.expect == "ok"
         for variant in VARIANTS if variant in case.variants]


def _marks(name: str, variant: str) -> list:
    marks = []
    if (name, variant) in NOT_YET:
        marks.append(pytest.mark.xfail(strict=True, reason=NOT_YET[name, variant]))
    if (name, variant) in SLOW:
        marks.append(pytest.mark.slow)
    return marks


@pytest.mark.parametrize("name,variant", [pytest.param(n, v, marks=_marks(n, v)) for n, v in PAIRS])
def test_kernel_matches_reference(name, variant):
    case = cases.CASES[name]
    inputs, _, outputs, stats = run_case(case, variant, watchdog=Watchdog(max_seconds=120))
    assert case.check(outputs, case.expected(inputs, variant)) == []
    assert stats.wave_instructions > 0


def test_every_case_runs_on_every_target_it_is_built_for():
    built = {(c.name, v) for c in cases.GOOD for v in c.variants}
    assert built == set(PAIRS)
    assert {v for _, v in PAIRS} == set(VARIANTS)


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
