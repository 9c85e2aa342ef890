"""The fuzzing campaigns as part of the suite: a bounded sample of each one ends in no bug class (no
undocumented exception, host crash, dead command processor or hang), and `-m slow` runs larger ones.
The worker pool counts what a case does to its process: a case that kills its worker is a host
crash, one that never answers is a hang, and the campaign goes on with the next case."""
from __future__ import annotations

import ctypes
import errno
import os
import signal
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpubench.drivers.kfd import abi
from tests.drivers.kfd_client import Client
from tools.fuzzing.campaigns import CAMPAIGNS
from tools.fuzzing.outcome import Kind, classify, ran
from tools.fuzzing.pool import run_cases
from tools.fuzzing.report import Results, run_campaign

BOUNDED = {"instructions": 150, "kernels": 60, "memory": 150, "streams": 40, "ioctls": 150}
LARGER = 20  # times the bounded sample, under -m slow


def bug_classes(results: Results) -> str:
    return "\n".join(f"{kind.value} {label}: {last} (cases {[i for i, _ in cases[:5]]})"
                     for (kind, label, last), cases in results.bugs.items())


@pytest.mark.parametrize("name", list(CAMPAIGNS))
def test_a_bounded_campaign_ends_in_no_bug_class(name):
    results = run_campaign(CAMPAIGNS[name], seed=0, cases=BOUNDED[name], workers=2)
    assert results.cases == BOUNDED[name]
    assert results.bug_count == 0, bug_classes(results)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CAMPAIGNS))
def test_a_larger_campaign_ends_in_no_bug_class(name):
    results = run_campaign(CAMPAIGNS[name], seed=2, cases=LARGER * BOUNDED[name], workers=2)
    assert results.bug_count == 0, bug_classes(results)


def crash_or_hang(index: int):
    if index == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    if index == 2:
        time.sleep(60)
    return ran(f"case {index}")


def test_a_case_that_kills_or_hangs_its_worker_is_counted_and_the_campaign_goes_on():
    outcomes = dict(run_cases(crash_or_hang, range(6), workers=2, timeout=2.0))
    assert outcomes[1].kind == Kind.CRASH and outcomes[1].detail == "killed by SIGKILL"
    assert outcomes[2].kind == Kind.HANG
    assert [outcomes[i].label for i in (0, 3, 4, 5)] == ["case 0", "case 3", "case 4", "case 5"]


def test_a_case_is_the_same_input_in_every_run_and_another_seed_is_another_input():
    for campaign in CAMPAIGNS.values():
        assert campaign.describe(campaign.case(7, 3)) == campaign.describe(campaign.case(7, 3))
        assert campaign.describe(campaign.case(7, 3)) != campaign.describe(campaign.case(8, 3))


def test_an_errno_is_documented_and_any_other_exception_is_not():
    assert classify(OSError(errno.EFAULT, "EFAULT: bad address"), (OSError,)).label == "EFAULT"
    try:
        {}["missing"]
    except KeyError as error:
        outcome = classify(error, (OSError,))
    assert outcome.kind == Kind.UNDOCUMENTED and "KeyError" in outcome.detail and "test_campaigns.py" in outcome.detail


@settings(max_examples=100, deadline=None)
@given(number=st.sampled_from(sorted(abi.IOCTLS)), data=st.binary(max_size=96), direction=st.integers(0, 3))
def test_any_bytes_as_an_ioctl_argument_are_an_answer_or_an_errno(number, data, direction):
    client = Client()
    try:
        client.acquire()
        request = (direction << 30) | (ctypes.sizeof(abi.IOCTLS[number][1]) << 16) | (abi.IOCTL_BASE << 8) | number
        try:
            client.driver.ioctl(request, bytearray(data))
        except OSError as error:
            assert error.errno in errno.errorcode
    finally:
        client.close()
