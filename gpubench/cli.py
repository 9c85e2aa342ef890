"""The `gpubench` command. `asm` and `disasm` read and print the way llvm-mc does, so that either can
stand in for the other; `-mcpu`, `-mattr` and `-show-encoding` are accepted in llvm-mc's spelling too."""
from __future__ import annotations

import sys

import click

from gpubench.debug_cli import debug as debug_command
from gpubench.debug_cli import compare as compare_command
from gpubench.isa.arch import ISA, UnknownTarget
from gpubench.isa.targets import TARGETS
from gpubench.runner import run as run_command

ENCODING_COLUMN = 40  # llvm-mc pads the text to this width before `; encoding:`


def _wave_size(mattr: str | None) -> int | None:
    """The wave size that llvm-mc's -mattr asks for: +wavefrontsize64 / +wavefrontsize32."""
    for feature in (mattr or "").split(","):
        feature = feature.strip()
        if feature in ("+wavefrontsize64", "-wavefrontsize32"):
            return 64
        if feature in ("+wavefrontsize32", "-wavefrontsize64"):
            return 32
    return None


def _isa(mcpu: str, mattr: str | None) -> ISA:
    try:
        return ISA.get(mcpu, _wave_size(mattr))
    except UnknownTarget as e:
        raise click.BadParameter(str(e), param_hint="--mcpu") from None


def canonical_text(isa: ISA, line) -> str:
    """An assembled statement as llvm-mc prints it back: our disassembly of its bytes (the statement
    as written if they do not decode, which would be a bug worth reporting, not a crash)."""
    from gpubench.isa.decoder import DecodeError
    from gpubench.isa.disasm import disassemble_at
    try:
        return disassemble_at(isa, line.data)[1]
    except DecodeError:
        return line.text


def _name(source) -> str:
    """The input's name in messages: its path, or <stdin> (also for streams without a name)."""
    name = getattr(source, "name", "<stdin>")
    return "<stdin>" if name == "-" else name


def encoding_comment(data: bytes) -> str:
    return "; encoding: [" + ",".join(f"0x{b:02x}" for b in data) + "]"


def with_encoding(text: str, data: bytes) -> str:
    padded = text.ljust(ENCODING_COLUMN) if len(text) < ENCODING_COLUMN else text + " "
    return f"{padded}{encoding_comment(data)}"


mcpu_option = click.option("--mcpu", "-mcpu", "mcpu", default="gfx1100", show_default=True,
                           type=click.Choice(sorted(TARGETS)), help="target GPU")
mattr_option = click.option("--mattr", "-mattr", "mattr", default=None,
                            help="target features, e.g. +wavefrontsize64")
encoding_option = click.option("--show-encoding", "-show-encoding", "show_encoding", is_flag=True,
                               help="print each instruction's bytes as a comment")


@click.group()
@click.version_option(package_name="gpubench")
def main() -> None:
    """gpubench: AMD GPU ISA tools and emulator."""


main.add_command(run_command)
main.add_command(debug_command)
main.add_command(compare_command)


@main.command()
@mcpu_option
@mattr_option
@encoding_option
@click.argument("source", type=click.File("rb"), default="-")
def disasm(mcpu: str, mattr: str | None, show_encoding: bool, source) -> None:
    """Disassemble hex bytes (`0x01,0x05,0x00,0x06` per line, as llvm-mc --disassemble reads them)
    or, given an AMDGPU code object (ELF), list its kernels like llvm-objdump -d."""
    data = source.read()
    if data.startswith(b"\x7fELF"):
        from gpubench.isa.codeobject import objdump
        click.echo(objdump(data, name=_name(source)), nl=False)
        return
    from gpubench.isa.disasm import disassemble_hex
    isa = _isa(mcpu, mattr)
    for item in disassemble_hex(isa, data.decode()):
        if item.text is None:
            column = item.line.columns[item.offset] if item.offset < len(item.line.columns) else 1
            source_line = data.decode().splitlines()[item.line.number - 1]
            click.echo(f"{_name(source)}:{item.line.number}:{column}: warning: invalid instruction encoding\n"
                       f"{source_line}\n{' ' * (column - 1)}^", err=True)
            continue
        click.echo("\t" + (with_encoding(item.text, item.inst.bytes) if show_encoding else item.text))


