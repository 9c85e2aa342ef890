"""The CP thread's share of the interpreter (emu/cp/interpreter.py): a short switch interval while
any wide dispatch runs, on every GPU's thread, and the idle interval back once none does."""
import sys

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
