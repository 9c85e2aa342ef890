"""Fuzzing campaigns against the emulator and MOCKKFD (tools/fuzzing/): each case runs in a worker
process, is classified, and every case that ended in a bug class is printed with its reproducer.

    python tools/fuzz.py                               # every campaign, a short run
    python tools/fuzz.py instructions --cases 36000 -j 2
    python tools/fuzz.py --minutes 30                  # every campaign for 30 minutes in all
    python tools/fuzz.py streams --seed 7 --case 123   # one case again, in this process, with its traceback

Exit status 1 when any case ended in an undocumented exception, a host crash, a dead command
processor or a hang.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console  # noqa: E402

from tools.fuzzing.campaigns import CAMPAIGNS  # noqa: E402
from tools.fuzzing.report import print_report, run_campaign, summary_table  # noqa: E402

DEFAULT_CASES = 200


def replay(name: str, seed: int, index: int) -> int:
    campaign = CAMPAIGNS[name]
    case = campaign.case(seed, index)
    print(campaign.describe(case))
    print(campaign.run(case))  # in this process: an exception shows its whole traceback
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("campaigns", nargs="*", help=f"campaigns to run: {', '.join(CAMPAIGNS)} (default: all)")
    parser.add_argument("--seed", type=int, default=0)
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--cases", type=int, help=f"cases per campaign (default {DEFAULT_CASES})")
    size.add_argument("--minutes", type=float, help="run the campaigns for this long in all, in equal shares")
    parser.add_argument("--case", type=int, help="run this one case in this process and show what it raises")
    parser.add_argument("-j", "--workers", type=int, default=1)
    args = parser.parse_args(argv)
    unknown = [name for name in args.campaigns if name not in CAMPAIGNS]
    if unknown:
        parser.error(f"no campaign {', '.join(unknown)}: the campaigns are {', '.join(CAMPAIGNS)}")
    names = args.campaigns or list(CAMPAIGNS)
    if args.case is not None:
        return replay(names[0], args.seed, args.case)
    cases = args.cases if args.cases is not None or args.minutes is not None else DEFAULT_CASES
    seconds = None if args.minutes is None else 60 * args.minutes / len(names)
    console = Console(width=150)
    everything = []
    for name in names:
        results = run_campaign(CAMPAIGNS[name], args.seed, cases, seconds, args.workers)
        everything.append(results)
        campaign = CAMPAIGNS[name]
        print_report(console, name, args.seed, results, lambda i: campaign.describe(campaign.case(args.seed, i)))
    console.print(summary_table(everything))
    return 1 if any(r.bug_count for r in everything) else 0


if __name__ == "__main__":
    sys.exit(main())
