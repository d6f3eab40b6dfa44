"""Benchmark: PettingZoo environment steps per second.

    .venv/bin/python bench/env.py [--title 18Rhl] [--players 4] [--steps 3000] [--seed 0]
                                  [--warmup 0] [--no-observe] [--repeat 1]

Plays random legal codes (uniform over the action mask) through
:class:`rhineland.env.RhinelandEnv` for ``--steps`` steps (a new game when one ends),
calling ``last()`` (the observation and mask of the agent to act) before every step
as an agent loop does, and prints steps/s with where the time went: the legal codes
(the engine's ``legal_actions`` and the codec on top), processing the action (with
the best-route search of a run), and the observation vector.  Times are this
process's CPU seconds (``time.process_time``): steps/s is per core.  The steps/s figure
is the environment's own work (legal codes, observation, ``step``); the random agent's
draw of a code from the mask is the caller's work and is timed apart (it is also shown
with the draw included, and resets are in neither).  ``--warmup N`` plays N steps first,
untimed (the same games go on): a long training run's steady state, once the process's
caches are filled and its first full garbage collections are past.  ``--repeat K``
measures K times, each time a new environment playing the same games from their start,
and prints the best, median and slowest, as ``timeit`` does: the same work each time, so
on a shared machine the spread is the machine's (its neighbours' load), not the code's.
``bench/instructions.py`` counts the instructions of a step instead, a figure no machine
state moves.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from rhineland import native
from rhineland.env import RhinelandEnv


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--title", default="18Rhl")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--warmup", type=int, default=0,
                    help="steps played first, untimed (the steady state of a long run)")
    ap.add_argument("--no-observe", action="store_true",
                    help="skip the observation vector (mask only)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="measure this many times, the same games each time (best, median, "
                         "slowest shown)")
    args = ap.parse_args()
    rates = [_run(args) for _ in range(max(args.repeat, 1))]
    if len(rates) > 1:
        ordered = sorted(rates)
        print(f"{args.title} {args.players}p: {len(rates)} runs of the same {args.steps} steps: "
              f"best {ordered[-1]:.0f} steps/s, median {statistics.median(ordered):.0f}, "
              f"slowest {ordered[0]:.0f}")


def _run(args: argparse.Namespace) -> float:
    """One measurement (a new environment, the seed's games from their start); prints
    its line and returns its steps/s."""
    env = RhinelandEnv(args.title, args.players, seed=args.seed)
    env.reset()
    rng = np.random.default_rng(args.seed)
    t_legal = t_obs = t_step = t_engine = t_draw = 0.0
    games = 0
    played = 0
    for i in range(args.warmup + args.steps):
        if i == args.warmup:
            t_legal = t_obs = t_step = t_engine = t_draw = 0.0
            played, games = games, 0
        if any(env.terminations.values()) or any(env.truncations.values()):
            games += 1
            env.reset(seed=args.seed + played + games)
        agent = env.agent_selection
        t0 = time.process_time()
        assert env.game is not None
        env.game.legal_actions()  # the engine's list (cached for the codec)
        tc = time.process_time()
        mask = env.legal().mask
        t1 = time.process_time()
        t_engine += tc - t0
        if not args.no_observe:
            env.observe(agent)
        t2 = time.process_time()
        code = int(rng.choice(np.flatnonzero(mask.view(np.bool_))))  # the agent's draw
        t3 = time.process_time()
        env.step(code)
        t4 = time.process_time()
        t_legal += t1 - t0
        t_obs += t2 - t1
        t_draw += t3 - t2
        t_step += t4 - t3
    cpu = t_legal + t_obs + t_step
    n = args.steps
    mode = "native build" if native.active() else "pure Python"
    print(f"{args.title} {args.players}p ({mode}): {n} steps in {cpu:.1f} CPU s = "
          f"{n / cpu:.0f} steps/s "
          f"({n / (cpu + t_draw):.0f} with the agent's draw, {t_draw / n * 1e3:.3f} ms a step; "
          f"{games} games ended); per step: legal codes {t_legal / n * 1e3:.2f} ms "
          f"(engine legal_actions {t_engine / n * 1e3:.2f} ms), "
          f"observation {t_obs / n * 1e3:.2f} ms, process {t_step / n * 1e3:.2f} ms; "
          f"codes {env.codec.size}, observation {env.encoder.size} floats", flush=True)
    return float(n / cpu)


if __name__ == "__main__":
    main()
