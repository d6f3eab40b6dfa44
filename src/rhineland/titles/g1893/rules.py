"""1893: Cologne: the rule hooks that differ from the defaults.

Sources: seed ``001`` (rules summary and comparison with 1830), the reference
facts, and the oracle traces where the summary is silent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rhineland.engine.actions import (
    BuyTrain,
)
from rhineland.engine.entities import Corporation, Minor, Player
from rhineland.engine.ruleset import REFERENCE
from rhineland.engine.shares import (
    move_price,
    operating_order_key,
)
from rhineland.engine.title import Title
from rhineland.errors import GameError
from rhineland.titles.g1893.board_rules import CologneBoardRules
from rhineland.titles.g1893.constants import is_bond
from rhineland.titles.g1893.mergers import MergerRound, make_buyable
from rhineland.titles.g1893.revenue import CologneRevenue
from rhineland.titles.g1893.rounds import ForcedAuction, StartingPackageDraft
from rhineland.titles.g1893.rule_sets import RULE_SETS, CologneRuleSet
from rhineland.titles.g1893.starting_package import draftables, unsold_package
from rhineland.titles.g1893.state import CologneState, cologne_state
from rhineland.titles.g1893.steps import STEPS
from rhineland.titles.g1893.stock import CologneStock

if TYPE_CHECKING:
    from rhineland.engine.game import Game
    from rhineland.engine.rounds.base import Round
    from rhineland.engine.rounds.operating import OperatingRound
    from rhineland.engine.steps import Step


class Cologne(CologneStock, Title):
    """1893: Cologne, 2-4 players."""

    name = "1893"
    package = "rhineland.titles.g1893"

    def __init__(self, optional_rules: tuple[str, ...] | list[str] = (),
                 rules: str = REFERENCE) -> None:
        super().__init__(optional_rules, rules)
        self.rule_set: CologneRuleSet = RULE_SETS[self.rules]
        """The round and values of the rule set played (:mod:`.rule_sets`)."""

    def make_board_rules(self) -> CologneBoardRules:
        """1893's tile and token rules (:class:`CologneBoardRules`: Leverkusen, Rhine passages)."""
        return CologneBoardRules(self.data)

    def make_revenue_rules(self) -> CologneRevenue:
        """1893's route rules (:class:`CologneRevenue`)."""
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

    def new_title_state(self) -> CologneState:
        """1893's own state (:class:`~rhineland.titles.g1893.state.CologneState`)."""
        return CologneState()

    def first_round(self, game: Game) -> Round:
        """The Starting Package: the rule set's round (reference: the draft,
        docs/rules-differences.md 1893 (a); seed: sequential offers with a 5M drop,
        :class:`~rhineland.titles.g1893.seed_rounds.SeedPackageRound`)."""
        return self.rule_set.package_round(1)

    def next_round(self, game: Game, rnd: Round) -> Round | None:
        """Draft -> SR or OR; SR -> MR .1 -> OR .1 -> MR .2 -> OR .2 -> MR .3 -> SR / auction."""
        from rhineland.engine.rounds.operating import OperatingRound
        from rhineland.engine.rounds.stock import StockRound

        st = game.state
        hgk_floated = game.corporation("HGK").floated
        if rnd.kind == "Draft":
            if isinstance(rnd, StartingPackageDraft):
                self.order_after_draft(game, rnd)  # the forced auction keeps the order
            unsold = [s for s in unsold_package(game)]
            if isinstance(rnd, ForcedAuction) or len(unsold) <= 1:
                return StockRound(rnd.turn)
            st.or_count = 2  # the draft's two ORs before the first SR
            return OperatingRound(rnd.turn, 1)
        if rnd.kind == "Stock":
            st.or_count = game.phase.operating_rounds
            if hgk_floated:
                return OperatingRound(rnd.turn, 1)
            cologne_state(game).after_merger = "or1"
            return MergerRound(rnd.turn, 1)
        if rnd.kind == "Operating":
            if self.check_game_end(game, rnd):
                return None
            more = rnd.num < st.or_count
            if hgk_floated:
                if more:
                    return OperatingRound(rnd.turn, rnd.num + 1)
                st.turn = rnd.turn + 1
                return StockRound(rnd.turn + 1)
            if more:
                cologne_state(game).after_merger = "or2"
                return MergerRound(rnd.turn, 2)
            cologne_state(game).after_merger = "auction" if draftables(game) else "sr"
            return MergerRound(rnd.turn, 3)
        if rnd.kind == "Merger":
            after = cologne_state(game).after_merger
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

    # -- scoring ----------------------------------------------------------------------
    def value_extra(self, game: Game, player: Player) -> int:
        """The face value of the player's privates, minors and bonds (added to cash and
        shares at market price)."""
        return sum(game.private(s).spec.value for s in player.companies)

    # -- operating round ----------------------------------------------------------------
    def operating_order(self, game: Game) -> list[str]:
        """Floated minors first (in their order), then corporations by share price."""
        minors = [m.sym for m in game.minors.values() if m.floated and not m.closed]
        return minors + super().operating_order(game)

    def sort_operating(self, game: Game, syms: list[str]) -> list[str]:
        """``syms`` in operating order: minors first, then corporations by share price."""
        minors = [s for s in syms if s in game.minors]
        corps = [s for s in syms if s in game.corporations]
        corps.sort(key=lambda s: operating_order_key(game, game.corporations[s]))
        return minors + corps

    def start_operating_round(self, game: Game, rnd: OperatingRound) -> None:
        """Private income; trade-ins and the first SR's passers reset for the new OR."""
        super().start_operating_round(game, rnd)
        state = cologne_state(game)
        state.traded_in = []
        state.first_sr_passers = []

    def operating_steps(self, game: Game, entity: Any) -> tuple[Step, ...]:
        """1893's OR turn (:data:`rhineland.titles.g1893.steps.STEPS`): EVA may be
        bought from another player at any point of it."""
        return STEPS

    def dividend_price_move(self, game: Game, corp: Any, paid: int) -> None:
        """As in 1830: a payout moves the price right, a withhold (or no run) left."""
        move_price(game, corp, "right" if paid > 0 else "left")

    def private_owner_entity(self, game: Game, private: Any) -> Any:
        """Unsold privates (owner ``bank``) pay no income; otherwise as the default."""
        if private.owner == "bank":
            return None
        return super().private_owner_entity(game, private)

    def bankruptcy_extra_means(self, game: Game, entity: Any, player: Any) -> int:
        """The face value of the bonds ``player`` holds (100M each) counts toward the
        means in the bankruptcy check, although bonds are not sold in an operating
        round: the reference engine's liquidity adds them, so a president holding
        bonds worth what is missing may not go bankrupt and buys another company's
        train instead.  Where ``entity`` may buy no other company's train (phase 2, only
        minors own trains, or no price is open after an emergency sale's least spend)
        the reference engine leaves no legal action at all;
        there the bonds do not count, so the game goes on by the bankruptcy (a
        deadlock no reference game can continue from)."""
        bonds = sum(game.private(sym).spec.value for sym in player.companies if is_bond(sym))
        if not bonds or not self.may_buy_trains_from_others(game, entity):
            return 0
        turn = getattr(game.state.round, "turn_state", None)
        sold_at = getattr(turn, "last_sale_share_price", None)
        means = entity.cash + player.cash
        for other in list(game.corporations.values()) + list(game.minors.values()):
            if other is entity or not self.train_sellable_to(game, other, entity):
                continue
            for train in other.trains:
                face = train.spec.price
                # the prices buy_train_from_other accepts: 1M (after an emergency sale,
                # more than the means less that share) up to the treasury, or up to
                # face value with the president's help
                low = means - sold_at + 1 if sold_at is not None and entity.cash < face else 1
                if low <= max(entity.cash, min(face, means)):
                    return bonds
        return 0

    def train_sellable_to(self, game: Game, seller: Any, buyer: Any) -> bool:
        """A corporation never buys a minor's train (seed 001, rule case 5)."""
        if seller.closed:
            return False
        return isinstance(seller, Corporation) or isinstance(buyer, Minor)

    def can_buy_train(self, game: Game, entity: Any) -> bool:
        """As the default, or a trade-in is possible (even at the train limit)."""
        return super().can_buy_train(game, entity) or bool(self.trade_in_options(game, entity))

    def trade_in_options(self, game: Game, entity: Any) -> list[tuple[str, str, int]]:
        """``(own train, depot train, price)`` trade-ins ``entity`` can afford now."""
        if entity.sym in cologne_state(game).traded_in:
            return []
        out = []
        for new in self.available_depot_trains(game):
            for old in entity.trains:
                discount = (new.spec.discount or {}).get(old.name)
                if discount is not None and new.spec.price - discount <= entity.cash:
                    out.append((old.id, new.id, new.spec.price - discount))
        return out

    def must_buy_train(self, game: Game, entity: Any) -> bool:
        """A minor is never obliged to buy a train (reference engine); a corporation as usual."""
        if isinstance(entity, Minor):
            return False
        return super().must_buy_train(game, entity)

    def check_buy_train(self, game: Game, rnd: OperatingRound, entity: Any,
                        action: BuyTrain) -> None:
        """The checks of :meth:`buy_train`: a trade-in's (``"train.trade_in_once"``,
        ``"train.trade_in"``, ``"train.available"``, ``"train.price"``,
        ``"train.cash"``), else the default's."""
        if action.exchange is None:
            super().check_buy_train(game, rnd, entity, action)
            return
        traded = cologne_state(game).traded_in
        if entity.sym in traded:
            raise GameError(
                f"{entity.sym} has already traded in a train this turn", "train.trade_in_once"
            )
        old = game.train(action.exchange)
        new = game.train(action.train)
        if old not in entity.trains:
            raise GameError(f"{entity.sym} does not own {old.id}", "train.trade_in")
        discount = (new.spec.discount or {}).get(old.name)
        if discount is None:
            raise GameError(
                f"a {old.name}-train cannot be traded in for a {new.name}-train", "train.trade_in"
            )
        if not self.train_available(game, new):  # one of available_depot_trains()
            raise GameError(self.not_for_sale_message(game, new), "train.available")
        price = new.spec.price - discount
        if action.price != price:
            raise GameError(
                f"{new.id} costs {price}M with the trade-in, not {action.price}M", "train.price"
            )
        if price > entity.cash:
            raise GameError(
                f"{entity.sym} has {entity.cash}M, the train costs {price}M", "train.cash"
            )

    def buy_train(self, game: Game, rnd: OperatingRound, entity: Any, action: BuyTrain) -> None:
        """A depot train may be bought trading in one own train (once per OR turn) for the
        discount the data lists; the traded train goes to the open market
        (:meth:`check_buy_train`)."""
        if action.exchange is None:
            super().buy_train(game, rnd, entity, action)
            return
        self.check_buy_train(game, rnd, entity, action)
        traded = cologne_state(game).traded_in
        old = game.train(action.exchange)
        new = game.train(action.train)
        price = action.price
        game.pay(entity, game.bank, price)
        entity.trains.remove(old)
        game.to_open_market(old)
        new.owner = entity.sym
        entity.trains.append(new)
        traded.append(entity.sym)
        game.add_log(f"{entity.sym} trades in {old.id} for {new.id} paying {price}M")
        self.after_train_bought(game, rnd, entity, new)

    def check_train_payment(self, game: Game, entity: Any, price: int) -> None:
        """A trainless minor short of ``price`` needs its owner's help
        (:meth:`check_minor_assist`); otherwise as the default."""
        if not self.check_minor_assist(game, entity, price):
            super().check_train_payment(game, entity, price)

    def pay_for_train(self, game: Game, entity: Any, price: int) -> None:
        """A trainless minor's owner pays what the minor lacks (:meth:`assist_minor`)."""
        self.assist_minor(game, entity, price)
        super().pay_for_train(game, entity, price)

    def emergency_other_most(self, game: Game, entity: Any, train: Any) -> int:
        """A trainless minor short of another company's train's price may pay, with its
        owner's help (:meth:`assist_minor`), up to the train's face value and what both
        have; otherwise as the default."""
        if isinstance(entity, Minor) and not entity.trains:
            owner = game.player(int(entity.owner)) if entity.owner is not None else None
            means = entity.cash + (owner.cash if owner is not None else 0)
            return int(min(train.spec.price, means))
        return super().emergency_other_most(game, entity, train)

    def check_emergency_from_other(self, game: Game, entity: Any, train: Any,
                                   price: int) -> None:
        """A trainless minor short of ``price`` needs its owner's help
        (:meth:`check_minor_assist`) and pays at most the train's face value
        (:meth:`emergency_other_most`: 18xx.games's interface offers no more, its engine
        takes up to what minor and owner have, which an export replay accepts under the
        leniency ``train.assist_price``); otherwise as the default.  Raises ``GameError``
        (``"train.cash"``, ``"train.assist_price"``, the default's)."""
        if not self.check_minor_assist(game, entity, price):
            super().check_emergency_from_other(game, entity, train, price)
        elif price > train.spec.price:
            game.lenient(
                f"with its owner's help {entity.sym} pays at most the face value "
                f"{train.spec.price}M for {train.id}, not {price}M",
                "train.assist_price",
            )

    def emergency_from_other(self, game: Game, entity: Any, train: Any, price: int) -> None:
        """A trainless minor's owner also adds what it lacks for another company's train
        (:meth:`assist_minor`); otherwise as the default."""
        if not self.assist_minor(game, entity, price):
            super().emergency_from_other(game, entity, train, price)

    def check_minor_assist(self, game: Game, entity: Any, price: int) -> bool:
        """Whether :meth:`assist_minor` has the owner pay (a minor without trains short
        of ``price``), before anything changes.  Raises ``GameError`` (``"train.cash"``)
        when minor and owner together have less than ``price``."""
        if not isinstance(entity, Minor) or price <= entity.cash or entity.trains:
            return False
        owner = game.player(int(entity.owner)) if entity.owner is not None else None
        need = price - entity.cash
        if owner is None or owner.cash < need:
            raise GameError(f"{entity.sym} and its owner cannot pay {price}M", "train.cash")
        return True

    def assist_minor(self, game: Game, entity: Any, price: int) -> bool:
        """A minor without trains short of ``price`` (M) gets the rest from its owner, for
        any train it buys (from the depot or another company; the reference engine's
        president-assisted buy); True when the owner paid.  Raises ``GameError``
        (``"train.cash"``) when minor and owner together have less than ``price``."""
        if not self.check_minor_assist(game, entity, price):
            return False
        owner = game.player(int(entity.owner))
        need = price - entity.cash
        game.pay(owner, entity, need)
        game.add_log(f"{owner.name} adds {need}M to {entity.sym}'s train")
        return True

    def train_event(self, game: Game, rnd: Any, event: str, train: Any) -> None:
        """1893's train events (reference facts, trains.events)."""
        state = cologne_state(game)
        if event == "agv_buyable":
            make_buyable(game, "AGV")
            state.mergable["AGV"] = True
        elif event == "hgk_buyable":
            make_buyable(game, "HGK")
            state.mergable["HGK"] = True
        elif event == "agv_founded":
            state.mergable["AGV"] = False
            if not game.corporation("AGV").floated:
                state.auto_found["AGV"] = True
        elif event == "hgk_founded":
            state.mergable["HGK"] = False
            if not game.corporation("HGK").floated:
                state.auto_found["HGK"] = True
        elif event == "fdsd_closed":
            if not game.private("FdSD").closed:
                state.fdsd_to_close = True
        elif event == "eva_closed":
            self.close_private(game, game.private("EVA"))
        elif event == "remove_tile_block":
            pass  # the board rules read the phase
        else:
            super().train_event(game, rnd, event, train)
