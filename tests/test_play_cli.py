"""``rhineland play`` (:mod:`rhineland.cli.play`) driven through its standard input:
moves, an undo, a save whose file replays, resuming with ``--load``, bots in seats,
and the errors a player can make."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from rhineland import load_export, replay
from rhineland.engine.actions import Undo

ROOT = Path(__file__).resolve().parents[1]


def _play(args: list[str], stdin: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run([sys.executable, "-m", "rhineland", "play", *args], input=stdin,
                          capture_output=True, text=True, env=env, timeout=600, check=False)


def test_moves_undo_save_and_the_saved_game_replays(tmp_path: Path) -> None:
    saved = tmp_path / "game.json"
    res = _play(["18Rhl", "--players", "Ann,Ben,Cid", "--seed", "1", "--bot", "Cid=greedy"],
                f"1\n1\nundo\n2 60\nsave {saved}\nquit\n")
    assert res.returncode == 0, res.stderr
    out = res.stdout
    # Ann buys the cheapest private (PWB, 20M); Ben takes KEO, the greedy Cid buys Szl;
    # Ben undoes (Cid's move and his own), bids 60M on Szl; Cid then buys KEO
    assert "Ann, your moves:" in out and "1  bid 20M on PWB" in out
    assert "played: bid 20M on PWB" in out
    assert "played: bid 30M on KEO" in out
    assert "Cid (greedy): bid 50M on Szl" in out
    assert "undone: 2 actions (back to Ben)" in out
    assert "2  bid 55..600M on Szl  (type: N AMOUNT)" in out
    assert "played: bid 60M on Szl" in out
    assert "Cid (greedy): bid 30M on KEO" in out
    assert f"saved to {saved}" in out
    game = replay(load_export(saved))
    assert sum(isinstance(a, Undo) for a in game.actions) == 2
    cash = {p.name: p.cash for p in game.players}
    assert cash == {"Ann": 580, "Ben": 540, "Cid": 570}
    assert {p.name: p.companies for p in game.players} == {
        "Ann": ["PWB"], "Ben": ["Szl"], "Cid": ["KEO"]}
    # resume: Ann decides next, the Tjt at 80M first
    res = _play(["--load", str(saved)], "undo\n1\nundo\nquit\n")
    assert res.returncode == 0, res.stderr
    assert "Ann, your moves:" in res.stdout and "1  bid 80M on Tjt" in res.stdout
    # the loaded actions are not this session's to undo; a move made after loading is
    assert "error: nothing to undo (no move of yours in this session yet)" in res.stdout
    assert "played: bid 80M on Tjt" in res.stdout
    assert "undone: 1 action (back to Ann)" in res.stdout


def test_mistakes_are_one_line_errors() -> None:
    res = _play(["18Rhl", "--players", "Ann,Ben,Cid"],
                "99\n2\n2 10\n1 50\nfly\nroutes\nsave\nundo\nquit\n")
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert "error: no move 99 (moves 1..7)" in out
    assert "error: move 2 needs an amount, 35..600M (e.g. 2 35)" in out
    assert "error: 10M is outside 35..600M" in out
    # move 1 (PWB at its fixed 20M) takes no amount: refused, not played at 20M
    assert "error: move 1 takes no amount (type 1 alone)" in out
    assert "played:" not in out
    assert "error: unknown command 'fly'" in out
    assert "error: no company is operating now" in out
    assert "error: save needs a file name" in out
    assert "error: nothing to undo (no move of yours in this session yet)" in out
    assert "Traceback" not in out + res.stderr


def test_bots_play_a_whole_game(tmp_path: Path) -> None:
    """Bots in every seat play to the end; the ended game can still be saved.  A title
    is typed in any letter case."""
    saved = tmp_path / "ended.json"
    res = _play(["1893", "--players", "Ann,Ben", "--seed", "2", "--bot", "1=random",
                 "--bot", "ben=random"], f"3\nroutes\nsave {saved}\nquit\n")
    assert res.returncode == 0, res.stderr
    assert "final scores:" in res.stdout
    assert "Ann (random):" in res.stdout and "Ben (random):" in res.stdout
    assert "error: the game is over (save FILE keeps it" in res.stdout
    assert "error: the game is over\n" in res.stdout
    assert f"saved to {saved}" in res.stdout
    game = replay(load_export(saved))
    assert game.is_terminal
    res = _play(["18rhl", "--players", "Ann,Ben,Cid"], "quit\n")
    assert res.returncode == 0 and "Ann, your moves:" in res.stdout


def test_bad_arguments() -> None:
    res = _play(["18Rhl", "--players", "Ann,Ben,Cid", "--bot", "Dan=greedy"], "")
    assert res.returncode == 2
    assert res.stderr.strip().startswith("error: --bot 'Dan=greedy': no seat 'Dan'")
    res = _play(["18Rhl", "--players", "Ann,Ben"], "")
    assert res.returncode == 2 and "18Rhl is for 3, 4, 5, 6 players, not 2" in res.stderr
    res = _play([], "")
    assert res.returncode == 2 and "--load FILE" in res.stderr
    res = _play(["--load", "/nonexistent/game.json"], "")
    assert res.returncode == 2 and res.stderr.count("\n") == 1


def test_names_are_shown_as_typed() -> None:
    """A player name that reads as rich markup is shown as typed, not parsed."""
    res = _play(["18Rhl", "--players", "Ann,[/b]Ben,[red]Cid"], "1\nquit\n")
    assert res.returncode == 0, res.stderr
    assert "Traceback" not in res.stdout + res.stderr
    assert "[/b]Ben, your moves:" in res.stdout and "[red]Cid" in res.stdout
