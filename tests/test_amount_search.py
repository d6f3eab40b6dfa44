"""The amount search of the legal-action generator (``Trial.amount_range``) and the
self-play invariants.

``amount_range`` finds the legal interval of an amount (a bid, a train price) from a
legal point by bisection, trying the hints first and the amount next to a known legal
one before bisecting; a refusal by a rule that does not look at the amount ends the
search.  Here the rules are a stand-in that accepts exactly an interval, so the
search's answer can be compared with the interval itself.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from rhineland import new_game
from rhineland.engine.actions import Action, Bid
from rhineland.engine.legal import Trial
from rhineland.errors import GameError
from rhineland.sim.invariants import invariant_errors, total_money


class IntervalRules(Trial):
    """Accepts a bid's price exactly within ``least..most`` (on the ``step`` grid from
    ``lo``); every refusal is ``rule``.  Counts the trials."""

    def __init__(self, least: int, most: int, rule: str = "auction.min_bid") -> None:
        super().__init__(game=None)  # type: ignore[arg-type]
        self.least, self.most, self.rule = least, most, rule
        self.tried: list[int] = []

    def refusal(self, action: Action) -> GameError | None:
        price: Any = getattr(action, "price")  # noqa: B009
        self.tried.append(price)
        if self.least <= price <= self.most:
            return None
        return GameError(f"{price}M is refused", self.rule)


BID = Bid(entity=1, company="X", price=0)


@given(lo=st.integers(0, 50), width=st.integers(0, 400), a=st.integers(0, 400),
       b=st.integers(0, 400), c=st.integers(0, 400),
       hints=st.lists(st.integers(0, 500), max_size=3), at=st.integers(0, 3))
def test_the_search_finds_exactly_the_legal_interval(lo: int, width: int, a: int, b: int,
                                                      c: int, hints: list[int],
                                                      at: int) -> None:
    hi = lo + width
    least, most = sorted((lo + a % (width + 1), lo + b % (width + 1)))
    # the generator's hints hold a legal amount, or the span's ends are legal (the search
    # starts from a legal point)
    legal = least + c % (most - least + 1)
    hints.insert(min(at, len(hints)), legal)
    rules = IntervalRules(least, most)
    found = rules.amount_range(BID, "price", lo, hi, 1, hints)
    assert found is not None
    assert (found.min, found.max) == (least, most)
    assert found.action == BID.__class__(entity=1, company="X", price=least)


def test_a_hint_on_the_edge_is_confirmed_by_one_more_trial() -> None:
    # a train price: legal 1..200 (the company's cash), the span up to 500 (with the
    # president's cash); the hint is the cash
    rules = IntervalRules(1, 200, "train.cash")
    found = rules.amount_range(BID, "price", 1, 500, 1, (200,))
    assert found is not None and (found.min, found.max) == (1, 200)
    assert sorted(rules.tried) == [1, 200, 201, 500]


def test_no_legal_amount_gives_none() -> None:
    rules = IntervalRules(10, 5)  # empty
    assert rules.amount_range(BID, "price", 0, 100, 1, (50,)) is None


def test_a_refusal_whatever_the_amount_ends_the_search_at_once() -> None:
    rules = IntervalRules(10, 5, "or.step")
    assert rules.amount_range(BID, "price", 0, 100, 1, (50,), frozenset({"or.step"})) is None
    assert rules.tried == [50]


def test_the_invariants_hold_at_the_start_and_name_what_breaks() -> None:
    game = new_game("18Rhl", ["A", "B", "C"], seed=3)
    assert total_money(game) == game.data.bank == 9000
    assert invariant_errors(game, 9000) == []
    player = game.players[0]
    player.cash = -5
    errors = invariant_errors(game, 9000)
    assert f"{player.name} has -5M" in errors
    assert any(e.startswith("money is not conserved") for e in errors)
