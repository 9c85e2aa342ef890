"""Long SDMA operations are bounded by the GPU's watchdog as dispatches are: a huge CONST_FILL or
COPY_LINEAR is stopped between chunks with a queue error, and the GPU goes on with other queues."""
from __future__ import annotations

import pytest

from gpubench.drivers.kfd import abi
from gpubench.emu.cp import sdma
from gpubench.emu.executor import Watchdog
from tests.drivers.kfd_client import Client, Queue, split

FILL_BYTES = 1 << 30  # the most one CONST_FILL or COPY_LINEAR moves


@pytest.fixture
def impatient_client():
    client = Client(watchdog=Watchdog(max_seconds=0.0))
    client.acquire()
    yield client
    client.close()


@pytest.mark.parametrize("operation", ["CONST_FILL", "COPY_LINEAR"])
def test_a_gigabyte_sdma_operation_is_stopped_by_the_watchdog(impatient_client, caplog, operation):
    target, _ = impatient_client.alloc(FILL_BYTES)
    source, _ = impatient_client.alloc(FILL_BYTES)
    queue = Queue(impatient_client, abi.QUEUE_SDMA)
    packet = [sdma.CONST_FILL | (2 << 30), *split(target.va_addr), 0xA5A5A5A5, FILL_BYTES - 1] \
        if operation == "CONST_FILL" else [sdma.COPY, FILL_BYTES - 1, 0, *split(source.va_addr), *split(target.va_addr)]
    queue.submit(packet)
    fired, _ = queue.wait()
    assert fired == queue.errors.event_id
    assert f"watchdog: SDMA {operation} of {FILL_BYTES} bytes stopped after {sdma.COPY_CHUNK} bytes" in caplog.text
