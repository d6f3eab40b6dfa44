"""The legal-action generator: every legal action of every entity that may act now.

The current round lists its candidate decisions
(:meth:`rhineland.engine.rounds.base.Round.candidates`, reading the state only):
rounds of declared steps ask their current steps
(:meth:`rhineland.engine.steps.Step.candidates`; a title changes them by
subclassing its steps), a title's own rounds (1893's draft, forced auction,
merger round) list theirs.  Candidates are a superset of what the rules allow;
:func:`resolve` then keeps those the rules accept (:class:`Trial`: the very
checks ``process`` makes).  This module holds the candidate builders the steps
share (share bundles, pars, trains, lays, tokens).  Tile lays and token
placements come from the board legality module, which lists exactly the legal
ones (checked against the reference engine): they are not tried (a tile lay's
last check, the track restriction, is made when it is looked at:
:class:`~rhineland.engine.legal.choices.Deferred`).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, cast

from rhineland.engine.actions import (
    Action,
    Bankrupt,
    BuyShares,
    BuyTrain,
    EntityType,
    LayTile,
    Par,
    Pass,
    PlaceToken,
    SellShares,
    trusted,
)
from rhineland.engine.emergency import emergency_need
from rhineland.engine.entities import (
    IPO,
    MARKET,
    Certificate,
    Corporation,
    Minor,
    Player,
    Private,
)
from rhineland.engine.legal.choices import (
    AmountRange,
    AmountSpan,
    Candidate,
    Choice,
    Deferred,
    Ladder,
    Listed,
    RouteChoice,
    choice_key,
)
from rhineland.engine.legal.trial import Trial
from rhineland.engine.rounds.turns import stock_turn
from rhineland.engine.shares import sale_bundle_shapes
from rhineland.errors import GameError

if TYPE_CHECKING:
    from rhineland.board.legality import Lay, TokenSpot
    from rhineland.engine.game import Game
    from rhineland.engine.rounds.operating import OperatingRound

DIVIDEND_KINDS: tuple[Literal["payout", "withhold", "half"], ...] = ("payout", "withhold", "half")
"""Every dividend kind an action may name; the title's rules accept some of them."""


TRAIN_PRICE_FREE_RULES = frozenset({"or.step", "train.from_other", "train.limit",
                                    "train.emergency_depot_only"})
"""Refusals of a train bought from another company that do not look at the price (the
step does not take the purchase; trains do not change hands in this phase or between
these companies; the company is at its train limit; after an emergency sale only the
depot sells): checked before the price is used."""


def entity_type(entity: Any) -> EntityType:
    """The export's ``entity_type`` of a player, corporation, minor or private company."""
    if isinstance(entity, Player):
        return "player"
    if isinstance(entity, Minor):
        return "minor"
    if isinstance(entity, Private):
        return "company"
    return "corporation"


def legal_actions(game: Game) -> list[Choice]:
    """Every legal decision now (ranges and route choices not expanded)."""
    st = game.state
    if st.finished or st.round is None:
        return []
    trial = Trial(game)
    # the candidates read the position as the trials' checks do: they share its memo
    outer = game.position_memo
    game.position_memo = trial.memo
    try:
        cands = candidates(game)
    finally:
        game.position_memo = outer
    return resolve(game, cands, trial)


def candidates(game: Game) -> list[Candidate]:
    """The current round's candidate decisions (a superset of the legal ones:
    :meth:`rhineland.engine.rounds.base.Round.candidates`)."""
    return game.round.candidates(game)


