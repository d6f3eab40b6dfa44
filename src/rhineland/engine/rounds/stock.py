"""The stock round: sell any number of certificates, then buy or start one; or pass.

Rules (source: seeds ``000``/``001``, reference facts ``rules``):

* Selling: only certificates of corporations that have operated; at most the
  market-pool limit (50%) may lie in the market; the president's certificate is
  never sold to the market (the presidency passes first); each sale action
  moves the price down one row.  A player may not buy back a corporation they
  sold in the same round.
* Buying: one certificate per turn from the IPO (at the current market price)
  or the market; certificate limit per player count; the title's holding limit.
* Starting (par): the president's certificate at a par cell.
* The round ends when every player has passed in a row; then the title's
  end-of-round price moves apply and the priority deal is decided.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rhineland.engine.actions import Action, BuyShares, Par, SellShares
from rhineland.engine.entities import IPO, MARKET, Certificate, Corporation, Holder, Player
from rhineland.engine.rounds.base import Round, finish_round
from rhineland.engine.rounds.turns import StockTurn
from rhineland.engine.rules_stock import StockRules
from rhineland.engine.shares import (
    check_presidency,
    give,
    oldest_in_market,
    presidency_taker,
    swap_certificates,
    to_market,
)
from rhineland.errors import GameError

if TYPE_CHECKING:
    from rhineland.engine.game import Game
    from rhineland.engine.legal.choices import Candidate
    from rhineland.engine.steps import Step


class StockRound(Round):
    """A stock round; see the module docstring."""

    kind = "Stock"

    def __init__(self, turn: int) -> None:
        super().__init__(turn)
        self.current: int | None = None
        self.passes = 0
        self.last_to_act: int | None = None
        self.bought_this_turn = False
        self.sold_this_turn: list[str] = []
        self.sold: dict[int, set[str]] = {}
        self.last_buy_kind = ""  # "shares" (buy, par) or a title's other kind of buy

    def start(self, game: Game) -> None:
        """Start the SR with the first player in seat order (title hook
        ``start_stock_round``); players who cannot act pass automatically."""
        self.current = game.seat_order()[0].id
        game.title.start_stock_round(game, self)
        self._skip_idle(game)

    def _skip_idle(self, game: Game) -> None:
        """Players who can neither buy nor sell anything pass automatically."""
        for _ in range(len(game.state.players) + 1):
            if game.state.round is not self or self.current is None:
                return
            player = game.player(self.current)
            if game.title.can_act_in_stock_round(game, self, player):
                return
            game.add_log(f"{player.name} has no possible action and passes")
            self.end_turn(game, player, passed=True, skip=False)

    def current_entity(self, game: Game) -> Any:
        """The player whose turn it is."""
        assert self.current is not None
        return game.player(self.current)

    def step_name(self, game: Game) -> str:
        """Always ``"buy_sell_par_shares"``."""
        return "buy_sell_par_shares"

    # -- processing --------------------------------------------------------------
    def candidates(self, game: Game) -> list[Candidate]:
        """Each declared step's candidates for the player whose turn it is
        (:meth:`rhineland.engine.steps.Step.candidates`), in the title's order."""
        player = self.current_entity(game)
        out: list[Candidate] = []
        for step in game.title.stock_steps(game):
            out.extend(step.candidates(game, self, player))
        return out

    def process(self, game: Game, action: Action) -> None:
        """Apply the action in the first of the title's declared steps that takes it
        (:meth:`~rhineland.engine.rules_stock.StockRules.stock_steps`: by default a pass,
        sale, buy or par; 1893's bonds and privates before it).  Raises ``GameError``
        when it is not the player's turn or illegal."""
        step, entity = self.route(game, action)
        step.process(game, self, entity, action)

    def route(self, game: Game, action: Action) -> tuple[Step, Player]:
        """The first of the title's declared steps that takes ``action`` and the player
        whose turn it is, after the must-sell check (:meth:`check_must_sell`).  Raises
        ``GameError`` (``"stock.must_sell"``, ``"stock.action"``)."""
        entity = self.current_entity(game)
        self.check_must_sell(game, entity, action)
        for step in game.title.stock_steps(game):
            if step.takes(game, self, entity, action):
                return step, entity
        raise GameError(f"{action.type} is not possible in a stock round", "stock.action")

    def check(self, game: Game, action: Action) -> bool:
        """The taking step's check (:meth:`route`), the state untouched; True when it is
        the whole of the rules for ``action``.  Raises ``GameError`` as :meth:`process`
        would first."""
        step, entity = self.route(game, action)
        step.check(game, self, entity, action)
        return step.complete(game, self, entity, action)

    def check_must_sell(self, game: Game, player: Player, action: Action) -> None:
        """While ``player`` must sell (over the certificate or holding limit,
        :meth:`~rhineland.engine.rules_stock.StockRules.must_sell`), only share sales and
        the title's exceptions are open to them.  Raises ``GameError``
        [``stock.must_sell``]."""
        if action.entity != player.id or action.type == SellShares.TYPE:
            return
        if not game.remembered(("must_sell", player.id),
                               lambda: game.title.must_sell(game, self, player)):
            return
        if action.type in game.title.actions_while_must_sell(game, self, player):
            return
        limit = game.title.cert_limit(game)
        raise GameError(
            f"{player.name} holds {self.cert_count(game, player)} certificates (limit "
            f"{limit}) or more than a corporation's holding limit and must sell shares "
            "first",
            "stock.must_sell",
        )

    def end_turn(self, game: Game, player: Player, *, passed: bool, skip: bool = True,
                 for_priority: bool = True) -> None:
        """Hand the turn to the next player; end the round after a full lap of passes.

        A turn in which the player acted makes them the last to act (the priority deal
        goes to the next player); with ``for_priority`` False nobody is (the first player
        in order holds the priority deal: 1893's FdSD exchange, made by the private,
        which is closed by it).
        """
        if passed and not self.sold_this_turn and not self.bought_this_turn:
            self.passes += 1
        else:
            self.passes = 0
            self.last_to_act = player.id if for_priority else None
        game.title.after_stock_turn(game, self, player)
        self.bought_this_turn = False
        self.sold_this_turn = []
        self.last_buy_kind = ""
        self.current = game.next_player(player).id
        if self.passes >= len(game.seat_order()):
            game.title.end_stock_round(game, self)
            finish_round(game, self)
        elif skip:
            self._skip_idle(game)

    def pass_turn(self, game: Game, player: Player) -> None:
        """``player`` passes: the turn ends."""
        game.add_log(f"{player.name} passes")
        self.end_turn(game, player, passed=True)

    # -- checks shared by buy and par ---------------------------------------------------
    def cert_count(self, game: Game, player: Player) -> int:
        """Certificates counting toward the limit (privates too where the title says so);
        once per position in the legal-action checks (:meth:`Game.remembered
        <rhineland.engine.game.Game.remembered>`)."""
        return game.remembered(("cert_count", player.id),
                               lambda: self._cert_count(game, player))

    def _cert_count(self, game: Game, player: Player) -> int:
        pid = player.id
        if type(game.title).counts_for_cert_limit is StockRules.counts_for_cert_limit:
            # every certificate counts (no title hook to ask for each): asked by every
            # stock-round trial (the must-sell and limit checks)
            n = [cert.owner for c in game.corporations.values()
                 for cert in c.certificates].count(pid)
        else:
            n = sum(
                1 for c in game.corporations.values() for cert in c.certificates
                if cert.owner == pid and game.title.counts_for_cert_limit(game, c, cert)
            )
        if game.data.rules.get("cert_limit_includes_privates", True):
            n += sum(
                1 for sym in player.companies
                if game.title.private_counts_for_cert_limit(game, sym)
            )
        return n

    def check_buy_corporation(self, game: Game, player: Player, corp: Corporation) -> bool:
        """The checks of :meth:`check_can_buy` that look neither at the certificates nor
        at the price: one buy per turn, no buy-back after a sale this round (where the
        title's limits apply).  Returns whether those limits apply to this buy
        (:meth:`~rhineland.engine.rules_stock.StockRules.buy_limits_apply`).  Raises
        ``GameError`` (``"stock.one_buy"``, ``"stock.buy_after_sell"``).  The legal-action
        generator asks it once per corporation before it proposes its certificates."""
        if self.bought_this_turn:
            raise GameError(
                f"{player.name} has already bought a certificate this turn", "stock.one_buy"
            )
        limits = game.title.buy_limits_apply(game, player, corp)
        if limits and corp.sym in self.sold.get(player.id, set()):
            raise GameError(
                f"{player.name} sold {corp.sym} this round and may not buy it back",
                "stock.buy_after_sell",
            )
        return bool(limits)

    def check_cert_room(self, game: Game, player: Player, count: int) -> None:
        """The certificate limit of a buy where it applies: ``player`` may take ``count``
        more certificates (:meth:`cert_count` against the title's ``cert_limit``).  Raises
        ``GameError`` (``"stock.cert_limit"``).  Part of :meth:`check_can_buy`; the
        legal-action generator asks it once per player and corporation before it proposes
        a certificate of a corporation whose buys it limits."""
        limit = game.title.cert_limit(game)
        if self.cert_count(game, player) + count > limit:
            raise GameError(
                f"{player.name} would hold more than {limit} certificates", "stock.cert_limit"
            )

    def check_can_buy(self, game: Game, player: Player, corp: Corporation, certs: list[Certificate],
                      price: int) -> None:
        """Checks for ``player`` buying ``certs`` of ``corp`` for ``price`` M: one buy
        per turn, no buy-back after a sale this round, cash, certificate limit,
        holding limit.  Raises ``GameError`` (``"stock.one_buy"``,
        ``"stock.buy_after_sell"``, ``"stock.cash"``, ``"stock.cert_limit"``,
        ``"stock.holding_limit"``).  Where the title lifts the limits for this buy
        (:meth:`~rhineland.engine.rules_stock.StockRules.buy_limits_apply`), only one buy
        per turn and cash are checked."""
        limits = self.check_buy_corporation(game, player, corp)
        if player.cash < price:
            raise GameError(
                f"{player.name} has {player.cash}M, {'+'.join(c.id for c in certs)} costs "
                f"{price}M",
                "stock.cash",
            )
        if not limits:
            return
        self.check_cert_room(game, player, len(certs))
        pct = corp.percent_of(player.id) + sum(c.percent for c in certs)
        if pct > corp.spec.max_ownership_percent:
            raise GameError(
                f"{player.name} would hold {pct}% of {corp.sym}, the limit is "
                f"{corp.spec.max_ownership_percent}%",
                "stock.holding_limit",
            )

    # -- actions -------------------------------------------------------------------
    def check_par(self, game: Game, player: Player, action: Par) -> Corporation:
        """Every check of :meth:`par`, before anything changes; returns the corporation.
        Raises ``GameError`` (``"stock.par"`` when already started, the par cell, the buy
        checks, the title's ``check_par_corporation``)."""
        corp = game.corporation(action.corporation)
        if corp.ipoed:
            raise GameError(f"{corp.sym} has already started", "stock.par")
        cell = game.title.par_cell(game, corp, action.share_price)
        pres = corp.certificates[0]
        price = cell.price * pres.percent // 10
        self.check_can_buy(game, player, corp, [pres], price)
        game.title.check_par_corporation(game, player, corp, action.share_price)
        return corp

    def par(self, game: Game, player: Player, action: Par) -> None:
        """Start (par) a corporation: ``player`` buys its president's certificate at
        the chosen par price; ends the turn.  Raises ``GameError`` (:meth:`check_par`
        alone)."""
        corp = self.check_par(game, player, action)
        game.title.par_corporation(game, player, corp, action.share_price)
        self.bought_this_turn = True
        self.last_buy_kind = "shares"
        self.end_turn(game, player, passed=False)

    def check_buy(self, game: Game, player: Player,
                  action: BuyShares) -> tuple[Corporation, list[Certificate], str, int]:
        """Every check of :meth:`buy`, before anything changes: the corporation, the
        certificates, their source (``IPO`` or ``MARKET``) and the price (M).  Raises
        ``GameError`` (``"stock.buy"``, ``"stock.buy_source"``, ``"stock.not_ipoed"``, the
        title's certificate checks, :meth:`check_can_buy`)."""
        certs = [self._cert(game, sid) for sid in action.shares]
        if not certs:
            raise GameError("buy_shares names no certificate", "stock.buy")
        corp = game.corporation(certs[0].corporation)
        if any(c.corporation != corp.sym for c in certs):
            raise GameError("certificates of one corporation per buy", "stock.buy")
        source = str(certs[0].owner)
        if any(c.owner != source for c in certs) or source not in (IPO, MARKET):
            raise GameError(
                f"{', '.join(c.id for c in certs)} are not for sale in the IPO or market",
                "stock.buy_source",
            )
        if not corp.ipoed:
            raise GameError(f"{corp.sym} has not been started", "stock.not_ipoed")
        game.title.check_buy_certificates(game, player, corp, certs)
        assert corp.share_price is not None
        price = sum(game.title.share_price_for(game, corp, c, source) for c in certs)
        self.check_can_buy(game, player, corp, certs, price)
        return corp, certs, source, price

    def buy(self, game: Game, player: Player, action: BuyShares) -> None:
        """Buy certificates of one corporation from the IPO or the market at the
        title's price (:meth:`check_buy`), pay the title's receiver, check the
        presidency and the float, end the turn.  Raises ``GameError`` (:meth:`check_buy`
        alone: what follows refuses nothing)."""
        corp, certs, source, price = self.check_buy(game, player, action)
        receiver = game.title.share_payment_receiver(game, corp, source)
        game.pay(player, receiver, price)
        for c in certs:
            give(game, c, player.id)
        game.add_log(
            f"{player.name} buys {sum(c.percent for c in certs)}% of {corp.sym} from "
            f"{'the market' if source == MARKET else 'the IPO'} for {price}M"
        )
        check_presidency(game, corp)
        game.title.after_share_bought(game, player, corp)
        self.bought_this_turn = True
        self.last_buy_kind = "shares"
        self.end_turn(game, player, passed=False)

    def check_sell(self, game: Game, player: Player,
                   action: SellShares) -> tuple[Corporation, list[Certificate]]:
        """Every check of :meth:`sell`, before anything changes: the corporation and the
        certificates.  Raises ``GameError`` (``"stock.sell*"``, the title's sale checks,
        ``"stock.sell_president"``: :func:`sale_president`)."""
        certs = [self._cert(game, sid) for sid in action.shares]
        if not certs:
            raise GameError("sell_shares names no certificate", "stock.sell")
        corp = game.corporation(certs[0].corporation)
        if self.bought_this_turn:
            raise GameError("selling comes before buying in a turn", "stock.sell_buy_order")
        for c in certs:
            if c.owner != player.id:
                raise GameError(f"{player.name} does not hold {c.id}", "stock.sell_owner")
        game.title.check_sell(game, player, corp, certs, action.percent)
        sale_president(game, player, corp, certs, action.percent)
        return corp, certs

    def sell(self, game: Game, player: Player, action: SellShares) -> None:
        """Sell ``player``'s certificates of one corporation to the market (before any
        buy this turn; no buy-back this round); the turn ends when the player can do
        nothing more.  Raises ``GameError`` (:meth:`check_sell` alone)."""
        corp, certs = self.check_sell(game, player, action)
        sell_certificates(game, player, corp, certs, action.percent)
        self.sold.setdefault(player.id, set()).add(corp.sym)
        self.sold_this_turn.append(corp.sym)
        self.last_to_act = player.id
        if not game.title.can_act_in_stock_round(game, self, player):
            self.end_turn(game, player, passed=True)

    def _cert(self, game: Game, share_id: str) -> Certificate:
        sym, _, idx = share_id.rpartition("_")
        corp = game.corporations.get(sym)
        if corp is None or not idx.isdigit() or int(idx) >= len(corp.certificates):
            raise GameError(f"no share certificate {share_id!r}", "stock.share_id")
        return corp.certificates[int(idx)]


