"""Load test of the web app on loopback: many games played through the HTTP API at once
against one server process, a kill -9 of the server mid-run and a restart, then every
stored game checked.

    .venv/bin/python scripts/web_load.py [--games 50] [--seconds 120] [--kill-after 2000]
                                         [--db URL] [--title 18Rhl] [--seed 0]
                                         [--max-actions N] [--json report.json]
                                         [--server-bots]

Starts ``rhineland serve`` (a subprocess; by default on a fresh SQLite file), creates
``--games`` games (3-4 players, 18Rhl and 1893 alternating unless ``--title``) and plays
every seat of every game from here at once (asyncio + httpx): read the state, ask the
acting seat's legal actions, pick one at random (an amount drawn in its range, a run on
the offered best routes), post it with the last action id seen.  Every 200 answer is an
acknowledged action (its id is recorded).  After ``--kill-after`` acknowledged actions
the server gets SIGKILL and is started again on the same database; the players retry
(a 409 tells them an action they were not sure of was stored; a 429, the seat's action
rate, makes them wait the Retry-After and post again).  Play stops when every
game ended, each played ``--max-actions``, or ``--seconds`` passed.

With ``--server-bots`` every seat is a bot of the server (random): the script only
watches the lobby (an action is acknowledged once the lobby shows it stored) and kills
and restarts the server the same way (the server resumes its bots); no latency then,
the actions per second.

Checked at the end, per game: the export's action ids are 1..N without a gap or a
repeat; every acknowledged id is there (nothing acknowledged was lost); the export
replays (``rhineland.replay``) to the state the server shows (each player's cash, the
last action id).  Reported: actions acknowledged, games finished, p50/p95/max latency of
posting an action and of asking the legal actions (ms), actions per second, the restart
time.  Exit status 1 when a check fails.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``rhineland serve`` as a subprocess."""

    def __init__(self, db: str, port: int) -> None:
        self.db, self.port = db, port
        self.proc: subprocess.Popen[bytes] | None = None
        self.base = f"http://127.0.0.1:{port}"

    def start(self) -> float:
        env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}"
               f"{os.environ.get('PYTHONPATH', '')}"}
        t0 = time.perf_counter()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "rhineland", "serve", "--db", self.db, "--host",
             "127.0.0.1", "--port", str(self.port), "--no-demo"],
            stdout=subprocess.DEVNULL, stderr=sys.stderr, env=env)
        for _ in range(600):
            try:
                httpx.get(f"{self.base}/api/games?limit=1", timeout=2)
                return time.perf_counter() - t0
            except httpx.TransportError:
                if self.proc.poll() is not None:
                    raise SystemExit("error: the server did not start") from None
                time.sleep(0.05)
        raise SystemExit("error: the server did not answer")

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()


