"""1893: Cologne: the rule hooks that differ from the defaults.

Sources: seed ``001`` (rules summary and comparison with 1830), the reference
facts, and the oracle traces where the summary is silent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rhineland.engine.actions import (
    Action,
    BuyCompany,
    BuyShares,
    BuyTrain,
    Par,
    SellCompany,
)
from rhineland.engine.entities import IPO, MARKET, Certificate, Corporation, Minor, Player
from rhineland.engine.shares import (
    check_presidency,
    give,
    move_price,
    operating_order_key,
    to_market,
)
from rhineland.engine.title import Title
from rhineland.errors import GameError
from rhineland.titles.g1893.board_rules import CologneBoardRules
from rhineland.titles.g1893.revenue import CologneRevenue
from rhineland.titles.g1893.rounds import ForcedAuction, MergerRound, StartingPackageDraft

if TYPE_CHECKING:
    from rhineland.engine.game import Game
    from rhineland.engine.rounds.base import Round
    from rhineland.engine.rounds.operating import OperatingRound
    from rhineland.engine.rounds.stock import StockRound

PRIVATES = ("FdSD", "EVA", "HdSK")
MINORS = ("EKB", "KFBE", "KSZ", "KBE", "BKB")
MERGED = ("AGV", "HGK")
# reserved certificate of the founded corporation per merging entity (share index)
MERGERS: dict[str, tuple[tuple[str, int], ...]] = {
    "AGV": (("EKB", 0), ("KSZ", 1), ("BKB", 2)),
    "HGK": (("KBE", 0), ("HdSK", 1), ("KFBE", 2)),
}
VOTE_ORDER: dict[str, tuple[str, ...]] = {
    "AGV": ("EKB", "KSZ", "BKB"),
    "HGK": ("KFBE", "KBE", "HdSK"),
}
"""Order in which the merging entities' owners are asked to vote (reference engine)."""
MERGED_PAR = 120
MERGED_PAR_TYPE = {"AGV": "par_2", "HGK": "par_1"}
"""The market cells where the merged corporations start (reference market legend)."""
MERGED_TREASURY = 400
MINOR_MIN_TREASURY = 100


def is_bond(sym: str) -> bool:
    return sym.startswith("AdSK")


