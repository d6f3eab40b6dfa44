"""Benchmark: ``best_routes`` at every ``run_routes`` position of the reference games.

    .venv/bin/python bench/routes.py [-n 3] [EXPORT ...]

Replays each export once; at the state just before every ``run_routes``
action it times :func:`rhineland.routes.search.best_routes` (best of ``-n``
runs per position, the track graph already built as in a replay) and prints,
per export and over all positions, the median, 95th percentile and maximum
milliseconds per position, plus the slowest positions.  Defaults to the real
games in ../shared/fixtures.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from rhineland.engine.actions import RunRoutes
from rhineland.io.export import game_from_export, load_export, undo_targets
from rhineland.routes.search import best_routes

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
DEFAULT = [
    SHARED / "fixtures" / "18Rhl" / "18Rhl_end_bank.json",
    SHARED / "fixtures" / "1893" / "1893_end_bank.json",
]


def p95(times: list[float]) -> float:
    """The 95th percentile (nearest rank) of ``times``."""
    s = sorted(times)
    return s[min(len(s) - 1, max(0, round(0.95 * len(s)) - 1))]


def time_export(path: Path, n: int) -> list[tuple[float, str]]:
    """(seconds, label) per run_routes position of the export at ``path``."""
    export = load_export(path)
    game = game_from_export(export)
    targets = undo_targets(export.actions)
    out: list[tuple[float, str]] = []
    for i, action in enumerate(export.actions):
        if isinstance(action, RunRoutes):
            best = float("inf")
            rs = None
            for _ in range(n):
                start = time.perf_counter()
                rs = best_routes(game)
                best = min(best, time.perf_counter() - start)
            assert rs is not None
            label = (f"{path.stem} action {action.id} {rs.entity} "
                     f"{'+'.join(r.train for r in rs.routes)} {rs.revenue}M "
                     f"({rs.proof.nodes} nodes)")
            out.append((best, label))
        game.process(action, atomic=False, history=i in targets)
    return out


def summary(name: str, times: list[float]) -> str:
    ms = [t * 1000 for t in times]
    return (f"{name}: {len(ms)} positions, median {statistics.median(ms):.2f} ms, "
            f"p95 {p95(ms):.2f} ms, max {max(ms):.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("-n", type=int, default=3, help="runs per position (best counts)")
    parser.add_argument("exports", nargs="*", type=Path)
    args = parser.parse_args()
    everything: list[tuple[float, str]] = []
    for path in args.exports or DEFAULT:
        got = time_export(path, args.n)
        everything.extend(got)
        print(summary(path.name, [t for t, _ in got]))
    print(summary("all", [t for t, _ in everything]))
    print("slowest:")
    for t, label in sorted(everything, reverse=True)[:5]:
        print(f"  {t * 1000:8.2f} ms  {label}")


if __name__ == "__main__":
    main()
