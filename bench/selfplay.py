"""Benchmark: random self-play (``rhineland.sim.selfplay``), games per second per title.

    .venv/bin/python bench/selfplay.py [-n 6] [--title 18Rhl] [--seed 0] [--no-split]

Plays ``-n`` seeded random games per title (18Rhl with 3-6 players, 1893 with
2-4, optional rules drawn from each seed as ``rhineland.sim.selfplay.play``
does) in this one process and prints games/s, actions/s and actions per game.
With the split (the default) it also prints the inclusive time spent in
``legal_actions()`` (if called: the random choice tries candidates lazily instead),
``process()`` of the chosen actions, the best-route search of the run-routes choice,
state copies (``State.clone``, which the others also count: the columns overlap),
the tile lays listed (before the track restriction), the restriction checks and the
trials of candidate actions.
The split's timers add a little overhead; ``--no-split`` measures without them.  With
the native build (``rhineland native build``) the timers see only the calls made from
Python, not those between compiled modules (the restriction checks of the lay listing).
Times are this process's CPU seconds (``time.process_time``): games/s is per core,
and other work on a shared machine does not count.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import time
from collections.abc import Callable
from typing import Any

from rhineland import native
from rhineland.board import legality
from rhineland.engine import game as game_module
from rhineland.engine.legal import generate, trial
from rhineland.routes import search
from rhineland.sim import selfplay

TIMERS: dict[str, float] = {}


def _timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` adding its inclusive time to ``TIMERS[name]`` (outermost calls only)."""
    depth = [0]

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if depth[0]:
            return fn(*args, **kwargs)
        depth[0] += 1
        start = time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            TIMERS[name] = TIMERS.get(name, 0.0) + time.process_time() - start
            depth[0] -= 1

    return wrapper


def install_timers() -> None:
    """Wrap legal_actions, process, best_routes and State.clone with timers, and the
    tile lays listed (before the track restriction), the restriction checks and the
    trials of candidate actions."""
    generate.legal_actions = _timed("legal_actions", generate.legal_actions)  # type: ignore[assignment]
    search.best_routes = _timed("best_routes", search.best_routes)  # type: ignore[assignment]
    game_module.Game.process = _timed("process", game_module.Game.process)  # type: ignore[method-assign]
    game_module.State.clone = _timed("copy", game_module.State.clone)  # type: ignore[method-assign]
    game_module.Game.tile_lay_options = _timed(  # type: ignore[method-assign]
        "tile_lays", game_module.Game.tile_lay_options)
    legality.passes_restriction = _timed(  # type: ignore[assignment]
        "tile_restriction", legality.passes_restriction)
    trial.Trial.refusal = _timed("trials", trial.Trial.refusal)  # type: ignore[method-assign]


def main() -> None:
    """Play the games and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=6, help="games per title")
    ap.add_argument("--title", choices=sorted(selfplay.TITLE_PLAYERS), action="append")
    ap.add_argument("--seed", type=int, default=0, help="seed of the first game")
    ap.add_argument("--no-split", action="store_true", help="no timers (no overhead)")
    args = ap.parse_args()
    if not args.no_split:
        install_timers()
    for title in args.title or sorted(selfplay.TITLE_PLAYERS):
        TIMERS.clear()
        lengths: list[int] = []
        unfinished = 0
        start = time.process_time()
        for seed in range(args.seed, args.seed + args.n):
            r = selfplay.play(title, seed)
            lengths.append(r.actions)
            unfinished += not r.finished
        elapsed = time.process_time() - start
        total = sum(lengths)
        mode = "native build" if native.active() else "pure Python"
        print(f"{title} ({mode}): {args.n} games in {elapsed:.1f} s: "
              f"{args.n / elapsed:.3f} games/s, "
              f"{total / elapsed:.0f} actions/s, actions/game median "
              f"{statistics.median(lengths):.0f} (min {min(lengths)}, max {max(lengths)})"
              + (f", {unfinished} unfinished" if unfinished else ""))
        if TIMERS:
            split = ", ".join(f"{k} {v:.1f} s ({100 * v / elapsed:.0f}%)"
                              for k, v in sorted(TIMERS.items(), key=lambda kv: -kv[1]))
            print(f"  split: {split}")


if __name__ == "__main__":
    main()
