"""Benchmark: ``best_routes`` at every ``run_routes`` position of the reference games.

    .venv/bin/python bench/routes.py [-n 3] [EXPORT ...]
    .venv/bin/python bench/routes.py --selfplay 6 [--title 18Rhl] [--profile]

Replays each export once; at the state just before every ``run_routes``
action it times :func:`rhineland.routes.search.best_routes` (best of ``-n``
runs per position, the track graph already built as in a replay) and prints,
per export and over all positions, the median, 95th percentile and maximum
milliseconds per position, plus the slowest positions.  Defaults to the real
games in ../shared/fixtures.

``--selfplay N``: the ordinary positions instead -- every route search of ``N`` seeded
random self-play games per title (:func:`rhineland.sim.selfplay.play`, seeds from
``--seed``), with the node budget self-play gives it.  The positions (game copies) are
collected first, then each is timed once in play order (CPU time, the answer memo
cleared before each call, the walk-table memo kept as in play); prints the median,
mean, p95, max and total per title.  ``--profile`` runs the timing loop under
cProfile and prints the top functions by internal time.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import statistics
import time
from pathlib import Path
from typing import Any

from rhineland.engine.actions import RunRoutes
from rhineland.io.export import game_from_export, load_export, undo_targets
from rhineland.routes import search
from rhineland.routes.search import best_routes
from rhineland.routes.search.run import _MEMO
from rhineland.sim import selfplay

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
            f"mean {statistics.fmean(ms):.2f} ms, p95 {p95(ms):.2f} ms, "
            f"max {max(ms):.2f} ms, total {sum(ms) / 1000:.2f} s")


Position = tuple[Any, str, int | None]
"""A self-play route search: (game copy, entity, node budget)."""


def selfplay_positions(title: str, games: int, seed: int) -> list[Position]:
    """The route searches of ``games`` random self-play games of ``title`` (seeds
    ``seed``, ``seed + 1``, ...), in play order."""
    got: list[Position] = []
    original = search.best_routes

    def hook(game: Any, entity: str | None = None, budget_nodes: int | None = None) -> Any:
        assert entity is not None
        got.append((game.copy(), entity, budget_nodes))
        return original(game, entity, budget_nodes=budget_nodes)

    search.best_routes = hook  # type: ignore[assignment]
    try:
        for s in range(seed, seed + games):
            selfplay.play(title, s)
    finally:
        search.best_routes = original  # type: ignore[assignment]
    return got


def time_positions(positions: list[Position]) -> list[tuple[float, str]]:
    """(CPU seconds, label) of one search per position, the answer memo cleared.  The
    collected positions are frozen out of the garbage collector first (its full passes
    over them are the bench's cost, not the search's)."""
    gc.collect()
    gc.freeze()
    out: list[tuple[float, str]] = []
    for game, entity, budget in positions:
        _MEMO.clear()
        start = time.process_time()
        rs = best_routes(game, entity, budget_nodes=budget)
        took = time.process_time() - start
        trains = "+".join(game.title.route_context(
            game, game.title.operator(game, entity)).trains) or "-"
        out.append((took, f"{entity} {trains} {rs.revenue}M gap {rs.gap} "
                          f"({rs.proof.nodes} nodes, {rs.proof.candidates} candidates)"))
    return out


def run_selfplay(args: argparse.Namespace) -> None:
    """``--selfplay``: time the searches of self-play games per title."""
    for title in args.title or sorted(selfplay.TITLE_PLAYERS):
        positions = selfplay_positions(title, args.selfplay, args.seed)
        prof = cProfile.Profile() if args.profile else None
        if prof is not None:
            prof.enable()
        got = time_positions(positions)
        if prof is not None:
            prof.disable()
        print(summary(f"{title} self-play ({args.selfplay} games)", [t for t, _ in got]))
        for t, label in sorted(got, key=lambda tl: -tl[0])[:5]:
            print(f"  {t * 1000:8.2f} ms  {label}")
        if prof is not None:
            pstats.Stats(prof).sort_stats(args.sort).print_stats(args.top)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("-n", type=int, default=3, help="runs per position (best counts)")
    parser.add_argument("--selfplay", type=int, metavar="N",
                        help="time the searches of N self-play games per title instead")
    parser.add_argument("--title", choices=sorted(selfplay.TITLE_PLAYERS), action="append")
    parser.add_argument("--seed", type=int, default=0, help="first self-play seed")
    parser.add_argument("--profile", action="store_true", help="cProfile the timing loop")
    parser.add_argument("--sort", default="tottime", help="cProfile sort key (--profile)")
    parser.add_argument("--top", type=int, default=25, help="functions printed (--profile)")
    parser.add_argument("exports", nargs="*", type=Path)
    args = parser.parse_args()
    if args.selfplay:
        run_selfplay(args)
        return
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
