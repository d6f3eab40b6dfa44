"""``rhineland serve``: a real server process on SQLite, the demo game on first start,
the address printed, nothing lost over a restart or a kill -9."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from click.testing import CliRunner

from rhineland.cli.main import cli
from webserver import free_port

SRC = Path(__file__).resolve().parents[1] / "src"


@contextmanager
def serve(db: str, *extra: str) -> Iterator[tuple[subprocess.Popen[str], str, list[str]]]:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "rhineland", "serve", "--db", db, "--port", str(port), *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    lines: list[str] = []
    try:
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))
            if line.startswith("stop with"):
                break
        base = f"http://localhost:{port}"
        for _ in range(300):
            try:
                httpx.get(f"{base}/api/games", timeout=2)
                break
            except httpx.TransportError:
                if proc.poll() is not None:
                    raise AssertionError(proc.stderr.read() if proc.stderr else "") from None
                time.sleep(0.05)
        yield proc, base, lines
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)


def test_serve_creates_the_demo_game_once_and_prints_the_address(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'games.sqlite3'}"
    with serve(db) as (_proc, base, lines):
        assert lines[0] == f"rhineland: open {base}/  (games in {db})"
        assert lines[1].startswith(f"demo game against bots: {base}/g/")
        assert lines[2] == "your-turn alerts: webhooks; mail off (no --smtp-host)"
        link = lines[1].removeprefix("demo game against bots: ")
        games = httpx.get(f"{base}/api/games").json()
        assert len(games) == 1 and games[0]["title"] == "18Rhl"
        assert [p["bot"] for p in games[0]["players"]] == [None, "greedy", "greedy", "greedy"]
        assert base + games[0]["players"][0]["url"] == link
        page = httpx.get(f"{base}/")
        assert page.status_code == 200 and "/static/lobby.js" in page.text
        assert httpx.get(f"{base}/static/game.js").status_code == 200
        gid, secret = link.rsplit("/", 1)[1].split("#")
        state = httpx.get(f"{base}/api/games/{gid}",
                          headers={"Authorization": f"Bearer {secret}"}).json()
        assert state["seat"] == 1 and state["acting"] == [1]  # You open the auction
        # a page left open: its event stream must not keep the server from stopping
        stream = httpx.stream("GET", f"{base}/api/games/{gid}/events", timeout=60)
        events = stream.__enter__()
        assert next(events.iter_lines()) == "event: action"
    # (serve() stops the server with SIGTERM and waits at most 30 s for it)
    with serve(db) as (_proc, base, lines):
        assert lines[1:] == ["your-turn alerts: webhooks; mail off (no --smtp-host)",
                             "stop with Ctrl+C"]  # no second demo
        assert [g["id"] for g in httpx.get(f"{base}/api/games").json()] == [gid]


def test_a_killed_server_loses_nothing_acknowledged(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'games.sqlite3'}"
    acked: list[int] = []
    with serve(db, "--no-demo") as (proc, base, _lines):
        g = httpx.post(f"{base}/api/games", json={
            "title": "18Rhl", "players": ["Ann", "Ben", "Cid"], "seed": 2}).json()
        gid = g["id"]
        secrets = [s["secret"] for s in g["seats"]]
        for turn in range(9):  # everyone passes three times around the auction
            auth = {"Authorization": f"Bearer {secrets[turn % 3]}"}
            acts = httpx.get(f"{base}/api/games/{gid}/legal", headers=auth).json()
            pas = next(e["action"] for e in acts["actions"] if e["action"]["type"] == "pass")
            r = httpx.post(f"{base}/api/games/{gid}/actions", headers=auth,
                           json={"action": pas, "last_action_id": turn})
            assert r.status_code == 200
            acked.append(r.json()["last_action_id"])
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    with serve(db, "--no-demo") as (_proc, base, _lines):
        export = httpx.get(f"{base}/api/games/{gid}/export").json()
    assert [a["id"] for a in export["actions"]] == acked == list(range(1, 10))


def test_serve_refuses_a_bad_database_url() -> None:
    result = CliRunner().invoke(cli, ["serve", "--db", "nosuchdb://x/y"])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: --db nosuchdb://x/y: ")
    assert result.stderr.count("\n") == 1


def test_serve_takes_an_smtp_server_and_refuses_one_without_a_sender(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'games.sqlite3'}"
    with serve(db, "--no-demo", "--smtp-host", "127.0.0.1", "--smtp-port", "2525",
               "--smtp-from", "turns@rhineland.example") as (_proc, _base, lines):
        assert lines[1] == ("your-turn alerts: webhooks; mail via 127.0.0.1:2525 from "
                            "turns@rhineland.example")
    for extra in ([], ["--smtp-from", "not an address"]):
        result = CliRunner().invoke(cli, ["serve", "--db", db, "--smtp-host", "h", *extra])
        assert result.exit_code == 2
        assert result.stderr.startswith("error: --smtp-")
        assert result.stderr.count("\n") == 1
