"""Emergency money: a president raising cash for a train the company must buy.

One set of rule helpers for both titles (seeds ``000``/``001`` "Emergency sell":
treasury, then the president's cash, then forced sales of the president's
shares; the reference facts ``rules``: ``ebuy_depot_train_must_be_cheapest``,
``ebuy_pres_swap``, ``ebuy_sell_more_than_needed``, ``market_share_limit``).

* The need (:func:`emergency_need`): the cheapest train on offer from the depot
  less the company's treasury and the president's cash, in M.  Shares may be
  sold only while it is positive.
* A sale (:func:`check_emergency_sale`) may not fill the market pool beyond the
  market limit (50%), may not be of a corporation that has not operated, may not
  pass the presidency of the operating company to another player (with
  ``ebuy_pres_swap`` false, of no company), and must sell only enough: the sale
  less one certificate (:func:`smallest_step`) must fall short of the need (unless
  ``ebuy_sell_more_than_needed``).
* Bankruptcy (:func:`emergency_means`): only when the treasury, the president's
  cash and every share they could sell (:func:`emergency_bundles`, the president's
  certificate of another company included) together fall short of the cheapest
  train.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rhineland.engine.entities import MARKET, Certificate, Corporation, Player
from rhineland.engine.shares import presidency_taker
from rhineland.errors import GameError

if TYPE_CHECKING:
    from rhineland.engine.game import Game


def cheapest_train_price(game: Game) -> int | None:
    """Price (M) of the cheapest train on offer from the depot or the open market
    (``ebuy_depot_train_must_be_cheapest``), ``None`` when none is left."""
    prices = [t.spec.price for t in game.title.available_depot_trains(game)]
    return min(prices) if prices else None


def emergency_need(game: Game, entity: Any, player: Player) -> int:
    """M still missing for the cheapest train: its price less ``entity``'s treasury and
    its president ``player``'s cash (0 or less: nothing is missing; 0 without a train)."""
    price = cheapest_train_price(game)
    if price is None:
        return 0
    return int(price - entity.cash - player.cash)


def keeps_presidency(game: Game, entity: Any, player: Player, corp: Corporation,
                     percent: int) -> bool:
    """Whether ``player`` selling ``percent`` of ``corp`` in an emergency leaves its
    presidency where it is, as the rules require for the operating company ``entity``
    (and for every company without ``ebuy_pres_swap``): what they keep is at least
    what any other player holds.  True when ``player`` is not ``corp``'s president."""
    if corp.president != player.id:
        return True
    if corp is not entity and game.data.rules.get("ebuy_pres_swap", True):
        return True
    others = [corp.percent_of(p.id) for p in game.state.players
              if p.id != player.id and not p.bankrupt]
    return corp.percent_of(player.id) - percent >= max(others, default=0)


def check_sale_basics(game: Game, player: Player, corp: Corporation, percent: int) -> None:
    """The market's own limits on any sale: ``corp`` has operated, the market pool stays
    within ``market_share_limit`` (50%), ``player`` holds ``percent``.  Raises
    ``GameError`` (``"stock.sell_before_operating"``, ``"stock.market_limit"``,
    ``"stock.sell_percent"``)."""
    if not corp.operated:
        raise GameError(
            f"shares of {corp.sym} cannot be sold before it has operated",
            "stock.sell_before_operating",
        )
    in_market = corp.percent_of(MARKET)
    limit = game.data.rules.get("market_share_limit", 50)
    if in_market + percent > limit:
        raise GameError(
            f"the market would hold {in_market + percent}% of {corp.sym}, the limit is "
            f"{limit}%",
            "stock.market_limit",
        )
    if percent > corp.percent_of(player.id):
        raise GameError(
            f"{player.name} holds {corp.percent_of(player.id)}% of {corp.sym}, cannot sell "
            f"{percent}%",
            "stock.sell_percent",
        )


def check_presidency_taken(game: Game, player: Player, corp: Corporation,
                           certs: list[Certificate]) -> None:
    """A sale with the president's certificate needs another player holding at least its
    percent (counted as for the presidency), who takes it over: the president's
    certificate is never sold into the market (18xx.games refuses it: "Cannot sell
    shares").  Raises ``GameError`` (``"stock.sell_presidency"``)."""
    pres = next((c for c in certs if c.president), None)
    if pres is None:
        return
    others = max((corp.counted_percent(p.id) for p in game.state.players
                  if p is not player and not p.bankrupt), default=0)
    if others < pres.percent:
        raise GameError(
            f"{player.name} cannot sell {corp.sym}'s president's certificate: no other "
            f"player holds {pres.percent}% to take the presidency (the most is {others}%)",
            "stock.sell_presidency",
        )


def check_bundle_percent(corp: Corporation, certs: list[Certificate], percent: int) -> None:
    """A sale's ``percent`` matches its certificates: their sum, or, when the president's
    certificate is among them, their sum less a part of it kept (in 10% steps; the part
    sold goes by a presidency swap).  Raises ``GameError`` (``"stock.sell_percent"``)."""
    others = sum(c.percent for c in certs if not c.president)
    pres = sum(c.percent for c in certs if c.president)
    ok = percent == others if not pres else (
        others < percent <= others + pres and (percent - others) % 10 == 0)
    if not ok:
        ids = ", ".join(c.id for c in certs)
        raise GameError(
            f"a sale of {ids} ({others + pres}% of {corp.sym}) cannot be of {percent}%",
            "stock.sell_percent",
        )


