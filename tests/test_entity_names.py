"""A train's type name and a company's symbol are plain attributes set from the spec at
construction (``rhineland.engine.entities``): they equal the spec's, follow the entity
into clones, deep copies and pickles, and are neither compared nor shown in a repr."""

from __future__ import annotations

import copy
import pickle

import pytest

from rhineland import new_game
from rhineland.engine.entities import Corporation, Train


@pytest.mark.parametrize(("title", "players"), [("1893", 3), ("18Rhl", 4)])
def test_names_are_the_specs_in_every_copy(title: str, players: int) -> None:
    game = new_game(title, [f"P{i}" for i in range(players)], seed=2)
    clone = game.state.clone()
    pickled = pickle.loads(pickle.dumps(game.state))
    deep = copy.deepcopy(game.state)
    for st in (game.state, clone, pickled, deep):
        assert [t.name for t in st.trains] == [t.spec.name for t in st.trains]
        assert {t.name for t in st.trains} == {t.name for t in game.data.trains}
        for table in (st.corporations, st.minors, st.privates):
            for sym, entity in table.items():
                assert entity.sym == sym == entity.spec.sym
    if title == "1893":
        assert game.state.minors and game.state.privates  # both kinds were looked at


def test_names_are_not_compared_or_shown() -> None:
    game = new_game("1893", ["A", "B", "C"], seed=2)
    train = game.state.trains[0]
    assert repr(train).endswith("owner=None, rusted=False, operated=False)")
    twin = Train(train.id, train.spec)
    assert twin == train and twin.name == train.name == "2"
    corp = next(iter(game.state.corporations.values()))
    again = Corporation(corp.spec, corp.certificates)
    assert again == corp and again.sym == corp.sym
