"""Benchmark: draw one position (map and panels) as SVG, and rasterise it to PNG.

    .venv/bin/python bench/render.py [-n 20] [EXPORT ...]

Replays each export to its last action once, then prints the median and maximum
milliseconds of ``render_svg`` over ``n`` runs (wall clock, and CPU time, which a busy
machine disturbs less; the target: 50 ms per map), the SVG's
size, and the median milliseconds of the PNG conversion (cairosvg, when installed).
Defaults to the real games in ../shared/fixtures.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from rhineland.io.export import load_export, replay
from rhineland.render import render_svg

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
DEFAULT = [
    SHARED / "fixtures" / "18Rhl" / "18Rhl_end_bank.json",
    SHARED / "fixtures" / "1893" / "1893_end_bank.json",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=20, help="runs per position")
    parser.add_argument("exports", nargs="*", type=Path, default=DEFAULT)
    args = parser.parse_args()
    for path in args.exports:
        game = replay(load_export(path))
        times = []
        cpu = []
        text = ""
        for _ in range(args.n):
            start, start_cpu = time.perf_counter(), time.process_time()
            text = render_svg(game)
            times.append((time.perf_counter() - start) * 1000)
            cpu.append((time.process_time() - start_cpu) * 1000)
        line = (f"{path.name}: render_svg median {statistics.median(times):.1f} ms "
                f"(CPU {statistics.median(cpu):.1f} ms), max {max(times):.1f} ms, "
                f"{len(text) // 1024} KiB")
        try:
            import cairosvg  # type: ignore[import-untyped]
        except ImportError:
            print(line + "; PNG: cairosvg not installed")
            continue
        png = []
        for _ in range(max(args.n // 4, 1)):
            start = time.perf_counter()
            cairosvg.svg2png(bytestring=text.encode())
            png.append((time.perf_counter() - start) * 1000)
        print(line + f"; PNG median {statistics.median(png):.0f} ms")


if __name__ == "__main__":
    main()