def resolve(game: Game, cands: list[Candidate], trial: Trial | None = None) -> list[Choice]:
    """The legal decisions among ``cands``: actions the rules accept, amount spans
    narrowed to their legal range, listed decisions as they are (``trial``: the
    position's, if made already)."""
    if trial is None:
        trial = Trial(game)
    out: list[Choice] = []
    seen: set[tuple[Any, ...]] = set()
    for c in cands:
        if isinstance(c, Listed):
            out.append(c.choice)
        elif isinstance(c, Deferred):
            if c.check():
                out.append(c.choice)
        elif isinstance(c, AmountSpan):
            rng = trial.amount_range(c.action, c.field, c.lo, c.hi, c.step, c.hints, c.whole,
                                     c.bounds, c.same_as, c.gate)
            if rng is not None:
                out.append(rng)
        elif isinstance(c, Ladder):
            for a in c.actions:
                refused = trial.refusal(a)
                if refused is None:
                    out.append(a)
                elif refused.rule not in c.skip:
                    break
        else:
            key = choice_key(game, c)  # the same decision proposed twice is tried once
            if key not in seen:
                seen.add(key)
                if trial.accepts(c):
                    out.append(c)
    return out


# -- pars, share purchases and sales --------------------------------------------------------
PAR_CELL_RULES = frozenset({"stock.par_price"})
"""Refusals of a par that concern its cell alone (the next cell may still do)."""


def par_actions(game: Game, player: Player, corp: Corporation) -> Ladder:
    """A par at each of ``corp``'s par cells, the cheapest first (a ladder: a par refused
    for the money, or for a reason that is not the cell's, refuses the costlier ones)."""
    cells = sorted(game.title.par_cells_for(game, corp), key=lambda c: c.price)
    return Ladder(tuple(
        trusted(Par, entity=player.id, corporation=corp.sym,
                share_price=f"{c.price},{c.row},{c.col}")
        for c in cells
    ), PAR_CELL_RULES)


def buy_share_actions(game: Game, player: Player, corp: Corporation) -> list[Action]:
    """One certificate of each size from the IPO and from the market that ``player`` has
    the cash for (candidates; the stock round's buy refuses a certificate whose title
    price, :meth:`~rhineland.engine.rules_stock.StockRules.share_price_for`, exceeds the
    buyer's cash).  As 18xx.games' interface offers them: of one size the first
    certificate (in the market the one there longest), and a president's certificate
    from the market only while the market holds no certificate of another size."""
    out: list[Action] = []
    if corp.share_price is None:
        return out
    for source in (IPO, MARKET):
        first: dict[int, Certificate] = {}
        order = (lambda c: c.pool_seq) if source == MARKET else (lambda c: c.index)
        for cert in sorted(corp.certs_of(source), key=order):
            if not cert.reserved:
                first.setdefault(cert.percent, cert)
        for cert in first.values():
            if source == MARKET and cert.president and len(first) > 1:
                continue
            if game.title.share_price_for(game, corp, cert, source) > player.cash:
                continue
            out.append(trusted(BuyShares, entity=player.id, shares=(cert.id,),
                               percent=cert.percent))
    return out


def sale_bundles(game: Game, player: Player,
                 corp: Corporation) -> list[tuple[tuple[str, ...], int]]:
    """The sale bundles of ``player``'s certificates of ``corp`` as (certificate ids,
    percent), those 18xx.games' interface lists
    (:func:`~rhineland.engine.shares.sale_bundle_shapes`).  Candidates."""
    return [(tuple(c.id for c in certs), pct) for certs, pct in _bundles(player, corp)]


def _bundles(player: Player, corp: Corporation) -> list[tuple[list[Certificate], int]]:
    """:func:`sale_bundles` as (certificates, percent)."""
    return sale_bundle_shapes(corp.certs_of(player.id))


