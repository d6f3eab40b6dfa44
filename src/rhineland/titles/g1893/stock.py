"""1893's stock-round hooks: what the title's rules change in the engine's stock round
(the rule families themselves: :mod:`~rhineland.titles.g1893.starting_package`,
:mod:`~rhineland.titles.g1893.bonds`, :mod:`~rhineland.titles.g1893.fdsd`,
:mod:`~rhineland.titles.g1893.eva`).

Sources: seed ``001`` and the oracle traces (``docs/rules-differences.md``, 1893).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rhineland.engine.actions import (
    BuyCompany,
    BuyShares,
    SellCompany,
)
from rhineland.engine.entities import IPO, MARKET, Certificate, Corporation, Player
from rhineland.engine.shares import to_market
from rhineland.engine.title import Title
from rhineland.errors import GameError
from rhineland.titles.g1893.constants import (
    MERGED,
    MERGED_PAR,
    is_bond,
)
from rhineland.titles.g1893.fdsd import owns_fdsd
from rhineland.titles.g1893.starting_package import can_buy_company
from rhineland.titles.g1893.state import cologne_state

if TYPE_CHECKING:
    from rhineland.engine.game import Game
    from rhineland.engine.rounds.stock import StockRound
    from rhineland.engine.steps import Step



class CologneStock(Title):
    """Stock-round hooks of :class:`rhineland.titles.g1893.rules.Cologne`."""

    SALE_CORP_RULES: ClassVar[frozenset[str]] = Title.SALE_CORP_RULES | {"stock.sell_first_sr"}
    """The common ones and :meth:`check_sell`'s first stock round (no sale at all)."""

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
        return not (corp.sym == "RAG" and owns_fdsd(game, player.id))

    def after_share_bought(self, game: Game, player: Player, corp: Corporation) -> None:
        """Once the first 5-train has scheduled its closing, FdSD closes when its owner
        buys shares in a stock round (18xx.games's timing; seed 001: "closure is
        scheduled by the first 5-train").  A par (by cash or by FdSD), a sale, a pass or
        buying a private does not close it, nor does the end of the round: it may stay
        open for several rounds (g24 action 200 in the next SR; released g29: 5-train at
        #229, the owner only passes in SR 7, FdSD closes at #326 in SR 8; bots-2014: RAG
        parred by cash at #364-#365 in SR 7, FdSD closes at the owner's buy at #368)."""
        super().after_share_bought(game, player, corp)
        if cologne_state(game).fdsd_to_close and owns_fdsd(game, player.id):
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

    def can_exchange_fdsd(self, game: Game, rnd: StockRound, player: Player) -> bool:
        """Whether ``player`` owns the open FdSD and may exchange it now for RAG shares
        in the market (none bought yet this turn)."""
        if rnd.bought_this_turn or not owns_fdsd(game, player.id):
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
        if can_buy_company(game, rnd, player):
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
        if owns_fdsd(game, player.id) and (
            not game.corporation("RAG").ipoed or self.can_exchange_fdsd(game, rnd, player)
        ):
            return True  # RAG's par paid by FdSD, or the exchange for RAG market shares
        if can_buy_company(game, rnd, player):
            return True
        return super().can_buy_any(game, rnd, player)
