"""Benchmark: ``legal_actions()`` at every decision point of the reference games.

    .venv/bin/python bench/legal_actions.py [EXPORT ...]

Replays each export (default: the real games in ../shared/fixtures) and times
``game.legal_actions()`` (not expanded: ranges and the route choice as such)
before every recorded decision; prints per export and overall the median, the
99th percentile and the maximum milliseconds per decision point, and the
slowest steps.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict
from pathlib import Path

from rhineland.io.export import game_from_export, load_export, undo_targets

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
DEFAULT = [
    SHARED / "fixtures" / "18Rhl" / "18Rhl_seed_opening.json",
    SHARED / "fixtures" / "18Rhl" / "18Rhl_end_bank.json",
    SHARED / "fixtures" / "1893" / "1893_end_bank.json",
]
SKIP = {"undo", "redo", "message", "program_share_pass", "program_buy_shares",
        "program_disable", "destination_connection"}


def pct(times: list[float], q: float) -> float:
    """The ``q`` quantile (nearest rank) of ``times``."""
    s = sorted(times)
    return s[min(len(s) - 1, max(0, round(q * len(s)) - 1))]


def time_export(path: Path) -> list[tuple[float, str]]:
    """(seconds, step) of ``legal_actions()`` before each decision of the export."""
    export = load_export(path)
    game = game_from_export(export)
    targets = undo_targets(export.actions)
    out = []
    for i, action in enumerate(export.actions):
        if action.type not in SKIP:
            t = time.perf_counter()
            game.legal_actions()
            out.append((time.perf_counter() - t, str(game.round.step_name(game))))
        game.process(action, atomic=False, history=i in targets)
    return out


def main() -> None:
    """Time every export and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("exports", nargs="*", type=Path, default=DEFAULT)
    args = ap.parse_args()
    every: list[float] = []
    by_step: dict[str, list[float]] = defaultdict(list)
    for path in args.exports:
        times = time_export(path)
        ms = [t * 1000 for t, _ in times]
        every.extend(ms)
        for t, step in times:
            by_step[step].append(t * 1000)
        print(f"{path.name}: {len(ms)} decision points, median {statistics.median(ms):.2f} ms, "
              f"p99 {pct(ms, 0.99):.2f} ms, max {max(ms):.2f} ms")
    print(f"all: {len(every)} decision points, median {statistics.median(every):.2f} ms, "
          f"p99 {pct(every, 0.99):.2f} ms, max {max(every):.2f} ms")
    for step, ms in sorted(by_step.items(), key=lambda kv: -statistics.median(kv[1])):
        print(f"  {step}: {len(ms)} points, median {statistics.median(ms):.2f} ms, "
              f"p99 {pct(ms, 0.99):.2f} ms")


if __name__ == "__main__":
    main()
