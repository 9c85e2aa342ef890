"""`gpubench debug` in a real terminal (tmux): the prompt, commands, tab completion and history;
and the same commands in --batch mode."""
import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ARGS = ["reverse", "--block", "64", "--arg", "arange:u32:64", "--arg", "zeros:u32:64"]


def gpubench_debug(hsaco: Path) -> list[str]:
    return [sys.executable, "-m", "gpubench.cli", "debug", str(hsaco), *ARGS]


def test_batch_runs_a_command_file(reverse_hsaco, tmp_path):
    commands = tmp_path / "cmds"
    commands.write_text("break mirror\ncontinue\nstepi 3\np/u v4@0:3\nlast-write v3\nquit\nstepi\n")
    out = subprocess.run(gpubench_debug(reverse_hsaco) + ["-x", str(commands), "--batch"], capture_output=True,
                         text=True, cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO)), check=True).stdout
    assert "(gpubench) break mirror\nbreakpoint 1 at" in out
    assert "[ 0]          0         63         62         61" in out
    assert out.rstrip().endswith("<mirror+0x4>")  # quit stopped the file there


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (apt-get install -y tmux)")
def test_interactive_prompt_in_tmux(reverse_hsaco, tmp_path):
    name = f"gpubench-debug-{uuid.uuid4().hex[:8]}"
    env = f"HOME={tmp_path} PYTHONPATH={REPO} TERM=xterm-256color"
    command = f"cd {REPO} && env {env} " + " ".join(gpubench_debug(reverse_hsaco)) + "; sleep 30"
    subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "160", "-y", "50", command], check=True)

    def screen() -> str:
        return subprocess.run(["tmux", "capture-pane", "-p", "-t", name], capture_output=True, text=True, check=True).stdout

    def wait_for(text: str, timeout: float = 30.0) -> str:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if text in (shown := screen()):
                return shown
            time.sleep(0.2)
        raise AssertionError(f"{text!r} not on screen:\n{screen()}")

    def send(*keys: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", name, *keys], check=True)

    try:
        wait_for("(gpubench)")
        send("break mirror", "Enter")
        wait_for("breakpoint 1 at")
        send("continue", "Enter")
        wait_for("=> 0x")
        send("p/d v0@0:3", "Enter")
        wait_for("0          1          2          3")
        send("fini")
        wait_for("(gpubench) fini")
        send("Tab")  # completes the only command starting with "fini"
        wait_for("(gpubench) finish")
        send("Enter")
        wait_for("wave 0 (workgroup 0, wave 0, done)")
        send("Up", "Up")  # history: back to the print
        wait_for("(gpubench) p/d v0@0:3")
        send("C-u", "quit", "Enter")
        wait_for("", 1)
        assert (tmp_path / ".gpubench_debug_history").read_text().count("continue") == 1
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True, check=False)
