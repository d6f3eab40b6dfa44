"""Random self-play: play N games of a title from ``new_game`` to the end and print figures.

    .venv/bin/python scripts/selfplay.py --title 18Rhl --games 100 [--seed 0]

Each game draws its player count and optional rules from its seed and chooses
every action at random among ``legal_actions()`` (:mod:`rhineland.sim.selfplay`).
Prints games finished, end reasons, actions per game, games per second, and
any game that crashed or did not end within ``--max-actions``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import traceback
from collections import Counter

from rhineland.sim.selfplay import TITLE_PLAYERS, play


def main(argv: list[str] | None = None) -> int:
    """Play the games and print the figures; exit status 1 if any game crashed."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--title", required=True, choices=sorted(TITLE_PLAYERS))
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0, help="seed of the first game")
    ap.add_argument("--max-actions", type=int, default=5000)
    args = ap.parse_args(argv)
    reasons: Counter[str] = Counter()
    lengths: list[int] = []
    crashed: list[tuple[int, str]] = []
    unfinished: list[int] = []
    start = time.perf_counter()
    for seed in range(args.seed, args.seed + args.games):
        try:
            r = play(args.title, seed, max_actions=args.max_actions)
        except Exception as exc:
            crashed.append((seed, f"{type(exc).__name__}: {exc}"))
            traceback.print_exc(file=sys.stderr)
            continue
        lengths.append(r.actions)
        if r.finished:
            reasons[r.end_reason or "?"] += 1
        else:
            unfinished.append(seed)
    elapsed = time.perf_counter() - start
    finished = sum(reasons.values())
    print(f"{args.title}: {args.games} games (seeds {args.seed}..{args.seed + args.games - 1})")
    print(f"  finished {finished}, unfinished {len(unfinished)}, crashed {len(crashed)}")
    print(f"  end reasons: {dict(reasons.most_common())}")
    if lengths:
        print(f"  actions/game: median {statistics.median(lengths):.0f}, "
              f"min {min(lengths)}, max {max(lengths)}")
    print(f"  {args.games / elapsed:.3f} games/s ({elapsed:.1f} s)")
    for seed, msg in crashed:
        print(f"  crash: seed {seed}: {msg}")
    if unfinished:
        print(f"  unfinished seeds: {unfinished}")
    return 1 if crashed else 0


if __name__ == "__main__":
    raise SystemExit(main())