@main.command()
@mcpu_option
@mattr_option
@encoding_option
@click.option("--filetype", "-filetype", "filetype", type=click.Choice(["asm", "obj"]), default="asm",
              show_default=True, help="obj: write a code object (as llvm-mc -filetype=obj, then ld.lld -shared)")
@click.option("-o", "output", type=click.File("wb"), help="write the raw instruction bytes (or the code object) here")
@click.argument("source", type=click.File("r"), default="-")
def asm(mcpu: str, mattr: str | None, show_encoding: bool, filetype: str, output, source) -> None:
    """Assemble LLVM-syntax AMDGPU assembly; print it back as llvm-mc does (canonical text)."""
    from gpubench.isa.asm import AssemblyError, assemble_reporting
    from gpubench.isa.elfwriter import assemble_code_object
    isa = _isa(mcpu, mattr)
    if filetype == "obj":
        try:
            code_object = assemble_code_object(isa, source.read(), _name(source), mattr)
        except AssemblyError as e:
            click.echo(str(e), err=True)
            sys.exit(1)
        (output or click.get_binary_stream("stdout")).write(code_object)
        return
    # As llvm-mc: the errors on stderr, the other lines on stdout (no -o output), exit status 1.
    program = assemble_reporting(isa, source.read(), filename=_name(source))
    for error in program.errors:
        click.echo(str(error), err=True)
    if output:
        if not program.errors:
            output.write(program.data)
    else:
        _print_program(isa, mcpu, program, show_encoding)
    if program.errors:
        sys.exit(1)


def _print_program(isa, mcpu: str, program, show_encoding: bool) -> None:
    click.echo(f'\t.amdgcn_target "amdgcn-amd-amdhsa--{mcpu}"')
    for line in program.lines:
        if line.kind == "label":
            click.echo(f"{line.text}:")
        elif line.kind == "block":  # .amdhsa_kernel and the like, echoed as written
            click.echo(line.text)
        elif line.kind == "directive":
            click.echo("\t" + "\t".join(line.text.split(None, 1)))
        else:
            click.echo("\t" + (with_encoding(canonical_text(isa, line), line.data) if show_encoding
                               else canonical_text(isa, line)))


@main.group()
def isa() -> None:
    """Look up the instruction sets."""


@isa.command()
@mcpu_option
@click.argument("name")
def info(mcpu: str, name: str) -> None:
    """Encodings, operands and pseudocode of one instruction (spec or LLVM name)."""
    from gpubench.isa.info import describe, find
    target_isa = _isa(mcpu, None)
    found = find(target_isa, name)
    if not found:
        raise click.ClickException(f"no instruction '{name}' on {mcpu}")
    for idef in found:
        click.echo(describe(target_isa, idef))


@isa.command("coverage")
@mcpu_option
@click.option("--list", "listing", is_flag=True, help="one line per instruction after the table")
@click.option("--json", "as_json", is_flag=True, help="the summary and every instruction as JSON")
def isa_coverage(mcpu: str, listing: bool, as_json: bool) -> None:
    """Per instruction: the emulator's semantics (pseudocode, manual, unimplemented) and whether a
    test executes it (tests/emu/executed.json, rebuilt by tools/coverage_record.py)."""
    from gpubench.emu import coverage
    entries = coverage.coverage(mcpu)
    click.echo(coverage.as_json(mcpu, entries) if as_json else coverage.as_table(mcpu, entries, listing))


if __name__ == "__main__":
    main()
