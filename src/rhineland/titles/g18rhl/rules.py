"""18Rhl (The Railways of the Rhineland): the rule hooks that differ from the defaults.

Sources: seed ``000`` (rules summary and the worked opening), the reference
facts, and the oracle traces where the summary is silent.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from rhineland.board.legality import LayContext
from rhineland.engine.entities import IPO, Certificate, Corporation, Player
from rhineland.engine.rng import pick_variable_icons
from rhineland.engine.rounds.auction import WaterfallAuction
from rhineland.engine.ruleset import REFERENCE
from rhineland.engine.shares import give, move_price, set_price, to_market
from rhineland.engine.steps import Step
from rhineland.engine.title import Title
from rhineland.errors import GameError
from rhineland.routes.search_model import register_profile
from rhineland.titles.g18rhl.board_rules import RhlBoardRules
from rhineland.titles.g18rhl.revenue import RhlRevenue, carried_icons
from rhineland.titles.g18rhl.rule_sets import RULE_SETS, RhlRuleSet
from rhineland.titles.g18rhl.search_profile import RhlProfile
from rhineland.titles.g18rhl.state import RHE, RhlState, end_metropolis_lag, rhl_state

if TYPE_CHECKING:
    from rhineland.engine.game import Game
    from rhineland.engine.rounds.base import Round
    from rhineland.engine.rounds.stock import StockRound

KEG = "KEG"
GVE = "GVE"
NLK = "NLK"
RHE_PARS = (70, 75, 80)
"""RhE's par prices (private No. 6: 70M, 75M or 80M)."""


register_profile(RhlRevenue, RhlProfile)


