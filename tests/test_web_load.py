"""scripts/web_load.py at a small scale: games played through the API at once, a kill -9
of the server after a count of acknowledged actions, a restart, and every stored game
checked (ids without gap or repeat, nothing acknowledged lost, the export replays to
the served state)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_load_script_kill_and_restart_lose_nothing(tmp_path: Path) -> None:
    out = tmp_path / "load.json"
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}"
           f"{os.environ.get('PYTHONPATH', '')}"}
    # bounded by counts: 3 games of 40 actions each, the kill after 30 acknowledged
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "web_load.py"), "--games", "3",
         "--max-actions", "40", "--kill-after", "30", "--seconds", "100000",
         "--json", str(out)], capture_output=True, text=True, env=env, timeout=600,
        check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    figures = json.loads(out.read_text())
    assert figures["problems"] == []
    assert figures["actions_acknowledged"] == 3 * 40
    assert figures["restart_seconds"] > 0  # the server was killed and started again
    assert "killed the server (kill -9) after" in proc.stderr
    assert figures["post_ms_p50"] <= figures["post_ms_p95"] <= figures["post_ms_max"]
