"""The gdb-like command language over a `Session`: one line in, its output text back. The terminal
prompt (repl.py), `--batch` command files and tests all go through `execute`.
"""
from __future__ import annotations

from gpubench.debug import view
from gpubench.debug.session import Session, Stop
from gpubench.emu.memory import PageFault
from gpubench.emu.waves import WaveState
from gpubench.isa.decoder import DecodeError
from gpubench.isa.disasm import disassemble_at

HELP = """\
break|b LABEL|*ADDR|MNEMONIC   stop before an instruction (any wave)   catch nan   stop at the first NaN written to a VGPR
catch race   stop after the first data race on LDS or global memory (the second access's wave selected)
watch REG|ADDR[,BYTES]|lds:OFF[,BYTES]   stop when it changes     delete N   remove breakpoint/watchpoint N
stepi|si [N]   N instructions of the selected wave     continue|c     finish   run until the selected wave ends
reverse-stepi|rsi [N]   reverse-continue|rc   last-write REG   back to before the last write of REG (selected wave)
info waves|registers|breakpoints|watchpoints     wave N   select a wave     lane N|A:B|all   select lanes
print|p[/FMT] REG   s5 s[4:5] v3 v[3:4] v3@0:7 exec vcc m0 scc pc; FMT x d u f h t
x/NFU ADDR   memory: 0x.., s[4:5]+OFF, lds:OFF, scratch:OFF; F x d u f, U b h w g
disas|list [N]   N instructions around the PC      where   the selected wave's position      help"""

COMMANDS = ["break", "catch", "watch", "delete", "stepi", "continue", "finish", "reverse-stepi", "reverse-continue",
            "last-write", "info", "wave", "lane", "print", "x", "disas", "list", "where", "help", "quit"]
ALIASES = {"b": "break", "si": "stepi", "c": "continue", "rsi": "reverse-stepi", "rc": "reverse-continue",
           "p": "print", "i": "info", "bt": "where"}


class CommandError(ValueError):
    pass


def execute(session: Session, line: str) -> str:
    """Run one command line; errors come back as text starting with `error:`."""
    line = line.strip()
    if not line or line.startswith("#"):
        return ""
    word, _, rest = line.partition(" ")
    word, _, fmt = word.partition("/")
    word = ALIASES.get(word, word)
    handler = HANDLERS.get(word)
    if handler is None:
        return f"error: unknown command {word!r} (help lists them)"
    try:
        return handler(session, rest.strip(), fmt)
    except (CommandError, ValueError, PageFault, IndexError) as e:
        return f"error: {e}"


def _stopped(session: Session, stop: Stop) -> str:
    if stop.reason in ("breakpoint", "exited"):
        return stop.message
    head = {"step": "", "history-start": stop.message}.get(stop.reason, f"{stop.reason}: {stop.message}")
    return "\n".join(t for t in (head, session.where()) if t)


def _count(rest: str) -> int:
    return int(rest, 0) if rest else 1


def _break(s: Session, rest: str, fmt: str) -> str:
    if not rest:
        raise CommandError("break what? a label, *ADDRESS or a mnemonic")
    if rest == "nan":
        return _catch(s, "nan", fmt)
    number = s.add_breakpoint(rest)
    kind, value = s.breakpoints[number]
    return f"breakpoint {number} at " + (f"0x{value:x} {s.symbolize(value)}".rstrip() if kind == "pc" else f"every {value}")


def _catch(s: Session, rest: str, fmt: str) -> str:
    if rest == "nan":
        s.catch_nan = True
        return "catching the first NaN written to a VGPR"
    if rest == "fault":
        return "page faults always stop the dispatch (before the faulting instruction's effects)"
    if rest == "race":
        s.catch_races()
        return "catching the first data race on LDS or global memory"
    raise CommandError("catch nan | catch fault | catch race")


def _watch(s: Session, rest: str, fmt: str) -> str:
    return f"watchpoint {s.add_watch(rest)}: {rest} (wave {s.selected})"


def _delete(s: Session, rest: str, fmt: str) -> str:
    s.delete(int(rest))
    return ""


