"""Replay every export under the given folders as 18xx.games does (``--trust-routes``) and
list the runs the route rules reject.

    python scripts/trust_routes_survey.py ../shared/fixtures [MORE_DIRS_OR_FILES...]

Per game: the number of runs the rules reject (each listed), and where the replay stops
if another rule refuses an action; then the totals.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from rhineland.engine.actions import RunRoutes
from rhineland.errors import ExportError
from rhineland.io.export import (
    ReplayError,
    game_from_export,
    load_export,
    replay_iter,
    trusted_runs,
)


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    files: list[Path] = []
    for arg in argv:
        p = Path(arg)
        files += sorted(f for f in p.rglob("*.json") if f.name != "manifest.json") \
            if p.is_dir() else [p]
    games = runs_total = rejected_total = stopped = 0
    for path in files:
        try:
            export = load_export(path)
        except ExportError as exc:
            print(f"{path}: not an export ({exc})")
            continue
        games += 1
        game = game_from_export(export, trust_routes=True)
        runs = 0
        error = ""
        try:
            for _, action, _ in replay_iter(export, game):
                runs += isinstance(action, RunRoutes)
        except ReplayError as exc:
            error = f"; stops at action {exc.action_id}: {exc.reason}"
            stopped += 1
        rejected = trusted_runs(game)
        runs_total += runs
        rejected_total += len(rejected)
        print(f"{path}: {len(rejected)} of {runs} runs rejected by the rules{error}")
        for run in rejected:
            print(f"  {run}")
    print(f"{games} games, {runs_total} runs replayed, {rejected_total} rejected by the "
          f"route rules (applied with the recorded revenue); {stopped} games stopped by "
          f"another rule")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