@dataclass
class Run:
    """What the players saw."""

    acked: dict[str, list[int]] = field(default_factory=dict)
    post_ms: list[float] = field(default_factory=list)
    legal_ms: list[float] = field(default_factory=list)
    refused: dict[int, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    transport_errors: int = 0
    finished: set[str] = field(default_factory=set)
    stop: bool = False
    down: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def total(self) -> int:
        return sum(len(v) for v in self.acked.values())


def pick(entry: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    action = dict(entry["action"])
    amount = entry.get("amount")
    if amount:
        values = range(amount["min"], amount["max"] + 1, amount["step"])
        action[amount["field"]] = values[rng.randrange(len(values))]
    return action


async def play(client: httpx.AsyncClient, gid: str, secrets: dict[int, str], run: Run,
               rng: random.Random, max_actions: int) -> None:
    while not run.stop and len(run.acked[gid]) < max_actions:
        if run.down.is_set():
            await asyncio.sleep(0.05)
            continue
        try:
            state = (await client.get(f"/api/games/{gid}")).json()
            if state["finished"]:
                run.finished.add(gid)
                return
            pid = state["acting"][0]
            auth = {"Authorization": f"Bearer {secrets[pid]}"}
            t0 = time.perf_counter()
            legal = (await client.get(f"/api/games/{gid}/legal", headers=auth)).json()
            run.legal_ms.append((time.perf_counter() - t0) * 1000)
            if not legal["actions"]:
                continue
            entry = legal["actions"][rng.randrange(len(legal["actions"]))]
            body = {"action": pick(entry, rng), "last_action_id": legal["last_action_id"]}
            t0 = time.perf_counter()
            r = await client.post(f"/api/games/{gid}/actions", content=orjson.dumps(body),
                                  headers={**auth, "Content-Type": "application/json"})
            ms = (time.perf_counter() - t0) * 1000
            if r.status_code == 200:
                run.post_ms.append(ms)
                run.acked[gid].append(r.json()["last_action_id"])
            else:
                run.refused[r.status_code] = run.refused.get(r.status_code, 0) + 1
                if r.status_code == 429:  # the seat's action rate: wait as told, retry
                    await asyncio.sleep(float(r.headers.get("Retry-After", "1")))
                    continue
                if r.status_code not in (409,):
                    run.errors.append(f"{gid}: {r.status_code} {r.text[:200]}")
                    return
        except (httpx.TransportError, ValueError):
            run.transport_errors += 1
            await asyncio.sleep(0.1)


async def watch(client: httpx.AsyncClient, run: Run) -> None:
    """Server bots: note the last stored action id of every game from the lobby."""
    while not run.stop:
        if not run.down.is_set():
            try:
                for g in (await client.get("/api/games")).json():
                    if g["id"] in run.acked:
                        known = run.acked[g["id"]]
                        top = known[-1] if known else 0
                        known.extend(range(top + 1, g["last_action_id"] + 1))
                        if g["status"] == "finished":
                            run.finished.add(g["id"])
                if len(run.finished) == len(run.acked):
                    return
            except (httpx.TransportError, ValueError):
                run.transport_errors += 1
        await asyncio.sleep(0.5)


async def main_async(args: argparse.Namespace, server: Server) -> tuple[Run, float, float]:
    run = Run()
    rng = random.Random(args.seed)
    limits = httpx.Limits(max_connections=args.games * 2)
    async with httpx.AsyncClient(base_url=server.base, timeout=120, limits=limits) as client:
        games: list[tuple[str, dict[int, str]]] = []
        for i in range(args.games):
            title = args.title or ("18Rhl" if i % 2 == 0 else "1893")
            n = 3 + (i // 2) % 2
            bots = {str(k + 1): "random" for k in range(n)} if args.server_bots else {}
            r = await client.post("/api/games", json={
                "title": title, "players": [f"P{k + 1}" for k in range(n)],
                "seed": args.seed + i, "bots": bots})
            g = r.json()
            games.append((g["id"], {s["id"]: s["secret"] for s in g["seats"]}))
            run.acked[g["id"]] = []
        t_start = time.perf_counter()
        if args.server_bots:
            tasks = [asyncio.create_task(watch(client, run))]
        else:
            tasks = [asyncio.create_task(play(client, gid, secs, run,
                                              random.Random(rng.random()), args.max_actions))
                     for gid, secs in games]
        restart = 0.0
        killed = False
        while not all(t.done() for t in tasks):
            await asyncio.sleep(0.2)
            if not killed and run.total >= args.kill_after:
                killed = True
                run.down.set()
                acked_before = run.total
                server.kill()
                restart = await asyncio.to_thread(server.start)
                run.down.clear()
                print(f"killed the server (kill -9) after {acked_before} acknowledged "
                      f"actions; restarted in {restart:.2f} s", file=sys.stderr)
            if time.perf_counter() - t_start > args.seconds:
                run.stop = True
        await asyncio.gather(*tasks)
        elapsed = time.perf_counter() - t_start
    return run, elapsed, restart if killed else -1.0


def check(server: Server, run: Run) -> list[str]:
    from rhineland.io.export import parse_export, replay

    problems: list[str] = []
    with httpx.Client(base_url=server.base, timeout=120) as client:
        for gid, acked in run.acked.items():
            for _ in range(50):  # server bots may still be playing: a consistent pair
                export = client.get(f"/api/games/{gid}/export").json()
                state = client.get(f"/api/games/{gid}").json()
                n = export["actions"][-1]["id"] if export["actions"] else 0
                if n == state["last_action_id"]:
                    break
            ids = [a["id"] for a in export["actions"]]
            if ids != list(range(1, len(ids) + 1)):
                problems.append(f"{gid}: action ids are not 1..{len(ids)}")
            lost = sorted(set(acked) - set(ids))
            if lost:
                problems.append(f"{gid}: acknowledged actions lost: {lost[:10]}")
            if len(set(acked)) != len(acked):
                problems.append(f"{gid}: an id acknowledged twice")
            game = replay(parse_export(export))
            cash = {p.id: p.cash for p in game.players}
            served = {p["id"]: p["cash"] for p in state["players"]}
            last = game.actions[-1].id if game.actions else 0
            if cash != served or last != state["last_action_id"]:
                problems.append(f"{gid}: the export does not replay to the served state")
    return problems


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=120.0)
    ap.add_argument("--kill-after", type=int, default=2000,
                    help="acknowledged actions before the kill -9 (0: no kill)")
    ap.add_argument("--max-actions", type=int, default=100000)
    ap.add_argument("--db", default=None, help="database URL (default: a fresh SQLite file)")
    ap.add_argument("--title", default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", default=None, help="write the figures to this file")
    ap.add_argument("--server-bots", action="store_true",
                    help="bots of the server on every seat (the script only watches)")
    args = ap.parse_args()
    if args.kill_after <= 0:
        args.kill_after = 1 << 60
    tmp = tempfile.mkdtemp(prefix="rhineland-load-")
    db = args.db or f"sqlite:///{tmp}/load.sqlite3"
    server = Server(db, free_port())
    server.start()
    try:
        run, elapsed, restart = asyncio.run(main_async(args, server))
        problems = check(server, run) + run.errors
    finally:
        server.stop()
    figures = {
        "games": args.games, "db": db.split("://")[0], "seconds": round(elapsed, 1),
        "players": "server bots" if args.server_bots else "API clients (random)",
        "actions_acknowledged": run.total, "games_finished": len(run.finished),
        "actions_per_second": round(run.total / elapsed, 1) if elapsed else 0,
        "post_ms_p50": round(pct(run.post_ms, 0.5), 1),
        "post_ms_p95": round(pct(run.post_ms, 0.95), 1),
        "post_ms_max": round(max(run.post_ms, default=float("nan")), 1),
        "legal_ms_p50": round(pct(run.legal_ms, 0.5), 1),
        "legal_ms_p95": round(pct(run.legal_ms, 0.95), 1),
        "refused": run.refused, "transport_errors_during_restart": run.transport_errors,
        "restart_seconds": round(restart, 2), "problems": problems,
        "mean_actions_per_game": round(statistics.mean(len(v) for v in run.acked.values()), 1),
    }
    for k, v in figures.items():
        print(f"{k}: {v}")
    if args.json:
        Path(args.json).write_bytes(orjson.dumps(figures, option=orjson.OPT_INDENT_2))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
