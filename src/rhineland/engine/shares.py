"""Share certificates: buying, selling, presidency changes, price moves, floating.

Rules (standard 18xx unless a title hook says otherwise):

* A share bought from the IPO costs the current market price when the title
  says so (both titles: ``always_market_price``), else par.
* The president holds the president's certificate.  When another player holds
  strictly more than the president, the presidency passes to the player with
  the most (ties: the first in seat order after the old president); the new
  president hands over certificates worth the president's certificate's
  percentage (two certificates in the order acquired, or a double alone when it
  is one of two) in exchange.
* A corporation floats once the sold percentage reaches its float percentage.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rhineland.engine.entities import MARKET, Certificate, Corporation, Holder, Player
from rhineland.engine.titledata import MarketCell

if TYPE_CHECKING:
    from rhineland.engine.view import GameView


def set_price(game: GameView, corp: Corporation, cell: MarketCell) -> None:
    """Put ``corp`` on ``cell``; it goes to the back of that cell's stack when it moves."""
    if corp.share_price is None or (corp.share_price.row, corp.share_price.col) != (
        cell.row,
        cell.col,
    ):
        game.state.market_order += 1
        game.state.cell_order[corp.sym] = game.state.market_order
    corp.share_price = cell


def move_price(game: GameView, corp: Corporation, direction: str, times: int = 1) -> None:
    """Move ``corp``'s share price ``times`` steps in ``direction`` and log it."""
    assert corp.share_price is not None
    before = corp.share_price
    after = game.market.move(before, direction, times)
    set_price(game, corp, after)
    if after.price != before.price:
        game.add_log(f"{corp.sym}'s share price moves {direction} from {before.price}M "
                     f"to {after.price}M")


def operating_order_key(game: GameView, corp: Corporation) -> tuple[int, int, int, int]:
    """Sort key for the operating order: price high first, then right, then up, then arrival."""
    sp = corp.share_price
    assert sp is not None
    return (-sp.price, -sp.col, sp.row, game.state.cell_order.get(corp.sym, 0))


def give(game: GameView, cert: Certificate, holder: Holder) -> None:
    """Transfer ``cert`` to ``holder``; it becomes the holder's most recent certificate
    (the order matters for which certificates change hands in presidency swaps and
    which market share is taken first)."""
    game.state.market_order += 1
    cert.pool_seq = game.state.market_order
    cert.owner = holder


def to_market(game: GameView, cert: Certificate) -> None:
    """Put ``cert`` in the market, behind the certificates already there."""
    give(game, cert, MARKET)


