"""The interface-neutral text of moves (rhineland.io.describe), shared by the terminal
game and the web app: real choices of the 18Rhl opening."""

from __future__ import annotations

from rhineland import new_game
from rhineland.engine.legal import AmountRange
from rhineland.io.describe import describe, status_line


def test_the_opening_choices_and_status_as_text() -> None:
    game = new_game("18Rhl", ["Ann", "Ben", "Cid", "Dan"], seed=1)
    choices = game.legal_actions()
    texts = [describe(game, c) for c in choices]
    ranges = [describe(game, c) for c in choices if isinstance(c, AmountRange)]
    assert "pass" in texts
    # a range of bids reads as the range, with no interface's typing hint
    assert ranges and all(".." in t and "type:" not in t for t in ranges)
    assert status_line(game).endswith("· Ann to act")
