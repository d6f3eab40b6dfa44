"""The operating round's declared steps (docs: ``design.md``, "Steps, declared").

An OR turn is the title's ordered tuple of steps
(:meth:`rhineland.engine.rules_operating.OperatingRules.operating_steps`):
non-blocking steps (``blocks = False``, e.g. 1893's purchase of EVA from a
player) are open during the whole turn; the blocking ones are gone through in
order, each skipped when it has no decision (:meth:`OperatingStep.applicable`,
:meth:`OperatingStep.skip`).  The defaults:

==============  ===============================================  ===========================
step            actions (from the operator unless said)          rules (GameError rule ids)
==============  ===============================================  ===========================
``track``       ``lay_tile`` (or a private's), ``pass``          ``track.*`` (board rules)
``token``       ``place_token``, ``pass``                        ``token.*``
``route``       ``run_routes``                                   ``route.*``, ``or.route``
``dividend``    ``dividend`` (payout / withhold)                 ``dividend.kind``, ``or.dividend``
``buy_train``   ``buy_train``, ``pass``; the president's         ``train.*``, ``bankrupt.*``
                ``sell_shares``; ``bankrupt``
==============  ===============================================  ===========================

Before all of them, while any company is over its train limit, the round is in
:class:`DiscardTrainStep` (``discard_train``, from any company that owes one).

A title changes a step by subclassing it and listing its subclass in
``operating_steps`` (e.g. 18Rhl: no track, token or dividend in receivership,
its own bankruptcy; 1893: minors place no token and pay half).  Steps hold no
state (it lives in the round: ``laid_tiles``, ``tokened``, ``revenue``...), so
one instance serves every game.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rhineland.engine.actions import (
    Action,
    Bankrupt,
    BuyTrain,
    DiscardTrain,
    Dividend,
    LayTile,
    Pass,
    PlaceToken,
    RunRoutes,
    SellShares,
    trusted,
)
from rhineland.engine.legal.choices import Listed, RouteChoice
from rhineland.engine.rounds.turns import operating_turn
from rhineland.engine.steps import Step
from rhineland.errors import GameError

if TYPE_CHECKING:
    from rhineland.engine.game import Game
    from rhineland.engine.legal.choices import Candidate
    from rhineland.engine.rounds.base import Round
    from rhineland.engine.rounds.operating import OperatingRound


class OperatingStep(Step):
    """A blocking step of an OR turn: it is entered when :meth:`applicable`, else
    :meth:`skip` runs; it ends by moving the round on (``rnd.next_step``)."""

    def applicable(self, game: Game, rnd: OperatingRound, entity: Any) -> bool:
        """Whether the step has a decision for ``entity`` now (else it is skipped)."""
        return True

    def reached(self, game: Game, rnd: OperatingRound, entity: Any) -> None:
        """What 18xx.games works out about ``entity`` on reaching the step, before it
        asks whether the step applies (default: nothing; the route steps note the
        company's route, :meth:`OperatingRules.note_route`)."""

    def skip(self, game: Game, rnd: OperatingRound, entity: Any) -> None:
        """What a skipped step does (default: nothing)."""

    def finish(self, game: Game, rnd: OperatingRound, entity: Any) -> None:
        """Called when the step ends after a decision (not when skipped)."""

    def check_operator(self, game: Game, rnd: Round, entity: Any, action: Action) -> None:
        """The action is the operator's own; raises ``GameError`` (``"turn.order"``)."""
        if action.entity != entity.sym:
            raise GameError(
                f"it is {entity.sym}'s turn in {rnd.label}, not {action.entity_type} "
                f"{action.entity!r}",
                "turn.order",
            )


class TrackStep(OperatingStep):
    """One tile lay or upgrade (also by a private its president owns), or pass; no lay
    with a negative treasury (seeds 000/001 "Operating round")."""

    name: ClassVar[str] = "track"
    CHECKED: ClassVar[frozenset[str]] = frozenset({Pass.TYPE})

    def applicable(self, game: Game, rnd: OperatingRound, entity: Any) -> bool:
        """With a non-negative treasury."""
        return bool(entity.cash >= 0)

    def actions(self, game: Game, rnd: Round, entity: Any) -> frozenset[str]:
        """``lay_tile`` and ``pass``."""
        return frozenset({LayTile.TYPE, Pass.TYPE})

    def candidates(self, game: Game, rnd: Round, entity: Any) -> list[Candidate]:
        """Every legal lay (the board legality module: tile and rotation, a private's
        too; the track restriction checked lazily, :class:`Deferred`), and pass."""
        from functools import partial

        from rhineland.board.legality import passes_restriction
        from rhineland.engine.legal.choices import Deferred
        from rhineland.engine.legal.generate import entity_type, lay_action

        out: list[Candidate] = []
        ctx, lays = game.tile_lay_options()
        if ctx is not None:  # the track restriction is checked when a lay is looked at
            out.extend(Deferred(lay_action(game, entity, lay),
                                partial(passes_restriction, ctx, lay)) for lay in lays)
        out.append(trusted(Pass, entity=entity.sym, entity_type=entity_type(entity)))
        return out

    def continues(self, game: Game, rnd: OperatingRound, entity: Any) -> bool:
        """After a lay: another lay allowed in this step?  Default: one lay or upgrade."""
        return False

    def check(self, game: Game, rnd: Round, entity: Any, action: Action) -> None:
        """A pass is the operator's (or a private's of its president: ``turn.order``);
        a lay is checked as it is applied (:meth:`OperatingRules.lay_tile`)."""
        if isinstance(action, Pass):
            operating_turn(rnd).check_actor(game, entity, action)

    def apply(self, game: Game, rnd: Round, entity: Any, action: Action) -> None:
        """A lay (by the operator or a private its president owns), or pass."""
        orr = operating_turn(rnd)
        if isinstance(action, Pass):
            orr.next_step(game, entity)
            return
        actor = orr.check_actor(game, entity, action)
        assert isinstance(action, LayTile)
        game.title.lay_tile(game, orr, entity, actor, action)
        orr.laid_tiles += 1
        if not self.continues(game, orr, entity):
            orr.next_step(game, entity)


class TokenStep(OperatingStep):
    """One token in a city that takes it (``token.*``), or pass."""

    name: ClassVar[str] = "token"
    CHECKED: ClassVar[frozenset[str]] = frozenset({Pass.TYPE})

    def applicable(self, game: Game, rnd: OperatingRound, entity: Any) -> bool:
        """No token yet this turn and a city that takes one."""
        return not rnd.tokened and game.title.can_place_token(game, entity)

    def actions(self, game: Game, rnd: Round, entity: Any) -> frozenset[str]:
        """``place_token`` and ``pass``."""
        return frozenset({PlaceToken.TYPE, Pass.TYPE})

    def candidates(self, game: Game, rnd: Round, entity: Any) -> list[Candidate]:
        """Every legal token (the board legality module), and pass."""
        from rhineland.engine.legal.generate import entity_type, token_action

        out: list[Candidate] = [Listed(token_action(game, entity, spot))
                                for spot in game.legal_tokens()]
        out.append(trusted(Pass, entity=entity.sym, entity_type=entity_type(entity)))
        return out

    def check(self, game: Game, rnd: Round, entity: Any, action: Action) -> None:
        """The operator's (``turn.order``); a token is checked as it is placed
        (:meth:`OperatingRules.place_token`)."""
        operating_turn(rnd).check_actor(game, entity, action)

    def apply(self, game: Game, rnd: Round, entity: Any, action: Action) -> None:
        """Place the token (:meth:`OperatingRules.place_token`), or pass."""
        orr = operating_turn(rnd)
        if isinstance(action, PlaceToken):
            game.title.place_token(game, orr, entity, action)
            orr.tokened = True
        orr.next_step(game, entity)


class RouteStep(OperatingStep):
    """The company's trains run (``route.*``); it must run when it has a route
    (a pass is refused: ``or.route``)."""

    name: ClassVar[str] = "route"

    def reached(self, game: Game, rnd: OperatingRound, entity: Any) -> None:
        """With trains, 18xx.games looks for a route here (and keeps one it finds)."""
        if entity.trains:
            game.title.note_route(game, entity)

    def applicable(self, game: Game, rnd: OperatingRound, entity: Any) -> bool:
        """Trains and a route to run."""
        return bool(entity.trains) and game.title.has_route(game, entity)

    def actions(self, game: Game, rnd: Round, entity: Any) -> frozenset[str]:
        """``run_routes`` (a ``pass`` is refused with the rule)."""
        return frozenset({RunRoutes.TYPE, Pass.TYPE})

    def candidates(self, game: Game, rnd: Round, entity: Any) -> list[Candidate]:
        """The run-routes choice (the best routes offered, any valid set accepted)."""
        from rhineland.engine.legal.generate import entity_type

        return [Listed(RouteChoice(entity.sym, entity_type(entity)))]

    def apply(self, game: Game, rnd: Round, entity: Any, action: Action) -> None:
        """Run the trains (:meth:`OperatingRules.run_routes`); the revenue is kept."""
        orr = operating_turn(rnd)
        orr.check_actor(game, entity, action)
        if isinstance(action, Pass):
            raise GameError(f"{entity.sym} must run its trains now", "or.route")
        assert isinstance(action, RunRoutes)
        orr.route_results = game.title.run_routes(game, orr, entity, action)
        orr.revenue = sum(r.revenue for r in orr.route_results)
        orr.next_step(game, entity)


class DividendStep(OperatingStep):
    """Payout or withhold the run's revenue (``dividend.kind``; no pass: ``or.dividend``);
    skipped without revenue, which is a withhold of 0M (the price moves left)."""

    name: ClassVar[str] = "dividend"
    CHECKED: ClassVar[frozenset[str]] = frozenset({Dividend.TYPE, Pass.TYPE})

    def applicable(self, game: Game, rnd: OperatingRound, entity: Any) -> bool:
        """A run with revenue."""
        return rnd.revenue > 0

    def skip(self, game: Game, rnd: OperatingRound, entity: Any) -> None:
        """A withhold of 0M."""
        game.title.pay_dividend(game, rnd, entity, "withhold")

    def actions(self, game: Game, rnd: Round, entity: Any) -> frozenset[str]:
        """``dividend`` (a ``pass`` is refused with the rule)."""
        return frozenset({Dividend.TYPE, Pass.TYPE})

    def candidates(self, game: Game, rnd: Round, entity: Any) -> list[Candidate]:
        """Each dividend kind an action may name (the title accepts some)."""
        from rhineland.engine.legal.generate import DIVIDEND_KINDS, entity_type

        etype = entity_type(entity)
        return [trusted(Dividend, entity=entity.sym, entity_type=etype, kind=k)
                for k in DIVIDEND_KINDS]

    def check(self, game: Game, rnd: Round, entity: Any, action: Action) -> None:
        """The operator's (``turn.order``) dividend, no pass (``or.dividend``), of a kind
        the title pays (:meth:`OperatingRules.check_dividend`)."""
        orr = operating_turn(rnd)
        orr.check_actor(game, entity, action)
        if isinstance(action, Pass):
            raise GameError(f"{entity.sym} must dividend now", "or.dividend")
        assert isinstance(action, Dividend)
        game.title.check_dividend(game, orr, entity, action.kind)

    def apply(self, game: Game, rnd: Round, entity: Any, action: Action) -> None:
        """Pay out or withhold (:meth:`OperatingRules.pay_dividend`)."""
        orr = operating_turn(rnd)
        assert isinstance(action, Dividend)
        game.title.pay_dividend(game, orr, entity, action.kind)
        orr.next_step(game, entity)


class BuyTrainStep(OperatingStep):
    """Buy trains (``train.*``) or pass; a company that must buy a train may not pass
    while the depot offers one (``train.must_buy``), its president may sell shares
    for it (:func:`rhineland.engine.emergency.check_emergency_sale`) and go bankrupt
    when even that cannot pay for it (:meth:`bankrupt`)."""

    name: ClassVar[str] = "buy_train"
    CHECKED: ClassVar[frozenset[str]] = frozenset({Pass.TYPE, BuyTrain.TYPE, SellShares.TYPE})

    def reached(self, game: Game, rnd: OperatingRound, entity: Any) -> None:
        """Without a train and with one for sale, 18xx.games asks whether the company
        must buy, which looks for its route (and keeps one it finds)."""
        if not entity.trains and game.title.available_depot_trains(game):
            game.title.note_route(game, entity)

    def applicable(self, game: Game, rnd: OperatingRound, entity: Any) -> bool:
        """A train could be bought (:meth:`TrainRules.can_buy_train`)."""
        return game.title.can_buy_train(game, entity)

    def actions(self, game: Game, rnd: Round, entity: Any) -> frozenset[str]:
        """``buy_train``, ``pass``, the president's ``sell_shares``, ``bankrupt``."""
        return frozenset({BuyTrain.TYPE, Pass.TYPE, SellShares.TYPE, Bankrupt.TYPE})

    def candidates(self, game: Game, rnd: Round, entity: Any) -> list[Candidate]:
        """Depot and other companies' trains, pass, and for a train the company must
        buy the president's emergency sales and bankruptcy
        (:func:`rhineland.engine.legal.generate.train_candidates`)."""
        from rhineland.engine.legal.generate import train_candidates

        return train_candidates(game, entity)

    def check_pass(self, game: Game, rnd: OperatingRound, entity: Any) -> None:
        """Refuse a pass while ``entity`` must buy and the depot offers a train
        (``GameError`` ``"train.must_buy"``)."""
        title = game.title
        if title.must_buy_train(game, entity) and title.available_depot_trains(game):
            raise GameError(
                f"{entity.sym} has a route and no train: it must buy a train",
                "train.must_buy",
            )

    def check(self, game: Game, rnd: Round, entity: Any, action: Action) -> None:
        """A pass or a purchase: the operator's (``turn.order``); a pass not while it
        must buy (:meth:`check_pass`), a train as the title's
        :meth:`~rhineland.engine.rules_trains.TrainRules.check_buy_train` says.  The
        president's emergency sale (:meth:`check_emergency_sell`); a bankruptcy, the
        operator's (``turn.order``), as far as :meth:`check_bankrupt` goes."""
        orr = operating_turn(rnd)
        if isinstance(action, SellShares):
            self.check_emergency_sell(game, orr, entity, action)
        elif isinstance(action, Bankrupt):
            self.check_operator(game, rnd, entity, action)
            self.check_bankrupt(game, orr, entity, action)
        elif isinstance(action, Pass | BuyTrain):
            orr.check_actor(game, entity, action)
            if isinstance(action, Pass):
                self.check_pass(game, orr, entity)
            else:
                game.title.check_buy_train(game, orr, entity, action)

    def apply(self, game: Game, rnd: Round, entity: Any, action: Action) -> None:
        """A train bought (the step goes on while another may be), a pass, an
        emergency sale or a bankruptcy."""
        orr = operating_turn(rnd)
        if isinstance(action, SellShares):
            self.emergency_sell(game, orr, entity, action)
            return
        if isinstance(action, Bankrupt):
            self.check_operator(game, rnd, entity, action)
            self.bankrupt(game, orr, entity, action)
            return
        if isinstance(action, Pass):
            orr.next_step(game, entity)
            return
        assert isinstance(action, BuyTrain)
        game.title.buy_train(game, orr, entity, action)
        orr.bought_trains += 1
        if game.title.over_train_limit(game, entity) and entity.sym not in orr.pending_discards:
            orr.pending_discards.append(entity.sym)
        if not self.applicable(game, orr, entity):
            orr.next_step(game, entity)

    def check_emergency_sell(self, game: Game, rnd: OperatingRound, entity: Any,
                             action: SellShares) -> tuple[Any, Any, list[Any]]:
        """Every check of :meth:`emergency_sell`, before anything changes: the player,
        the corporation and the certificates.  Raises ``GameError``
        (``"train.emergency_sell"``, ``"stock.share_id"``, ``"stock.sell"``,
        :func:`rhineland.engine.emergency.check_emergency_sale`'s rules,
        ``"stock.sell_president"``)."""
        from rhineland.engine.emergency import check_emergency_sale
        from rhineland.engine.rounds.stock import sale_president

        owners = game.entity_owner_ids(entity)
        if not owners or action.entity != owners[0]:
            raise GameError(f"only {entity.sym}'s president may sell shares now",
                            "train.emergency_sell")
        player = game.player(owners[0])
        if not game.title.must_buy_train(game, entity):
            raise GameError(f"{entity.sym} is not obliged to buy a train", "train.emergency_sell")
        certs = []
        for sid in action.shares:
            sym, _, idx = sid.rpartition("_")
            corp = game.corporations.get(sym)
            if corp is None or not idx.isdigit() or int(idx) >= len(corp.certificates):
                raise GameError(f"no share certificate {sid!r}", "stock.share_id")
            certs.append(corp.certificates[int(idx)])
        if not certs:
            raise GameError("sell_shares names no certificate", "stock.sell")
        corp = game.corporation(certs[0].corporation)
        if any(c.corporation != corp.sym for c in certs):
            raise GameError("a sale is of one corporation's shares", "stock.sell")
        check_emergency_sale(game, entity, player, corp, certs, action.percent)
        sale_president(game, player, corp, certs, action.percent)
        return player, corp, certs

    def emergency_sell(self, game: Game, rnd: OperatingRound, entity: Any,
                       action: SellShares) -> None:
        """The president sells shares to raise money for a train the company must buy,
        as :func:`rhineland.engine.emergency.check_emergency_sale` allows (only enough,
        the market limit, the operating company's presidency kept).  Raises
        ``GameError`` (:meth:`check_emergency_sell` alone)."""
        from rhineland.engine.rounds.stock import sell_certificates

        player, corp, certs = self.check_emergency_sell(game, rnd, entity, action)
        assert corp.share_price is not None
        share_price = corp.share_price.price
        sell_certificates(game, player, corp, certs, action.percent)
        rnd.turn_state.emergency_sold = True
        rnd.turn_state.last_sale_share_price = share_price

    def check_bankrupt(self, game: Game, rnd: OperatingRound, entity: Any,
                       action: Bankrupt) -> None:
        """The checks of :meth:`bankrupt` made before anything changes; a title allowing
        bankruptcy overrides both.  Raises ``GameError`` (``"bankrupt.when"``)."""
        raise GameError(f"{entity.sym}'s president cannot declare bankruptcy",
                        "bankrupt.when")

    def bankrupt(self, game: Game, rnd: OperatingRound, entity: Any, action: Bankrupt) -> None:
        """The president declares bankruptcy; a title allowing it overrides this.
        Raises ``GameError`` (``"bankrupt.when"``)."""
        raise GameError(f"{entity.sym}'s president cannot declare bankruptcy",
                        "bankrupt.when")


class DiscardTrainStep(Step):
    """After a phase change (or a buy over the limit), every company over its train
    limit discards to the open market, in any order, before anything else happens
    (``train.discard``).  The round enters it while ``pending_discards`` is not empty."""

    name: ClassVar[str] = "discard_train"
    CHECKED: ClassVar[frozenset[str]] = frozenset({DiscardTrain.TYPE})

    def actions(self, game: Game, rnd: Round, entity: Any) -> frozenset[str]:
        """``discard_train`` (by any company over its limit)."""
        return frozenset({DiscardTrain.TYPE})

    def candidates(self, game: Game, rnd: Round, entity: Any) -> list[Candidate]:
        """Each train of each company over its limit (any of them, in any order)."""
        from rhineland.engine.legal.generate import entity_type

        out: list[Candidate] = []
        for over in [game.title.operator(game, s) for s in operating_turn(rnd).pending_discards]:
            out.extend(trusted(DiscardTrain, entity=over.sym, entity_type=entity_type(over),
                               train=t.id) for t in over.trains)
        return out

    def check(self, game: Game, rnd: Round, entity: Any, action: Action) -> None:
        """A discard by a company that owes one, of a train of its own
        (:meth:`~rhineland.engine.rules_trains.TrainRules.check_discard_train`)."""
        pending = operating_turn(rnd).pending_discards
        if not isinstance(action, DiscardTrain) or action.entity not in pending:
            who = " or ".join(pending)
            raise GameError(f"{who} must discard a train first", "train.discard")
        owner = game.title.operator(game, str(action.entity))
        game.title.check_discard_train(game, owner, action.train)

    def apply(self, game: Game, rnd: Round, entity: Any, action: Action) -> None:
        """The train goes to the open market; a company within its limit is done."""
        assert isinstance(action, DiscardTrain)
        orr = operating_turn(rnd)
        sym = str(action.entity)
        owner = game.title.operator(game, sym)
        game.title.discard_train(game, owner, action.train)
        if not game.title.over_train_limit(game, owner):
            orr.pending_discards.remove(sym)
        orr.discard_done(game)


DISCARD_TRAIN = DiscardTrainStep()
TRACK = TrackStep()
TOKEN = TokenStep()
ROUTE = RouteStep()
DIVIDEND = DividendStep()
BUY_TRAIN = BuyTrainStep()
DEFAULT_STEPS: tuple[Step, ...] = (TRACK, TOKEN, ROUTE, DIVIDEND, BUY_TRAIN)
"""The common OR turn: track, token, route, dividend, buy trains."""
