"""Invariants of every game position, checked after each action of a self-played game.

* money is conserved: bank + players + corporations + minors (M) stays what it was; a
  bank loan (18Rhl's seed rule set) moves money from the bank to a player, so the loans
  the title records must be positive, owed by players, and total the ``take_loan``
  amounts processed (and not undone);
* each corporation's certificates sum to 100% and are held by the IPO, the market or a
  player;
* no cash is negative, except an 18Rhl corporation's treasury (its debt to the bank after
  a receivership train purchase, kept when the company later leaves receivership) and a
  broken bank.

``invariant_errors`` lists every broken invariant; ``check_invariants`` raises
:class:`InvariantError` on the first (``rhineland simulate --check``).
"""

from __future__ import annotations

from rhineland.engine.entities import IPO, MARKET
from rhineland.engine.game import Game
from rhineland.io.export import standing_positions

NEGATIVE_TREASURY_TITLES = frozenset({"18Rhl"})
"""Titles whose rules may leave a corporation's treasury below 0 M (18Rhl's bankruptcy
rule: the bank lends the train's price)."""


class InvariantError(AssertionError):
    """A game broke an invariant (message: which and the values)."""


def total_money(game: Game) -> int:
    """Bank + players + corporations + minors, in M."""
    st = game.state
    return (
        st.bank.cash
        + sum(p.cash for p in st.players)
        + sum(c.cash for c in st.corporations.values())
        + sum(m.cash for m in st.minors.values())
    )


def invariant_errors(game: Game, start_money: int) -> list[str]:
    """What breaks an invariant (module docstring) in ``game`` now; ``start_money`` is
    :func:`total_money` at the start.  ``[]`` when all hold."""
    out: list[str] = []
    money = total_money(game)
    if money != start_money:
        out.append(f"money is not conserved: {money}M, was {start_money}M")
    for corp in game.corporations.values():
        total = sum(c.percent for c in corp.certificates)
        if total != 100:
            out.append(f"{corp.sym} certificates sum to {total}%")
        for cert in corp.certificates:
            if not (cert.owner in (IPO, MARKET) or isinstance(cert.owner, int)):
                out.append(f"{cert.id} is held by {cert.owner!r}")
        if corp.cash < 0 and game.data.title not in NEGATIVE_TREASURY_TITLES:
            out.append(f"{corp.sym} has {corp.cash}M")
    out.extend(f"{p.name} has {p.cash}M" for p in game.players if p.cash < 0)
    out.extend(f"{m.sym} has {m.cash}M" for m in game.minors.values() if m.cash < 0)
    loans = game.title.loans(game)
    known = {p.id for p in game.players}
    for pid, amount in loans.items():
        if pid not in known or amount <= 0:
            out.append(f"a loan of {amount}M is owed by {pid!r}")
    taken = 0
    if loans or any(a.type == "take_loan" for a in game.actions):
        standing = standing_positions(game.actions)
        taken = sum(int(getattr(a, "amount", 0)) for i, a in enumerate(game.actions)
                    if a.type == "take_loan" and i in standing)
    if taken != sum(loans.values()):
        out.append(f"the loans owed total {sum(loans.values())}M, {taken}M were taken")
    if not game.bank.broken and game.bank.cash < 0:
        out.append(f"the bank has {game.bank.cash}M but is not broken")
    return out


def check_invariants(game: Game, start_money: int) -> None:
    """Raise :class:`InvariantError` naming the first broken invariant of
    :func:`invariant_errors` (``start_money``: :func:`total_money` at the start, M)."""
    errors = invariant_errors(game, start_money)
    if errors:
        raise InvariantError(errors[0])
