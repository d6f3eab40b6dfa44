"""Benchmark: the native build against the sources, paired in one run.

    .venv/bin/rhineland native build
    .venv/bin/python bench/native_ratio.py [-n 7] [WORKLOAD ...]

Times each workload (default: all) on the real games of bench/replay.py in fresh
processes, native and pure (``RHINELAND_PURE=1``) in turn, the order swapped every
pair, each timed in its own CPU seconds (``time.process_time``), and prints both
medians and their ratio (pure / native: above 1, the build is faster).  The
workloads: ``replay`` (the median of three replays from the JSON text, after one
untimed), ``legal`` (``legal_actions()`` before every recorded decision, summed),
``routes`` (``best_routes`` before every ``run_routes`` action, summed, the answer
memo cleared) and ``env`` (2,000 random env steps after 300 untimed: the legal codes,
the observation and ``step``; 18Rhl with 4 players, 1893 with 3).  Needs a current
build; the project's tests never run this.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from legal_actions import SKIP
from replay import DEFAULT

WORKLOADS = ("replay", "legal", "env", "routes")


def replay_time(path: Path) -> float:
    import orjson

    from rhineland.io.export import parse_export, replay

    text = path.read_bytes()
    replay(parse_export(orjson.loads(text)))
    times = []
    for _ in range(3):
        start = time.process_time()
        replay(parse_export(orjson.loads(text)))
        times.append(time.process_time() - start)
    return statistics.median(times)


def decisions_time(path: Path, routes: bool) -> float:
    """CPU seconds of ``legal_actions()`` (or of ``best_routes``) over the game."""
    from rhineland.engine.actions import RunRoutes
    from rhineland.io.export import game_from_export, load_export, undo_targets
    from rhineland.routes.search import best_routes
    from rhineland.routes.search.run import _MEMO

    export = load_export(path)
    game = game_from_export(export)
    targets = undo_targets(export.actions)
    total = 0.0
    for i, action in enumerate(export.actions):
        if routes and isinstance(action, RunRoutes):
            _MEMO.clear()
            start = time.process_time()
            best_routes(game)
            total += time.process_time() - start
        elif not routes and action.type not in SKIP:
            start = time.process_time()
            game.legal_actions()
            total += time.process_time() - start
        game.process(action, atomic=False, history=i in targets)
    return total


def env_time(title: str) -> float:
    import numpy as np

    from rhineland.env import RhinelandEnv

    env = RhinelandEnv(title, 3 if title == "1893" else 4, seed=0)
    env.reset()
    rng = np.random.default_rng(0)
    total, games = 0.0, 0
    for i in range(2300):
        if i == 300:
            total = 0.0
        if any(env.terminations.values()) or any(env.truncations.values()):
            games += 1
            env.reset(seed=games)
        start = time.process_time()
        mask = env.legal().mask
        env.observe(env.agent_selection)
        total += time.process_time() - start
        code = int(rng.choice(np.flatnonzero(mask.view(np.bool_))))  # the agent's draw
        start = time.process_time()
        env.step(code)
        total += time.process_time() - start
    return total


def child(workload: str, path: Path) -> None:
    """Time one workload in this process; print the seconds and the mode."""
    from rhineland import native

    title = "1893" if path.name.startswith("1893") else "18Rhl"
    seconds = {"replay": lambda: replay_time(path),
               "legal": lambda: decisions_time(path, routes=False),
               "routes": lambda: decisions_time(path, routes=True),
               "env": lambda: env_time(title)}[workload]()
    print(f"{seconds:.6f} {'native' if native.active() else 'pure'}")


def measure(workload: str, path: Path, pure: bool) -> float:
    env = {k: v for k, v in os.environ.items() if k != "RHINELAND_PURE"}
    if pure:
        env["RHINELAND_PURE"] = "1"
    out = subprocess.run([sys.executable, __file__, "--child", workload, str(path)],
                         env=env, capture_output=True, text=True, check=True).stdout.split()
    if out[1] != ("pure" if pure else "native"):
        sys.exit(f"native_ratio: the {out[1]} code ran where the other was asked for "
                 "(no current build? rhineland native build)")
    return float(out[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=7, help="pairs per workload and game")
    parser.add_argument("--child", nargs=2, metavar=("WORKLOAD", "EXPORT"),
                        help=argparse.SUPPRESS)
    parser.add_argument("workloads", nargs="*", help=f"of {', '.join(WORKLOADS)} (default: all)")
    args = parser.parse_args()
    if args.child:
        child(args.child[0], Path(args.child[1]))
        return
    for workload in args.workloads or WORKLOADS:
        if workload not in WORKLOADS:
            parser.error(f"no workload {workload!r}: {', '.join(WORKLOADS)}")
        for path in DEFAULT:
            native, pure = [], []
            for i in range(args.n):
                for is_pure in (i % 2 == 1, i % 2 == 0):
                    (pure if is_pure else native).append(measure(workload, path, is_pure))
            n, p = statistics.median(native), statistics.median(pure)
            print(f"{workload} {path.stem}: native {n:.3f} s, pure {p:.3f} s, "
                  f"ratio {p / n:.2f} ({args.n} pairs)", flush=True)


if __name__ == "__main__":
    main()
