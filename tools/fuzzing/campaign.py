"""A campaign: how to make case ``i`` of a seed, how to run it, and which errors are documented.

Case ``i`` comes from a random generator seeded with (campaign, seed, i) alone, so it is the same
input in any run, in any worker, alone or among thousands.
"""
from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tools.fuzzing.outcome import Outcome, classify


@dataclass(frozen=True)
class Campaign:
    name: str  # on the command line
    title: str  # in the summary table and the README
    make: Callable[[random.Random], Any]  # a case from its generator
    run: Callable[[Any], Outcome]  # the case's outcome; raising one of `documented` is a documented one
    describe: Callable[[Any], str]  # the case as a reproducer shows it
    documented: tuple[type[BaseException], ...]
    timeout: float = 60.0  # seconds a case may take before it counts as a hang

    def case(self, seed: int, index: int) -> Any:
        return self.make(random.Random(f"{self.name}:{seed}:{index}"))

    def outcome(self, seed: int, index: int) -> Outcome:
        try:
            return self.run(self.case(seed, index))
        except Exception as error:  # noqa: BLE001 - every exception is classified, none escapes a case
            return classify(error, self.documented)