def sell_certificates(
    game: Game, player: Player, corp: Corporation, certs: list[Certificate], percent: int
) -> None:
    """Sell ``percent`` of ``corp`` held by ``player`` to the market (bank pays the price).

    Selling (part of) the president's certificate needs another player with at
    least its percentage.  As the reference engine does it: the sold
    certificates go to the market; the new president takes the president's
    certificate and hands over certificates worth it (a double if one matches),
    to the seller if they still hold at least the president's percentage, else
    to the market.  When only part of the president's share was sold, the
    seller then takes back one certificate per 10% kept, each the one longest
    in the market whatever its size (a 20% certificate counts as one).
    """
    assert corp.share_price is not None
    total = corp.share_price.price * percent // 10
    pres_cert = next(c for c in corp.certificates if c.president)
    new_pres = sale_president(game, player, corp, certs, percent)
    if new_pres is not None:
        others = [c for c in certs if not c.president]
        kept = pres_cert.percent - (percent - sum(c.percent for c in others))
        holders: list[Holder] = [player.id, new_pres.id, MARKET]
        before = {h: corp.percent_of(h) for h in holders}
        for c in certs:
            to_market(game, c)
        swap_to: Holder = (
            player.id if corp.percent_of(player.id) >= pres_cert.percent else MARKET
        )
        swap = swap_certificates(corp, new_pres.id, pres_cert.percent)
        give(game, pres_cert, new_pres.id)
        for c in swap:
            give(game, c, swap_to)
        for _ in range(kept // 10):
            back = oldest_in_market(corp)
            if back is not None:
                give(game, back, player.id)
        # the share count moves by the percent sold alone (see Corporation.counted_percent)
        counted = {player.id: -percent, new_pres.id: 0, MARKET: percent}
        for h in holders:
            off = corp.count_offset.get(h, 0) + counted[h] - (corp.percent_of(h) - before[h])
            if off:
                corp.count_offset[h] = off
            else:
                corp.count_offset.pop(h, None)
        game.add_log(f"{new_pres.name} becomes the president of {corp.sym}")
        certs = others
    else:
        for c in certs:
            to_market(game, c)
    game.pay(game.bank, player, total)
    game.add_log(f"{player.name} sells {percent}% of {corp.sym} for {total}M")
    game.title.after_shares_sold(game, player, corp, certs)
    check_presidency(game, corp)


def sale_president(game: Game, player: Player, corp: Corporation, certs: list[Certificate],
                   percent: int) -> Player | None:
    """Who takes the presidency of ``corp`` when ``player`` sells ``percent`` of it
    (``certs``): ``None`` when the president's certificate is not among them.  Raises
    ``GameError`` (``"stock.sell_president"``) when no one may; the one refusal of
    :func:`sell_certificates` (the sale's checks make it before anything changes)."""
    pres_cert = next(c for c in corp.certificates if c.president)
    if pres_cert not in certs:
        return None
    return _next_president(game, player, corp, percent)


def _next_president(game: Game, seller: Player, corp: Corporation, percent: int) -> Player:
    """Who takes the presidency when ``seller`` sells ``percent`` including the
    certificate (:func:`~rhineland.engine.shares.presidency_taker`: the most, more than
    the seller keeps); ``GameError`` (``"stock.sell_president"``) when no one may."""
    taker = presidency_taker(game, corp, after=seller.id,
                             above=corp.counted_percent(seller.id) - percent, exclude=seller.id)
    if taker is None:
        raise GameError(
            f"{seller.name} cannot sell the president's certificate of {corp.sym}: no other "
            "player could take the presidency",
            "stock.sell_president",
        )
    return taker


def stock_round(rnd: Round) -> StockRound:
    """``rnd`` as the stock round it is (for a title's steps, which may know the class)."""
    assert isinstance(rnd, StockRound)
    return rnd


_STEPS_SEE: type[StockTurn] = StockRound
"""The stock round is the :class:`StockTurn` its steps read (checked by mypy)."""
