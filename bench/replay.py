"""Benchmark: replay reference games from JSON text to the final state, in process.

    .venv/bin/python bench/replay.py [-n 10] [EXPORT ...]

Prints, per export, the median and minimum seconds per full replay as
``rhineland replay`` makes it (reading the JSON text, building the game,
checking and applying every action that stands at the end, as 18xx.games
loads an export: :func:`rhineland.io.export.replay`).  Defaults to the real
games in ../shared/fixtures.  Times are this process's CPU seconds
(``time.process_time``): other work on a shared machine does not count.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import orjson

from rhineland.io.export import parse_export, replay

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
DEFAULT = [
    SHARED / "fixtures" / "18Rhl" / "18Rhl_end_bank.json",
    SHARED / "fixtures" / "1893" / "1893_end_bank.json",
]


def replay_once(text: bytes) -> float:
    start = time.process_time()
    replay(parse_export(orjson.loads(text)))
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=10, help="replays per export")
    parser.add_argument("exports", nargs="*", type=Path)
    args = parser.parse_args()
    for path in args.exports or DEFAULT:
        text = path.read_bytes()
        try:
            times = [replay_once(text) for _ in range(args.n)]
        except Exception as exc:  # a game the engine cannot replay yet
            print(f"{path.name}: not replayable: {exc}")
            continue
        n_actions = len(orjson.loads(text)["actions"])
        print(f"{path.name}: {n_actions} actions, median {statistics.median(times):.3f} s, "
              f"min {min(times):.3f} s per replay ({args.n} runs)")


if __name__ == "__main__":
    main()
