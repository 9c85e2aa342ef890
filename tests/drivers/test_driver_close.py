"""Closing /dev/kfd gives back what the process held, as amdkfd's release does: a program that opens
and closes the device many times (a test suite, a fuzzer) does not run out of file descriptors."""
from __future__ import annotations

import gc
import os

from gpubench.drivers.kfd import abi
from tests.drivers.kfd_client import Client, Queue


def open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_closing_the_driver_releases_its_memory_descriptors_without_the_garbage_collector():
    gc.disable()  # what is freed must be freed by closing, not by a collection that may come late
    try:
        before = open_descriptors()
        for _ in range(5):
            client = Client()
            client.acquire()
            Queue(client, abi.QUEUE_COMPUTE)
            client.close()
            del client
        assert open_descriptors() == before
    finally:
        gc.enable()
