"""The CP thread's share of the interpreter (emu/cp/interpreter.py): a short switch interval while
any wide dispatch runs, on every GPU's thread, and the idle interval back once none does; a client
spinning on a signal stands aside while a pass runs."""
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


def _looks_during_a_pass(seconds: float = 0.03) -> int:
    """The main thread spins in `_spin_on` while another thread, like a CP, claims the interpreter
    and runs a pass of ``seconds`` in Python; how many times the client looked meanwhile."""
    flag, looks, during = [False], [0], []
    handoff = interpreter.Handoff()

    def command_processor():
        time.sleep(0.01)  # the client spins by now
        handoff.claim()
        start, end = looks[0], time.perf_counter() + seconds
        while time.perf_counter() < end:
            pass
        during.append(looks[0] - start)
        handoff.pass_done()
        flag[0] = True

    thread = threading.Thread(target=command_processor)
    thread.start()
    _spin_on(flag, looks)
    thread.join()
    return during[0]


def test_a_client_spinning_in_a_named_loop_stands_aside_for_the_pass():
    assert _looks_during_a_pass() > 10  # unnamed: it takes every other slice of the interpreter
    interpreter.spin_wait(_spin_on.__code__)
    assert _looks_during_a_pass() <= 1  # named: at most the look it was making when the call came


def test_a_client_stands_aside_no_longer_than_the_limit():
    interpreter.spin_wait(_spin_on.__code__)
    assert _looks_during_a_pass(seconds=4 * interpreter.YIELD_LIMIT_SECONDS) > 10
