"""``GreedyBot``: sensible one-step 18xx play without search.

Its rules, by the decision at hand (every candidate is an entry of
``game.legal_actions()``, so the bot only ever plays legal actions):

* auction / draft: buy the cheapest item offered at its price; never bid higher.
  Par (a private's company, a stock round par): the highest par price whose 50%
  float it can still pay for.
* stock round: first buy a share of a company it presides that has not floated,
  then par a new company when it can float it (and presides fewer than two), then
  buy a share of a company it presides, then of the other floated company with the
  highest share price; keeps a reserve for its companies' trains; sells only when
  nothing else is possible (an emergency); else passes.
* operating round: lays the tile after which the company's best routes earn most
  (ties: the first listed, free lays preferred); places the token after which the
  best routes earn most, if the company keeps money for a train; runs the best
  routes (:func:`rhineland.best_routes`); pays out when that leaves the share
  price at least as high as withholding, else withholds; buys a train when it has
  none (the cheapest) or when the depot offers a newer type it can afford;
  discards its weakest train.
* a train it must buy but cannot pay: the cheapest train of another company, then
  selling shares (the smallest bundle), bankruptcy only when nothing else is legal.
* merger votes: yes; other title decisions: pass when it may, else the first listed.
"""

from __future__ import annotations

from rhineland.bots.base import action_of, materialize
from rhineland.engine.actions import (
    Action,
    Bankrupt,
    Bid,
    BuyCompany,
    BuyShares,
    BuyTrain,
    DiscardTrain,
    Dividend,
    LayTile,
    Par,
    Pass,
    PlaceToken,
    SellCompany,
    SellShares,
    SpecialBuy,
)
from rhineland.engine.entities import IPO, Corporation, Minor
from rhineland.engine.game import Game
from rhineland.engine.legal import AmountRange, Choice, RouteChoice
from rhineland.errors import GameError
from rhineland.routes.search import best_routes

MAX_LOOKAHEAD = 40
"""At most this many tile lays or tokens are tried on a copy per decision."""


class GreedyBot:
    """Plays by the rules of thumb in the module docstring (deterministic: the same
    game gives the same action).  Raises ``RuntimeError`` when no action is legal."""

    name = "greedy"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed  # unused: the greedy bot is deterministic

    def choose(self, game: Game, entity: int) -> Action:
        """The greedy action for player ``entity`` now (``game`` is not changed)."""
        choices = game.legal_actions()
        if not choices:
            raise RuntimeError(f"no legal action in {game.round.label}")
        for c in choices:
            if isinstance(c, RouteChoice):
                return c.best(game)
        plain = [c for c in choices if not isinstance(c, AmountRange | RouteChoice)]
        types = {c.type for c in choices}
        if "dividend" in types:
            return _dividend(game, [c for c in plain if isinstance(c, Dividend)])
        if "discard_train" in types:
            return _discard(game, [c for c in plain if isinstance(c, DiscardTrain)])
        if "buy_train" in types and _operator_of(game, choices) is not None:
            picked = _buy_train(game, choices)
            if picked is not None:
                return picked
        if "lay_tile" in types:
            lays = [c for c in plain if isinstance(c, LayTile) and c.entity_type != "company"]
            if lays:
                picked = _lay(game, lays)
                if picked is not None:
                    return picked
        if "place_token" in types:
            tokens = [c for c in plain if isinstance(c, PlaceToken)
                      and c.entity_type != "company"]
            picked = _token(game, tokens) if tokens else None
            if picked is not None:
                return picked
        if "bid" in types:
            bids = [c for c in plain if isinstance(c, Bid)]
            if bids:
                return min(bids, key=lambda b: b.price)
        if types & {"buy_shares", "par", "sell_shares"}:
            picked = _stock(game, entity, choices)
            if picked is not None:
                return picked
        votes = [c for c in plain if isinstance(c, SpecialBuy) and c.description == "yes"]
        if votes:
            return votes[0]
        return _fallback(game, choices)


