"""Benchmark: build the game report (one replay with every run against the best routes,
the maps after each OR, the charts, the HTML page).

    .venv/bin/python bench/report.py [-n 3] [EXPORT ...]

Prints, per export, the median and maximum seconds of ``build_report`` (the target: 5 s
for the real 18Rhl game) and the page's size.  Defaults to the real games.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from rhineland.io.export import load_export
from rhineland.report import build_report

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
DEFAULT = [
    SHARED / "fixtures" / "18Rhl" / "18Rhl_end_bank.json",
    SHARED / "fixtures" / "1893" / "1893_end_bank.json",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=3, help="runs per export")
    parser.add_argument("exports", nargs="*", type=Path, default=DEFAULT)
    args = parser.parse_args()
    for path in args.exports:
        export = load_export(path)
        times = []
        page = ""
        for _ in range(args.n):
            start = time.perf_counter()
            page = build_report(export)
            times.append(time.perf_counter() - start)
        print(f"{path.name}: build_report median {statistics.median(times):.2f} s, "
              f"max {max(times):.2f} s, {len(page) / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
