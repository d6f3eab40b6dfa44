"""Draw every position of every export in the given folders and parse each SVG.

    .venv/bin/python scripts/render_survey.py ../shared/fixtures [--every 1]

For each export: the positions drawn (after every ``--every``-th action, and the last),
the SVGs that fail to parse as XML (should be none), and the slowest drawing in ms.
The test suite checks a few positions per game (tests/test_render.py); this covers
them all.
"""

from __future__ import annotations

import argparse
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from rhineland.io.export import load_export, replay_iter
from rhineland.render import render_svg


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--every", type=int, default=1)
    args = parser.parse_args()
    total = bad = 0
    slowest = 0.0
    for folder in args.folders:
        for path in sorted(folder.rglob("*.json")):
            if path.name == "manifest.json":
                continue
            export = load_export(path)
            n = len(export.actions)
            drawn = failed = 0
            worst = 0.0
            for i, _, game in replay_iter(export):
                if i % args.every and i != n - 1:
                    continue
                start = time.perf_counter()
                text = render_svg(game)
                worst = max(worst, (time.perf_counter() - start) * 1000)
                try:
                    ET.fromstring(text.encode("utf-8"))
                except ET.ParseError as exc:
                    failed += 1
                    print(f"  {path.name} position {i}: {exc}")
                drawn += 1
            print(f"{path.relative_to(folder)}: {drawn} positions, {failed} invalid, "
                  f"slowest {worst:.1f} ms")
            total += drawn
            bad += failed
            slowest = max(slowest, worst)
    print(f"total: {total} positions drawn, {bad} invalid, slowest {slowest:.1f} ms")


if __name__ == "__main__":
    main()
