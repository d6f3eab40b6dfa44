"""Default train rules (hooks a title may override): limits, buying, emergency buys,
phases, rusting, train events and discards.

Sources: seeds ``000``/``001`` ("Phases", "Emergency sell"), reference facts
``rules`` (``must_buy_train: route``, ``ebuy_from_others``,
``ebuy_depot_train_must_be_cheapest``...), oracle traces.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rhineland.engine.actions import BuyTrain
from rhineland.engine.entities import MARKET, Corporation, Minor, Private, Train
from rhineland.errors import GameError

if TYPE_CHECKING:
    from rhineland.engine.game import Game
    from rhineland.engine.rounds.operating import OperatingRound


class TrainRules:
    """Trains: limits, the buy step, emergency buys, phase changes and rusting."""

    if TYPE_CHECKING:  # provided by the other rule mixins of the Title class
        def has_route(self, game: Game, entity: Any) -> bool:
            """For type checking only: see :meth:`OperatingRules.has_route`."""
            ...

        def operator(self, game: Game, sym: str) -> Any:
            """For type checking only: see :meth:`OperatingRules.operator`."""
            ...

    def train_limit(self, game: Game, entity: Any) -> int:
        """``entity``'s train limit in the current phase (minor or corporation limit)."""
        kind = "minor" if isinstance(entity, Minor) else "corporation"
        return int(game.phase.limit_for(kind))

    def over_train_limit(self, game: Game, entity: Any) -> bool:
        """Whether ``entity`` holds more trains than its limit (it must discard)."""
        return len(entity.trains) > self.train_limit(game, entity)

    def can_buy_train(self, game: Game, entity: Any) -> bool:
        """Room under the train limit and cash for the cheapest train on offer (a depot
        train, or 1M for another company's train), or a train still owed."""
        if len(entity.trains) >= self.train_limit(game, entity):
            return False
        if self.must_buy_train(game, entity):
            return True
        return bool(entity.cash >= self.min_train_price(game, entity))

    def min_train_price(self, game: Game, entity: Any) -> int:
        """Cheapest price (M) at which ``entity`` might buy a train now: a depot train, or
        1M while any other company owns one (the reference engine keeps the train
        step open then, whatever the phase allows)."""
        prices = [t.spec.price for t in self.available_depot_trains(game)]
        others = list(game.corporations.values()) + list(game.minors.values())
        if any(o is not entity and o.trains and not o.closed for o in others):
            prices.append(1)
        return min(prices, default=10**9)

    def train_sellable_to(self, game: Game, seller: Any, buyer: Any) -> bool:
        """Whether ``seller``'s trains may be sold to ``buyer`` (default: any other
        corporation)."""
        return isinstance(seller, Corporation) and not seller.closed

    def must_buy_train(self, game: Game, entity: Any) -> bool:
        """Whether ``entity`` must buy a train: it has none, the bank still sells one
        (depot or open market; once every train is sold nobody must, so no president
        adds money and a company pays another's train from its treasury alone, as
        18xx.games has it) and it has a route.  Title hook; 1893 never obliges minors."""
        return (not entity.trains and bool(self.available_depot_trains(game))
                and self.has_route(game, entity))

    def bankruptcy_extra_means(self, game: Game, entity: Any, player: Any) -> int:
        """M that count toward the means of ``entity`` and its president ``player`` in
        the bankruptcy check beyond the treasury, the president's cash and the shares
        they may sell (:func:`rhineland.engine.emergency.check_may_go_bankrupt`), never
        negative (the check refuses a bankruptcy from the cash alone first).  Title
        hook; default 0 (1893: the face value of the president's bonds)."""
        return 0

    def available_depot_trains(self, game: Game) -> list[Any]:
        """The trains for sale from the bank now: of the depot's trains, the next one
        of the next type and of each type made available early (``available_on``), in
        depot order; then, of the open market's trains (:meth:`Game.discarded_trains`),
        the one longest there of each type.  A type's other trains wait behind these:
        the bank sells the trains of one type in order (18xx.games refuses another
        with "Not a buyable train").  One pass over the trains (the phases seen are
        gathered only for a train made available early): the legal listing and the
        train checks ask often."""
        out: list[Any] = []
        names: set[str] = set()
        seen: set[str] | None = None
        for t in game.state.trains:
            if t.owner is not None or t.rusted:
                continue  # not in the depot
            spec = t.spec
            if spec.name in names:
                continue  # behind the next train of its type
            if not names:
                names.add(spec.name)  # the next type
                out.append(t)
            elif spec.available_on is not None:
                if seen is None:
                    seen = {p.name for p in game.data.phases[: game.state.phase + 1]}
                if spec.available_on in seen:
                    names.add(spec.name)
                    out.append(t)
        if game.state.discard_order:
            market: set[str] = set()
            for t in game.discarded_trains():
                if t.name not in market:
                    market.add(t.name)
                    out.append(t)
        return out

    def train_available(self, game: Game, train: Any) -> bool:
        """Whether ``train`` is one of :meth:`available_depot_trains` (the next depot
        train of the next type or of a type made available, or the open market's
        longest-waiting train of its type), asked without listing them all (a title
        overriding that method is asked through it)."""
        if type(self).available_depot_trains is not TrainRules.available_depot_trains:
            return train in self.available_depot_trains(game)
        if train.rusted:
            return False
        if train.owner is None:  # in the depot
            first: Any = None
            for t in game.state.trains:
                if t.owner is not None or t.rusted:
                    continue
                if first is None:
                    first = t
                if t.name == train.name:
                    if t is not train:
                        return False  # behind the next train of its type
                    break
            if train.name == first.name:
                return True
            on = train.spec.available_on
            return on is not None and on in {
                p.name for p in game.data.phases[: game.state.phase + 1]}
        if train.owner != MARKET or train.id not in game.state.discard_order:
            return False
        return next(t for t in game.discarded_trains() if t.name == train.name) is train

    def not_for_sale_message(self, game: Game, train: Any) -> str:
        """Why the bank does not sell ``train`` (not one of :meth:`available_depot_trains`):
        another train of its type comes first, or its type is not on sale yet."""
        if train.owner in (None, MARKET):
            for t in self.available_depot_trains(game):
                if t.name == train.name and t.owner == train.owner:
                    where = "depot" if train.owner is None else "open market"
                    return (f"train {train.id} is not for sale now: the {where} sells "
                            f"{t.id} first")
        return f"train {train.id} is not for sale now"

    def check_buy_train(self, game: Game, rnd: OperatingRound, entity: Any,
                        action: BuyTrain) -> None:
        """Every check of :meth:`buy_train`, made before anything changes: once it
        passes, :meth:`buy_train` refuses nothing (a title overriding one overrides the
        other).  Raises ``GameError`` (``"train.available"``, ``"train.price"``,
        ``"train.limit"``, ``"train.cash"``, ``"train.cheapest_offer"`` ...)."""
        train = game.train(action.train)
        if not self.train_available(game, train):
            if train.owner in (None, MARKET) or train.owner == entity.sym:
                raise GameError(self.not_for_sale_message(game, train), "train.available")
            self.check_buy_train_from_other(game, rnd, entity, train, action.price)
            return
        price = train.spec.price
        if action.price != price:
            raise GameError(
                f"train {train.id} costs {price}M, not {action.price}M", "train.price"
            )
        self.check_train_room(game, entity)
        self.check_train_payment(game, entity, price)
        self.check_cheapest_offer(game, entity, train)

    def check_cheapest_offer(self, game: Game, entity: Any, train: Any) -> None:
        """A company whose cash is short of every train the bank sells is offered only
        the cheapest of them (the first of equal price: the depot's before the open
        market's), which it buys with help (an emergency buy, a 1893 minor's owner).
        18xx.games's engine takes another there (a train of the cheapest's type, or for
        a 1893 minor any), which an export replay accepts under the leniency
        ``train.cheapest_offer``.  Raises ``GameError`` (``"train.cheapest_offer"``)."""
        cheapest = self.cheapest_depot_train(game)
        if cheapest is None or train is cheapest or entity.cash >= cheapest.spec.price:
            return
        game.lenient(
            f"{entity.sym} has {entity.cash}M, less than any train for sale: it is offered "
            f"only the cheapest, {cheapest.id} ({cheapest.spec.price}M)",
            "train.cheapest_offer",
        )

    def cheapest_depot_train(self, game: Game) -> Train | None:
        """The cheapest train on offer from the depot or the open market
        (:meth:`available_depot_trains`; the first of equal price), or None when there
        is none."""
        trains = self.available_depot_trains(game)
        return min(trains, key=lambda t: t.spec.price) if trains else None

    def buy_train(self, game: Game, rnd: OperatingRound, entity: Any, action: BuyTrain) -> None:
        """Buy ``action.train`` from the depot (or the open market's discards) at face
        price, or from another company (:meth:`buy_train_from_other`); then phase
        change, rust and events.  Raises ``GameError`` (:meth:`check_buy_train`).
        Title hook; 1893 adds trade-ins."""
        self.check_buy_train(game, rnd, entity, action)
        train = game.train(action.train)
        if train not in self.available_depot_trains(game):
            self.buy_train_from_other(game, rnd, entity, train, action.price)
            return
        price = train.spec.price
        self.pay_for_train(game, entity, price)
        train.owner = entity.sym
        entity.trains.append(train)
        game.add_log(f"{entity.sym} buys a {train.name}-train for {price}M")
        self.after_train_bought(game, rnd, entity, train)

    def may_buy_trains_from_others(self, game: Game, entity: Any) -> bool:
        """Whether trains may change hands between operating entities now."""
        return "can_buy_trains" in game.phase.status

    def check_train_room(self, game: Game, entity: Any) -> None:
        """A company at its train limit may not buy another train (a title's trade-in,
        which keeps the count, has its own check).  18xx.games accepts such a purchase
        where its buy-train step is open (it then has a train discarded) although its
        interface offers none: an export replay takes it under the leniency
        ``train.limit``.  Raises ``GameError`` (``"train.limit"``)."""
        if len(entity.trains) >= self.train_limit(game, entity):
            game.lenient(
                f"{entity.sym} is at its train limit of {self.train_limit(game, entity)}",
                "train.limit",
            )

    def check_buy_train_from_other(self, game: Game, rnd: OperatingRound, entity: Any,
                                   train: Any, price: int) -> None:
        """The checks of :meth:`buy_train_from_other`, before anything changes (phase,
        seller, price, room, cash: :meth:`check_emergency_from_other`).  Raises
        ``GameError`` (``"train.from_other"``, ``"train.emergency_depot_only"``,
        ``"train.price"``, ``"train.limit"``, ``"train.cash"`` ...)."""
        if not self.may_buy_trains_from_others(game, entity):
            raise GameError(
                f"trains may not change hands between companies in phase {game.phase.name}",
                "train.from_other",
            )
        if rnd.turn_state.emergency_sold and (
            game.data.rules.get("ebuy_from_others", "never") == "never"
        ):
            raise GameError(
                f"after selling shares for an emergency buy, {entity.sym} may buy only from "
                "the depot",
                "train.emergency_depot_only",
            )
        seller = self.operator(game, str(train.owner))
        if not self.train_sellable_to(game, seller, entity):
            raise GameError(f"{entity.sym} may not buy a train from {seller.sym}",
                            "train.from_other")
        if price < 1:
            raise GameError(f"a train between companies costs at least 1M, not {price}M",
                            "train.price")
        self.check_emergency_spend(game, rnd, entity, train, price)
        self.check_train_room(game, entity)
        if price > entity.cash:
            self.check_emergency_from_other(game, entity, train, price)

    def buy_train_from_other(self, game: Game, rnd: OperatingRound, entity: Any, train: Any,
                             price: int) -> None:
        """Buy ``train`` from another corporation for a price of at least 1M
        (:meth:`check_buy_train_from_other`)."""
        self.check_buy_train_from_other(game, rnd, entity, train, price)
        seller = self.operator(game, str(train.owner))
        if price > entity.cash:
            self.emergency_from_other(game, entity, train, price)
        game.pay(entity, seller, price)
        seller.trains.remove(train)
        train.owner = entity.sym
        entity.trains.append(train)
        game.add_log(f"{entity.sym} buys {train.id} from {seller.sym} for {price}M")

    def other_train_price_bounds(self, game: Game, rnd: OperatingRound, entity: Any,
                                 train: Any) -> tuple[int, int]:
        """The least and the most price (M) that the price checks of
        :meth:`buy_train_from_other` accept for ``entity`` buying ``train`` now
        (``least > most``: no price): at least 1M and the emergency least spend
        (:meth:`emergency_least_spend`), at most the company's cash or what
        :meth:`emergency_other_most` lets its president add.  The other checks (phase,
        seller, train limit, turn) do not look at the price: they refuse every price or
        none.  The legal-action generator narrows a price span with it (one trial
        instead of a search; tests/test_amount_bounds.py compares the two).  No price
        (1, 0) while trains do not change hands between companies
        (:meth:`may_buy_trains_from_others`, the first check of
        :meth:`check_buy_train_from_other`: every price refused, no trial needed)."""
        if not self.may_buy_trains_from_others(game, entity):
            return 1, 0
        least = max(1, self.emergency_least_spend(game, rnd, entity, train))
        return least, max(entity.cash, self.emergency_other_most(game, entity, train))

    def emergency_least_spend(self, game: Game, rnd: OperatingRound, entity: Any,
                              train: Any) -> int:
        """The least price (M) :meth:`check_emergency_spend` accepts for ``train`` (0:
        no such bound)."""
        sold_at = rnd.turn_state.last_sale_share_price
        if (sold_at is None or entity.cash >= train.spec.price
                or game.data.rules.get("ebuy_from_others", "never") != "value"):
            return 0  # asked by every trial of another company's train: the owners last
        owners = game.entity_owner_ids(entity)
        if not owners:
            return 0
        return int(entity.cash + game.player(owners[0]).cash - sold_at + 1)

    def check_emergency_spend(self, game: Game, rnd: OperatingRound, entity: Any, train: Any,
                              price: int) -> None:
        """After an emergency sale (``ebuy_from_others: value``), a train from another
        company below its face value must cost more than the company and its president
        had before the last share sold: at least treasury + president's cash - that
        share's price + 1 (M), so the sale was needed for it (the reference engine's
        least spend, :meth:`emergency_least_spend`).  Raises ``GameError``
        (``"train.emergency_spend"``)."""
        least = self.emergency_least_spend(game, rnd, entity, train)
        if price < least:
            owners = game.entity_owner_ids(entity)
            sold_at = rnd.turn_state.last_sale_share_price
            raise GameError(
                f"after selling a share at {sold_at}M {entity.sym} must spend at least "
                f"{least}M on {train.id} ({entity.cash}M treasury + "
                f"{game.player(owners[0]).cash}M of its president - {sold_at}M + 1M), not "
                f"{price}M",
                "train.emergency_spend",
            )

    def emergency_other_most(self, game: Game, entity: Any, train: Any) -> int:
        """The most price (M) :meth:`emergency_from_other` accepts for ``train`` (a price
        up to the company's cash never reaches it): face value, and no more than the
        company and its president have together, where the title lets the president
        help; else the company's cash."""
        if (game.data.rules.get("ebuy_from_others", "never") != "value"
                or not self.must_buy_train(game, entity)):
            return int(entity.cash)
        owners = game.entity_owner_ids(entity)
        if not owners:
            return int(entity.cash)
        return int(min(train.spec.price, entity.cash + game.player(owners[0]).cash))

    def check_emergency_from_other(self, game: Game, entity: Any, train: Any,
                                   price: int) -> None:
        """The checks of :meth:`emergency_from_other` (``price`` above the company's
        cash), before anything changes.  Raises ``GameError`` (``"train.cash"``,
        ``"train.emergency_price"``, ``"train.emergency_cash"``)."""
        rule = game.data.rules.get("ebuy_from_others", "never")
        owners = game.entity_owner_ids(entity)
        if rule != "value" or not self.must_buy_train(game, entity) or not owners:
            raise GameError(f"{entity.sym} has {entity.cash}M, not {price}M", "train.cash")
        if price > train.spec.price:
            raise GameError(
                f"in an emergency a train from another company costs at most its face value "
                f"{train.spec.price}M, not {price}M",
                "train.emergency_price",
            )
        president = game.player(owners[0])
        need = price - entity.cash
        if president.cash < need:
            raise GameError(f"{president.name} must add {need}M but has {president.cash}M",
                            "train.emergency_cash")

    def emergency_from_other(self, game: Game, entity: Any, train: Any, price: int) -> None:
        """A company short of cash for another company's train: the president adds the
        rest where the title allows it (``ebuy_from_others: value``: at most face value;
        the bound :meth:`emergency_other_most` states; :meth:`check_emergency_from_other`)."""
        self.check_emergency_from_other(game, entity, train, price)
        owners = game.entity_owner_ids(entity)
        president = game.player(owners[0])
        need = price - entity.cash
        game.pay(president, entity, need)
        game.add_log(f"{president.name} contributes {need}M to {entity.sym}'s train")

    def check_train_payment(self, game: Game, entity: Any, price: int) -> None:
        """The checks of :meth:`pay_for_train`, before anything changes: beyond the
        company's cash only in an emergency buy, of the cheapest train, with a
        president who has the rest.  Raises ``GameError`` (``"train.cash"``,
        ``"train.emergency_cheapest"``, ``"train.emergency_cash"``)."""
        if price <= entity.cash:
            return
        if not self.must_buy_train(game, entity):
            raise GameError(
                f"{entity.sym} has {entity.cash}M, the train costs {price}M", "train.cash"
            )
        cheapest = min((t.spec.price for t in self.available_depot_trains(game)), default=price)
        if price > cheapest:
            raise GameError(
                f"in an emergency buy {entity.sym} must buy the cheapest train ({cheapest}M), "
                f"not one for {price}M",
                "train.emergency_cheapest",
            )
        owners = game.entity_owner_ids(entity)
        if not owners:
            raise GameError(f"{entity.sym} has {entity.cash}M and no president to help",
                            "train.cash")
        president = game.player(owners[0])
        need = price - entity.cash
        if president.cash < need:
            raise GameError(
                f"{president.name} must add {need}M to buy the train but has {president.cash}M"
                " (sell shares first)",
                "train.emergency_cash",
            )

    def pay_for_train(self, game: Game, entity: Any, price: int) -> None:
        """Pay for a depot train; in an emergency buy the president adds the rest
        (:meth:`check_train_payment`)."""
        self.check_train_payment(game, entity, price)
        if price <= entity.cash:
            game.pay(entity, game.bank, price)
            return
        president = game.player(game.entity_owner_ids(entity)[0])
        need = price - entity.cash
        game.pay(president, entity, need)
        game.pay(entity, game.bank, price)
        game.add_log(f"{president.name} contributes {need}M to {entity.sym}'s train")

    def after_train_bought(self, game: Game, rnd: OperatingRound, entity: Any,
                           train: Any) -> None:
        """Phase change on the first train of a type; rusting; events."""
        self.check_phase_change(game, rnd, train)

    def check_phase_change(self, game: Game, rnd: OperatingRound, train: Any) -> None:
        """After ``train`` is bought: a new phase starts if its type begins one, trains
        rust, the first purchase of a type fires its events (never again, as when a
        discarded train of it is bought from the open market), and entities over the
        train limit are queued to discard: minors first, then corporations, each in
        their data order (the reference engine's crowded companies)."""
        phases = game.data.phases
        idx = game.state.phase
        for i in range(idx + 1, len(phases)):
            if phases[i].on == train.name:
                game.state.phase = i
                game.add_log(f"Phase {phases[i].name} begins")
                self.on_phase_change(game, rnd, phases[i].name)
                break
        self.rust_trains(game, train.name)
        if train.name not in game.state.fired_events:
            game.state.fired_events |= {train.name}
            for event in train.spec.events:
                self.train_event(game, rnd, event, train)
        for entity in list(game.minors.values()) + list(game.corporations.values()):
            if self.over_train_limit(game, entity) and entity.sym not in rnd.pending_discards:
                rnd.pending_discards.append(entity.sym)

    def on_phase_change(self, game: Game, rnd: OperatingRound, phase: str) -> None:
        """Title hook called when phase ``phase`` begins (default: nothing)."""
        pass

    def rust_trains(self, game: Game, bought: str) -> None:
        """Rust every train whose ``rusts_on`` is the bought type ``bought``: it leaves
        its owner and the game."""
        for t in game.state.trains:
            if t.spec.rusts_on == bought and not t.rusted:
                t.rusted = True
                if t.owner is not None and t.owner != MARKET:
                    owner = self.operator(game, t.owner)
                    owner.trains.remove(t)
                t.owner = None

    def train_event(self, game: Game, rnd: OperatingRound, event: str, train: Any) -> None:
        """A train event (first train of its type); default: ``close_companies``
        closes every private company.  Title hook; 1893 adds merger, FdSD and EVA
        events."""
        if event == "close_companies":
            for p in game.privates.values():
                self.close_private(game, p)

    def close_private(self, game: Game, private: Private) -> None:
        """Close ``private``: it leaves its owner and pays no more income (closing a
        closed company does nothing)."""
        if private.closed:
            return
        if isinstance(private.owner, int):
            owner = game.player(private.owner)
            if private.sym in owner.companies:
                owner.companies.remove(private.sym)
        private.closed = True
        private.owner = None

    def check_discard_train(self, game: Game, entity: Any, train_id: str) -> None:
        """The check of :meth:`discard_train`, before anything changes: ``entity`` owns
        ``train_id``.  Raises ``GameError`` (``"train.id"``, ``"train.discard"``)."""
        train = game.train(train_id)
        if train not in entity.trains:
            raise GameError(f"{entity.sym} does not own {train_id}", "train.discard")

    def discard_train(self, game: Game, entity: Any, train_id: str) -> None:
        """``entity`` discards ``train_id`` to the open market; raises ``GameError``
        (:meth:`check_discard_train`)."""
        self.check_discard_train(game, entity, train_id)
        train = game.train(train_id)
        entity.trains.remove(train)
        game.to_open_market(train)
        game.add_log(f"{entity.sym} discards {train_id}")