def check_emergency_sale(game: Game, entity: Any, player: Player, corp: Corporation,
                         certs: list[Certificate], percent: int) -> None:
    """Whether ``player``, president of ``entity`` which must buy a train, may sell
    ``percent`` of ``corp`` (``certs``) now.  Raises ``GameError``:
    ``"train.emergency_sell"`` (nothing is missing), the title's sale check
    (:meth:`~rhineland.engine.rules_stock.StockRules.check_sell`: the market limits of
    :func:`check_sale_basics`), ``"train.emergency_presidency"`` (the operating
    company's presidency would pass), ``"train.emergency_sell_excess"`` (more than
    needed: the sale less its smallest certificate, :func:`smallest_step`, would cover
    the train)."""
    need = emergency_need(game, entity, player)
    if need <= 0:
        raise GameError(
            f"{player.name} and {entity.sym} have {player.cash + entity.cash}M, enough for "
            f"the cheapest train: no shares may be sold",
            "train.emergency_sell",
        )
    for c in certs:
        if c.owner != player.id:
            raise GameError(f"{player.name} does not hold {c.id}", "stock.sell_owner")
    game.title.check_sell(game, player, corp, certs, percent)
    if not keeps_presidency(game, entity, player, corp, percent):
        raise GameError(
            f"{player.name} may not sell {percent}% of {corp.sym} in an emergency: the "
            f"presidency of the operating company would pass to another player",
            "train.emergency_presidency",
        )
    assert corp.share_price is not None
    share = corp.share_price.price
    smaller = percent - smallest_step(certs)
    if not game.data.rules.get("ebuy_sell_more_than_needed", False) and (
        share * smaller // 10 >= need
    ):
        raise GameError(
            f"{player.name} must sell only enough for the train: {need}M are missing, "
            f"{percent}% of {corp.sym} bring {share * percent // 10}M, {smaller}% "
            f"(one certificate less) would do",
            "train.emergency_sell_excess",
        )


def smallest_step(certs: list[Certificate]) -> int:
    """Percent by which a sale of ``certs`` is one certificate smaller: its smallest
    certificate, the president's counted whole (a 20% certificate is sold whole; the
    reference engine's "next smaller bundle")."""
    return min((c.percent for c in certs), default=10)


def emergency_bundles(game: Game, entity: Any,
                      player: Player) -> list[tuple[Corporation, list[Certificate], int]]:
    """Per corporation, the largest bundle ``player`` may sell in an emergency, as
    (corporation, certificates, percent): the reference engine's bundles (the holding
    smallest certificate first, the president's certificate last, each prefix a
    bundle, and with the president's certificate also 10% steps less of it, offered
    only when another player holds at least its percent), of those the sale check
    (:meth:`~rhineland.engine.rules_stock.StockRules.check_sell`: operated, within
    the market limit) accepts and that keep the operating company's presidency
    (:func:`keeps_presidency`).  The president's certificate of another company
    counts (its presidency passes by the sale).  Certificates of one size go newest
    first."""
    out = []
    for corp in game.corporations.values():
        if not corp.operated or corp.closed or corp.share_price is None:
            continue
        certs = sorted(corp.certs_of(player.id), key=lambda c: (c.president, c.percent, -c.index))
        if not certs:
            continue
        others = max((corp.counted_percent(p.id) for p in game.state.players
                      if p is not player and not p.bankrupt), default=0)
        best: tuple[list[Certificate], int] | None = None
        total = 0
        for i, cert in enumerate(certs):
            total += cert.percent
            if not cert.president:
                percents = [total]
            elif others >= cert.percent:
                # another player must take the presidency: hold more than is kept
                held = corp.counted_percent(player.id)
                percents = [p for p in (total - 10 * k for k in range(cert.percent // 10))
                            if presidency_taker(game, corp, after=player.id, above=held - p,
                                                exclude=player.id) is not None]
            else:
                percents = []
            for pct in percents:
                if best is not None and pct <= best[1]:
                    continue
                if not keeps_presidency(game, entity, player, corp, pct):
                    continue
                try:
                    game.title.check_sell(game, player, corp, certs[:i + 1], pct)
                except GameError:
                    continue
                best = (certs[:i + 1], pct)
        if best is not None:
            out.append((corp, best[0], best[1]))
    return out


def emergency_means(game: Game, entity: Any, player: Player) -> int:
    """M ``entity`` and its president ``player`` could raise for a train: the treasury,
    the president's cash and every share :func:`emergency_bundles` allows selling."""
    total = int(entity.cash + player.cash)
    for corp, _certs, percent in emergency_bundles(game, entity, player):
        assert corp.share_price is not None
        total += corp.share_price.price * percent // 10
    return total


def check_may_go_bankrupt(game: Game, entity: Any, player: Player) -> int:
    """Price (M) of the cheapest train ``entity`` must buy and cannot pay even after
    its president ``player`` sells all they may (with the title's
    :meth:`~rhineland.engine.rules_trains.TrainRules.bankruptcy_extra_means`); raises ``GameError``
    (``"bankrupt.no_train"``, ``"bankrupt.can_pay"``) otherwise."""
    price = cheapest_train_price(game)
    if price is None:
        raise GameError("no train left in the depot", "bankrupt.no_train")
    cash = int(entity.cash + player.cash)
    if cash >= price:  # the means are at least this much (shares and extras add to it)
        raise GameError(
            f"{player.name} cannot go bankrupt: {entity.sym}'s cash and {player.name}'s "
            f"cash total {cash}M, the cheapest train costs {price}M",
            "bankrupt.can_pay",
        )
    means = emergency_means(game, entity, player) + game.title.bankruptcy_extra_means(
        game, entity, player)
    if means >= price:
        raise GameError(
            f"{player.name} cannot go bankrupt: {entity.sym}'s cash plus {player.name}'s "
            f"cash and sellable shares (and bonds) total {means}M, the cheapest train costs "
            f"{price}M",
            "bankrupt.can_pay",
        )
    return price
