"""The CP thread's share of the interpreter (emu/cp/interpreter.py): a short switch interval while
any wide dispatch runs, on every GPU's thread, and the idle interval back once none does; the main
thread stands aside while the CP takes its turn, unless it is in gpubench's own code."""
import subprocess
import sys
import threading
import time

import pytest

from gpubench.emu.cp import interpreter


@pytest.fixture(autouse=True)
def idle_interval():
    saved = sys.getswitchinterval()
    sys.setswitchinterval(interpreter.IDLE_SWITCH_SECONDS)
    yield
    sys.setswitchinterval(saved)


def test_a_small_dispatch_keeps_the_idle_interval():
    with interpreter.dispatch_running(64):
        assert sys.getswitchinterval() == pytest.approx(interpreter.IDLE_SWITCH_SECONDS)


def test_overlapping_wide_dispatches_restore_the_interval_when_the_last_ends():
    first, second = interpreter.dispatch_running(1 << 16), interpreter.dispatch_running(1 << 20)
    first.__enter__()
    second.__enter__()
    assert sys.getswitchinterval() == pytest.approx(interpreter.WIDE_SWITCH_SECONDS)
    first.__exit__(None, None, None)
    assert sys.getswitchinterval() == pytest.approx(interpreter.WIDE_SWITCH_SECONDS)
    interpreter.share_when_idle()  # a CP thread starting meanwhile does not lengthen it
    assert sys.getswitchinterval() == pytest.approx(interpreter.WIDE_SWITCH_SECONDS)
    second.__exit__(None, None, None)
    assert sys.getswitchinterval() == pytest.approx(interpreter.IDLE_SWITCH_SECONDS)


def test_a_failing_dispatch_restores_the_interval():
    with pytest.raises(RuntimeError):
        with interpreter.dispatch_running(1 << 16):
            raise RuntimeError("page fault")
    assert sys.getswitchinterval() == pytest.approx(interpreter.IDLE_SWITCH_SECONDS)


def test_the_interval_in_force_before_comes_back():
    sys.setswitchinterval(0.0001)
    with interpreter.dispatch_running(1 << 16):
        assert sys.getswitchinterval() == pytest.approx(interpreter.WIDE_SWITCH_SECONDS)
    assert sys.getswitchinterval() == pytest.approx(0.0001, rel=0.05)


def _spin_on(flag: list, looks: list) -> None:
    """A client's wait: it looks at memory in Python until the GPU writes it."""
    while not flag[0]:
        looks[0] += 1


# the same loop as if it were gpubench's driver code (an ioctl handler, say), whose locks the CP may need
_in_driver: dict = {"__name__": "gpubench.drivers.kfd.example"}
exec("def spin(flag, looks):\n    while not flag[0]:\n        looks[0] += 1\n", _in_driver)


def _looks_during_a_turn(spin=_spin_on, seconds: float = 0.03, native: bool = False) -> int:
    """The main thread spins in ``spin`` while another thread, like a CP, takes a turn of ``seconds``
    in Python (or, ``native``, says it runs without the GIL first); how often the client looked meanwhile."""
    flag, looks, during = [False], [0], []
    handoff = interpreter.Handoff()

    def command_processor():
        time.sleep(0.01)  # the client spins by now
        with handoff.turn():
            if native:
                interpreter.running_without_the_gil()
            start, end = looks[0], time.perf_counter() + seconds
            while time.perf_counter() < end:
                pass
            during.append(looks[0] - start)
        flag[0] = True

    thread = threading.Thread(target=command_processor)
    thread.start()
    spin(flag, looks)
    thread.join()
    return during[0]


def test_the_main_thread_stands_aside_for_a_turn():
    assert _looks_during_a_turn() <= 1  # at most the look it was making when the call came


def test_the_main_thread_in_gpubench_code_keeps_its_slices():
    assert _looks_during_a_turn(_in_driver["spin"]) > 10  # it takes every other slice of the interpreter


def test_the_main_thread_runs_while_the_cp_runs_without_the_gil():
    assert _looks_during_a_turn(native=True) > 10


def test_the_main_thread_stands_aside_no_longer_than_the_limit():
    assert _looks_during_a_turn(seconds=4 * interpreter.YIELD_LIMIT_SECONDS) > 10


_TRACED_CLIENT = """
import sys, threading, time
from gpubench.emu.cp import interpreter
sys.set{hook}(lambda *args: None)  # pdb, coverage and cProfile install such a function
handoff, done, looks = interpreter.Handoff(), [False], [0]

def command_processor():
    time.sleep(0.01)
    for _ in range(50):  # turns back to back: the next one starts while the client still stands aside
        with handoff.turn():
            end = time.perf_counter() + 0.001
            while time.perf_counter() < end:
                pass
    done[0] = True

thread = threading.Thread(target=command_processor)
thread.start()
while not done[0]:
    looks[0] += 1
thread.join()
print("finished")
"""


@pytest.mark.parametrize("hook", ["trace", "profile"])
def test_a_client_under_a_tracer_or_profiler_is_not_stopped_by_the_cp(hook):
    # regression: the stand-aside call ran Python code while the interpreter handled pending calls,
    # and a turn that began meanwhile left the eval breaker set for good: under a trace or profile
    # function CPython 3.11 then re-ran the call's first instruction forever (pdb, coverage, cProfile hung)
    done = subprocess.run([sys.executable, "-c", _TRACED_CLIENT.format(hook=hook)], capture_output=True,
                          text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "finished"
