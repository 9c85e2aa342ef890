"""`gpubench run --dev DEV SUITE [pytest args]`: a test suite on emulated GPUs, through the client's
own driver code.

SUITE is a built-in suite (gpubench/suites: `test_ops`) or a path pytest understands. The run is
pytest itself, in this process, with gpubench's plugin (gpubench.pytest_plugin) setting up the
tinygrad seam and summing the emulator statistics over xdist workers (-n N): progress is pytest's,
the summary ends with gpubench's section, and --json-report writes it as JSON.

The dispatch tools (gpubench.debug.tools) are asked for through the environment, which xdist
workers inherit, as are the engine (--engine, GPUBENCH_ENGINE) and the wave schedule (--schedule,
GPUBENCH_SCHEDULE: a random one's seed is drawn here, so every worker shares it) and the race
detector (--races, GPUBENCH_RACES): --record DIR saves launches into a
bundle for `gpubench compare` and `gpubench debug --recorded` (seen by the emulator or, --record-at
client, by the client: gpubench.debug.client_recorder), --shadow runs each launch on the emulator
too, --fidelity prints the instructions executed, --trace and --timeline write the first dispatch
chosen by --dispatch N / --kernel NAME.
"""
from __future__ import annotations

import os
from pathlib import Path

import click

SUITES = Path(__file__).resolve().parent / "suites"


def suite_path(suite: str) -> str:
    builtin = SUITES / f"{suite}.py"
    if builtin.is_file():
        return str(builtin)
    if Path(suite.split("::")[0]).exists():
        return suite
    known = sorted(p.stem for p in SUITES.glob("test_*.py"))
    raise click.BadParameter(f"{suite!r} is neither a built-in suite ({', '.join(known)}) nor a path", param_hint="SUITE")


def configure_schedule(text: str) -> None:
    """--schedule: checked, a random one's seed drawn, handed on (GPUBENCH_SCHEDULE) and printed."""
    from gpubench.emu.schedule import ENV, Schedule
    try:
        chosen = Schedule.parse(text)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--schedule") from None
    os.environ[ENV] = str(chosen)
    click.echo(f"gpubench: schedule {chosen} (--schedule {chosen} repeats it)", err=True)


@click.command(context_settings={"ignore_unknown_options": True})
@click.option("--dev", default="MOCKKFD+AMD", show_default=True,
              help="tinygrad device string: MOCKKFD+AMD, MOCKKFD+AMD:LLVM:gfx1100, MOCKPCI+AMD, ...")
@click.option("--gpus", type=int, default=None, help="emulated GPUs in the machine (default 1)")
@click.option("--engine", type=click.Choice(["native", "reference"]), default=None,
              help="what runs the waves: native code (the default) or the numpy reference engine "
                   "(GPUBENCH_ENGINE)")
@click.option("--schedule", default=None, metavar="lockstep|per-wave|reverse|random[:SEED]",
              help="the order waves of a workgroup run in (gpubench/emu/schedule.py; runs the reference engine); "
                   "the seed is printed")
@click.option("--races", is_flag=True,
              help="run the race detector on LDS and global memory (gpubench/emu/races.py; the reference engine); "
                   "the summary lists each race once (GPUBENCH_RACES)")
@click.option("--json-report", "json_report", type=click.Path(dir_okay=False, writable=True), default=None,
              help="write the run summary (outcomes, emulator statistics) as JSON")
@click.option("--record", type=click.Path(file_okay=False), default=None,
              help="save each kernel launch into the bundle DIR (for `gpubench compare` and `debug --recorded`)")
@click.option("--record-at", type=click.Choice(["emulator", "client"]), default=None,
              help="where --record sees launches: inside the emulated GPU (every mapping touched; the default "
                   "on MOCKKFD/MOCKPCI) or at tinygrad's program launch (any device; the default otherwise)")
@click.option("--shadow", is_flag=True,
              help="run every launch on the emulator too, as soon as the device has run it, and report differences")
@click.option("--fidelity", is_flag=True, help="at the end, every instruction executed, its count and semantics source")
@click.option("--trace", type=click.Path(dir_okay=False), default=None,
              help="write the chosen dispatch's instruction trace (JSON lines) here")
@click.option("--timeline", type=click.Path(dir_okay=False), default=None,
              help="write the chosen dispatch's timeline (Chrome trace events) here")
@click.option("--dispatch", type=int, default=None, help="choose dispatch N (from 0, per process) for the tools")
@click.option("--kernel", default=None, help="choose dispatches of kernels matching this name (a glob) for the tools")
@click.argument("suite")
@click.argument("pytest_args", nargs=-1, type=click.UNPROCESSED)
def run(dev: str, gpus: int | None, engine: str | None, schedule: str | None, races: bool, json_report: str | None, record: str | None,
        record_at: str | None, shadow: bool, fidelity: bool, trace: str | None, timeline: str | None,
        dispatch: int | None, kernel: str | None, suite: str, pytest_args: tuple[str, ...]) -> None:
    """Run SUITE (built-in name or path) with pytest on emulated GPUs, or on a real one (--dev AMD,
    with --record or --shadow); extra arguments go to pytest (e.g. -n 2 for two workers, -k matmul)."""
    import pytest

    from gpubench.debug.tools import ENV
    from gpubench.drivers.tinygrad_env import is_emulated

    os.environ["DEV"] = dev
    record_at = record and (record_at or ("emulator" if is_emulated(os.environ) else "client"))
    if record_at == "client" or shadow:  # JIT graphs bypass the program launch the client tools hook
        os.environ.setdefault("JIT", "2")
    tools = {"record": record and os.path.abspath(record), "record_at": record_at, "shadow": "1" if shadow else None,
             "fidelity": "1" if fidelity else None, "trace": trace and os.path.abspath(trace), "timeline": timeline and os.path.abspath(timeline),
             "dispatch": None if dispatch is None else str(dispatch), "kernel": kernel}
    for name, value in tools.items():
        if value is not None:
            os.environ[ENV[name]] = value
    if gpus is not None:
        os.environ["GPUBENCH_GPUS"] = str(gpus)
    if engine is not None:
        os.environ["GPUBENCH_ENGINE"] = engine
    if schedule is not None:
        configure_schedule(schedule)
    if races:
        os.environ["GPUBENCH_RACES"] = "1"
    args = [suite_path(suite), "-p", "no:cacheprovider", *pytest_args]
    if json_report:
        args += ["--gpubench-json", json_report]
    raise SystemExit(pytest.main(args))
