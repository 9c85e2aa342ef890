"""`gpubench debug` (a kernel of a code object, a recorded dispatch, or a dispatch of a tinygrad run
caught as it starts) and `gpubench replay` (a recorded dispatch run again and compared)."""
from __future__ import annotations

import click


@click.command()
@click.argument("code_object", required=False, type=click.Path(exists=True, dir_okay=False))
@click.argument("kernel", required=False)
@click.option("--grid", default="1", show_default=True, help="workgroups: X[,Y[,Z]]")
@click.option("--block", default="64", show_default=True, help="work-items per workgroup: X[,Y[,Z]]")
@click.option("--arg", "arg_specs", multiple=True,
              help="in order: a .npy file, zeros:f32:1024 / ones:i32:64 / arange:u32:256, or a scalar (2.0, u64:7)")
@click.option("--recorded", type=click.Path(exists=True, file_okay=False),
              help="debug a dispatch saved by `gpubench run --record` (DIR/dispatch-N) instead")
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
def debug(code_object: str | None, kernel: str | None, grid: str, block: str, arg_specs: tuple[str, ...],
          recorded: str | None, run_target: str | None, kernel_glob: str | None, dispatch_index: int | None, dev: str,
          command_file, batch: bool, trace, timeline, fidelity: bool, no_record: bool) -> None:
    """Debug KERNEL of CODE_OBJECT instruction by instruction, with a gdb-like prompt (help lists the
    commands); or a recorded dispatch (--recorded DIR); or a dispatch of a tinygrad run (--run)."""
    from gpubench.debug.session import Session

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
        launch = replay.load(recorded)
        drive(Session(launch, launch.labels(), record=not no_record), launch.name)
        return
    if not (code_object and kernel):
        raise click.UsageError("give CODE_OBJECT KERNEL, --recorded DIR or --run SUITE_OR_SCRIPT")
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


@click.command()
@click.argument("dispatch_dir", type=click.Path(exists=True, file_okay=False))
@click.option("--compare", is_flag=True, help="compare the memory it writes with the recording's; exit 1 if they differ")
def replay(dispatch_dir: str, compare: bool) -> None:
    """Run a dispatch saved by `gpubench run --record` (DIR/dispatch-N) alone, on a fresh address space."""
    from gpubench.debug import replay as replaying
    from gpubench.emu.launch import run

    launch = replaying.load(dispatch_dir)
    stats = run(launch.ctx)
    click.echo(f"{launch.name}: {stats.waves} waves, {stats.wave_instructions:,} wave-instructions")
    if compare:
        problems = replaying.compare(launch)
        written = sum(1 for m in launch.manifest["mappings"] if m["after"])
        for line in problems:
            click.echo(f"differs: {line}")
        click.echo(f"{'MISMATCH' if problems else 'match'}: {len(launch.manifest['mappings'])} mappings compared, "
                   f"{written} written by the recorded dispatch")
        if problems:
            raise SystemExit(1)
