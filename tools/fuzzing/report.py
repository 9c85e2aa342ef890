"""Running a campaign, and its results: counts per outcome class (a rich table) and a reproducer for
every case that ended in a bug class, grouped by what went wrong so one fault class is one entry
with its count."""
from __future__ import annotations

import itertools
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from rich.console import Console
from rich.table import Table

from tools.fuzzing.campaign import Campaign
from tools.fuzzing.outcome import BUGS, Kind, Outcome
from tools.fuzzing.pool import run_cases

COLUMNS = (Kind.RAN, Kind.DOCUMENTED, *BUGS)
EXAMPLES_PER_CLASS = 3


@dataclass
class Results:
    title: str
    kinds: Counter = field(default_factory=Counter)
    labels: Counter = field(default_factory=Counter)  # (kind, label) -> cases
    bugs: dict[tuple, list[tuple[int, Outcome]]] = field(default_factory=lambda: defaultdict(list))

    def add(self, index: int, outcome: Outcome) -> None:
        self.kinds[outcome.kind] += 1
        self.labels[outcome.kind, outcome.label] += 1
        if outcome.kind in BUGS:
            key = (outcome.kind, outcome.label, outcome.detail.strip().splitlines()[-1] if outcome.detail else "")
            self.bugs[key].append((index, outcome))

    @property
    def cases(self) -> int:
        return sum(self.kinds.values())

    @property
    def bug_count(self) -> int:
        return sum(self.kinds[k] for k in BUGS)


def run_campaign(campaign: Campaign, seed: int, cases: int | None, seconds: float | None = None,
                 workers: int = 1) -> Results:
    """Cases 0 .. cases-1 of ``seed`` (or as many as ``seconds`` allow), in ``workers`` processes."""
    deadline = None if seconds is None else time.monotonic() + seconds
    indices = range(cases) if cases is not None else itertools.takewhile(
        lambda _: time.monotonic() < deadline, itertools.count())
    results = Results(campaign.title)
    for index, outcome in run_cases(lambda i: campaign.outcome(seed, i), indices, workers, campaign.timeout):
        results.add(index, outcome)
    return results


def summary_table(results: list[Results]) -> Table:
    table = Table(title="fuzzing campaigns")
    table.add_column("campaign")
    table.add_column("cases", justify="right")
    for kind in COLUMNS:
        table.add_column(kind.value, justify="right")
    for r in results:
        table.add_row(r.title, f"{r.cases:,}", *(f"{r.kinds[k]:,}" for k in COLUMNS))
    return table


def print_report(console: Console, campaign_name: str, seed: int, results: Results, describe) -> None:
    """The documented outcomes by label, then each bug class with its reproducers."""
    documented = ", ".join(f"{label} {n:,}" for (kind, label), n in results.labels.most_common()
                           if kind == Kind.DOCUMENTED)
    console.print(f"[bold]{results.title}[/]: {results.cases:,} cases; documented: {documented or 'none'}",
                  soft_wrap=True)
    for (kind, label, last), cases in sorted(results.bugs.items(), key=lambda item: -len(item[1])):
        console.print(f"  [red]{kind.value}[/] {label}: {last} ({len(cases)} cases)", soft_wrap=True)
        for index, outcome in cases[:EXAMPLES_PER_CLASS]:
            console.print(f"    python tools/fuzz.py {campaign_name} --seed {seed} --case {index}", highlight=False,
                          soft_wrap=True)
            console.print(f"      {describe(index)}", highlight=False, markup=False, soft_wrap=True)
        console.print(f"      {cases[0][1].detail}", highlight=False, markup=False, soft_wrap=True)
