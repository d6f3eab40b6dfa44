"""Benchmark: bot games per second, and the speed-up of local processes.

    .venv/bin/python bench/bots.py [--title 18Rhl] [--players 3] [--games 6] [--bots random]
                                   [--jobs 1,2] [--seed 0]

Plays the same ``--games`` games (seeds ``seed..``, every seat the same bot, or the
comma list seated in turn) once per ``--jobs`` value with
:func:`rhineland.sim.batch.run_batch`, and prints games/s, actions/s and the
speed-up of each job count over the first.
"""

from __future__ import annotations

import argparse
import time

from rhineland.sim.batch import GameSpec, run_batch, seat_bots


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--title", default="18Rhl")
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--games", type=int, default=6)
    ap.add_argument("--bots", default="random")
    ap.add_argument("--jobs", default="1")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    names = args.bots.split(",")
    specs = [GameSpec(args.title, args.seed + g, seat_bots(names, args.players, g))
             for g in range(args.games)]
    base: float | None = None
    for jobs in (int(j) for j in args.jobs.split(",")):
        start = time.perf_counter()
        outcomes = list(run_batch(specs, jobs))
        wall = time.perf_counter() - start
        errors = [o for o in outcomes if o.error]
        actions = sum(o.actions for o in outcomes)
        base = base or wall
        print(f"{args.title} {args.players}p bots {args.bots} jobs {jobs}: {len(outcomes)} games "
              f"in {wall:.1f} s = {len(outcomes) / wall:.3f} games/s, {actions / wall:.0f} "
              f"actions/s, {sum(o.finished for o in outcomes)} finished, {len(errors)} errors; "
              f"speed-up {base / wall:.2f}x")


if __name__ == "__main__":
    main()
