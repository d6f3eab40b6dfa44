"""Benchmark: replay time over the reference engine's, paired in one run.

    eval "$(../shared/tools/ref-oracle/setup.sh)"
    .venv/bin/python bench/replay_ratio.py [-n 9] [EXPORT ...]

For each export (default: the real games of bench/replay.py), replays it ``n``
times here and ``n`` times in the reference engine (Ruby, strict load), one after
the other in turn, each from its JSON text, timed in its own process's CPU seconds.
Prints both medians and their ratio (ours / reference: below 1 is faster).  The
reference runs as one long-lived Ruby process, so its boot is not counted; its
first replay (warm-up) is left out, as is ours.  Needs Ruby and ``REF_LIB``
(../shared/tools/ref-oracle); the project's tests never run this.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

from replay import DEFAULT, SHARED, replay_once

BOOT = SHARED / "tools" / "ref-oracle" / "ref-engine" / "boot.rb"
TIMER = Path(__file__).resolve().parent / "ref_replay.rb"


class Reference:
    """The reference engine in a Ruby process that replays an export on request."""

    def __init__(self) -> None:
        if "REF_LIB" not in os.environ:
            sys.exit("replay_ratio: set REF_LIB (eval \"$(../shared/tools/ref-oracle/setup.sh)\")")
        self.proc = subprocess.Popen(
            ["ruby", str(TIMER), str(BOOT)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            text=True)

    def replay(self, path: Path) -> float:
        """CPU seconds of one strict replay of ``path`` in the reference."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(f"{path}\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline().strip()
        if not line or line.startswith("error"):
            raise RuntimeError(f"reference replay of {path.name}: {line or 'no answer'}")
        return float(line)

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=9, help="timed replays per engine and export")
    parser.add_argument("exports", nargs="*", type=Path)
    args = parser.parse_args()
    ref = Reference()
    try:
        for path in args.exports or DEFAULT:
            text = path.read_bytes()
            replay_once(text)
            ref.replay(path)
            ours: list[float] = []
            theirs: list[float] = []
            for _ in range(args.n):
                ours.append(replay_once(text))
                theirs.append(ref.replay(path))
            mo, mr = statistics.median(ours), statistics.median(theirs)
            print(f"{path.name}: ours {mo:.3f} s, reference {mr:.3f} s, "
                  f"ratio {mo / mr:.2f} (medians of {args.n}, alternating)")
    finally:
        ref.close()


if __name__ == "__main__":
    main()