def sell_share_actions(game: Game, player: Player) -> list[Action]:
    """Every sale bundle of ``player`` that the title's sale check
    (:meth:`~rhineland.engine.rules_stock.StockRules.check_sell`, which every sale passes
    before anything changes) does not refuse (candidates), in :func:`_bundles`' order.

    A corporation's bundles are checked smallest first: a refusal by one of the title's
    ``SALE_CORP_RULES`` refuses them all, one by its ``SALE_SIZE_RULES`` (the market
    limit) every bundle at least as large, so those are not checked
    (``tests/test_sale_candidates.py`` checks each against ``check_sell``)."""
    out: list[Action] = []
    title = game.title
    check = title.check_sell
    corp_rules, size_rules = title.SALE_CORP_RULES, title.SALE_SIZE_RULES
    for corp in game.corporations.values():
        if corp.closed or corp.share_price is None:
            continue
        bundles = _bundles(player, corp)
        if not bundles:
            continue
        refused_from = 101  # the least percent a size rule refuses (none yet)
        legal = [False] * len(bundles)
        for i in sorted(range(len(bundles)), key=lambda i: bundles[i][1]):
            certs, pct = bundles[i]
            if pct >= refused_from:
                break
            try:
                check(game, player, corp, certs, pct)
            except GameError as exc:  # process refuses it with this very check
                if exc.rule in corp_rules:
                    break
                if exc.rule in size_rules:
                    refused_from = pct
                continue
            legal[i] = True
        out.extend(trusted(SellShares, entity=player.id, shares=tuple(c.id for c in certs),
                           percent=pct)
                   for ok, (certs, pct) in zip(legal, bundles, strict=True) if ok)
    return out


# -- the stock round --------------------------------------------------------------------------
def share_candidates(game: Game, player: Player) -> list[Candidate]:
    """Pass, start (par) or buy one certificate (IPO or market) of each corporation,
    and sell any bundle: the common stock-round turn's candidates.  No certificate of a
    corporation the stock round refuses every buy of (:meth:`StockRound.check_buy_corporation
    <rhineland.engine.rounds.stock.StockRound.check_buy_corporation>`: one buy per turn,
    no buy-back after a sale; where that buy is limited, :meth:`StockRound.check_cert_room
    <rhineland.engine.rounds.stock.StockRound.check_cert_room>` for the one certificate
    every proposed buy is) is proposed."""
    out: list[Candidate] = [trusted(Pass, entity=player.id)]
    rnd = game.state.round
    for corp in game.corporations.values():
        if corp.closed:
            continue
        if not corp.ipoed:
            out.append(par_actions(game, player, corp))
        else:
            if rnd is not None and rnd.kind == "Stock":
                try:
                    sr = stock_turn(rnd)
                    if sr.check_buy_corporation(game, player, corp):
                        sr.check_cert_room(game, player, 1)
                except GameError:
                    continue  # check_buy refuses each of its certificates with this check
            out.extend(buy_share_actions(game, player, corp))
    out.extend(sell_share_actions(game, player))
    return out


# -- the operating round ----------------------------------------------------------------------
def lay_action(game: Game, entity: Any, lay: Lay) -> LayTile:
    """The ``lay_tile`` action of one legal lay (the first unused copy of the tile)."""
    copies = game.board.supply.get(lay.tile) or [f"{lay.tile}-0"]
    if lay.special:
        return trusted(LayTile, entity=lay.special, entity_type="company", hex=lay.hex,
                       tile=copies[0], rotation=lay.rotation)
    return trusted(LayTile, entity=entity.sym, entity_type=entity_type(entity), hex=lay.hex,
                   tile=copies[0], rotation=lay.rotation)


def token_action(game: Game, entity: Any, spot: TokenSpot) -> PlaceToken:
    """The ``place_token`` action of one legal token spot (city ``<tile id>-<part>``)
    with a slot free of tokens (:func:`free_slot`)."""
    placed = game.board.tile_at(spot.hex)
    node = placed.tile.cities[spot.city]
    reserved = game.title.board_rules.reservations(game.board, spot.hex, spot.city)
    slot = free_slot(node.slots, len(game.board.tokens_in(spot.hex, spot.city)), reserved,
                     entity.sym)
    return trusted(PlaceToken, entity=entity.sym, entity_type=entity_type(entity),
                      city=f"{placed.tile_id}-{node.part}", slot=slot)


