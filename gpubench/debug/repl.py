"""The `gpubench debug` terminal: a prompt with history and tab completion (prompt_toolkit) and
coloured output (rich); or command lines from a file or stdin for scripts and CI (`--batch`)."""
from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from rich.console import Console
from rich.text import Text

from gpubench.debug.commands import ALIASES, COMMANDS, execute
from gpubench.debug.session import Session

PROMPT = "(gpubench) "
HISTORY = Path.home() / ".gpubench_debug_history"
STYLES = (("error:", "bold red"), ("=>", "bold green"), ("breakpoint", "yellow"), ("watchpoint", "yellow"),
          ("fault", "bold red"), ("nan", "bold magenta"), ("race", "bold red"), ("the dispatch has ended", "cyan"))


def styled(output: str) -> Text:
    text = Text()
    for line in output.splitlines():
        style = next((s for prefix, s in STYLES if line.startswith(prefix)), "")
        text.append(line + "\n", style=style)
    return text


def run_lines(session: Session, lines: Iterable[str], console: Console) -> bool:
    """Echo and run each line (as gdb -batch does); False once a line says quit."""
    for line in lines:
        if line.strip() in ("quit", "q"):
            return False
        console.print(PROMPT + line.rstrip(), highlight=False, markup=False)
        out = execute(session, line)
        if out:
            console.print(styled(out), end="")
    return True


def interact(session: Session, console: Console) -> None:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.completion import WordCompleter
    from prompt_toolkit.history import FileHistory

    words = COMMANDS + list(ALIASES) + list(session.labels) + ["waves", "registers", "breakpoints", "watchpoints",
                                                                "nan", "race", "exec", "vcc", "scc", "pc", "m0"]
    prompt = PromptSession(history=FileHistory(str(HISTORY)), completer=WordCompleter(words, sentence=False),
                           complete_while_typing=False)  # Tab completes, as readline does
    last = ""
    while True:
        try:
            line = prompt.prompt(PROMPT)
        except EOFError:
            return
        except KeyboardInterrupt:
            continue
        line = line.strip() or last  # an empty line repeats the last command, as in gdb
        if line in ("quit", "q"):
            return
        last = line
        out = execute(session, line)
        if out:
            console.print(styled(out), end="")
