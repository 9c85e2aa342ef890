"""Rebuilds tests/emu/executed.json: the instructions the emulator's tests execute, per target.

    python tools/coverage_record.py            # about a minute; then commit tests/emu/executed.json
    python tools/coverage_record.py tests/emu/test_x.py ...   # adds what those test files execute

`gpubench isa coverage` reads the record to say which instructions a test executes; rebuilding it
is a manual step (run this after adding kernel cases or assembly tests, and commit the result).
tests/emu/test_coverage.py only loads it (well formed, names the targets know).

What runs, with the executor's hook collecting names (`Program.step` adds each instruction it
builds a handler for, once per PC, to ``ctx.stats["executed"]``; a VOPD adds both halves):
  - every tests/kernels case for every built variant (tests/emu/kernel_runner.run_case), whatever
    its outcome: a case that fails still executed the instructions before the failure;
  - the hand-written assembly tests: pytest over tests/emu (but test_kernels.py, the same cases),
    in this process, so their dispatches (asm_dispatch.Dispatch and run_program) go
    through the same executor; `Dispatch.step` (one instruction, one factory's handler, no executor)
    counts its instruction too.
A dispatch that stops because an instruction cannot execute does not count that instruction.
Given test files, only those run, and what they execute is added to the record as it stands (a
new test's instructions without the whole run).
"""
from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "tests" / "emu" / "executed.json"
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "emu")]

from gpubench.emu import executor
from gpubench.emu.context import ExecutionError
from gpubench.isa.decoder import decode

EXECUTED: dict[str, set[str]] = defaultdict(set)  # by target


def _failed_instruction(ctx, error: Exception) -> str | None:
    """The instruction an ExecutionError ("cannot execute 0x..: text [bytes]: why") names."""
    found = re.search(r"cannot execute 0x[0-9a-f]+: .*?\[([0-9a-f]+)\]", str(error))
    if found is None:
        return None
    try:
        return decode(ctx.isa, bytes.fromhex(found.group(1))).name
    except ValueError:
        return None


def _recording_run(run):
    def recorded(ctx, *args, **kwargs):
        try:
            return run(ctx, *args, **kwargs)
        except ExecutionError as e:
            if not isinstance(e, (executor.GPUPageFault, executor.WatchdogTimeout)):
                ctx.stats.get("executed", set()).discard(_failed_instruction(ctx, e))
            raise
        finally:
            EXECUTED[ctx.isa.target.name] |= ctx.stats.get("executed", set())
    return recorded


def _recording_step(step):
    def recorded(self, make_handler, text):
        from gpubench.isa.asm import assemble
        ctx = step(self, make_handler, text)
        EXECUTED[self.isa.target.name].add(decode(self.isa, assemble(self.isa, text).data).name)
        return ctx
    return recorded


def run_kernel_cases() -> list[str]:
    from kernel_runner import cases, run_case
    outcomes = []
    for name, case in sorted(cases.CASES.items()):
        for variant in case.variants:
            watchdog = executor.Watchdog(max_wave_instructions=200_000 if case.expect == "hang" else 50_000_000,
                                         max_seconds=120)
            try:
                run_case(case, variant, watchdog=watchdog)
                outcome = "ran"
            except Exception as e:  # noqa: BLE001 - a failing case still executed what came before
                outcome = type(e).__name__
            outcomes.append(f"{name} {variant}: {outcome}")
            print(outcomes[-1], flush=True)
    return outcomes


def run_assembly_tests(paths: list[str]) -> int:
    import pytest
    return pytest.main(["-q", "-p", "no:cacheprovider", *paths])


def main(test_files: list[str]) -> None:
    import asm_dispatch
    executor.run = _recording_run(executor.run)
    asm_dispatch.Dispatch.step = _recording_step(asm_dispatch.Dispatch.step)
    before = {target: set(names) for target, names in json.loads(RECORD.read_text())["executed"].items()}
    if test_files:
        for target, names in before.items():
            EXECUTED[target] |= names
        status = run_assembly_tests(test_files)
    else:
        run_kernel_cases()
        status = run_assembly_tests([str(ROOT / "tests" / "emu"),
                                     "--ignore", str(ROOT / "tests" / "emu" / "test_kernels.py"),
                                     "--ignore", str(ROOT / "tests" / "emu" / "test_coverage.py")])
    record = {
        "about": "instructions the emulator's tests execute, by target; rebuilt by `python tools/coverage_record.py`",
        "sources": ["tests/kernels cases (every built variant)", "tests/emu assembly tests"],
        "executed": {target: sorted(names) for target, names in sorted(EXECUTED.items())},
    }
    RECORD.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {RECORD.relative_to(ROOT)}: " + ", ".join(
        f"{t} {len(before.get(t, ()))} -> {len(n)}" for t, n in sorted(EXECUTED.items())))
    if status != 0:
        print(f"note: the assembly tests ended with pytest status {int(status)}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
