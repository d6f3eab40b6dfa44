"""Each log line knows the round it was written in (``Game.log_rounds``): the web page's
round headings.  Undos, refused actions and the legal-action trials drop their lines'
rounds with the lines."""

from __future__ import annotations

import pytest

from reference import SHARED, needs_shared
from rhineland.engine.actions import BuyShares
from rhineland.errors import GameError
from rhineland.io.export import load_export, replay, replay_iter

END_BANK = SHARED / "fixtures" / "18Rhl" / "18Rhl_end_bank.json"


@needs_shared
def test_every_line_is_labelled_with_the_round_it_was_written_in() -> None:
    export = load_export(END_BANK)
    seen: dict[int, str] = {}  # log line -> the round current just after its action
    for _, _, g in replay_iter(export, standing=True):
        for i in range(len(seen), len(g.log)):
            seen[i] = g.round.label
    game = replay(export)
    labels = game.log_rounds()
    assert len(labels) == len(game.log)
    # a line is written in the round current after its action, or in the one before it
    # (an action that ends a round logs the last lines of the old one)
    order = list(dict.fromkeys(labels))
    assert order[:4] == ["Auction 1", "SR 1", "OR 1.1", "SR 2"]
    for i, label in enumerate(labels):
        k = order.index(label)
        assert seen[i] in order[k:k + 2], (i, game.log[i], label, seen[i])
    pay = next(i for i, line in enumerate(game.log) if "pays out" in line)
    assert labels[pay].startswith("OR ")


@needs_shared
def test_undo_refusal_and_trials_drop_their_lines_rounds() -> None:
    export = load_export(END_BANK)
    game = replay(export, until=export.actions[40].id)
    before = (list(game.log), game.log_rounds())
    game.legal_actions()  # the trials log and drop their lines
    assert (game.log, game.log_rounds()) == before
    with pytest.raises(GameError):
        game.process(BuyShares(entity=game.players[0].id, shares=("ADR_9",), percent=10))
    assert (game.log, game.log_rounds()) == before
    n = len(game.log)
    game.keep_history = True
    game.process(game.legal_actions()[0])
    assert len(game.log_rounds()) == len(game.log) >= n
    game.undo()
    assert (game.log, game.log_rounds()) == before
