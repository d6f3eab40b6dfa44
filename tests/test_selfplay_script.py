"""scripts/selfplay.py with a bot in every seat (``--bot greedy``), at a small scale
bounded by counts: the checks run (invariants after every action) and the report
names the bot; an unknown bot is refused with a one-line usage error."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}"
           f"{os.environ.get('PYTHONPATH', '')}"}
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "selfplay.py"), *args],
                          capture_output=True, text=True, env=env, timeout=600, check=False,
                          cwd=tmp_path)


def test_greedy_selfplay_checks_every_action(tmp_path: Path) -> None:
    """Seeds 3 and 4 of 1893, 80 greedy actions each: no failure, both unfinished at
    the cap, the player counts and optional rules drawn from the seeds (2..4 players)."""
    out = tmp_path / "report.json"
    proc = _run(tmp_path, "--title", "1893", "--bot", "greedy", "--games", "2", "--seed", "3",
                "--max-actions", "80", "--json", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "bot greedy: 2 of 2 games" in proc.stdout  # (after the progress display)
    assert "unfinished seeds: [3, 4]" in proc.stdout
    rows = json.loads(out.read_text())
    assert [r["seed"] for r in rows] == [3, 4]
    assert all(r["failure"] is None and not r["finished"] and r["actions"] == 80
               for r in rows)
    assert all(2 <= r["players"] <= 4 for r in rows)


def test_unknown_bot_is_refused(tmp_path: Path) -> None:
    proc = _run(tmp_path, "--bot", "smart", "--games", "1")
    assert proc.returncode == 2
    assert "unknown bot 'smart'" in proc.stderr
    assert "Traceback" not in proc.stderr
