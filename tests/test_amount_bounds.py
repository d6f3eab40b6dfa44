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
from rhineland.engine.legal.generate import candidates, entity_type
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


def _trains_refused_between_companies(game: Game) -> int:
    """At a buy-train step where trains do not change hands between companies now, every
    other company's train is refused at any price, the rules' price bounds for them
    (``other_train_price_bounds``) state no price, and the listing has no span for them;
    the trains tried."""
    from rhineland.engine.actions import BuyTrain
    from rhineland.engine.rounds.operating import OperatingRound

    rnd = game.state.round
    if (game.state.finished or not isinstance(rnd, OperatingRound) or rnd.pending_discards
            or rnd.step_name(game) != "buy_train"):
        return 0
    entity = rnd.current_entity(game)
    if game.title.may_buy_trains_from_others(game, entity):
        return 0
    tried = 0
    others = [*game.corporations.values(), *game.minors.values()]
    trial = Trial(game)
    for other in others:
        if other is entity:
            continue
        for t in other.trains:
            for price in sorted({1, max(entity.cash, 1), t.spec.price}):
                refused = trial.refusal(BuyTrain(entity=entity.sym,
                                                 entity_type=entity_type(entity),
                                                 train=t.id, price=price))
                assert refused is not None and refused.rule == "train.from_other", (t.id, price)
            least, most = game.title.other_train_price_bounds(game, rnd, entity, t)
            assert least > most  # the rules state no price
            tried += 1
    # and the listing proposes none of them (no span, no trial)
    assert not any(isinstance(c, AmountSpan) and c.action.type == "buy_train"
                   for c in candidates(game))
    return tried


@pytest.mark.parametrize("title", sorted(TITLE_PLAYERS))
def test_no_train_changes_hands_between_companies_before_the_phase_allows(title: str) -> None:
    """Before trains may change hands between companies
    (``may_buy_trains_from_others``), every other company's train is refused, whatever
    the price, the price bounds the rules state hold no price, and the legal listing
    proposes no price span for them (no trial)."""
    tried = sum(_trains_refused_between_companies(game)
                for seed in range(3) for game in random_positions(title, seed, ACTIONS))
    if title == "1893":
        assert tried > 0
