"""`gpubench debug` (a kernel of a code object, a recorded launch, or a dispatch of a tinygrad run
caught as it starts) and `gpubench compare` (a bundle's launches run again and compared)."""
from __future__ import annotations

import click


@click.command()
@click.argument("code_object", required=False, type=click.Path(exists=True, dir_okay=False))
@click.argument("kernel", required=False)
@click.option("--grid", default="1", show_default=True, help="workgroups: X[,Y[,Z]]")
@click.option("--block", default="64", show_default=True, help="work-items per workgroup: X[,Y[,Z]]")
@click.option("--arg", "arg_specs", multiple=True,
              help="in order: a .npy file, zeros:f32:1024 / ones:i32:64 / arange:u32:256, or a scalar (2.0, u64:7)")
@click.option("--recorded", type=click.Path(exists=True, dir_okay=False),
              help="debug a launch saved by `gpubench run --record` (DIR/launches/NAME.json) instead")
@click.option("--run", "run_target", metavar="SUITE_OR_SCRIPT",
              help="run a tinygrad test suite or script on the emulated machine (--dev: MOCKKFD or MOCKPCI) "
                   "and stop when a dispatch of --kernel starts")
@click.option("--kernel", "kernel_glob", metavar="NAME", help="with --run: the kernel to stop at (a glob)")
@click.option("--dispatch", "dispatch_index", type=int, help="with --run: stop at dispatch N (from 0)")
@click.option("--dev", default="MOCKKFD+AMD", show_default=True, help="with --run: the tinygrad device string")
@click.option("-x", "command_file", type=click.File("r"), help="run these commands first (one a line)")
@click.option("--batch", is_flag=True, help="no prompt: run -x's commands (or stdin's) and exit")
@click.option("--trace", type=click.File("w"), help="write one JSON line per executed instruction per wave")
@click.option("--timeline", type=click.File("w"), help="write a Chrome trace event JSON timeline of the dispatch")
@click.option("--fidelity", is_flag=True, help="at exit, print each executed instruction's count and semantics source")
@click.option("--no-record", is_flag=True, help="keep no history: faster, no reverse execution")
@click.option("--schedule", default=None, metavar="lockstep|per-wave|reverse|random[:SEED]",
              help="the order waves of a workgroup run in (gpubench/emu/schedule.py); the seed is printed")
def debug(code_object: str | None, kernel: str | None, grid: str, block: str, arg_specs: tuple[str, ...],
          recorded: str | None, run_target: str | None, kernel_glob: str | None, dispatch_index: int | None, dev: str,
          command_file, batch: bool, trace, timeline, fidelity: bool, no_record: bool, schedule: str | None) -> None:
    """Debug KERNEL of CODE_OBJECT instruction by instruction, with a gdb-like prompt (help lists the
    commands); or a recorded launch (--recorded DIR/launches/NAME.json); or a dispatch of a tinygrad
    run (--run)."""
    from gpubench.debug.session import Session
    from gpubench.runner import configure_schedule

    if schedule is not None:
        configure_schedule(schedule)
    drive = lambda session, name: _drive(session, name, command_file, batch, trace, timeline, fidelity)
    if run_target:
        from gpubench.debug import intercept
        from gpubench.debug.tools import label, selector
        select = selector(dispatch_index, kernel_glob)
        if select is None:
            raise click.UsageError("--run needs --kernel NAME or --dispatch N")
        hook = intercept.BreakIn(select, lambda session: drive(session, label(hook.hit)))
        status = intercept.run(run_target, hook, dev)
        if hook.hit is None:
            click.echo(f"no dispatch matched ({status=})", err=True)
            raise SystemExit(status or 1)
        raise SystemExit(status)
    if recorded:
        from gpubench.debug import replay
        from gpubench.debug.bundle import BundleError
        try:
            launch = replay.load(recorded)
        except BundleError as e:
            raise click.ClickException(str(e)) from None
        drive(Session(launch, launch.labels(), record=not no_record), launch.name)
        return
    if not (code_object and kernel):
        raise click.UsageError("give CODE_OBJECT KERNEL, --recorded LAUNCH.json or --run SUITE_OR_SCRIPT")
    import gpubench
    from gpubench.debug import args
    from gpubench.isa.codeobject import CodeObject
    try:
        device = gpubench.Device(CodeObject.load(code_object).target)
        values = tuple(args.parse(device, spec) for spec in arg_specs)
        session = Session.load(device, code_object, kernel, args.dims(grid), args.dims(block), values,
                               record=not no_record)
    except (ValueError, TypeError, KeyError) as e:
        raise click.ClickException(f"cannot prepare {kernel}: {e}") from None
    drive(session, kernel)


