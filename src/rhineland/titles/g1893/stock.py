"""1893's Starting Package and stock round: bonds, the FdSD exchange, RAG's par by FdSD,
EVA between players.

Sources: seed ``001`` and the oracle traces (``docs/rules-differences.md``, 1893).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rhineland.engine.actions import (
    Action,
    BuyCompany,
    BuyShares,
    Par,
    SellCompany,
)
from rhineland.engine.entities import IPO, MARKET, Certificate, Corporation, Player
from rhineland.engine.shares import check_presidency, give, to_market
from rhineland.engine.title import Title
from rhineland.errors import GameError
from rhineland.titles.g1893.constants import (
    MERGED,
    MERGED_PAR,
    MINOR_MIN_TREASURY,
    MINORS,
    PRIVATES,
    is_bond,
)
from rhineland.titles.g1893.state import cologne_state
from rhineland.titles.g1893.steps import EVA_MIN_PRICE

if TYPE_CHECKING:
    from rhineland.engine.game import Game
    from rhineland.engine.rounds.stock import StockRound
    from rhineland.engine.steps import Step

BONDS = "AdSK"
"""The bonds' key in a stock round's record of what each player sold (``rnd.sold``)."""


class CologneStock(Title):
    """Stock-round hooks of :class:`rhineland.titles.g1893.rules.Cologne`."""

    SALE_CORP_RULES: ClassVar[frozenset[str]] = Title.SALE_CORP_RULES | {"stock.sell_first_sr"}
    """The common ones and :meth:`check_sell`'s first stock round (no sale at all)."""

    # -- the Starting Package (draft and forced auction) -------------------------------
    def unsold_package(self, game: Game) -> list[str]:
        """Starting Package items (3 privates, 5 minors) the bank still owns, in package order."""
        return [
            s
            for s in PRIVATES + MINORS
            if game.private(s).owner == "bank" and not game.private(s).closed
        ]

    def draftables(self, game: Game) -> list[str]:
        """On offer: every unsold private and the two lowest-numbered unsold minors."""
        unsold = self.unsold_package(game)
        privates = [s for s in unsold if s in PRIVATES]
        minors = [s for s in unsold if s in MINORS]
        return privates + minors[:2]

    def check_package_payment(self, game: Game, player: Player, sym: str, price: int) -> None:
        """The check of :meth:`buy_package_item`, before anything changes: ``player`` has
        ``price`` M.  Raises ``GameError`` (``"draft.cash"``)."""
        if player.cash < price:
            raise GameError(f"{player.name} has {player.cash}M, {sym} costs {price}M", "draft.cash")

    def buy_package_item(self, game: Game, player: Player, sym: str, price: int) -> None:
        """``player`` buys a Starting Package item; a minor floats with its treasury
        (at least 100M: the bank adds the difference).  Raises ``GameError``
        (:meth:`check_package_payment`)."""
        self.check_package_payment(game, player, sym, price)
        private = game.private(sym)
        game.pay(player, game.bank, price)
        private.owner = player.id
        player.companies.append(sym)
        game.add_log(f"{player.name} buys {sym} for {price}M")
        if sym in game.minors:
            minor = game.minors[sym]
            minor.owner = player.id
            minor.floated = True
            game.pay(game.bank, minor, max(price, MINOR_MIN_TREASURY))

    # -- stock round ------------------------------------------------------------------
    def stock_steps(self, game: Game) -> tuple[Step, ...]:
        """1893's stock round turn (:data:`rhineland.titles.g1893.stock_steps.STOCK_STEPS`):
        RAG's par by FdSD's owner (FdSD may pay: docs/rules-differences.md 1893 (f)), the
        FdSD exchange, buying a package item, a bond or EVA, selling a bond; a pass in
        SR 1 makes the player a first-SR passer."""
        from rhineland.titles.g1893.stock_steps import STOCK_STEPS

        return STOCK_STEPS

    def buy_limits_apply(self, game: Game, player: Player, corp: Corporation) -> bool:
        """FdSD's owner buys (or pars) RAG free of the certificate limit, the holding
        limit and the no-buy-back rule while FdSD is open: the reference engine accepts
        any RAG certificate FdSD's owner can pay for (its exchange shortcut; released g23
        #248: 1001 at 9/9 certificates buys RAG_8).  The seed rule set holds FdSD's
        owner to the limits like everyone (seed 001: "No player may hold more than
        60% ..."; docs/rules-differences.md 1893 (h))."""
        if not self.rule_set.fdsd_owner_free_of_limits:  # type: ignore[attr-defined]
            return True
        return not (corp.sym == "RAG" and self.owns_fdsd(game, player.id))

    def owns_fdsd(self, game: Game, pid: Any) -> bool:
        """Whether player ``pid`` owns the open FdSD private."""
        fdsd = game.private("FdSD")
        return not fdsd.closed and fdsd.owner == pid

    def exchange_fdsd_for_par(self, game: Game, player: Player, amount: int) -> None:
        """FdSD is exchanged for RAG's president's certificate: the bank pays the par."""
        self.close_private(game, game.private("FdSD"))
        game.pay(game.bank, player, amount)
        game.add_log(f"{player.name} exchanges FdSD to pay for RAG's par")

    def resolve_rag_par(
        self, game: Game, rnd: StockRound, action: Action, pending: tuple[int, str]
    ) -> None:
        """After a RAG par by FdSD's owner: ``assign`` exchanges FdSD, ``pass`` pays cash.

        In the first SR the cash payment is refused: 18xx.games counts that pass as the
        player's first-SR pass before the par's certificate is bought, and a first-SR
        passer buys nothing more (bots-1202 #9: "Cannot buy a share of RAG").  Raises
        ``GameError`` [``fdsd.par``, ``fdsd.par_cash_first_sr``]."""
        pid, share_price = pending
        if action.entity != pid or action.type not in ("assign", "pass"):
            raise GameError(
                f"{game.player(pid).name} must decide whether FdSD pays for RAG's par "
                "(assign FdSD or pass)",
                "fdsd.par",
            )
        player = game.player(pid)
        if action.type == "pass" and game.state.turn == 1:
            raise GameError(
                f"{player.name} parred RAG in the first stock round: FdSD pays for the par "
                "(assign FdSD); paying cash is a first-SR pass",
                "fdsd.par_cash_first_sr",
            )
        cologne_state(game).rag_par_pending = None
        par = Par(entity=pid, corporation="RAG", share_price=share_price)
        if action.type == "assign":
            cell = self.par_cell(game, game.corporation("RAG"), share_price)
            self.exchange_fdsd_for_par(game, player, cell.price * 2)
        rnd.par(game, player, par)

    def buy_company_in_sr(
        self, game: Game, rnd: StockRound, player: Player, action: BuyCompany
    ) -> None:
        """Buy EVA from its owner, an unsold Starting Package item or the next bond at face value.

        One buy per turn, none for a player who passed in the draft or earlier in SR 1; a
        package item or bond only under the certificate limit (privates and bonds count
        toward it), and no bond after selling one in the same round (reference engine).
        Raises ``GameError`` [``stock.passed``, ``stock.company``, ``stock.one_buy``,
        ``stock.cert_limit``, ``stock.bond_buy_back``, ``stock.company_price``,
        ``stock.cash``, ``draft.cash``]: :meth:`check_buy_company_in_sr` alone.
        """
        self.check_buy_company_in_sr(game, rnd, player, action)
        sym = action.company
        if self._eva_from_player(game, player, sym):
            self.buy_eva_from_player(game, rnd, player, action)
            return
        self.buy_package_item(game, player, sym, game.private(sym).spec.value)
        rnd.bought_this_turn = True
        rnd.end_turn(game, player, passed=False)

    @staticmethod
    def _eva_from_player(game: Game, player: Player, sym: str) -> bool:
        """Whether buying ``sym`` is buying EVA from another player."""
        eva = game.private("EVA")
        return (sym == "EVA" and isinstance(eva.owner, int) and eva.owner != player.id
                and not eva.closed)

    def check_buy_company_in_sr(
        self, game: Game, rnd: StockRound, player: Player, action: BuyCompany
    ) -> None:
        """Every check of :meth:`buy_company_in_sr`, before anything changes (its
        ``GameError`` rules)."""
        sym = action.company
        if player.id in cologne_state(game).first_sr_passers:
            raise GameError(f"{player.name} passed in the first stock round", "stock.passed")
        if is_bond(sym) and BONDS in rnd.sold.get(player.id, set()):
            raise GameError(
                f"{player.name} sold a bond this round and may not buy one back",
                "stock.bond_buy_back",
            )
        if self._eva_from_player(game, player, sym):
            self.check_buy_eva_from_player(game, rnd, player, action)
            return
        offered = self.unsold_package(game) + self.next_bond(game)
        if sym not in offered:
            raise GameError(
                f"{sym} is not for sale (for sale: {', '.join(offered)})", "stock.company"
            )
        if rnd.bought_this_turn:
            raise GameError(f"{player.name} has already bought this turn", "stock.one_buy")
        limit = self.cert_limit(game)
        if rnd.cert_count(game, player) >= limit:
            raise GameError(
                f"{player.name} holds {limit} certificates (privates and bonds count), the "
                "limit",
                "stock.cert_limit",
            )
        price = game.private(sym).spec.value
        if action.price != price:
            raise GameError(f"{sym} costs {price}M, not {action.price}M", "stock.company_price")
        self.check_package_payment(game, player, sym, price)

    def eva_price_bounds(self, game: Game, player: Player) -> tuple[int, int]:
        """The least and most price (M) :meth:`buy_eva_from_player` accepts from
        ``player``: 1M up to their cash (its other checks do not look at the price)."""
        return EVA_MIN_PRICE, player.cash

    def eva_buyable_in_sr(self, game: Game, rnd: StockRound, player: Player) -> bool:
        """Whether ``player`` may buy EVA from its owner in this stock-round turn: only
        beside another buy, par or sale they could make (a share, a par, a package item,
        a bond, RAG's par paid by FdSD, a share sale).  18xx.games skips the turn of a
        player whose only other choice would be EVA, and with only a bond sale or the
        FdSD exchange besides offers no EVA (refused: 1893-even-900 #210 beside a bond
        sale, 1893-web-911 #78 beside the exchange)."""
        if player.id in cologne_state(game).first_sr_passers or rnd.bought_this_turn:
            return False
        if self.can_buy_company(game, rnd, player) or self.can_sell_shares(game, rnd, player):
            return True
        if self.owns_fdsd(game, player.id) and not game.corporation("RAG").ipoed:
            return True
        return super().can_buy_any(game, rnd, player)

    def check_buy_eva_from_player(
        self, game: Game, rnd: StockRound, player: Player, action: BuyCompany
    ) -> None:
        """The checks of :meth:`buy_eva_from_player`, before anything changes: a price
        within :meth:`eva_price_bounds`, one buy per turn, beside another buy or sale
        (:meth:`eva_buyable_in_sr`).  Raises ``GameError`` (``"stock.company_price"``,
        ``"stock.one_buy"``, ``"stock.eva_alone"``)."""
        if not rnd.bought_this_turn and not self.eva_buyable_in_sr(game, rnd, player):
            raise GameError(
                f"{player.name} may buy EVA in a stock round only beside a share, par, "
                "package item, bond or share sale they could make",
                "stock.eva_alone",
            )
        price = action.price
        least, most = self.eva_price_bounds(game, player)
        if not least <= price <= most:
            raise GameError(
                f"EVA's price must be between {EVA_MIN_PRICE}M and {player.name}'s "
                f"{player.cash}M, not {price}M",
                "stock.company_price",
            )
        if rnd.bought_this_turn:
            raise GameError(f"{player.name} has already bought this turn", "stock.one_buy")

    def buy_eva_from_player(
        self, game: Game, rnd: StockRound, player: Player, action: BuyCompany
    ) -> None:
        """EVA is the only private that changes hands between players (seed 001); in a
        stock round the buyer names a price from 1M to their cash and pays it to the bank
        (reference engine; docs/rules-differences.md 1893 (g)).  Raises ``GameError``
        (:meth:`check_buy_eva_from_player`)."""
        self.check_buy_eva_from_player(game, rnd, player, action)
        eva = game.private("EVA")
        price = action.price
        seller = game.player(int(eva.owner))  # type: ignore[arg-type]
        seller.companies.remove("EVA")
        game.pay(player, game.bank, price)
        eva.owner = player.id
        player.companies.append("EVA")
        game.add_log(f"{player.name} buys EVA from {seller.name} for {price}M")
        rnd.bought_this_turn = True
        rnd.end_turn(game, player, passed=False)

    def next_bond(self, game: Game) -> list[str]:
        """The lowest-numbered bond still in the bank (a list of one), or ``[]``."""
        for p in game.privates.values():
            if is_bond(p.sym) and p.owner == "bank":
                return [p.sym]
        return []

    def sell_bond(self, game: Game, rnd: StockRound, player: Player, action: SellCompany) -> None:
        """Sell a bond back to the bank for its face value (100M); not in the first SR.

        Selling comes before buying in a turn; the turn ends when the player can do nothing
        more (as after a share sale).  Raises ``GameError`` (:meth:`check_sell_bond`).
        """
        self.check_sell_bond(game, rnd, player, action)
        sym = action.company
        private = game.private(sym)
        price = private.spec.value
        game.pay(game.bank, player, price)
        private.owner = "bank"
        player.companies.remove(sym)
        game.add_log(f"{player.name} sells {sym} for {price}M")
        rnd.sold_this_turn.append(sym)
        rnd.sold.setdefault(player.id, set()).add(BONDS)
        rnd.last_to_act = player.id
        if not self.can_act_in_stock_round(game, rnd, player):
            rnd.end_turn(game, player, passed=True)

    def check_sell_bond(self, game: Game, rnd: StockRound, player: Player,
                        action: SellCompany) -> None:
        """The checks of :meth:`sell_bond`, before anything changes.  Raises
        ``GameError`` [``stock.sell_company``, ``stock.sell_first_sr``,
        ``stock.sell_buy_order``]."""
        sym = action.company
        private = game.private(sym)
        if not is_bond(sym) or private.owner != player.id:
            raise GameError(f"{player.name} cannot sell {sym}", "stock.sell_company")
        if rnd.turn == 1:
            raise GameError("nothing is sold in the first stock round", "stock.sell_first_sr")
        if rnd.bought_this_turn:
            raise GameError("selling comes before buying in a turn", "stock.sell_buy_order")

    def check_fdsd_exchange(self, game: Game, rnd: StockRound,
                            action: BuyShares) -> tuple[Player, list[Certificate]]:
        """The checks of :meth:`fdsd_exchange`, before anything changes: FdSD's owner and
        the RAG certificates they take: the two that came to the market first (as
        18xx.games takes them, whichever market share the action names).  Raises ``GameError``
        (``"fdsd.exchange"``, ``"turn.order"``)."""
        fdsd = game.private("FdSD")
        if action.entity != "FdSD" or fdsd.closed or not isinstance(fdsd.owner, int):
            raise GameError("only FdSD can be exchanged for RAG shares", "fdsd.exchange")
        player = game.player(fdsd.owner)
        if rnd.current != player.id:
            raise GameError(f"it is not {player.name}'s turn", "turn.order")
        rag = game.corporation("RAG")
        in_market = [c for c in rag.certs_of(MARKET) if not c.president]
        if not rag.ipoed or not in_market:
            raise GameError("no RAG share in the market to exchange for", "fdsd.exchange")
        market_ids = {c.id for c in in_market}
        if not action.shares or not set(action.shares) <= market_ids:
            raise GameError(f"FdSD is exchanged for RAG shares in the market "
                            f"({', '.join(sorted(market_ids))}), not {list(action.shares)}",
                            "fdsd.exchange")
        return player, sorted(in_market, key=lambda c: (c.percent, c.pool_seq))[:2]

    def fdsd_exchange(self, game: Game, rnd: StockRound, action: BuyShares) -> None:
        """FdSD is exchanged for RAG shares from the market (20% if two are left).

        The exchange is the turn's buy, made by the private (closed by it): in the
        reference engine no player becomes the last to act, so the first player in order
        holds the priority deal (generated2 g500 #26, g513 #31, g503 #62).  Raises
        ``GameError`` (:meth:`check_fdsd_exchange`)."""
        player, take = self.check_fdsd_exchange(game, rnd, action)
        rag = game.corporation("RAG")
        for c in take:
            give(game, c, player.id)
        self.close_private(game, game.private("FdSD"))
        game.add_log(f"{player.name} exchanges FdSD for {sum(c.percent for c in take)}% of RAG")
        check_presidency(game, rag)
        self.check_float(game, rag)
        rnd.bought_this_turn = True
        rnd.end_turn(game, player, passed=False, for_priority=False)

    def after_share_bought(self, game: Game, player: Player, corp: Corporation) -> None:
        """Once the first 5-train has scheduled its closing, FdSD closes when its owner
        buys shares in a stock round (18xx.games's timing; seed 001: "closure is
        scheduled by the first 5-train").  A par (by cash or by FdSD), a sale, a pass or
        buying a private does not close it, nor does the end of the round: it may stay
        open for several rounds (g24 action 200 in the next SR; released g29: 5-train at
        #229, the owner only passes in SR 7, FdSD closes at #326 in SR 8; bots-2014: RAG
        parred by cash at #364-#365 in SR 7, FdSD closes at the owner's buy at #368)."""
        super().after_share_bought(game, player, corp)
        if cologne_state(game).fdsd_to_close and self.owns_fdsd(game, player.id):
            self.close_private(game, game.private("FdSD"))
            cologne_state(game).fdsd_to_close = False

    def sr_order_leader(self, game: Game, rnd: StockRound) -> Player:
        """The player whose turn it would be when the SR ended (after the last to pass)
        leads the next order: the reference engine rotates to its round index.  It is
        the player after the last to act, except after an FdSD exchange, which leaves
        nobody as the last to act (generated2 g500 #26-#27)."""
        if rnd.current is not None:
            return game.player(rnd.current)
        return super().sr_order_leader(game, rnd)

    def is_par_cell_for(self, game: Game, corp: Corporation, cell: Any) -> bool:
        """The ``par`` cells; the 120M cells are the merged corporations' start only."""
        return "par" in cell.types and cell.price != MERGED_PAR

    def may_par(self, game: Game, corp: Corporation) -> bool:
        """AGV and HGK are founded by merger, never parred."""
        return corp.sym not in MERGED

    def check_par_corporation(
        self, game: Game, player: Player, corp: Corporation, share_price: str
    ) -> None:
        """AGV and HGK are formed by mergers, never parred (``"stock.par"``); others as
        the default."""
        if corp.sym in MERGED:
            raise GameError(f"{corp.sym} is formed by a merger and cannot be parred", "stock.par")
        super().check_par_corporation(game, player, corp, share_price)

    def par_corporation(
        self, game: Game, player: Player, corp: Corporation, share_price: str
    ) -> None:
        """The president's certificate is bought; the other shares go to the market
        (:meth:`check_par_corporation`)."""
        self.check_par_corporation(game, player, corp, share_price)
        super().par_corporation(game, player, corp, share_price)
        for cert in corp.certificates:
            if cert.owner == IPO and not cert.reserved:
                to_market(game, cert)

    def check_buy_certificates(
        self, game: Game, player: Player, corp: Corporation, certs: list[Certificate]
    ) -> None:
        """Default checks; AGV/HGK only once buyable; none for a first-SR passer.

        A player who passed in the draft, or earlier in the first SR, buys no share then.
        Raises ``GameError`` [``stock.no_buy``, ``stock.passed``].
        """
        super().check_buy_certificates(game, player, corp, certs)
        if corp.sym in MERGED and not corp.can_buy_shares:
            raise GameError(f"{corp.sym} shares cannot be bought yet", "stock.no_buy")
        if player.id in cologne_state(game).first_sr_passers:
            raise GameError(f"{player.name} passed in the first stock round", "stock.passed")

    def check_sell(
        self, game: Game, player: Player, corp: Corporation, certs: list[Certificate], percent: int
    ) -> None:
        """No sale in the first SR (an emergency sale in OR 1 is one); otherwise as usual
        (the market holds at most 50%)."""
        from rhineland.engine.rounds.stock import StockRound

        if game.state.turn == 1 and isinstance(game.state.round, StockRound):
            raise GameError("nothing is sold in the first stock round", "stock.sell_first_sr")
        super().check_sell(game, player, corp, certs, percent)

    def can_sell_any(self, game: Game, rnd: StockRound, player: Player) -> bool:
        """Bonds can always be sold back (after the first SR); shares as usual."""
        return self.can_sell_bond(game, rnd, player) or self.can_sell_shares(game, rnd, player)

    def can_sell_shares(self, game: Game, rnd: StockRound, player: Player,
                        of: Corporation | None = None) -> bool:
        """No share is sold in the first SR; afterwards as usual."""
        if game.state.turn == 1:
            return False
        return super().can_sell_shares(game, rnd, player, of)

    def can_sell_bond(self, game: Game, rnd: StockRound, player: Player) -> bool:
        """Whether ``player`` may sell a bond back now: they hold one, after the first
        SR, before buying this turn."""
        if game.state.turn == 1 or rnd.bought_this_turn:
            return False
        return any(is_bond(s) for s in player.companies)

    def can_buy_company(self, game: Game, rnd: StockRound, player: Player) -> bool:
        """Whether ``player`` may buy an unsold Starting Package item or the next bond
        now: not a first-SR passer, no buy yet this turn, under the certificate limit,
        and one they can pay (no bond after selling one this round)."""
        if player.id in cologne_state(game).first_sr_passers or rnd.bought_this_turn:
            return False
        if rnd.cert_count(game, player) >= self.cert_limit(game):
            return False
        offered = self.unsold_package(game)
        if BONDS not in rnd.sold.get(player.id, set()):
            offered += self.next_bond(game)
        return any(game.private(s).spec.value <= player.cash for s in offered)

    def can_exchange_fdsd(self, game: Game, rnd: StockRound, player: Player) -> bool:
        """Whether ``player`` owns the open FdSD and may exchange it now for RAG shares
        in the market (none bought yet this turn)."""
        if rnd.bought_this_turn or not self.owns_fdsd(game, player.id):
            return False
        return any(not c.president for c in game.corporation("RAG").certs_of(MARKET))

    def actions_while_must_sell(self, game: Game, rnd: StockRound,
                                player: Player) -> frozenset[str]:
        """A player who must sell shares (over a limit) may instead, as the reference
        engine offers, sell a bond, buy a Starting Package item or the next bond
        (under the certificate limit: over the holding limit only), or buy shares while
        FdSD could be exchanged for RAG; with any of these open they may also pass
        (generated2 g522 #510: at 13 of 12 certificates with two bonds, a pass)."""
        out: set[str] = set()
        if self.can_sell_bond(game, rnd, player):
            out |= {SellCompany.TYPE, "pass"}
        if self.can_buy_company(game, rnd, player):
            out |= {BuyCompany.TYPE, "pass"}
        if self.can_exchange_fdsd(game, rnd, player):
            out |= {BuyShares.TYPE, "pass"}
        return frozenset(out)

    def can_buy_any(self, game: Game, rnd: StockRound, player: Player) -> bool:
        """Whether ``player`` could buy anything: the FdSD exchange, a package item, a bond, shares.

        False for a player who bought this turn, or passed in the draft or earlier in SR 1.
        """
        if player.id in cologne_state(game).first_sr_passers:
            return False
        if rnd.bought_this_turn:
            return False
        if self.owns_fdsd(game, player.id) and (
            not game.corporation("RAG").ipoed or self.can_exchange_fdsd(game, rnd, player)
        ):
            return True  # RAG's par paid by FdSD, or the exchange for RAG market shares
        if self.can_buy_company(game, rnd, player):
            return True
        return super().can_buy_any(game, rnd, player)
