"""Invariants a simulation checks after every action (``rhineland simulate --check``)."""

from __future__ import annotations

from rhineland.engine.entities import IPO, MARKET
from rhineland.engine.game import Game


class InvariantError(AssertionError):
    """A game broke an invariant (message: which and the values)."""


def total_money(game: Game) -> int:
    """Bank + players + corporations + minors, in M."""
    st = game.state
    return (st.bank.cash + sum(p.cash for p in st.players)
            + sum(c.cash for c in st.corporations.values())
            + sum(m.cash for m in st.minors.values()))


def check_invariants(game: Game, start_money: int) -> None:
    """Money conserved (``start_money`` M in all), each corporation's certificates at
    100% held by a player, the IPO or the market, no negative cash (but an 18Rhl
    treasury's debt in receivership, a broken bank).  Raises :class:`InvariantError`."""
    money = total_money(game)
    if money != start_money:
        raise InvariantError(f"money is not conserved: {money}M, was {start_money}M")
    for corp in game.corporations.values():
        total = sum(c.percent for c in corp.certificates)
        if total != 100:
            raise InvariantError(f"{corp.sym} certificates sum to {total}%")
        for cert in corp.certificates:
            if not (cert.owner in (IPO, MARKET) or isinstance(cert.owner, int)):
                raise InvariantError(f"{cert.id} held by {cert.owner!r}")
        if corp.cash < 0 and not corp.receivership:
            raise InvariantError(f"{corp.sym} has {corp.cash}M")
    for p in game.players:
        if p.cash < 0:
            raise InvariantError(f"{p.name} has {p.cash}M")
    for m in game.minors.values():
        if m.cash < 0:
            raise InvariantError(f"{m.sym} has {m.cash}M")
    if not game.bank.broken and game.bank.cash < 0:
        raise InvariantError(f"the bank has {game.bank.cash}M but is not broken")