# -- operating round -----------------------------------------------------------------------
def _operator_of(game: Game, choices: list[Choice]) -> Corporation | Minor | None:
    """The company whose decision this is (the entity of the first company action)."""
    for c in choices:
        a = action_of(c)
        if a is None:
            continue
        if a.entity_type == "corporation" and isinstance(a.entity, str):
            return game.corporations.get(a.entity)
        if a.entity_type == "minor" and isinstance(a.entity, str):
            return game.minors.get(a.entity)
    return None


def _revenue(game: Game, sym: str) -> int:
    """The best routes' revenue (M) of company ``sym`` now; 0 when it cannot run."""
    try:
        return best_routes(game, sym).revenue
    except GameError:
        return 0


def _cash_of(game: Game, sym: str) -> int:
    ent = game.corporations.get(sym) or game.minors.get(sym)
    return ent.cash if ent is not None else 0


def _has_trains(game: Game, sym: str) -> bool:
    ent = game.corporations.get(sym) or game.minors.get(sym)
    return bool(ent is not None and ent.trains)


def _after(game: Game, action: Action) -> Game | None:
    """A copy of ``game`` after ``action`` (``None`` if refused)."""
    twin = game.copy()
    try:
        twin.process(action, atomic=False, history=False)
    except GameError:
        return None
    return twin


def _lay(game: Game, lays: list[LayTile]) -> Action | None:
    """The tile lay after which the company earns most; free lays before paid ones.
    ``None`` when every lay costs money and earns nothing more (pass then)."""
    sym = str(lays[0].entity)
    trains = _has_trains(game, sym)
    base = _revenue(game, sym) if trains else 0
    cash = _cash_of(game, sym)
    best: tuple[int, int, int] | None = None
    pick: LayTile | None = None
    for i, lay in enumerate(lays[:MAX_LOOKAHEAD]):
        twin = _after(game, lay)
        if twin is None:
            continue
        cost = cash - _cash_of(twin, sym)
        gain = (_revenue(twin, sym) - base) if trains else 0
        if cost > 0 and gain <= 0:
            continue
        score = (gain, -cost, -i)
        if best is None or score > best:
            best, pick = score, lay
    return pick


def _token(game: Game, tokens: list[PlaceToken]) -> Action | None:
    """The token after which the company earns most, if the company keeps enough
    money for the cheapest depot train when it has none; else ``None``."""
    sym = str(tokens[0].entity)
    trains = _has_trains(game, sym)
    cash = _cash_of(game, sym)
    depot = game.depot_trains()
    reserve = 0 if trains or not depot else min(t.spec.price for t in depot)
    best: tuple[int, int] | None = None
    pick: PlaceToken | None = None
    for i, tok in enumerate(tokens[:MAX_LOOKAHEAD]):
        twin = _after(game, tok)
        if twin is None:
            continue
        if _cash_of(twin, sym) < reserve and cash >= reserve:
            continue
        score = (_revenue(twin, sym) if trains else 0, -i)
        if best is None or score > best:
            best, pick = score, tok
    return pick


def _dividend(game: Game, kinds: list[Dividend]) -> Action:
    """Payout when the share price after it is at least as high as after withholding."""
    by_kind = {d.kind: d for d in kinds}
    if "payout" not in by_kind or "withhold" not in by_kind:
        return kinds[0]
    sym = str(kinds[0].entity)

    def price(d: Dividend) -> int:
        twin = _after(game, d)
        corp = twin.corporations.get(sym) if twin is not None else None
        cell = corp.share_price if corp is not None else None
        return cell.price if cell is not None else -1

    if sym not in game.corporations:  # a minor: the owner gets half either way
        return by_kind["payout"]
    return by_kind["payout"] if price(by_kind["payout"]) >= price(by_kind["withhold"]) \
        else by_kind["withhold"]


def _discard(game: Game, discards: list[DiscardTrain]) -> Action:
    """Discard the cheapest (weakest) train."""
    return min(discards, key=lambda d: (game.train(d.train).spec.price, d.train))