def _drive(session, name: str, command_file, batch: bool, trace, timeline, fidelity: bool) -> None:
    """The prompt (or the command file / stdin) over ``session``, with the requested observers."""
    from rich.console import Console

    from gpubench.debug import repl
    from gpubench.debug import trace as traces

    observers = []
    if trace:
        observers.append(traces.InstructionTrace(session.ctx, trace))
    if timeline:
        observers.append(traces.Timeline(session.ctx, name, timeline))
    report = traces.Fidelity() if fidelity else None
    observers += [report] if report else []
    session.observers = observers
    console = Console(highlight=False)
    try:
        going = repl.run_lines(session, command_file, console) if command_file else True
        if going and batch and not command_file:
            repl.run_lines(session, click.get_text_stream("stdin"), console)
        elif going and not batch:
            repl.interact(session, console)
    finally:
        for observer in observers:
            observer.close()
        session.close()
    if report:
        click.echo(report.table())


@click.command(short_help="Run a bundle's launches again on the emulator and compare.")
@click.argument("bundle", type=click.Path(exists=True, file_okay=False))
@click.option("--target", metavar="TARGET", default=None,
              help="run the launches as this target, e.g. gfx1151 (default: the one each was recorded on)")
@click.option("--engine", type=click.Choice(["native", "reference"]), default=None,
              help="what runs the waves (default: GPUBENCH_ENGINE's, native)")
@click.option("--json-report", "json_report", metavar="FILE", type=click.File("w"), default=None,
              help="write every launch's result and differences as JSON")
def compare(bundle: str, target: str | None, engine: str | None, json_report) -> None:
    """Run every launch of BUNDLE again on the emulator, each alone in a fresh address space, and
    compare what it wrote with what the recording says the device wrote: one row per launch.

    BUNDLE is the directory `gpubench run --record DIR` wrote: on a machine with an AMD GPU
    (--dev AMD --record-at client) or on MOCKKFD/MOCKPCI.

    Exit status: 0 when every launch is equal, 1 when any differs or does not run (or BUNDLE
    cannot be read)."""
    import json

    from rich.console import Console

    from gpubench.debug import compare as comparing
    from gpubench.debug.bundle import BundleError
    from gpubench.isa.targets import TARGETS

    if target is not None and target not in TARGETS:
        raise click.BadParameter(f"{target!r}; known: {', '.join(sorted(TARGETS))}", param_hint="--target")
    try:
        results = list(comparing.compare_bundle(bundle, target, engine))
    except BundleError as e:
        raise click.ClickException(str(e)) from None
    Console(highlight=False).print(comparing.summary(results))
    counts = {status: sum(r.status == status for r in results) for status in ("equal", "differs", "error")}
    click.echo(f"{len(results)} launches: {counts['equal']} equal, {counts['differs']} differ, "
               f"{counts['error']} did not run")
    if json_report:
        json.dump({"bundle": bundle, "target": target, "engine": engine, "counts": counts,
                   "launches": [r.as_dict() for r in results]}, json_report, indent=1)
    if not results or counts["equal"] != len(results):
        raise SystemExit(1)
