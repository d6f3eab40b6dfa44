"""The tile-lay options' memo (``tile_lays._OPTIONS_MEMO``, keyed by the board version and
the lay context's fields, of the private companies only those the lay hooks read) gives
the options worked out afresh: at every track-step position of seeded random games of
both titles the options through the memo equal the fresh ones, and some positions are
answered by the memo; a change of a private company that the hooks read (its owner, so
its special lays) is not answered from the memo, one of a private they do not read is;
the same position with less cash is answered from the memo, without the lays it cannot
pay for."""

from __future__ import annotations

import dataclasses

import pytest

from play import random_positions
from rhineland.board.legality import tile_lays
from rhineland.board.legality.rules import PrivateState
from rhineland.sim.selfplay import TITLE_PLAYERS

ACTIONS = 900


@pytest.mark.parametrize("seed", [2, 5])
@pytest.mark.parametrize("title", sorted(TITLE_PLAYERS))
def test_memoised_options_equal_the_fresh_ones(title: str, seed: int) -> None:
    listed = hits = 0
    tile_lays._OPTIONS_MEMO.clear()
    before: set[tuple[object, ...]] = set()
    for game in random_positions(title, seed, ACTIONS):
        ctx, lays = game.tile_lay_options()
        if ctx is None:
            continue
        key = tile_lays._options_key(ctx)
        assert key in tile_lays._OPTIONS_MEMO
        # asked again (a memo hit) and worked out afresh: the same lays
        assert tile_lays.tile_lay_options(ctx) == lays == tile_lays._tile_lay_options(ctx)
        listed += 1
        hits += key in before  # this position was listed before (the same board and ctx)
        before = set(tile_lays._OPTIONS_MEMO)
    assert listed > 20
    if title == "1893":  # a company's next OR after a stock round that laid nothing
        assert hits > 0


def test_a_special_lay_private_changes_the_options() -> None:
    """18Rhl: the president's tile-lay private gives special lays; with that private
    unowned they are gone (a memo keyed without it would still list them), with a
    private the hooks do not read changed they stay (answered by the memo)."""
    for game in random_positions("18Rhl", 3, 2000):
        ctx, lays = game.tile_lay_options()
        if ctx is None or not any(lay.special for lay in lays):
            continue
        company = next(lay.special for lay in lays if lay.special)
        assert company in ctx.rules.lay_privates
        unowned = dataclasses.replace(ctx, privates={
            **ctx.privates, company: PrivateState(company, None)})
        fresh = tile_lays._tile_lay_options(unowned)
        assert not any(lay.special == company for lay in fresh)
        assert tile_lays.tile_lay_options(unowned) == fresh
        other = next((s for s in ctx.privates if s not in ctx.rules.lay_privates), None)
        if other is not None:
            moved = dataclasses.replace(ctx, privates={
                **ctx.privates, other: PrivateState(other, "999")})
            assert tile_lays._options_key(moved) == tile_lays._options_key(ctx)
            assert tile_lays.tile_lay_options(moved) == lays
        return
    pytest.fail("no position with a special lay")


@pytest.mark.parametrize("title", sorted(TITLE_PLAYERS))
def test_less_cash_is_answered_by_the_memo(title: str) -> None:
    """At track-step positions with lays of different costs: with the cash lowered to the
    cheapest cost, the memo (keyed without the cash) gives the fresh answer: the lays
    costing at most that much, in order; with no cash at all, only the free ones."""
    checked = 0
    for game in random_positions(title, 4, 3000):
        ctx, lays = game.tile_lay_options()
        if ctx is None or len({lay.cost for lay in lays}) < 2:
            continue
        key = tile_lays._options_key(ctx)
        for cash in (min(lay.cost for lay in lays), 0):
            poorer = dataclasses.replace(ctx, cash=cash)
            assert tile_lays._options_key(poorer) == key
            got = tile_lays.tile_lay_options(poorer)
            assert got == tile_lays._tile_lay_options(poorer)
            assert got == [lay for lay in lays if lay.cost <= cash]
            assert len(got) < len(lays) or cash == max(lay.cost for lay in lays)
        checked += 1
        if checked == 5:
            return
    pytest.fail(f"{checked} positions with lays of different costs")