def sale_bundle_shapes(held: list[Certificate]) -> list[tuple[list[Certificate], int]]:
    """The bundles a holder's certificates of one corporation form for a sale, as
    (certificates, percent), as 18xx.games' interface lists them: the certificates
    smallest first (the president's certificate last, one size newest first), each
    prefix a bundle at its percent, and a prefix ending in the president's certificate
    also at each 10% less of it down to one share of it (the rest comes back in the
    presidency swap).  The sale rules then decide which of them may be sold."""
    certs = sorted(held, key=lambda c: (c.president, c.percent, -c.index))
    out: list[tuple[list[Certificate], int]] = []
    total = 0
    for i, cert in enumerate(certs):
        total += cert.percent
        prefix = certs[:i + 1]
        if cert.president:
            out.extend((prefix, total - 10 * k) for k in range(cert.percent // 10 - 1, 0, -1))
        out.append((prefix, total))
    return out


def oldest_in_market(corp: Corporation) -> Certificate | None:
    """The certificate of ``corp`` (any size) that has been in the market longest."""
    pool = [c for c in corp.certificates if c.owner == MARKET]
    return min(pool, key=lambda c: c.pool_seq) if pool else None


def sold_percent(corp: Corporation) -> int:
    """Percent held by players (sold from the IPO or bought from the market)."""
    return sum(c.percent for c in corp.certificates if isinstance(c.owner, int))


def counted_sold_percent(corp: Corporation) -> int:
    """Percent held by players as the presidency counts it
    (:meth:`~rhineland.engine.entities.Corporation.counted_percent`: after a partial
    sale of a president's certificate handed back a double, 10% of it counts as the
    market's)."""
    return sold_percent(corp) + sum(v for h, v in corp.count_offset.items()
                                    if isinstance(h, int))


def swap_certificates(corp: Corporation, holder: int, percent: int) -> list[Certificate]:
    """Certificates of ``holder`` handed over for the president's certificate of
    ``percent``: from ``holder``'s certificates in the order they were acquired, with
    no double the first ``percent // 10`` of them; with a double (18Rhl KEG, 1893
    AGV/HGK) and no more than that many certificates, the first double; else the first
    ``percent // 10`` of the others.

    Both titles' rule (reference engine ``shares_for_presidency_swap``); it counts
    certificates, not percent, so a holder of both KEG doubles and a 10% hands over
    the second double and the 10% (30%) for the 20% president's certificate."""
    count = percent // 10
    mine = sorted((c for c in corp.certificates if c.owner == holder and not c.president),
                  key=lambda c: c.pool_seq)
    double = next((c for c in mine if c.double), None)
    if double is None:
        return mine[:count]
    if len(mine) <= count:
        return [double]
    return [c for c in mine if c is not double][:count]


def president_swap(
    game: GameView, corp: Corporation, new_pres: int, old_pres: Holder
) -> None:
    """Give ``new_pres`` the president's certificate; ``old_pres`` gets certificates back
    for it (see :func:`swap_certificates` for which certificates).

    The presidency goes on counting the exchange as even: where the certificates handed
    back are worth more than the president's certificate (both KEG doubles and a 10%
    held: 30% for 20%), ``new_pres`` counts that much over and ``old_pres`` that much
    short of what they hold (:meth:`Corporation.counted_percent`; the reference engine
    moves the certificates without its share count: 18Rhl-even-1100 #824, and at #920
    the bankrupt president, counted 10%, keeps KEG from the double holder counted 10%)."""
    pres_cert = next(c for c in corp.certificates if c.president)
    swap = swap_certificates(corp, new_pres, pres_cert.percent)
    for c in swap:
        give(game, c, old_pres)
    give(game, pres_cert, new_pres)
    over = sum(c.percent for c in swap) - pres_cert.percent
    for holder, moved in ((new_pres, over), (old_pres, -over)):
        off = corp.count_offset.get(holder, 0) + moved
        if off:
            corp.count_offset[holder] = off
        else:
            corp.count_offset.pop(holder, None)
    game.add_log(f"{game.holder_name(new_pres)} becomes the president of {corp.sym}")


def presidency_taker(game: GameView, corp: Corporation, *, after: int | None, above: int,
                     exclude: int | None = None) -> Player | None:
    """The player who takes ``corp``'s presidency, or ``None``: among the players (not
    bankrupt, not ``exclude``) holding the most counted percent
    (:meth:`Corporation.counted_percent`), when that is more than ``above``, the first
    in player order after ``after`` (from the first player when ``None``) whose
    certificates reach the president's percentage.  The one rule behind a president's
    sale (:func:`rhineland.engine.rounds.stock.sell_certificates`) and
    :func:`check_presidency`: a holder of a double counted 10% short still qualifies
    (generated2 g422 #497)."""
    pres_cert = next(c for c in corp.certificates if c.president)
    players = game.state.players
    holdings = {p.id: corp.counted_percent(p.id) for p in players
                if not p.bankrupt and p.id != exclude}
    best = max(holdings.values(), default=0)
    if best <= above:
        return None
    if after is not None:
        start = next(i for i, p in enumerate(players) if p.id == after)
        seq = [players[(start + k) % len(players)] for k in range(1, len(players))]
    else:
        seq = list(players)
    for p in seq:
        if holdings.get(p.id) == best and corp.percent_of(p.id) >= pres_cert.percent:
            return p
    return None


def check_presidency(game: GameView, corp: Corporation, previous: int | None = None) -> None:
    """Pass the presidency if another player now holds strictly more than the president
    (:func:`presidency_taker`, ties: the first after the president).

    With no current president (e.g. the president's certificate in the market),
    the player with the most, and at least the president's percentage, takes it;
    ties go to the first in player order after ``previous`` (the president whose
    certificates just went to the market: a bankrupt president), else to the first
    in player order.  Nobody takes it from ``previous`` while ``previous`` still counts
    as much (:meth:`Corporation.counted_percent`).
    """
    pres_cert = next(c for c in corp.certificates if c.president)
    if pres_cert.reserved:
        return  # reserved for a merger (1893): no presidency until it is founded
    current = pres_cert.owner if isinstance(pres_cert.owner, int) else None
    # with the president's certificate just gone to the market, the outgoing president
    # keeps it while counted among the most (18Rhl-even-1100 #920)
    counted_for = current if current is not None else previous
    cur_pct = corp.counted_percent(counted_for) if counted_for is not None else 0
    taker = presidency_taker(game, corp, after=current if current is not None else previous,
                             above=cur_pct)
    if taker is not None:
        president_swap(game, corp, taker.id, current if current is not None else pres_cert.owner)