def _buy_train(game: Game, choices: list[Choice]) -> Action | None:
    """The train to buy, or ``None`` to decide otherwise (pass, sell, ...)."""
    ent = _operator_of(game, choices)
    assert ent is not None
    depot: list[BuyTrain] = []
    others: list[AmountRange] = []
    for c in choices:
        if isinstance(c, BuyTrain):
            owner = game.train(c.train).owner
            if owner is None or owner == "market":
                depot.append(c)
        elif isinstance(c, AmountRange) and isinstance(c.action, BuyTrain):
            others.append(c)
    if not ent.trains:
        if depot:
            return min(depot, key=lambda b: (b.price, b.exchange is not None))
        if others:
            cheapest = min(others, key=lambda r: r.min)
            return cheapest.at(cheapest.min)
        return None
    owned = max(t.spec.price for t in ent.trains)
    newer = [b for b in depot if game.train(b.train).spec.price > owned]
    if newer:
        return min(newer, key=lambda b: b.price)
    return None


# -- stock round ---------------------------------------------------------------------------
def _float_cost(game: Game, par: Par) -> int:
    return int(par.share_price.split(",")[0]) * 5


def _stock(game: Game, pid: int, choices: list[Choice]) -> Action | None:
    """The stock round decision (see the module docstring), ``None`` to pass."""
    player = game.player(pid)
    cash = player.cash
    corps = game.corporations
    presides = [c for c in corps.values() if c.president == pid and not c.closed]
    buys = [c for c in choices if isinstance(c, BuyShares)]
    pars = [c for c in choices if isinstance(c, Par)]
    own_unfloated = [b for b in buys if _corp(b) in {c.sym for c in presides if not c.floated}]
    if own_unfloated:
        return _cheapest_first(game, own_unfloated)
    if pars:
        affordable = [p for p in pars if _float_cost(game, p) <= cash]
        if affordable and len(presides) < 2:
            return max(affordable, key=lambda p: int(p.share_price.split(",")[0]))
        if not presides and game.round.kind != "Stock":  # a private's company: must par
            return max(pars, key=lambda p: int(p.share_price.split(",")[0]))
    reserve = _reserve(game, presides)
    own = [b for b in buys if _corp(b) in {c.sym for c in presides}]
    if own:
        pick = _cheapest_first(game, own)
        if cash - _price(game, pick) >= reserve:
            return pick
    others = [b for b in buys if _corp(b) not in {c.sym for c in presides}
              and corps[_corp(b)].floated]
    if others:
        pick = max(others, key=lambda b: (_price(game, b) if b.percent else 0, -len(b.shares)))
        if cash - _price(game, pick) >= reserve:
            return pick
    if not any(isinstance(c, Pass) for c in choices):
        sells = [c for c in choices if isinstance(c, SellShares)]
        if sells:
            return min(sells, key=lambda s: s.percent)
    return None


def _corp(b: BuyShares) -> str:
    return b.shares[0].rpartition("_")[0]


def _price(game: Game, b: BuyShares) -> int:
    corp = game.corporations[_corp(b)]
    cell = corp.share_price or corp.par_price
    return (cell.price if cell is not None else 0) * b.percent // 10


def _cheapest_first(game: Game, buys: list[BuyShares]) -> BuyShares:
    """The buy of the lowest cost, IPO certificates before market ones."""
    def key(b: BuyShares) -> tuple[int, int]:
        corp = game.corporations[_corp(b)]
        idx = int(b.shares[0].rpartition("_")[2])
        ipo = corp.certificates[idx].owner == IPO if idx < len(corp.certificates) else False
        return (_price(game, b), 0 if ipo else 1)
    return min(buys, key=key)


def _reserve(game: Game, presides: list[Corporation]) -> int:
    """Money (M) a president keeps for companies of theirs with no train."""
    depot = game.depot_trains()
    if not depot:
        return 0
    cheapest = min(t.spec.price for t in depot)
    need = sum(max(0, cheapest - c.cash) for c in presides if c.floated and not c.trains)
    return need // 2


# -- anything else -------------------------------------------------------------------------
def _fallback(game: Game, choices: list[Choice]) -> Action:
    """Pass when it may; else the first action that is neither bankruptcy nor a buy or
    sale of a private; bankruptcy last."""
    for c in choices:
        if isinstance(c, Pass):
            return c
    rest = [c for c in choices if not isinstance(action_of(c), Bankrupt | BuyCompany
                                                 | SellCompany)]
    for c in rest:
        return materialize(game, c)
    for c in choices:
        if not isinstance(action_of(c), Bankrupt):
            return materialize(game, c)
    return materialize(game, choices[0])
