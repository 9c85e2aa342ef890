"""Forked workers that run cases and survive them: a case that kills its worker (a signal, an abort)
is a host crash, one that does not answer within the time limit is a hang; either way the worker is
replaced and the campaign goes on.

Workers are forked from the parent, which must have no threads of its own (a case's threads, such as
a command processor's, live and die in a worker), and run one case at a time, so each case is isolated
from the parent and its outcome is counted whatever it does to its process.
"""
from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Iterable, Iterator
from multiprocessing.connection import Connection, wait

from tools.fuzzing.outcome import Kind, Outcome

_fork = multiprocessing.get_context("fork")


def _serve(connection: Connection, run_case: Callable[[int], Outcome]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    logging.getLogger("gpubench").addHandler(logging.NullHandler())  # the emulator's log lines stay in the worker
    while True:
        try:
            index = connection.recv()
        except EOFError:
            return
        connection.send((index, run_case(index)))


class _Worker:
    def __init__(self, run_case: Callable[[int], Outcome]):
        self.connection, child = _fork.Pipe()
        self.process = _fork.Process(target=_serve, args=(child, run_case), daemon=True)
        self.process.start()
        child.close()
        self.case: int | None = None
        self.deadline = 0.0

    def give(self, index: int, timeout: float) -> None:
        self.case, self.deadline = index, time.monotonic() + timeout
        self.connection.send(index)

    def stop(self) -> None:
        if self.process.is_alive():
            os.kill(self.process.pid, signal.SIGKILL)
        self.process.join()
        self.connection.close()


def _death(process) -> str:
    process.join()
    code = process.exitcode
    return f"killed by {signal.Signals(-code).name}" if code is not None and code < 0 else f"exited with {code}"


def run_cases(run_case: Callable[[int], Outcome], indices: Iterable[int], workers: int = 1,
              timeout: float = 60.0) -> Iterator[tuple[int, Outcome]]:
    """(case index, outcome) for every index, in the order cases finish."""
    pending = iter(indices)
    pool = [_Worker(run_case) for _ in range(max(1, workers))]
    busy: dict[Connection, _Worker] = {}

    def feed(worker: _Worker) -> None:
        index = next(pending, None)
        if index is not None:
            worker.give(index, timeout)
            busy[worker.connection] = worker

    def replace(worker: _Worker) -> None:
        worker.stop()
        pool[pool.index(worker)] = fresh = _Worker(run_case)
        feed(fresh)

    try:
        for worker in pool:
            feed(worker)
        while busy:
            now = time.monotonic()
            ready = wait(list(busy), timeout=max(0.0, min(w.deadline for w in busy.values()) - now))
            for connection in ready:
                worker = busy.pop(connection)
                try:
                    index, outcome = connection.recv()
                except (EOFError, ConnectionError):
                    yield worker.case, Outcome(Kind.CRASH, "worker died", _death(worker.process))
                    replace(worker)
                    continue
                yield index, outcome
                feed(worker)
            now = time.monotonic()
            for connection, worker in list(busy.items()):
                if connection not in ready and now >= worker.deadline:
                    del busy[connection]
                    yield worker.case, Outcome(Kind.HANG, "no answer", f"no outcome within {timeout:.0f} s")
                    replace(worker)
    finally:
        for worker in pool:
            worker.stop()