class Rhl(Title):
    """18Rhl, 3-6 players."""

    name = "18Rhl"
    package = "rhineland.titles.g18rhl"

    def __init__(self, optional_rules: tuple[str, ...] | list[str] = (),
                 rules: str = REFERENCE) -> None:
        super().__init__(optional_rules, rules)
        self.rule_set: RhlRuleSet = RULE_SETS[self.rules]
        """The values and steps of the rule set played (:mod:`.rule_sets`)."""

    def make_board_rules(self) -> RhlBoardRules:
        """18Rhl's tile and token rules (:class:`RhlBoardRules`: Rhine metropolises, privates)."""
        return RhlBoardRules(self.data)

    @property
    def rhl_board_rules(self) -> RhlBoardRules:
        """:attr:`board_rules` as the 18Rhl rules they are."""
        rules = self.board_rules
        assert isinstance(rules, RhlBoardRules)
        return rules

    def make_revenue_rules(self) -> RhlRevenue:
        """18Rhl's route rules (:class:`RhlRevenue`: Montan, Eastern Ruhr, ferry, Rheingold),
        whose best routes the search finds with :class:`RhlProfile` (registered below)."""
        return RhlRevenue(self.data.constants)

    def route_context_extra(self, game: Game, entity: Any) -> dict[str, Any]:
        """Add ``hex_icons`` (hex -> coal/steel icons) for the Montan bonus.

        They hold the variable mine and steel mill drawn at setup and the icons kept
        from replaced tiles (seed 000, "Montan").
        """
        icons: dict[str, frozenset[str]] = {
            h: frozenset(v) for h, v in rhl_state(game).icons.items()
        }
        return {"hex_icons": icons}

    # -- setup -------------------------------------------------------------------------
    def new_title_state(self) -> RhlState:
        """18Rhl's own state (:class:`RhlState`)."""
        return RhlState()

    def setup(self, game: Game) -> None:
        """Place the variable coal mine and steel mill by the first RNG draw."""
        super().setup(game)
        vi = game.data.variable_icons
        assert vi is not None
        placement = pick_variable_icons(game.rng, vi)
        rhl_state(game).icons = placement.icons_by_hex()

    def first_round(self, game: Game) -> Round:
        """The initial packet: a waterfall auction of the privates, cheapest first.

        Items are the privates (with the RhE director's certificate) at face value;
        the minimum raise is ``min_bid_increment`` (default 5M) (seed 000, SR 1).
        """
        privates = sorted(game.data.privates, key=lambda p: p.value)
        return WaterfallAuction(
            1, [(p.sym, p.value) for p in privates], game.data.rules.get("min_bid_increment", 5)
        )

    def may_buy_trains_from_others(self, game: Game, entity: Any) -> bool:
        """Trains change hands between companies from the rule set's phase: every phase
        in the reference, from phase 3 in the seed's ("1st 3-train · ... trains between
        companies"; docs/rules-differences.md (b))."""
        return int(game.phase.name) >= self.rule_set.trains_between_companies_from

    # -- the OR turn and the RhE bonus: Köln - Düren - Aachen ----------------------------------
    def operating_steps(self, game: Game, entity: Any) -> tuple[Step, ...]:
        """18Rhl's OR turn: the rule set's steps (reference
        :data:`rhineland.titles.g18rhl.steps.STEPS`, seed
        :data:`rhineland.titles.g18rhl.seed_steps.SEED_STEPS`)."""
        return self.rule_set.steps

    def check_destination_connection(self, game: Game, action: Any) -> None:
        """The recorded link check must agree with ours."""
        now = rhl_state(game).rhe_link_now
        expected = [RHE] if now else []
        if now is None:
            raise GameError(
                "no RhE link check is pending (destination_connection out of place)",
                "rhe.link",
            )
        if list(action.corporations) != expected:
            raise GameError(
                f"the RhE link check gives {expected}, the export records "
                f"{list(action.corporations)}",
                "rhe.link",
            )

    # -- bankruptcy and receivership: the engine's hooks (the rule: receivership.py) --------
    def resorts_operating_order(self, game: Game, action_type: str) -> bool:
        """The companies yet to operate keep their order through a bankruptcy, although
        the bankrupt president's sales move prices (the reference engine's 18Rhl
        bankruptcy step re-sorts nothing); an emergency sale re-sorts them."""
        return action_type == "sell_shares"

    def must_buy_train(self, game: Game, entity: Any) -> bool:
        """A corporation in receivership is never obliged to buy a train (no president
        could add money): it may pass, or buy a depot train it can pay (reference
        engine; traces: g403 #623, g406 #459, g415 #528 pass without a train)."""
        if isinstance(entity, Corporation) and entity.receivership:
            return False
        return super().must_buy_train(game, entity)

    def train_sellable_to(self, game: Game, seller: Any, buyer: Any) -> bool:
        """No train changes hands between companies when either is in receivership
        (rule 13.2, as the reference engine has it)."""
        if buyer.receivership or getattr(seller, "receivership", False):
            return False
        return super().train_sellable_to(game, seller, buyer)

    def entity_acting_ids(self, game: Game, entity: Any) -> list[int]:
        """Who decides for a corporation in receivership: every player not bankrupt,
        priority first (nobody once all are bankrupt)."""
        order = game.seat_order()
        if not order:
            return []
        first = self.trace_priority(game)
        i = order.index(first) if first in order else 0
        return [p.id for p in order[i:] + order[:i]]

    # -- private companies' map abilities -------------------------------------------------
    def lay_tile(self, game: Game, rnd: Any, entity: Any, actor: Any, action: Any) -> None:
        """As the default, and sticky icons of the replaced tile stay on the hex; the
        company's own lay on a Rhine metropolis starts its lag (:meth:`lay_context`)."""
        old = game.board.tile_at(action.hex).tile
        super().lay_tile(game, rnd, entity, actor, action)
        state = rhl_state(game)
        kept = carried_icons(old)
        if kept:
            state.icons[action.hex] = sorted(set(state.icons.get(action.hex, [])) | kept)
        state.metropolis_lag = None
        if actor is entity and action.hex in self.rhl_board_rules.metropolis:
            state.metropolis_lag = (entity.sym, action.hex, old.color)

    def lay_context(self, game: Game, rnd: Any, entity: Any) -> LayContext:
        """As the default; for a company after its own lay on a Rhine metropolis and
        until the next lay or token by anyone (its next turns too), that hex blocks as
        its previous tile did
        (:meth:`RhlBoardRules.lagging`; a token beyond it is refused as not connected,
        ``token.place``).  Without a round (whether a token step has anything to
        decide) the network as it is now."""
        ctx = super().lay_context(game, rnd, entity)
        lag = rhl_state(game).metropolis_lag
        if rnd is not None and lag is not None and lag[0] == entity.sym:
            ctx = replace(ctx, rules=self.rhl_board_rules.lagging(lag[1], lag[2]))
        return ctx

    def place_token(self, game: Game, rnd: Any, entity: Any, action: Any) -> None:
        """As the default; a token ends the metropolis lag."""
        super().place_token(game, rnd, entity, action)
        end_metropolis_lag(game)

    # -- the initial packet --------------------------------------------------------------
    def on_private_bought(self, game: Game, player: Player, private: Any, price: int) -> str | None:
        """NLK brings a free GVE 10%; the RhE certificate makes its buyer president and par RhE."""
        if private.sym == NLK:
            rhl_state(game).gve_gift = True
            cert = game.corporation(GVE).certificates[1]
            give(game, cert, player.id)
            game.add_log(f"{player.name} receives a 10% share of {GVE}")
        if private.sym == RHE:
            rhe = game.corporation(RHE)
            give(game, rhe.certificates[0], player.id)
            for cert in rhe.certificates[1:4]:
                to_market(game, cert)
            rhl_state(game).rhe_bid = price
            return RHE
        return None

    # -- par and float -------------------------------------------------------------------
    def is_par_cell_for(self, game: Game, corp: Corporation, cell: Any) -> bool:
        """RhE may par only at 70, 75 or 80M (seed 000, private No. 6); others at any par cell."""
        if corp.sym == RHE:
            return "par" in cell.types and cell.price in RHE_PARS
        return "par" in cell.types

    def check_par_corporation(self, game: Game, player: Player, corp: Corporation,
                              share_price: str) -> None:
        """RhE: a par cell of its own (its director's certificate is bought in the
        packet); others as the default."""
        if corp.sym != RHE:
            super().check_par_corporation(game, player, corp, share_price)
            return
        self.par_cell(game, corp, share_price)

    def par_corporation(self, game: Game, player: Player, corp: Corporation,
                        share_price: str) -> None:
        """Par a corporation; RhE: its director's certificate bought in the packet
        (:meth:`check_par_corporation`).

        For RhE: set the par, close private No. 6, pay RhE the bid from the bank, float
        it at once (incremental) with its price bump at the end of the SR, and hold
        3 x par until Köln-Düren-Aachen are linked.  Reference engine, see
        docs/rules-differences.md (h).  Other corporations as the default.
        """
        if corp.sym != RHE:
            super().par_corporation(game, player, corp, share_price)
            return
        self.check_par_corporation(game, player, corp, share_price)
        cell = self.par_cell(game, corp, share_price)
        corp.par_price = cell
        set_price(game, corp, cell)
        private = game.private(RHE)
        self.close_private(game, private)
        state = rhl_state(game)
        bid, state.rhe_bid = state.rhe_bid, 0
        game.pay(game.bank, corp, bid)
        corp.floated = True
        corp.capitalization = "incremental"
        rhl_state(game).rhe_link_bonus = cell.price * 3
        rhl_state(game).newly_floated.append(RHE)
        game.add_log(f"{player.name} pars {RHE} at {cell.price}M; {RHE} receives {bid}M")

    def float_percent(self, game: Game, corp: Corporation) -> int:
        """Percent to sell for ``corp`` to float: its data's (50%, KEG 60%); in the seed
        rule set GVE's is 40% once NLK was bought (seed 000, NLK: "the GVE also floats
        with only 40% sold")."""
        nlk = self.rule_set.gve_nlk_float_sold
        if nlk is not None and corp.sym == GVE and rhl_state(game).gve_gift:
            return nlk
        return super().float_percent(game, corp)

    def float_progress(self, game: Game, corp: Corporation) -> int:
        """Percent of ``corp`` out of the IPO (the market's included); in the seed rule
        set NLK's free GVE 10% is not "sold" and does not count."""
        progress = super().float_progress(game, corp)
        if self.rule_set.capital_per_share_sold and corp.sym == GVE and (
            rhl_state(game).gve_gift
        ):
            progress -= 10
        return progress

    def check_float(self, game: Game, corp: Corporation) -> None:
        """As the default; in the seed rule set a float during a stock round waits for
        its end (:meth:`end_stock_round`; seed 000: "Floats at the end of the round if
        50% is sold")."""
        rnd = game.state.round
        if self.rule_set.float_at_sr_end and rnd is not None and rnd.kind == "Stock":
            return
        super().check_float(game, corp)

    def brown_phase(self, game: Game) -> bool:
        """Whether phase 5 (brown) or later has begun: full capitalisation (seed 000, Phases)."""
        return int(game.phase.name) >= 5

    def float_corporation(self, game: Game, corp: Corporation) -> None:
        """Before phase 5: incremental, 5 × par (KEG 6 ×; seed rule set: par × the
        shares sold), price up at the end of the SR.  From phase 5: full capitalisation
        and the unsold shares go to the market."""
        assert corp.par_price is not None
        if self.brown_phase(game):
            super().float_corporation(game, corp)
            for cert in corp.certificates:
                if cert.owner == IPO:
                    to_market(game, cert)
            return
        if self.rule_set.capital_per_share_sold:
            times = self.float_progress(game, corp) // 10  # seed: par x shares sold
        else:
            times = 6 if corp.sym == KEG else 5
        game.pay(game.bank, corp, corp.par_price.price * times)
        corp.capitalization = "incremental"
        rhl_state(game).newly_floated.append(corp.sym)
        game.add_log(f"{corp.sym} floats and receives {corp.cash}M")

    def keg_certificate_buyable(self, corp: Corporation, cert: Certificate) -> bool:
        """Whether ``cert`` of KEG may be bought now: its 20% certificates are sold first
        (seed 000: "the first two KEG certificates sold are the 20% ones").  The
        reference engine's rule: while KEG is started and not floated, only a 20%
        certificate may be bought, from the IPO or the market.  The seed rule set:
        while a 20% certificate is left in the IPO, no other one is bought from the IPO.
        (A player whose only affordable certificate is such a 10% one is not passed
        over: the reference engine's test for a possible buy does not apply this rule;
        released g02 #240-#241.)"""
        if corp.sym != KEG:
            return True
        if self.rule_set.keg_doubles_until_float:
            return not corp.ipoed or corp.floated or cert.percent == 20
        if cert.owner != IPO:
            return True
        return cert.double or not any(c.double and c.owner == IPO for c in corp.certificates)

    def check_buy_certificates(self, game: Game, player: Player, corp: Corporation,
                               certs: list[Certificate]) -> None:
        """The default checks, and KEG's 20% certificates first
        (:meth:`keg_certificate_buyable`).  Raises ``GameError`` [``stock.keg_doubles``]
        for another KEG certificate."""
        super().check_buy_certificates(game, player, corp, certs)
        if not all(self.keg_certificate_buyable(corp, c) for c in certs):
            doubles = [c.id for c in corp.certificates
                       if c.double and not isinstance(c.owner, int)]
            raise GameError(
                f"{KEG}'s 20% certificates are sold first: until it floats only the 20% ones "
                f"may be bought ({', '.join(doubles) or 'none on offer'})",
                "stock.keg_doubles",
            )

    # -- stock round end and priority ------------------------------------------------------
    def end_stock_round(self, game: Game, rnd: StockRound) -> None:
        """End of SR: each company floated this SR before phase 5 moves up a row (in the
        order they floated), then the sold-out rise and the priority deal (default).

        Price bump: seed 000 ("Capitalization type"), docs/rules-differences.md (f),
        (h).  Priority to the richest player: docs/rules-differences.md (j).  In the
        seed rule set the companies with their float percentage sold float first, in
        charter order (seed 000: "At the end of the round, the [ADR] has 50% sold and
        floats").
        """
        if self.rule_set.float_at_sr_end:
            for corp in game.corporations.values():
                if corp.par_price is not None and not corp.closed:
                    super().check_float(game, corp)
        for sym in rhl_state(game).newly_floated:
            corp = game.corporation(sym)
            move_price(game, corp, "up", 1)
        rhl_state(game).newly_floated = []
        super().end_stock_round(game, rnd)

    def order_after_auction(self, game: Game, rnd: Round) -> None:
        """SR1 starts with the player with the most cash (seed 000; oracle traces)."""
        players = game.seat_order()
        most = max(p.cash for p in players)
        top = [p for p in players if p.cash == most]
        first = top[0] if len(top) == 1 else rnd.priority_player(game)  # type: ignore[attr-defined]
        i = game.state.players.index(first)
        game.state.players = game.state.players[i:] + game.state.players[:i]

    def loans(self, game: Game) -> dict[int, int]:
        """Player id -> bank loans owed (M; seed rule set, :mod:`.seed_steps`)."""
        return dict(rhl_state(game).loans)

    def value_extra(self, game: Game, player: Player) -> int:
        """Each bank loan ``loan_penalty`` times, deducted from cash plus certificates at
        the current share price (seed rule set: "deducted doubled from final wealth")."""
        return -self.rule_set.loan_penalty * rhl_state(game).loans.get(player.id, 0)

    def priority_player(self, game: Game) -> Player:
        """The player with the most cash; on a tie the player after the last one to act."""
        players = game.seat_order()
        most = max(p.cash for p in players)
        top = [p for p in players if p.cash == most]
        if len(top) == 1:
            return top[0]
        return super().priority_player(game)
