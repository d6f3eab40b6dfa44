"""Amount spans whose interval the rules state (``AmountSpan.bounds``, e.g. the price of a
train bought from another company) are narrowed by one trial, and spans of one group
(``AmountSpan.same_as``: a type of train from different sellers) share that trial; the
result must equal each span's own trial search (``Trial.amount_range`` without the
bounds) at every such span: at every position of every reference game in ``../shared``
and at the positions seeded random games reach (both titles, optional rules mixed;
bounded by action count)."""

from __future__ import annotations

import pytest

from play import random_positions
from reference import SHARED, needs_shared
from rhineland import Game
from rhineland.engine.legal import AmountRange, Trial
from rhineland.engine.legal.choices import AmountSpan
from rhineland.engine.legal.generate import candidates
from rhineland.io.export import game_from_export, load_export, undo_targets
from rhineland.sim.selfplay import TITLE_PLAYERS
from test_oracle_replays import GAMES_18RHL, GAMES_1893

ACTIONS = 1500


def _bounded_spans(game: Game) -> list[AmountSpan]:
    if game.state.finished or game.state.round is None:
        return []
    return [c for c in candidates(game) if isinstance(c, AmountSpan) and c.bounds is not None]


def _as_tuple(r: AmountRange | None) -> tuple[int, int, int] | None:
    return None if r is None else (r.min, r.max, r.step)


def _compare(game: Game) -> int:
    """Compare every bounded span now; the number of spans compared."""
    spans = _bounded_spans(game)
    trial = Trial(game)  # one trial for the position: spans of a group found legal shared
    for c in spans:
        stated = trial.amount_range(c.action, c.field, c.lo, c.hi, c.step, c.hints, c.whole,
                                    c.bounds, c.same_as, c.gate)
        searched = Trial(game).amount_range(c.action, c.field, c.lo, c.hi, c.step, c.hints,
                                            c.whole)
        assert _as_tuple(stated) == _as_tuple(searched), (c.action, c.bounds and c.bounds())
        if stated is not None:  # the ends are legal, one past them is not
            assert game.is_legal(stated.at(stated.min)) and game.is_legal(stated.at(stated.max))
            if stated.max < c.hi:
                assert not game.is_legal(stated.at(stated.max + c.step))
    return len(spans)


@needs_shared
@pytest.mark.parametrize("export", [e for e, _ in GAMES_18RHL + GAMES_1893],
                         ids=lambda e: e.rpartition("/")[2].removesuffix(".json"))
def test_stated_train_prices_equal_the_search_in_the_reference_games(export: str) -> None:
    data = load_export(SHARED / "fixtures" / export)
    game = game_from_export(data)
    targets = undo_targets(data.actions)
    for i, action in enumerate(data.actions):
        _compare(game)
        game.process(action, atomic=False, history=i in targets)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("title", sorted(TITLE_PLAYERS))
def test_stated_train_prices_equal_the_search_in_random_games(title: str, seed: int) -> None:
    compared = sum(_compare(game) for game in random_positions(title, seed, ACTIONS))
    assert compared > 0
