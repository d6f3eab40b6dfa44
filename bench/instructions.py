"""Benchmark: machine instructions per environment step (valgrind's callgrind).

    .venv/bin/python bench/instructions.py [--title 1893] [--players 3] [--steps 1000]
                                           [--seed 0] [--pure]

Runs ``bench/env.py`` under ``valgrind --tool=callgrind`` twice, for 1 step and for
``--steps`` steps of the same seeded games (``PYTHONHASHSEED=0``), and prints the
difference per step: the instructions the environment's step (legal codes, observation,
processing) and the random agent's draw execute, start-up and imports left out.  Unlike
steps/s (``bench/env.py``) the count does not move with the machine's state (a shared
machine's speed moves by a fifth or more within minutes): it compares two versions of the
code on any machine, to about 1%.  It is no measure of time: memory stalls (the garbage
collector's passes, for one) cost time the count does not show.  About a minute per
thousand steps (the program runs some 50 times slower under valgrind).  ``--pure``
counts the sources without the native build (``RHINELAND_PURE=1``).  Needs valgrind
(Debian: ``apt-get install valgrind``).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent / "env.py"


def count(title: str, players: int, steps: int, seed: int, pure: bool) -> tuple[int, str]:
    """The instructions callgrind counts for the whole run of ``bench/env.py`` with these
    settings, and the mode that run reports (``"native build"`` or ``"pure Python"``: a
    stale build runs the sources).  Raises ``RuntimeError`` when valgrind fails or
    reports no total."""
    env = dict(os.environ, PYTHONHASHSEED="0")
    if pure:
        env["RHINELAND_PURE"] = "1"
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
           str(BENCH), "--title", title, "--players", str(players), "--steps", str(steps),
           "--seed", str(seed)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    found = re.search(r"Collected : (\d+)", done.stderr)
    mode = re.search(r"\((native build|pure Python)\)", done.stdout)
    if done.returncode != 0 or found is None or mode is None:
        last = (done.stderr.strip().splitlines() or [""])[-1]
        raise RuntimeError(f"valgrind failed (exit {done.returncode}): {last}")
    return int(found.group(1)), mode.group(1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--title", default="1893")
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--pure", action="store_true", help="the sources, not the native build")
    args = ap.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("bench/instructions.py needs valgrind (Debian: apt-get install valgrind)")
    if args.steps < 2:
        sys.exit("--steps must be at least 2")
    one, mode = count(args.title, args.players, 1, args.seed, args.pure)
    many, mode_many = count(args.title, args.players, args.steps, args.seed, args.pure)
    if mode_many != mode:
        sys.exit(f"the two runs differ ({mode}, then {mode_many}): the build changed between")
    per_step = (many - one) / (args.steps - 1)
    print(f"{args.title} {args.players}p seed {args.seed} ({mode}): "
          f"{per_step / 1e6:.3f} M instructions per step ({args.steps} steps)")


if __name__ == "__main__":
    main()
