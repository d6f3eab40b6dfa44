"""1893's own game state (``State.title_state``), typed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rhineland.engine.game import Game


@dataclass
class CologneState:
    """1893's state beyond the common one.

    ``mergable``: AGV/HGK -> a merger vote is offered in the next merger round (its
    shares became buyable, it is not founded yet); ``auto_found``: AGV/HGK -> it is
    founded at the next merger round (its founding train was bought); ``fdsd_to_close``:
    the FdSD closes after its owner's next exchange chance (5-train bought);
    ``first_sr_passers``: player ids who passed in the draft or the first SR (no share
    bought then); ``after_merger``: what follows the merger round (``"or1"``, ``"or2"``,
    ``"auction"``, ``"sr"``); ``traded_in``: companies that traded in a train this OR;
    ``rag_par_pending``: (player id, par cell) of a RAG par by the FdSD's owner waiting
    for how it is paid; ``eva_or_price``: the least and most price (M) 18xx.games's
    interface offers for EVA in an OR once EVA has been bought there (1M up to that
    buyer's cash before paying; ``None`` before: half to twice its face value).
    """

    mergable: dict[str, bool] = field(default_factory=lambda: {"AGV": False, "HGK": False})
    auto_found: dict[str, bool] = field(default_factory=lambda: {"AGV": False, "HGK": False})
    fdsd_to_close: bool = False
    first_sr_passers: list[int] = field(default_factory=list)
    after_merger: str | None = None
    traded_in: list[str] = field(default_factory=list)
    rag_par_pending: tuple[int, str] | None = None
    eva_or_price: tuple[int, int] | None = None


def cologne_state(game: Game) -> CologneState:
    """``game``'s :class:`CologneState`."""
    state = game.state.title_state
    assert isinstance(state, CologneState)
    return state
