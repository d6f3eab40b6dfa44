"""Compare a replay with an oracle trace, action by action.

    python scripts/oracle_diff.py EXPORT TRACE [--all] [--trust-routes]

Prints ``matched N/M actions`` (actions whose state after processing equals the
trace entry in every field the trace has) and the first difference: action
id, field path, our value and the trace's.  ``--all`` lists every differing
action (first field each).  ``--trust-routes`` replays as 18xx.games does: a run
the route rules reject is applied with its recorded revenue, and listed.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from rhineland.io.oracle import compare_with_trace


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__)
        return 2
    show_all = "--all" in argv
    trust = "--trust-routes" in argv
    report = compare_with_trace(argv[0], argv[1], stop_at_first=not show_all,
                                trust_routes=trust)
    print(f"matched {report.matched}/{report.total} actions")
    for diff in report.diffs[: (None if show_all else 1)]:
        print(f"first difference at action {diff.action_id} ({diff.action_type}): "
              f"{diff.path}: ours {diff.ours!r} != trace {diff.theirs!r}")
    for run in report.trusted:
        print(f"trusted run: {run}")
    if report.error:
        print(f"replay stopped: {report.error}")
    return 0 if report.matched == report.total else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
