"""``rhineland play`` in a real terminal (a pseudo-terminal driven by pexpect), as a
person plays it: each move typed only once its prompt is shown, an undo, a save whose
file replays to the same position, then ``quit``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pexpect

from rhineland import load_export, replay
from rhineland.engine.actions import Undo

ROOT = Path(__file__).resolve().parents[1]


def spawn(*args: str) -> pexpect.spawn:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "TERM": "dumb"}
    return pexpect.spawn(sys.executable, ["-m", "rhineland", "play", *args], env=env,
                         encoding="utf-8", timeout=300, dimensions=(50, 160))


def test_a_terminal_game_moves_undo_save(tmp_path: Path) -> None:
    saved = tmp_path / "game.json"
    child = spawn("18Rhl", "--players", "Ann,Ben,Cid", "--seed", "1", "--bot", "Cid=greedy")
    child.expect("Ann, your moves:")
    child.expect(r"1  bid 20M on PWB")
    child.expect("> ")
    child.sendline("1")  # Ann buys the cheapest private, PWB, for 20M
    child.expect("played: bid 20M on PWB")
    child.expect("Ben, your moves:")
    child.expect("> ")
    child.sendline("1")  # Ben buys KEO for 30M; the greedy Cid then buys Szl
    child.expect("played: bid 30M on KEO")
    child.expect(r"Cid \(greedy\): bid 50M on Szl")
    child.expect("> ")
    child.sendline("undo")  # back to Ben: Cid's move and Ben's are undone
    child.expect(r"undone: 2 actions \(back to Ben\)")
    child.expect(r"2  bid 55\.\.600M on Szl")
    child.expect("> ")
    child.sendline("2 60")
    child.expect("played: bid 60M on Szl")
    child.expect(r"Cid \(greedy\): bid 30M on KEO")
    child.expect("> ")
    child.sendline(f"save {saved}")
    child.expect("saved to")
    child.expect("> ")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0

    game = replay(load_export(saved))
    assert sum(isinstance(a, Undo) for a in game.actions) == 2
    assert {p.name: p.cash for p in game.players} == {"Ann": 580, "Ben": 540, "Cid": 570}
    assert {p.name: p.companies for p in game.players} == {
        "Ann": ["PWB"], "Ben": ["Szl"], "Cid": ["KEO"]}
