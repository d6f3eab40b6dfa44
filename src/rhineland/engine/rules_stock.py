"""Default stock-market rules (hooks a title may override).

Sources: the seeds' rules summaries and the reference facts' ``rules``
section (``sell_after: operate``, ``sell_movement: down_block``,
``market_share_limit: 50``, ``always_market_price``...).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rhineland.engine.emergency import (
    check_bundle_percent,
    check_presidency_taken,
    check_sale_basics,
)
from rhineland.engine.entities import IPO, MARKET, Certificate, Corporation, Player
from rhineland.engine.rounds.stock_steps import DEFAULT_STOCK_STEPS
from rhineland.engine.shares import (
    counted_sold_percent,
    give,
    move_price,
    operating_order_key,
    set_price,
    sold_percent,
)
from rhineland.engine.titledata import MarketCell
from rhineland.errors import GameError

if TYPE_CHECKING:
    from rhineland.engine.game import Game
    from rhineland.engine.rounds.stock import StockRound
    from rhineland.engine.steps import Step


class StockRules:
    """Stock round, par, float and priority rules with the common 18xx defaults."""

    SALE_SIZE_RULES: ClassVar[frozenset[str]] = frozenset({"stock.market_limit"})
    """Refusals by :meth:`check_sell` that refuse every sale of the same corporation by
    the same player now that is at least as large (in percent): the market pool's limit.
    The legal-action generator tries a player's bundles of a corporation smallest first
    and stops at such a refusal.  A title adds the rules of its own :meth:`check_sell`
    that work so."""

    SALE_CORP_RULES: ClassVar[frozenset[str]] = frozenset({"stock.sell_before_operating"})
    """Refusals by :meth:`check_sell` that refuse every sale of the same corporation by
    the same player now, whatever the bundle (it has not operated).  A title adds its
    own (1893: nothing is sold in the first SR)."""

    # -- limits --------------------------------------------------------------------
    def cert_limit(self, game: Game) -> int:
        """Certificate limit for the player count (reference ``cert_limit``)."""
        return game.data.players[len(game.state.players)][1]

    def counts_for_cert_limit(self, game: Game, corp: Corporation, cert: Certificate) -> bool:
        """Whether ``cert`` counts toward its holder's certificate limit.  Title hook;
        default: every certificate counts."""
        return True

    def private_counts_for_cert_limit(self, game: Game, sym: str) -> bool:
        """Whether private company ``sym`` counts toward the certificate limit (where
        the rules' ``cert_limit_includes_privates`` is on).  Title hook; default: yes."""
        return True

    # -- par --------------------------------------------------------------------------
    def par_cell(self, game: Game, corp: Corporation, share_price: str) -> MarketCell:
        """The par cell named ``"price,row,col"``; raises ``GameError`` if it is not a par cell."""
        try:
            price, row, col = (int(x) for x in share_price.split(","))
        except ValueError:
            raise GameError(f"malformed par price {share_price!r}", "stock.par_price") from None
        cell = game.market.find(price, row, col)
        if cell is None or not self.is_par_cell_for(game, corp, cell):
            pars = ", ".join(str(c.price) for c in self.par_cells_for(game, corp))
            raise GameError(
                f"{price}M at ({row},{col}) is not a par price for {corp.sym} (par prices: "
                f"{pars})",
                "stock.par_price",
            )
        return cell

    def par_cells_for(self, game: Game, corp: Corporation) -> list[MarketCell]:
        """The market cells at which ``corp`` may be parred (see :meth:`is_par_cell_for`)."""
        return [c for c in game.data.par_cells if self.is_par_cell_for(game, corp, c)]

    def is_par_cell_for(self, game: Game, corp: Corporation, cell: MarketCell) -> bool:
        """Whether ``cell`` is a par price for ``corp`` (default: any ``"par"`` cell).
        Title hook; 18Rhl limits RhE's pars, 1893 keeps its 120M cells for mergers."""
        return "par" in cell.types

    def check_par_corporation(self, game: Game, player: Player, corp: Corporation,
                              share_price: str) -> None:
        """The checks of :meth:`par_corporation`, before anything changes: a par cell for
        ``corp``, the president's certificate within ``player``'s cash.  Raises
        ``GameError`` (``"stock.par_price"``, ``"stock.cash"``).  Title hook (with
        :meth:`par_corporation`)."""
        cell = self.par_cell(game, corp, share_price)
        price = cell.price * corp.certificates[0].percent // 10
        if player.cash < price:
            raise GameError(
                f"{player.name} has {player.cash}M, the president's certificate of {corp.sym} "
                f"costs {price}M",
                "stock.cash",
            )

    def par_corporation(self, game: Game, player: Player, corp: Corporation,
                        share_price: str) -> None:
        """Start ``corp`` at ``share_price``: ``player`` buys the president's certificate
        (:meth:`check_par_corporation`)."""
        self.check_par_corporation(game, player, corp, share_price)
        cell = self.par_cell(game, corp, share_price)
        corp.par_price = cell
        set_price(game, corp, cell)
        pres = corp.certificates[0]
        price = cell.price * pres.percent // 10
        game.pay(player, self.share_payment_receiver(game, corp, IPO), price)
        give(game, pres, player.id)
        game.add_log(f"{player.name} pars {corp.sym} at {cell.price}M")
        self.check_float(game, corp)

    # -- buying -------------------------------------------------------------------------
    def check_buy_certificates(self, game: Game, player: Player, corp: Corporation,
                               certs: list[Certificate]) -> None:
        """Title checks on the certificates of a buy: none reserved, one per buy
        (``GameError`` ``"stock.reserved"``, ``"stock.one_certificate"``).  Title hook;
        18Rhl sells KEG's 20% certificates first, 1893 adds merger and first-SR rules."""
        for c in certs:
            if c.reserved:
                raise GameError(f"{c.id} is reserved and cannot be bought", "stock.reserved")
        if len(certs) > 1:
            raise GameError("one certificate per buy", "stock.one_certificate")

    def buy_limits_apply(self, game: Game, player: Player, corp: Corporation) -> bool:
        """Whether a buy of ``corp`` by ``player`` is held to the certificate limit, the
        holding limit and the no-buy-back-after-a-sale rule.  Title hook; default: yes
        (1893: not RAG for FdSD's owner)."""
        return True

    def share_price_for(self, game: Game, corp: Corporation, cert: Certificate,
                        source: str) -> int:
        """Price (M) of ``cert``: the current market price per 10% (IPO at market price)."""
        assert corp.share_price is not None
        return corp.share_price.price * cert.percent // 10

    def share_payment_receiver(self, game: Game, corp: Corporation, source: str) -> Any:
        """Who receives the money for a share bought from ``source``."""
        if source == IPO and corp.floated and corp.capitalization == "incremental":
            return corp
        return game.bank

    def after_share_bought(self, game: Game, player: Player, corp: Corporation) -> None:
        """Called after ``player`` bought shares of ``corp``: the float check."""
        self.check_float(game, corp)

    def float_percent(self, game: Game, corp: Corporation) -> int:
        """Percent players must hold for ``corp`` to float (its spec's ``float_percent``)."""
        return corp.spec.float_percent

    def float_progress(self, game: Game, corp: Corporation) -> int:
        """Percent of ``corp`` that counts toward its float: every share out of the
        IPO (players' and the market's: e.g. a bankrupt president's shares), or only
        the players' when the corporation's data says ``float_excludes_market``
        (1893).  Title hook."""
        if corp.spec.float_excludes_market:
            return sold_percent(corp)
        return 100 - corp.percent_of(IPO)

    def check_float(self, game: Game, corp: Corporation) -> None:
        """Float ``corp`` (:meth:`float_corporation`) once :meth:`float_progress`
        reaches :meth:`float_percent`; only floatable corporations not yet floated."""
        if corp.floated or not corp.spec.floatable:
            return
        if self.float_progress(game, corp) >= self.float_percent(game, corp):
            corp.floated = True
            self.float_corporation(game, corp)

    def float_corporation(self, game: Game, corp: Corporation) -> None:
        """Full capitalisation: 10 × par from the bank."""
        assert corp.par_price is not None
        game.pay(game.bank, corp, corp.par_price.price * 10)
        corp.capitalization = "full"
        game.add_log(f"{corp.sym} floats and receives {corp.cash}M")

    # -- selling -----------------------------------------------------------------------
    def check_sell(self, game: Game, player: Player, corp: Corporation,
                   certs: list[Certificate], percent: int) -> None:
        """Whether ``player`` may sell ``percent`` of ``corp`` in a stock round: it has
        operated, the market pool stays within ``market_share_limit`` (50%) and the
        player holds enough (:func:`rhineland.engine.emergency.check_sale_basics`), and
        another player takes over a president's certificate sold
        (:func:`~rhineland.engine.emergency.check_presidency_taken`).  Raises
        ``GameError`` (``"stock.sell_before_operating"``, ``"stock.market_limit"``,
        ``"stock.sell_percent"``, ``"stock.sell_presidency"``).  Title hook; 1893 forbids
        sales in the first SR.

        Every sale (stock round or emergency) passes this check before anything changes,
        and it only reads the state: the legal-action generator leaves out the bundles
        it refuses without trying them."""
        check_bundle_percent(corp, certs, percent)
        check_sale_basics(game, player, corp, percent)
        check_presidency_taken(game, player, corp, certs)

    def after_shares_sold(self, game: Game, player: Player, corp: Corporation,
                          certs: list[Certificate]) -> None:
        """Price falls one row per sale action (``down_block``)."""
        move_price(game, corp, "down", 1)

    def after_stock_turn(self, game: Game, rnd: StockRound, player: Player) -> None:
        """Called when ``player``'s stock round turn ends."""

    def can_act_in_stock_round(self, game: Game, rnd: StockRound, player: Player) -> bool:
        """Whether ``player`` could buy, start or sell anything now (else they pass)."""
        return self.can_buy_any(game, rnd, player) or self.can_sell_any(game, rnd, player)

    def can_buy_any(self, game: Game, rnd: StockRound, player: Player) -> bool:
        """Whether ``player`` can buy or par anything now: no buy yet this turn, under
        the certificate limit, an affordable certificate (or par) of a corporation
        the player did not sell this round.  Title hook; 1893 adds its privates,
        bonds and FdSD."""
        if rnd.bought_this_turn:
            return False
        at_limit = rnd.cert_count(game, player) >= self.cert_limit(game)
        sold = rnd.sold.get(player.id, set())
        for corp in game.corporations.values():
            limits = self.buy_limits_apply(game, player, corp)
            if corp.closed or (limits and (at_limit or corp.sym in sold)):
                continue
            if not corp.ipoed:
                if corp.spec.floatable and any(
                    c.price * corp.certificates[0].percent // 10 <= player.cash
                    for c in self.par_cells_for(game, corp)
                ) and self.may_par(game, corp):
                    return True
                continue
            if limits and corp.percent_of(player.id) >= corp.spec.max_ownership_percent:
                continue
            for source in (IPO, MARKET):
                for cert in corp.certs_of(source):
                    if cert.reserved or cert.president:
                        continue
                    if self.share_price_for(game, corp, cert, source) <= player.cash:
                        return True
        return False

    def may_par(self, game: Game, corp: Corporation) -> bool:
        """Whether ``corp`` may be started by a par action now."""
        return True

    def can_sell_any(self, game: Game, rnd: StockRound, player: Player) -> bool:
        """Whether ``player`` can sell anything now (by default a share bundle:
        :meth:`can_sell_shares`).  Title hook; 1893 adds bonds."""
        return self.can_sell_shares(game, rnd, player)

    def must_sell(self, game: Game, rnd: StockRound, player: Player) -> bool:
        """Whether ``player`` must sell shares before anything else in their stock-round
        turn: they hold more certificates than the limit and some share sale is possible
        now, or more than a corporation's holding limit (60%) of one whose shares they
        can sell now (over the limit of a corporation they cannot sell, e.g. one formed
        by a merger that has not operated yet, they act as usual: 1893 play.rb
        g1014015 #355, HGK 70%).  The turn then offers share sales only (plus the
        title's :meth:`actions_while_must_sell`), no pass: the reference engine's
        ``must_sell?`` (a player over a limit after a merger, an exchange or a
        presidency change sells down first)."""
        if rnd.cert_count(game, player) > self.cert_limit(game):
            return self.can_sell_shares(game, rnd, player)
        return any(
            c.percent_of(player.id) > c.spec.max_ownership_percent
            and self.can_sell_shares(game, rnd, player, c)
            for c in game.corporations.values() if not c.closed
        )  # the limits first: cheaper than the sale search, and seldom passed

    def actions_while_must_sell(self, game: Game, rnd: StockRound,
                                player: Player) -> frozenset[str]:
        """Action types ``player`` may take besides share sales while they must sell
        (:meth:`must_sell`).  Title hook; default none (18Rhl: sell until under the
        limits, no pass)."""
        return frozenset()

    def can_sell_shares(self, game: Game, rnd: StockRound, player: Player,
                        of: Corporation | None = None) -> bool:
        """Whether ``player`` can sell a share bundle now (of corporation ``of`` only,
        when given): before buying, a bundle of an operated corporation that fits in the
        market pool (:meth:`sale_bundle_percents`).  Title hook; 1893: none in SR 1."""
        if rnd.bought_this_turn:
            return False
        limit = game.data.rules.get("market_share_limit", 50)
        for corp in game.corporations.values() if of is None else (of,):
            if not corp.operated or corp.closed:
                continue
            room = limit - corp.percent_of(MARKET)
            if any(p <= room for p in self.sale_bundle_percents(game, player, corp)):
                return True
        return False

    def sale_bundle_percents(self, game: Game, player: Player, corp: Corporation) -> list[int]:
        """The percents ``player`` may offer for sale in ``corp`` (the reference engine's
        bundles): the holdings smallest first, the president's certificate last, each
        prefix a bundle; a bundle with the president's certificate may also keep back
        10% steps of it, and is offered only if another player holds at least that
        certificate's percent (to take the presidency)."""
        certs = sorted(corp.certs_of(player.id), key=lambda c: (c.president, c.percent))
        out: list[int] = []
        total = 0
        for cert in certs:
            total += cert.percent
            if not cert.president:
                out.append(total)
                continue
            others = max(
                (corp.counted_percent(p.id) for p in game.seat_order() if p is not player),
                default=0,
            )
            if others >= cert.percent:
                out.extend(total - 10 * k for k in range(cert.percent // 10))
        return out

    # -- round flow --------------------------------------------------------------------------
    def start_stock_round(self, game: Game, rnd: StockRound) -> None:
        """Title hook called when a stock round starts (default: nothing)."""
        pass

    def stock_steps(self, game: Game) -> tuple[Step, ...]:
        """A stock round turn: the ordered, declared steps, the first taking an action
        processes it.  Title hook; default: buy, sell, par or pass
        (:data:`~rhineland.engine.rounds.stock_steps.DEFAULT_STOCK_STEPS`)."""
        return DEFAULT_STOCK_STEPS

    def end_stock_round(self, game: Game, rnd: StockRound) -> None:
        """Sold-out corporations move up; then the player order starts with the priority deal."""
        for corp in self.sold_out_order(game):
            move_price(game, corp, "up", 1)
        self.reorder_players(game, rnd)

    def sold_out_order(self, game: Game) -> list[Corporation]:
        """Corporations whose price rises at the end of the SR: floated, open, and
        100% held by players (none left in the IPO or the market), counted as for the
        presidency (:func:`~rhineland.engine.shares.counted_sold_percent`: a holding
        counted 10% short after a partial sale of a president's certificate is not
        sold out), in operating order (so of two in one cell the one that arrived first
        arrives first above)."""
        sold_out = [
            c for c in game.corporations.values()
            if c.floated and not c.closed and counted_sold_percent(c) == 100
        ]
        return sorted(sold_out, key=lambda c: operating_order_key(game, c))

    def reorder_players(self, game: Game, rnd: StockRound) -> None:
        """Rotate the player order so that the priority deal holder
        (:meth:`sr_order_leader`) goes first.  Title hook."""
        first = self.sr_order_leader(game, rnd)
        order = game.state.players
        i = order.index(first)
        game.state.players = order[i:] + order[:i]

    def sr_order_leader(self, game: Game, rnd: StockRound) -> Player:
        """Who leads the order after stock round ``rnd``: the priority deal holder
        (:meth:`priority_player`).  Title hook; 1893 takes the player whose turn it would
        be (the reference engine's round index)."""
        return self.priority_player(game)

    def priority_player(self, game: Game) -> Player:
        """The holder of the priority deal now: the player after the last one to act."""
        rnd = game.state.round
        last = getattr(rnd, "last_to_act", None)
        if last is not None:
            return game.next_player(game.player(last))
        return game.seat_order()[0]

    def trace_priority(self, game: Game) -> Player:
        """The priority-deal holder as the traces report it, by round kind."""
        rnd = game.state.round
        if rnd is not None and rnd.kind == "Auction" and hasattr(rnd, "priority_player"):
            return rnd.priority_player(game)  # type: ignore[no-any-return]
        if rnd is not None and rnd.kind == "Stock":
            return self.priority_player(game)
        return game.seat_order()[0]

    # -- auction hooks --------------------------------------------------------------------
    def min_first_bid(self, game: Game, sym: str, value: int, increment: int) -> int:
        """Least first bid (M) on a waterfall auction item of face value ``value``:
        value plus ``increment`` (18Rhl's RhE director's certificate too: 145M; it goes
        at face value only as the cheapest item left).  Title hook."""
        return value + increment

    def auction_price_drop(self, game: Game, sym: str) -> int:
        """M by which the cheapest auction item's price drops after every player
        passed in a row (default 5M).  Title hook."""
        return 5

    def on_private_bought(self, game: Game, player: Player, private: Any, price: int) -> str | None:
        """Effects of buying a private; returns a corporation whose par is now pending."""
        return None

    # -- scoring ----------------------------------------------------------------------------
    def player_value(self, game: Game, player: Player) -> int:
        """Score in M: cash plus certificates at the current share price (privates count 0)
        plus the title's :meth:`value_extra`."""
        total = player.cash
        pid = player.id
        for corp in game.corporations.values():
            if corp.share_price is None or corp.closed:
                continue
            pct = 0  # corp.percent_of(pid), summed inline: asked for every observation
            for cert in corp.certificates:
                if cert.owner == pid:
                    pct += cert.percent
            total += corp.share_price.price * pct // 10
        return total + self.value_extra(game, player)

    def player_values(self, game: Game) -> dict[int, int]:
        """:meth:`player_value` of every player, by player id (in seat order): the
        certificates counted in one pass over the corporations (an observation asks for
        every player's value)."""
        players = game.state.players
        totals = {p.id: p.cash for p in players}
        for corp in game.corporations.values():
            sp = corp.share_price
            if sp is None or corp.closed:
                continue
            pcts: dict[int, int] = {}
            for cert in corp.certificates:
                owner = cert.owner
                if isinstance(owner, int) and owner in totals:
                    pcts[owner] = pcts.get(owner, 0) + cert.percent
            for pid, pct in pcts.items():
                totals[pid] += sp.price * pct // 10
        for p in players:
            totals[p.id] += self.value_extra(game, p)
        return totals

    def value_extra(self, game: Game, player: Player) -> int:
        """M a title adds to (or, negative, takes from) a player's value beyond cash and
        certificates (default 0).  Title hook."""
        return 0

