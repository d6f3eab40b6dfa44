"""18Rhl (The Railways of the Rhineland): the rule hooks that differ from the defaults.

Sources: seed ``000`` (rules summary and the worked opening), the reference
facts, and the oracle traces where the summary is silent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rhineland.engine.entities import IPO, MARKET, Certificate, Corporation, Player, Private
from rhineland.engine.rng import pick_variable_icons
from rhineland.engine.rounds.auction import WaterfallAuction
from rhineland.engine.shares import move_price, set_price, sold_percent
from rhineland.engine.title import Title
from rhineland.errors import GameError

if TYPE_CHECKING:
    from rhineland.engine.game import Game
    from rhineland.engine.rounds.base import Round
    from rhineland.engine.rounds.stock import StockRound

RHE = "RhE"
KEG = "KEG"
GVE = "GVE"
NLK = "NLK"
RHE_PARS = (70, 75, 80)
"""RhE's par prices (private No. 6: 70M, 75M or 80M)."""


class Rhl(Title):
    """18Rhl, 3-6 players."""

    name = "18Rhl"
    package = "rhineland.titles.g18rhl"

    # -- setup -------------------------------------------------------------------------
    def setup(self, game: Game) -> None:
        """Place the variable coal mine and steel mill by the first RNG draw."""
        vi = game.data.variable_icons
        assert vi is not None
        placement = pick_variable_icons(game.rng, vi)
        game.state.extra["icons"] = placement.icons_by_hex()
        game.state.extra["newly_floated"] = []
        game.state.extra["rhe_link_bonus"] = 0
        game.state.extra["eastern_ruhr_links"] = []

    def first_round(self, game: Game) -> Round:
        privates = sorted(game.data.privates, key=lambda p: p.value)
        return WaterfallAuction(
            1, [(p.sym, p.value) for p in privates], game.data.rules.get("min_bid_increment", 5)
        )

    # -- the initial packet --------------------------------------------------------------
    def min_first_bid(self, game: Game, sym: str, value: int, increment: int) -> int:
        if sym == RHE:
            return value  # the director's certificate: minimum bid 140M
        return value + increment

    def on_private_bought(self, game: Game, player: Player, private: Any, price: int) -> str | None:
        """NLK brings a free GVE 10%; the RhE certificate makes its buyer president and par RhE."""
        if private.sym == NLK:
            cert = game.corporation(GVE).certificates[1]
            cert.owner = player.id
            game.add_log(f"{player.name} receives a 10% share of {GVE}")
        if private.sym == RHE:
            rhe = game.corporation(RHE)
            rhe.certificates[0].owner = player.id
            for cert in rhe.certificates[1:4]:
                cert.owner = MARKET
            game.state.extra["rhe_bid"] = price
            return RHE
        return None

    # -- par and float -------------------------------------------------------------------
    def is_par_cell_for(self, game: Game, corp: Corporation, cell: Any) -> bool:
        if corp.sym == RHE:
            return "par" in cell.types and cell.price in RHE_PARS
        return "par" in cell.types

    def par_corporation(self, game: Game, player: Player, corp: Corporation,
                        share_price: str) -> None:
        if corp.sym != RHE:
            super().par_corporation(game, player, corp, share_price)
            return
        cell = self.par_cell(game, corp, share_price)
        corp.par_price = cell
        set_price(game, corp, cell)
        private = game.private(RHE)
        self.close_private(game, private)
        bid = game.state.extra.pop("rhe_bid", 0)
        game.pay(game.bank, corp, bid)
        corp.floated = True
        corp.capitalization = "incremental"
        game.state.extra["rhe_link_bonus"] = cell.price * 3
        game.state.extra["newly_floated"].append(RHE)
        game.add_log(f"{player.name} pars {RHE} at {cell.price}M; {RHE} receives {bid}M")

    def float_percent(self, game: Game, corp: Corporation) -> int:
        if corp.sym == GVE and game.private(NLK).owner is not None:
            return 40
        if corp.sym == GVE and game.private(NLK).closed:
            return 40
        return corp.spec.float_percent

    def brown_phase(self, game: Game) -> bool:
        return int(game.phase.name) >= 5

    def float_corporation(self, game: Game, corp: Corporation) -> None:
        """Before phase 5: incremental, 5 × par (KEG 6 ×), price up at the end of the SR.
        From phase 5: full capitalisation and the unsold shares go to the market."""
        assert corp.par_price is not None
        if self.brown_phase(game):
            super().float_corporation(game, corp)
            for cert in corp.certificates:
                if cert.owner == IPO:
                    cert.owner = MARKET
            return
        times = 6 if corp.sym == KEG else 5
        game.pay(game.bank, corp, corp.par_price.price * times)
        corp.capitalization = "incremental"
        game.state.extra["newly_floated"].append(corp.sym)
        game.add_log(f"{corp.sym} floats and receives {corp.cash}M")

    def check_buy_certificates(self, game: Game, player: Player, corp: Corporation,
                               certs: list[Certificate]) -> None:
        super().check_buy_certificates(game, player, corp, certs)
        if corp.sym == KEG and certs[0].owner == IPO:
            doubles = [c for c in corp.certificates if c.double and c.owner == IPO]
            if doubles and not certs[0].double:
                raise GameError(
                    f"the first two {KEG} certificates sold from the IPO are the 20% ones "
                    f"({', '.join(c.id for c in doubles)})",
                    "stock.keg_doubles",
                )

    # -- stock round end and priority ------------------------------------------------------
    def end_stock_round(self, game: Game, rnd: StockRound) -> None:
        super().end_stock_round(game, rnd)

    def sold_out_order(self, game: Game) -> list[Corporation]:
        return super().sold_out_order(game)

    def reorder_players(self, game: Game, rnd: StockRound) -> None:
        for sym in game.state.extra["newly_floated"]:
            corp = game.corporation(sym)
            move_price(game, corp, "up", 1)
        game.state.extra["newly_floated"] = []
        super().reorder_players(game, rnd)

    def priority_player(self, game: Game) -> Player:
        """The player with the most cash; on a tie the player after the last one to act."""
        players = game.seat_order()
        most = max(p.cash for p in players)
        top = [p for p in players if p.cash == most]
        if len(top) == 1:
            return top[0]
        return super().priority_player(game)

    def player_value(self, game: Game, player: Player) -> int:
        return super().player_value(game, player)

    def ipo_dividend_receiver(self, game: Game, corp: Corporation) -> Any:
        return corp

    def market_dividend_receiver(self, game: Game, corp: Corporation) -> Any:
        return None

    def sold_percent(self, corp: Corporation) -> int:
        return sold_percent(corp)

    def private_owned_by(self, game: Game, private: Private) -> int | None:
        return private.owner if isinstance(private.owner, int) else None
