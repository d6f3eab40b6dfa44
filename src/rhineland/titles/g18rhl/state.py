"""18Rhl's own game state (:class:`RhlState`, kept in ``State.title_state``) and the
symbol of the company its rules name most."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rhineland.engine.game import Game

RHE = "RhE"
"""The Rheinische Eisenbahn, whose director's certificate is auctioned as a private."""


@dataclass
class RhlState:
    """18Rhl's own game state (``State.title_state``).

    ``icons``: hex -> the coal/steel icons on it (the variable mine and steel mill
    drawn at setup, icons kept from replaced tiles; seed 000 "Montan");
    ``newly_floated``: corporations floated this SR (they receive their capital at
    its end); ``rhe_link_bonus``: RhE's pending 3 x par (M) for the Köln–Düren–Aachen
    link, 0 once paid; ``rhe_link_now``: the last track step's link check (``None``:
    none pending, for the export's ``destination_connection``); ``rhe_bid``: the
    auction price (M) of RhE's director's certificate until RhE is parred;
    ``gve_gift``: NLK was bought, so its buyer received a GVE 10% for free; ``loans``:
    player id -> the bank loans (M) they took (seed rule set), deducted
    ``loan_penalty`` times from their final value; ``metropolis_lag``: (operator,
    hex, colour of the tile replaced) after the operator's own lay on a Rhine
    metropolis, until the next lay or token (:meth:`Rhl.lay_context`).
    """

    icons: dict[str, list[str]] = field(default_factory=dict)
    newly_floated: list[str] = field(default_factory=list)
    rhe_link_bonus: int = 0
    rhe_link_now: bool | None = None
    rhe_bid: int = 0
    gve_gift: bool = False
    loans: dict[int, int] = field(default_factory=dict)
    metropolis_lag: tuple[str, str, str] | None = None


def rhl_state(game: Game) -> RhlState:
    """``game``'s :class:`RhlState`."""
    state = game.state.title_state
    assert isinstance(state, RhlState)
    return state


def end_metropolis_lag(game: Game) -> None:
    """A token was placed (by any company): every hex blocks as its tile again
    (``RhlState.metropolis_lag``)."""
    rhl_state(game).metropolis_lag = None