def free_slot(slots: int, tokens: int, reserved: tuple[str, ...], sym: str) -> int:
    """The slot a token is offered in: one no token fills as 18xx.games lays them out.

    There a city's open reservations hold the first slots and the tokens the next ones
    in the order they came (an upgrade lays them out again the same way), and its
    interface offers every slot without a token (the engine then puts the token in the
    holder's reserved slot or the first open one).  So the slot after the reservations
    and tokens; in a city full but for reservations (legal only for a holder, ``sym``)
    the holder's place among them.
    """
    taken = len(reserved) + tokens
    return taken if taken < slots else reserved.index(sym)


def train_candidates(game: Game, entity: Any,
                     depot: list[Any] | None = None) -> list[Candidate]:
    """Trains for sale from the bank (the next of each type in the depot and in the open
    market: ``available_depot_trains``) that the title's payment check
    (:meth:`~rhineland.engine.rules_trains.TrainRules.check_train_payment`, which
    ``check_buy_train`` asks of every depot train at its price) lets the company pay
    for, other companies' trains (a price span each: its price checks' interval stated
    by the rules, one trial for each train type, the sellers told apart by
    ``train_sellable_to``; none while trains do not change hands between companies),
    pass, the president's emergency sales, bankruptcy.  ``depot``: the title's
    ``available_depot_trains`` now, where the caller has them."""
    sym, etype = entity.sym, entity_type(entity)
    out: list[Candidate] = []
    if depot is None:
        depot = game.title.available_depot_trains(game)
    payment = game.title.check_train_payment
    for t in depot:
        try:
            payment(game, entity, t.spec.price)
        except GameError:
            continue  # check_buy_train refuses it with this very check
        out.append(trusted(BuyTrain, entity=sym, entity_type=etype, train=t.id,
                           price=t.spec.price, variant=t.name))
    out.append(trusted(Pass, entity=sym, entity_type=etype))
    owners = game.entity_owner_ids(entity)
    must = game.title.must_buy_train(game, entity)
    helper = game.player(owners[0]).cash if owners else 0
    if owners and must:
        # emergency sales and bankruptcy exist only for a train the company must buy,
        # sales only while its treasury and president's cash fall short of the cheapest
        # (check_emergency_sale's first refusal, "train.emergency_sell")
        out.append(trusted(Bankrupt, entity=sym, entity_type=etype))
        president = game.player(owners[0])
        if emergency_need(game, entity, president) > 0:
            out.extend(sell_share_actions(game, president))
    if not game.title.may_buy_trains_from_others(game, entity):
        return out  # every price refused (the first check of a purchase from another)
    others = list(game.corporations.values()) + list(game.minors.values())
    bounds = game.title.other_train_price_bounds  # the price checks' interval
    sellable = game.title.train_sellable_to  # the one check that tells the sellers apart
    rnd = cast("OperatingRound", game.round)  # the buy-train step's round
    first: dict[tuple[Any, str], Any] = {}
    for t in game.state.trains:  # of a company's identical trains, the first in the game's
        first.setdefault((t.owner, t.name), t)  # order stands for them (as 18xx.games shows)
    for other in others:
        if other is entity or other.closed or not other.trains:
            continue
        kinds = [first[(other.sym, name)] for name in dict.fromkeys(t.name for t in other.trains)]
        for t in reversed(kinds):
            # up to the company's cash, or beyond where its owner may help (the rules'
            # trial finds how far)
            out.append(AmountSpan(trusted(BuyTrain, entity=sym, entity_type=etype, train=t.id,
                                          price=1),
                                  "price", 1, max(entity.cash + helper, 1), 1,
                                  (entity.cash, t.spec.price), TRAIN_PRICE_FREE_RULES,
                                  partial(bounds, game, rnd, entity, t), ("other", t.name),
                                  partial(sellable, game, other, entity)))
    return out


def expand(game: Game, choices: Iterable[Choice]) -> list[Action]:
    """Every range listed as its plain actions, every route choice as its best routes."""
    out: list[Action] = []
    for c in choices:
        if isinstance(c, AmountRange):
            out.extend(c.actions())
        elif isinstance(c, RouteChoice):
            out.append(c.best(game))
        else:
            out.append(c)
    return out