def _info(s: Session, rest: str, fmt: str) -> str:
    w = s.waves
    if rest.startswith("w"):
        lines = ["  idx  workgroup  wave  state     executed  pc"]
        for i in range(w.count):
            mark = "*" if i == s.selected else " "
            lines.append(f"{mark}{i:4}  {w.workgroup[i]:9}  {w.wave_id[i]:4}  {WaveState(w.state[i]).name.lower():8}"
                         f"  {w.executed[i]:8}  0x{int(w.pc[i]):x} {s.symbolize(int(w.pc[i]))}")
        return "\n".join(lines)
    if rest.startswith("r"):
        sgprs = [view.show(w, s.selected, view.Register("s", r, 4, text=f"s[{r}:{r + 3}]"), fmt or "x", None, s.target)
                 for r in range(0, min(s.sgpr_count(), 106), 4)]
        extra = [view.show(w, s.selected, view.parse_register(n, s.target), None, None, s.target)
                 for n in ("m0", "scc", "pc", "exec")]
        return "\n".join(sgprs + extra)
    if rest.startswith("b"):
        return "\n".join(f"{n}: {k} " + (f"0x{v:x} {s.symbolize(v)}" if k == "pc" else v)
                         for n, (k, v) in s.breakpoints.items()) or "no breakpoints"
    if rest.startswith("wa"):
        return "\n".join(f"{n}: {wt.text}" for n, wt in s.watches.items()) or "no watchpoints"
    raise CommandError("info waves | registers | breakpoints | watchpoints")


def _wave(s: Session, rest: str, fmt: str) -> str:
    s.select(int(rest), s.lanes)
    return s.where()


def _lane(s: Session, rest: str, fmt: str) -> str:
    if rest in ("", "all"):
        s.lanes = None
        return "all lanes"
    lo, _, hi = rest.partition(":")
    s.lanes = (int(lo), int(hi or lo))
    return f"lanes {s.lanes[0]}-{s.lanes[1]}"


def _print(s: Session, rest: str, fmt: str) -> str:
    if fmt and fmt not in view.FORMATS:
        raise CommandError(f"unknown format /{fmt} (one of {view.FORMATS})")
    reg = view.parse_register(rest, s.target)
    return view.show(s.waves, s.selected, reg, fmt or None, s.lanes, s.target)


def _examine(s: Session, rest: str, fmt: str) -> str:
    count, form, unit = view.parse_examine(fmt)
    space, address = s.address(rest)
    data = s.read_memory(space, address, count * view.UNITS[unit])
    text = view.examine(data, address, form, unit)
    return text if space == "global" else "\n".join(f"{space}:{line}" for line in text.splitlines())


def _disas(s: Session, rest: str, fmt: str) -> str:
    around = _count(rest) if rest else 5
    pc = int(s.waves.pc[s.selected])
    code = getattr(s.launch, "handle", None)
    names = {a: n for n, a in sorted(s.labels.items(), key=lambda kv: -kv[1])}
    if code is not None:
        start = code.base + code.kernel.address
        rows = [(start + d.address - code.kernel.address, d.text or f".long 0x{int.from_bytes(d.data, 'little'):08x}")
                for d in code.kernel.instructions]
    else:  # a dispatch without its code object (recorded, or intercepted on a queue): decode from the entry
        rows = _decode_from(s, s.entry, pc, around)
    at = next((i for i, (a, _) in enumerate(rows) if a == pc), None)
    if at is None:
        return f"=> {s.runner.program.describe(pc)} (outside {code.name if code else 'the code decoded from the entry'})"
    lines = []
    for address, text in rows[max(0, at - around):at + around + 1]:
        if address in names:
            lines.append(f"{names[address]}:")
        lines.append(f"{'=>' if address == pc else '  '} 0x{address:x}:  {text}")
    return "\n".join(lines)


def _decode_from(s: Session, entry: int, pc: int, around: int, limit: int = 65536) -> list[tuple[int, str]]:
    """(address, text) of the instructions from ``entry`` until ``around`` past ``pc`` (or undecodable bytes)."""
    rows, address, mapping, past = [], entry, s.ctx.memory.find(entry), 0
    while mapping is not None and address < mapping.end and len(rows) < limit and past < around:
        offset = address - mapping.base
        try:
            inst, text = disassemble_at(s.ctx.isa, mapping.data[offset:offset + 16].tobytes())
        except DecodeError:
            break
        rows.append((address, text))
        past += address > pc
        address += len(inst.bytes)
    return rows


def _where(s: Session, rest: str, fmt: str) -> str:
    return s.where()


def _help(s: Session, rest: str, fmt: str) -> str:
    return HELP


HANDLERS = {
    "break": _break, "catch": _catch, "watch": _watch, "delete": _delete, "info": _info, "wave": _wave,
    "lane": _lane, "print": _print, "x": _examine, "disas": _disas, "list": _disas, "where": _where, "help": _help,
    "stepi": lambda s, rest, fmt: _stopped(s, s.stepi(_count(rest))),
    "continue": lambda s, rest, fmt: _stopped(s, s.cont()),
    "finish": lambda s, rest, fmt: _stopped(s, s.finish()),
    "reverse-stepi": lambda s, rest, fmt: _stopped(s, s.reverse_stepi(_count(rest))),
    "reverse-continue": lambda s, rest, fmt: _stopped(s, s.reverse_continue()),
    "last-write": lambda s, rest, fmt: _stopped(s, s.reverse_to_write(rest)),
}