class Cologne(Title):
    """1893: Cologne, 2-4 players."""

    name = "1893"
    package = "rhineland.titles.g1893"

    def make_board_rules(self) -> CologneBoardRules:
        return CologneBoardRules(self.data)

    def make_revenue_rules(self) -> CologneRevenue:
        return CologneRevenue.for_data(self.data)

    # -- setup and round sequence -------------------------------------------------------
    def setup(self, game: Game) -> None:
        """Companies start with the bank; minors' homes and HGK's token are on the map."""
        super().setup(game)
        for private in game.privates.values():
            private.owner = "bank"
        for minor in game.minors.values():
            minor.tokens = [(minor.spec.home, minor.spec.home_city)]
        hgk = game.corporation("HGK")
        for (hex_id, ci), syms in game.board.tokens.items():
            if "HGK" in syms:
                hgk.tokens.append((hex_id, ci))
                hgk.tokens_used += 1
        extra = game.state.extra
        extra.update(
            agv_mergable=False, hgk_mergable=False, agv_auto_found=False,
            hgk_auto_found=False, fdsd_to_close=False, first_sr_passers=[],
            after_merger=None, traded_in=[],
        )

    def first_round(self, game: Game) -> Round:
        return StartingPackageDraft(1)

    def next_round(self, game: Game, rnd: Round) -> Round | None:
        """Draft -> SR or OR; SR -> MR .1 -> OR .1 -> MR .2 -> OR .2 -> MR .3 -> SR / auction."""
        from rhineland.engine.rounds.operating import OperatingRound
        from rhineland.engine.rounds.stock import StockRound

        st = game.state
        hgk_floated = game.corporation("HGK").floated
        if rnd.kind == "Draft":
            if isinstance(rnd, StartingPackageDraft):
                self.order_after_draft(game, rnd)  # the forced auction keeps the order
            unsold = [s for s in self.unsold_package(game)]
            if isinstance(rnd, ForcedAuction) or len(unsold) <= 1:
                return StockRound(rnd.turn)
            return OperatingRound(rnd.turn, 1)
        if rnd.kind == "Stock":
            st.extra["or_count"] = game.phase.operating_rounds
            self.end_of_stock_round_fdsd(game)
            if hgk_floated:
                return OperatingRound(rnd.turn, 1)
            st.extra["after_merger"] = "or1"
            return MergerRound(rnd.turn, 1)
        if rnd.kind == "Operating":
            if self.check_game_end(game, rnd):
                return None
            more = rnd.num < st.extra.get("or_count", 2)
            if hgk_floated:
                if more:
                    return OperatingRound(rnd.turn, rnd.num + 1)
                st.turn = rnd.turn + 1
                return StockRound(rnd.turn + 1)
            if more:
                st.extra["after_merger"] = "or2"
                return MergerRound(rnd.turn, 2)
            st.extra["after_merger"] = "auction" if self.draftables(game) else "sr"
            return MergerRound(rnd.turn, 3)
        if rnd.kind == "Merger":
            after = st.extra.get("after_merger")
            if after == "or1":
                return OperatingRound(rnd.turn, 1)
            if after == "or2":
                return OperatingRound(rnd.turn, 2)
            st.turn = rnd.turn + 1
            if after == "auction":
                return ForcedAuction(rnd.turn + 1)
            return StockRound(rnd.turn + 1)
        return StockRound(rnd.turn + 1)

    def order_after_draft(self, game: Game, rnd: Round) -> None:
        """The player after the last buyer leads; if all passed, the first to pass."""
        passed = getattr(rnd, "passed", [])
        last = getattr(rnd, "last_buyer", None)
        if isinstance(rnd, StartingPackageDraft) and len(passed) >= len(game.seat_order()):
            first = game.player(passed[0])
        elif last is not None:
            first = game.next_player(game.player(last))
        else:
            return
        i = game.state.players.index(first)
        game.state.players = game.state.players[i:] + game.state.players[:i]

    # -- the Starting Package ---------------------------------------------------------
    def unsold_package(self, game: Game) -> list[str]:
        return [
            s for s in PRIVATES + MINORS
            if game.private(s).owner == "bank" and not game.private(s).closed
        ]

    def draftables(self, game: Game) -> list[str]:
        """On offer: every unsold private and the two lowest-numbered unsold minors."""
        unsold = self.unsold_package(game)
        privates = [s for s in unsold if s in PRIVATES]
        minors = [s for s in unsold if s in MINORS]
        return privates + minors[:2]

    def buy_package_item(self, game: Game, player: Player, sym: str, price: int) -> None:
        """``player`` buys a Starting Package item; a minor floats with its treasury
        (at least 100M: the bank adds the difference)."""
        if player.cash < price:
            raise GameError(f"{player.name} has {player.cash}M, {sym} costs {price}M",
                            "draft.cash")
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

    # -- stock round -------------------------------------------------------------------
    def start_stock_round(self, game: Game, rnd: StockRound) -> None:
        """Players who passed in the draft stay passed in the first stock round."""

    def process_stock_action(self, game: Game, rnd: StockRound, action: Action) -> bool:
        pending = game.state.extra.get("rag_par_pending")
        if pending is not None:
            self.resolve_rag_par(game, rnd, action, pending)
            return True
        if isinstance(action, Par) and action.corporation == "RAG" and self.owns_fdsd(
            game, action.entity
        ):
            player = rnd.expect_player(game, action)
            cell = self.par_cell(game, game.corporation("RAG"), action.share_price)
            if player.cash < cell.price * 2:
                self.exchange_fdsd_for_par(game, player, cell.price * 2)
                rnd.par(game, player, action)
            else:
                game.state.extra["rag_par_pending"] = (player.id, action.share_price)
                game.add_log(f"{player.name} may pay for RAG's par by exchanging FdSD")
            return True
        if isinstance(action, BuyShares) and action.entity_type == "company":
            self.fdsd_exchange(game, rnd, action)
            return True
        if isinstance(action, BuyCompany):
            player = rnd.expect_player(game, action)
            self.buy_company_in_sr(game, rnd, player, action)
            return True
        if isinstance(action, SellCompany):
            player = rnd.expect_player(game, action)
            self.sell_bond(game, rnd, player, action)
            return True
        if action.type == "pass" and game.state.turn == 1 and rnd.turn == 1:
            passers = game.state.extra["first_sr_passers"]
            if action.entity not in passers:
                passers.append(action.entity)
        return False

    def owns_fdsd(self, game: Game, pid: Any) -> bool:
        fdsd = game.private("FdSD")
        return not fdsd.closed and fdsd.owner == pid

    def exchange_fdsd_for_par(self, game: Game, player: Player, amount: int) -> None:
        """FdSD is exchanged for RAG's president's certificate: the bank pays the par."""
        self.close_private(game, game.private("FdSD"))
        game.pay(game.bank, player, amount)
        game.add_log(f"{player.name} exchanges FdSD to pay for RAG's par")

    def resolve_rag_par(self, game: Game, rnd: StockRound, action: Action,
                        pending: tuple[int, str]) -> None:
        """After a RAG par by FdSD's owner: ``assign`` exchanges FdSD, ``pass`` pays cash."""
        pid, share_price = pending
        if action.entity != pid or action.type not in ("assign", "pass"):
            raise GameError(
                f"{game.player(pid).name} must decide whether FdSD pays for RAG's par "
                "(assign FdSD or pass)",
                "fdsd.par",
            )
        player = game.player(pid)
        del game.state.extra["rag_par_pending"]
        par = Par(entity=pid, corporation="RAG", share_price=share_price)
        if action.type == "assign":
            cell = self.par_cell(game, game.corporation("RAG"), share_price)
            self.exchange_fdsd_for_par(game, player, cell.price * 2)
        rnd.par(game, player, par)

    def buy_company_in_sr(self, game: Game, rnd: StockRound, player: Player,
                          action: BuyCompany) -> None:
        sym = action.company
        eva = game.private("EVA")
        if sym == "EVA" and isinstance(eva.owner, int) and eva.owner != player.id and (
            not eva.closed
        ):
            self.buy_eva_from_player(game, rnd, player, action)
            return
        offered = self.unsold_package(game) + self.next_bond(game)
        if sym not in offered:
            raise GameError(f"{sym} is not for sale (for sale: {', '.join(offered)})",
                            "stock.company")
        if rnd.bought_this_turn:
            raise GameError(f"{player.name} has already bought this turn", "stock.one_buy")
        price = game.private(sym).spec.value
        if action.price != price:
            raise GameError(f"{sym} costs {price}M, not {action.price}M", "stock.company_price")
        self.buy_package_item(game, player, sym, price)
        rnd.bought_this_turn = True
        rnd.end_turn(game, player, passed=False)

    def buy_eva_from_player(self, game: Game, rnd: StockRound, player: Player,
                            action: BuyCompany) -> None:
        """EVA is the only private that changes hands between players (seed 001); the
        reference engine has the buyer pay its face value to the bank."""
        eva = game.private("EVA")
        price = eva.spec.value
        if action.price != price:
            raise GameError(f"EVA costs {price}M, not {action.price}M", "stock.company_price")
        if rnd.bought_this_turn:
            raise GameError(f"{player.name} has already bought this turn", "stock.one_buy")
        if player.cash < price:
            raise GameError(f"{player.name} has {player.cash}M, EVA costs {price}M", "stock.cash")
        seller = game.player(int(eva.owner))  # type: ignore[arg-type]
        seller.companies.remove("EVA")
        game.pay(player, game.bank, price)
        eva.owner = player.id
        player.companies.append("EVA")
        game.add_log(f"{player.name} buys EVA from {seller.name} for {price}M")
        rnd.bought_this_turn = True
        rnd.end_turn(game, player, passed=False)

    def next_bond(self, game: Game) -> list[str]:
        for p in game.privates.values():
            if is_bond(p.sym) and p.owner == "bank":
                return [p.sym]
        return []

    def sell_bond(self, game: Game, rnd: StockRound, player: Player, action: SellCompany) -> None:
        sym = action.company
        private = game.private(sym)
        if not is_bond(sym) or private.owner != player.id:
            raise GameError(f"{player.name} cannot sell {sym}", "stock.sell_company")
        if rnd.turn == 1:
            raise GameError("nothing is sold in the first stock round", "stock.sell_first_sr")
        if rnd.bought_this_turn:
            raise GameError("selling comes before buying in a turn", "stock.sell_buy_order")
        price = private.spec.value
        game.pay(game.bank, player, price)
        private.owner = "bank"
        player.companies.remove(sym)
        game.add_log(f"{player.name} sells {sym} for {price}M")
        rnd.sold_this_turn.append(sym)
        rnd.last_to_act = player.id

    def fdsd_exchange(self, game: Game, rnd: StockRound, action: BuyShares) -> None:
        """FdSD is exchanged for RAG shares from the market (20% if two are left)."""
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
        take = sorted(in_market, key=lambda c: c.index)[:2]
        for c in take:
            give(game, c, player.id)
        self.close_private(game, fdsd)
        game.add_log(f"{player.name} exchanges FdSD for {sum(c.percent for c in take)}% of RAG")
        check_presidency(game, rag, player)
        self.check_float(game, rag)
        rnd.bought_this_turn = True
        rnd.end_turn(game, player, passed=False)

    def after_stock_turn(self, game: Game, rnd: StockRound, player: Player) -> None:
        """FdSD closes in the SR after the first 5-train, after a turn in which its owner
        traded shares (the reference engine's timing, oracle g24 action 200; seed 001:
        "closure is scheduled by the first 5-train"); otherwise at the end of that SR."""
        traded = bool(rnd.sold_this_turn) or (
            rnd.bought_this_turn and rnd.last_buy_kind == "shares"
        )
        if game.state.extra.get("fdsd_to_close") and self.owns_fdsd(game, player.id) and traded:
            self.close_private(game, game.private("FdSD"))
            game.state.extra["fdsd_to_close"] = False

    def end_of_stock_round_fdsd(self, game: Game) -> None:
        if game.state.extra.get("fdsd_to_close"):
            self.close_private(game, game.private("FdSD"))
            game.state.extra["fdsd_to_close"] = False

    def is_par_cell_for(self, game: Game, corp: Corporation, cell: Any) -> bool:
        """The ``par`` cells; the 120M cells are the merged corporations' start only."""
        return "par" in cell.types and cell.price != MERGED_PAR

    def may_par(self, game: Game, corp: Corporation) -> bool:
        return corp.sym not in MERGED

    def par_corporation(self, game: Game, player: Player, corp: Corporation,
                        share_price: str) -> None:
        """The president's certificate is bought; the other shares go to the market."""
        if corp.sym in MERGED:
            raise GameError(f"{corp.sym} is formed by a merger and cannot be parred",
                            "stock.par")
        super().par_corporation(game, player, corp, share_price)
        for cert in corp.certificates:
            if cert.owner == IPO and not cert.reserved:
                to_market(game, cert)

    def check_buy_certificates(self, game: Game, player: Player, corp: Corporation,
                               certs: list[Certificate]) -> None:
        super().check_buy_certificates(game, player, corp, certs)
        if corp.sym in MERGED and not corp.can_buy_shares:
            raise GameError(f"{corp.sym} shares cannot be bought yet", "stock.no_buy")
        if player.id in game.state.extra.get("first_sr_passers", []):
            raise GameError(f"{player.name} passed in the first stock round", "stock.passed")

    def check_sell(self, game: Game, player: Player, corp: Corporation,
                   certs: list[Certificate], percent: int) -> None:
        """No sale in the first SR; otherwise as usual (the market holds at most 50%)."""
        if game.state.turn == 1:
            raise GameError("nothing is sold in the first stock round", "stock.sell_first_sr")
        super().check_sell(game, player, corp, certs, percent)

    def can_sell_any(self, game: Game, rnd: StockRound, player: Player) -> bool:
        """Bonds can always be sold back (after the first SR); shares as usual."""
        if game.state.turn == 1 or rnd.bought_this_turn:
            return False
        if any(is_bond(s) for s in player.companies):
            return True
        return super().can_sell_any(game, rnd, player)

    def can_buy_any(self, game: Game, rnd: StockRound, player: Player) -> bool:
        if player.id in game.state.extra.get("first_sr_passers", []):
            return False
        if rnd.bought_this_turn:
            return False
        fdsd = game.private("FdSD")
        if fdsd.owner == player.id and not fdsd.closed:
            return True  # the FdSD exchange is always an option
        offered = self.unsold_package(game) + self.next_bond(game)
        if any(game.private(s).spec.value <= player.cash for s in offered):
            return True
        return super().can_buy_any(game, rnd, player)

    # -- scoring ----------------------------------------------------------------------
    def player_value(self, game: Game, player: Player) -> int:
        """Cash, shares at market price, and the face value of privates, minors and bonds."""
        total = super().player_value(game, player)
        return total + sum(game.private(s).spec.value for s in player.companies)

    # -- operating round ----------------------------------------------------------------
    def operating_order(self, game: Game) -> list[str]:
        minors = [m.sym for m in game.minors.values() if m.floated and not m.closed]
        return minors + super().operating_order(game)

    def sort_operating(self, game: Game, syms: list[str]) -> list[str]:
        minors = [s for s in syms if s in game.minors]
        corps = [s for s in syms if s in game.corporations]
        corps.sort(key=lambda s: operating_order_key(game, game.corporations[s]))
        return minors + corps

    def start_operating_round(self, game: Game, rnd: OperatingRound) -> None:
        super().start_operating_round(game, rnd)
        game.state.extra["traded_in"] = []
        game.state.extra["first_sr_passers"] = []

    def step_applicable(self, game: Game, rnd: Any, entity: Any, step: str) -> bool:
        if isinstance(entity, Minor) and step == "token":
            return False
        if isinstance(entity, Minor) and step == "dividend":
            return False
        return super().step_applicable(game, rnd, entity, step)

    def skip_step(self, game: Game, rnd: Any, entity: Any, step: str) -> None:
        """A minor pays half its revenue to its owner and keeps half."""
        if isinstance(entity, Minor) and step == "dividend":
            if rnd.route_results:
                self.minor_half_pay(game, entity, rnd.revenue)
            return
        super().skip_step(game, rnd, entity, step)

    def minor_half_pay(self, game: Game, minor: Minor, revenue: int) -> None:
        owner = game.player(int(minor.owner)) if minor.owner is not None else None
        half = revenue // 2
        kept = revenue - half
        if owner is not None:
            game.pay(game.bank, owner, half)
        game.pay(game.bank, minor, kept)
        minor.operated = True
        game.add_log(f"{minor.sym} pays {half}M to its owner and keeps {kept}M")

    def dividend_price_move(self, game: Game, corp: Any, paid: int) -> None:
        """As in 1830: a payout moves the price right, a withhold (or no run) left."""
        move_price(game, corp, "right" if paid > 0 else "left")

    def private_owner_entity(self, game: Game, private: Any) -> Any:
        if private.owner == "bank":
            return None
        return super().private_owner_entity(game, private)

    def may_buy_trains_from_others(self, game: Game, entity: Any) -> bool:
        """From phase 3 (status ``can_buy_trains``)."""
        return "can_buy_trains" in game.phase.status

    def train_sellable_to(self, game: Game, seller: Any, buyer: Any) -> bool:
        """A corporation never buys a minor's train (seed 001, rule case 5)."""
        if seller.closed:
            return False
        return isinstance(seller, Corporation) or isinstance(buyer, Minor)

    def check_train_room(self, game: Game, entity: Any) -> None:
        """A company may buy beyond its limit and then discards (reference engine)."""

    def can_buy_train(self, game: Game, entity: Any) -> bool:
        """As the default, or a trade-in is possible (even at the train limit)."""
        return super().can_buy_train(game, entity) or bool(self.trade_in_options(game, entity))

    def trade_in_options(self, game: Game, entity: Any) -> list[tuple[str, str, int]]:
        """``(own train, depot train, price)`` trade-ins ``entity`` can afford now."""
        if entity.sym in game.state.extra.get("traded_in", []):
            return []
        out = []
        for new in self.available_depot_trains(game):
            for old in entity.trains:
                discount = (new.spec.discount or {}).get(old.name)
                if discount is not None and new.spec.price - discount <= entity.cash:
                    out.append((old.id, new.id, new.spec.price - discount))
        return out

    def must_buy_train(self, game: Game, entity: Any) -> bool:
        if isinstance(entity, Minor):
            return False
        return super().must_buy_train(game, entity)

    def buy_train(self, game: Game, rnd: OperatingRound, entity: Any, action: BuyTrain) -> None:
        """A depot train may be bought trading in one own train (once per OR turn) for the
        discount the data lists; the traded train goes to the open market."""
        if action.exchange is None:
            super().buy_train(game, rnd, entity, action)
            return
        traded = game.state.extra["traded_in"]
        if entity.sym in traded:
            raise GameError(f"{entity.sym} has already traded in a train this turn",
                            "train.trade_in_once")
        old = game.train(action.exchange)
        new = game.train(action.train)
        if old not in entity.trains:
            raise GameError(f"{entity.sym} does not own {old.id}", "train.trade_in")
        discount = (new.spec.discount or {}).get(old.name)
        if discount is None:
            raise GameError(f"a {old.name}-train cannot be traded in for a {new.name}-train",
                            "train.trade_in")
        if new not in self.available_depot_trains(game):
            raise GameError(f"train {new.id} is not for sale now", "train.available")
        price = new.spec.price - discount
        if action.price != price:
            raise GameError(f"{new.id} costs {price}M with the trade-in, not {action.price}M",
                            "train.price")
        if price > entity.cash:
            raise GameError(f"{entity.sym} has {entity.cash}M, the train costs {price}M",
                            "train.cash")
        game.pay(entity, game.bank, price)
        entity.trains.remove(old)
        game.to_open_market(old)
        new.owner = entity.sym
        entity.trains.append(new)
        traded.append(entity.sym)
        game.add_log(f"{entity.sym} trades in {old.id} for {new.id} paying {price}M")
        self.after_train_bought(game, rnd, entity, new)

    def pay_for_train(self, game: Game, entity: Any, price: int, train: Any = None) -> None:
        """A trainless minor's owner pays what the minor lacks."""
        if isinstance(entity, Minor) and price > entity.cash and not entity.trains:
            owner = game.player(int(entity.owner)) if entity.owner is not None else None
            need = price - entity.cash
            if owner is None or owner.cash < need:
                raise GameError(f"{entity.sym} and its owner cannot pay {price}M", "train.cash")
            game.pay(owner, entity, need)
        super().pay_for_train(game, entity, price, train)

    def train_event(self, game: Game, rnd: Any, event: str, train: Any) -> None:
        """1893's train events (reference facts, trains.events)."""
        extra = game.state.extra
        if event == "agv_buyable":
            self.make_buyable(game, "AGV")
            extra["agv_mergable"] = True
        elif event == "hgk_buyable":
            self.make_buyable(game, "HGK")
            extra["hgk_mergable"] = True
        elif event == "agv_founded":
            extra["agv_mergable"] = False
            if not game.corporation("AGV").floated:
                extra["agv_auto_found"] = True
        elif event == "hgk_founded":
            extra["hgk_mergable"] = False
            if not game.corporation("HGK").floated:
                extra["hgk_auto_found"] = True
        elif event == "fdsd_closed":
            if not game.private("FdSD").closed:
                extra["fdsd_to_close"] = True
        elif event == "eva_closed":
            self.close_private(game, game.private("EVA"))
        elif event == "remove_tile_block":
            pass  # the board rules read the phase
        else:
            super().train_event(game, rnd, event, train)

    def make_buyable(self, game: Game, sym: str) -> None:
        """The merged corporation's unreserved shares go to the market at 120M."""
        corp = game.corporation(sym)
        kind = MERGED_PAR_TYPE[sym]
        cell = next(c for c in game.data.par_cells if kind in c.types)
        from rhineland.engine.shares import set_price

        corp.par_price = cell
        set_price(game, corp, cell)
        for cert in corp.certificates:
            if cert.owner == IPO and not cert.reserved:
                to_market(game, cert)
        corp.can_buy_shares = True
        game.add_log(f"{sym} shares can now be bought")

    # -- mergers ------------------------------------------------------------------------
    def start_merger_round(self, game: Game, rnd: MergerRound) -> None:
        extra = game.state.extra
        for sym in MERGED:
            key = sym.lower()
            if extra.get(f"{key}_auto_found"):
                self.found(game, rnd, sym)
            elif extra.get(f"{key}_mergable"):
                self.offer_merger(game, rnd, sym)

    def offer_merger(self, game: Game, rnd: MergerRound, sym: str) -> None:
        rnd.offering.append(sym)
        if len(rnd.offering) > 1:
            return
        self._setup_vote(game, rnd, sym)

    def _setup_vote(self, game: Game, rnd: MergerRound, sym: str) -> None:
        rnd.voters = []
        rnd.votes = {}
        rnd.yes = 0
        rnd.index = 0
        corp = game.corporation(sym)
        shares = dict(MERGERS[sym])
        for merging in VOTE_ORDER[sym]:
            share_index = shares[merging]
            owner = game.private(merging).owner
            if not isinstance(owner, int):
                continue
            pct = corp.certificates[share_index].percent
            if owner not in rnd.votes:
                rnd.voters.append(owner)
                rnd.votes[owner] = 0
            rnd.votes[owner] += pct
        for p in game.state.players:
            pct = corp.percent_of(p.id)
            if pct:
                if p.id not in rnd.votes:
                    rnd.voters.append(p.id)
                    rnd.votes[p.id] = 0
                rnd.votes[p.id] += pct
        rnd.no = 100 - sum(rnd.votes.values())

    def merger_vote(self, game: Game, rnd: MergerRound, player: Player, choice: str) -> None:
        sym = rnd.offering[0]
        pct = rnd.votes.get(player.id, 0)
        done = False
        if choice == "yes":
            rnd.yes += pct
            game.add_log(f"{player.name} votes yes on {sym} ({rnd.yes}% yes)")
            if rnd.yes >= 50:
                self.found(game, rnd, sym)
                done = True
        else:
            rnd.no += pct
            game.add_log(f"{player.name} votes no on {sym} ({rnd.no}% no)")
            done = rnd.no > 50
        if done:
            rnd.offering.pop(0)
            if rnd.offering:
                self._setup_vote(game, rnd, rnd.offering[0])
            return
        rnd.index += 1
        if rnd.index >= len(rnd.voters):
            rnd.offering.pop(0)
            if rnd.offering:
                self._setup_vote(game, rnd, rnd.offering[0])

    def found(self, game: Game, rnd: MergerRound, sym: str) -> None:
        """Found AGV/HGK: 400M from the bank, reserved certificates to the merging
        entities' owners, the minors' treasuries, trains and tokens; the presidency
        to the largest holder (ties: the merging order)."""
        extra = game.state.extra
        extra[f"{sym.lower()}_auto_found"] = False
        extra[f"{sym.lower()}_mergable"] = False
        corp = game.corporation(sym)
        game.pay(game.bank, corp, MERGED_TREASURY)
        priority: list[int] = []
        pres_cert = corp.certificates[0]
        for merging, share_index in MERGERS[sym]:
            private = game.private(merging)
            owner = private.owner
            cert = corp.certificates[share_index]
            cert.reserved = False
            if isinstance(owner, int):
                give(game, cert, owner)
                priority.append(owner)
            self.close_private(game, private)
            minor = game.minors.get(merging)
            if minor is None:
                continue
            if minor.cash:
                game.pay(minor, corp, minor.cash)
            for t in list(minor.trains):
                minor.trains.remove(t)
                t.owner = corp.sym
                corp.trains.append(t)
            for hex_id, ci in minor.tokens:
                game.board.remove_token(hex_id, ci, minor.sym)
                game.board.add_token(hex_id, ci, corp.sym)
                corp.tokens.append((hex_id, ci))
                corp.tokens_used += 1
            minor.tokens = []
            minor.closed = True
            minor.floated = False
            minor.owner = None
        holders = {p.id: corp.percent_of(p.id) for p in game.state.players}
        best = max(holders.values())
        leaders = [pid for pid, pct in holders.items() if pct == best]
        if pres_cert.owner not in leaders:
            leaders.sort(key=lambda pid: priority.index(pid) if pid in priority else 99)
            from rhineland.engine.shares import president_swap

            president_swap(game, corp, leaders[0], pres_cert.owner)
        corp.floated = True
        corp.can_buy_shares = True
        game.add_log(f"{sym} is founded")
        if corp.trains:
            rnd.discards.append(sym)

    def process_merge_discard(self, game: Game, rnd: MergerRound, action: Action) -> None:
        sym = rnd.discards[0]
        corp = game.corporation(sym)
        if action.type == "pass" and action.entity == sym:
            if self.over_train_limit(game, corp):
                raise GameError(f"{sym} must discard down to its train limit", "train.limit")
            rnd.discards.pop(0)
            return
        if action.type == "discard_train" and action.entity == sym:
            self.discard_train(game, corp, str(getattr(action, "train", "")))
            if not corp.trains:
                rnd.discards.pop(0)  # nothing left to decide
            return
        raise GameError(f"{sym}'s president decides which trains {sym} keeps", "merger.discard")

    def process_operating_action(self, game: Game, rnd: Any, entity: Any, action: Any) -> bool:
        """A president who cannot pay for a train even after selling all they may goes
        bankrupt: their cash goes to the bank and the game ends at once (seed 001)."""
        if action.type != "bankrupt":
            return False
        owners = game.entity_owner_ids(entity)
        if action.entity != entity.sym or rnd.step != "buy_train" or not owners:
            raise GameError(f"{action.entity} cannot declare bankruptcy now", "bankrupt.when")
        if not self.must_buy_train(game, entity):
            raise GameError(f"{entity.sym} is not obliged to buy a train", "bankrupt.not_needed")
        player = game.player(owners[0])
        cheapest = min((t.spec.price for t in self.available_depot_trains(game)), default=0)
        means = entity.cash + player.cash + self.sellable_value(game, player)
        if means >= cheapest:
            raise GameError(
                f"{player.name} cannot go bankrupt: {entity.sym}'s cash plus {player.name}'s "
                f"cash and sellable shares total {means}M, the cheapest train costs {cheapest}M",
                "bankrupt.can_pay",
            )
        game.pay(player, game.bank, player.cash)
        player.bankrupt = True
        game.add_log(f"{player.name} goes bankrupt: the game ends")
        st = game.state
        st.finished = True
        st.end_trigger = ("bankrupt", "immediate")
        st.game_end_reason = "bankrupt"
        st.ended_mid_round = True
        return True

    def sellable_value(self, game: Game, player: Player) -> int:
        """M ``player`` could raise by selling every share the market takes now."""
        limit = game.data.rules.get("market_share_limit", 50)
        total = 0
        for corp in game.corporations.values():
            if not corp.operated or corp.share_price is None:
                continue
            room = limit - corp.percent_of(MARKET)
            for cert in corp.certs_of(player.id):
                if not cert.president and cert.percent <= room:
                    room -= cert.percent
                    total += corp.share_price.price * cert.percent // 10
        return total

    def entity_acting_ids(self, game: Game, entity: Any) -> list[int]:
        return []

