"""18Rhl's forced train purchase in the ``seed`` rule set (the steps it plays instead of
the reference's bankruptcy and receivership).

Seed 000, rules summary: "Bankruptcy: company shares are sold first, then the
director's private cash contributes, and only as a last resort personal shares are sold
or a bank loan is taken (deducted doubled from final wealth)"; comparison §8: "the
company must first sell its own stock certificates to the pool, then the director
contributes their private cash, and only as a last resort do they sell personal shares
or take a bank loan (which is deducted doubled from their wealth at game end)".  Seed
004 says the same ("prima si vendono azioni della compagnia stessa, poi contribuisce la
cassa privata del direttore e, come ultima risorsa, si vendono azioni personali o si
chiede un prestito bancario (che viene detratto raddoppiato dal patrimonio finale)").

When a company must buy a train and its treasury is short of the cheapest one on offer
(the need, :func:`treasury_need`):

1. It sells its own treasury shares (its unsold IPO certificates; ``sell_shares`` with
   the company as the entity) to the market pool at the current price, one row down per
   sale, within the market's 50%, and only enough: a bundle 10% smaller would fall
   short (``train.company_sale``, ``train.company_sale_excess``).  While it has such a
   share and a need, the president may not pay, sell or borrow
   (``train.company_sells_first``).
2. The president pays the rest (the buy itself, as in every emergency buy).
3. If their cash is short, they sell shares (the emergency sale of every rule set) or
   take a bank loan of exactly what is missing (``take_loan``, :func:`check_loan`).
   The loan is deducted twice from their final value and never repaid.  Nobody goes
   bankrupt (``bankrupt.loan``), so no company enters receivership.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rhineland.engine.actions import Action, Bankrupt, BuyTrain, SellShares, TakeLoan
from rhineland.engine.emergency import cheapest_train_price
from rhineland.engine.entities import IPO, MARKET, Certificate, Corporation
from rhineland.engine.rounds.operating import operating_round
from rhineland.engine.rounds.operating_steps import ROUTE
from rhineland.engine.shares import move_price, to_market
from rhineland.engine.steps import Step
from rhineland.errors import GameError
from rhineland.titles.g18rhl.state import rhl_state
from rhineland.titles.g18rhl.steps import (
    G18RhlBuyTrain,
    G18RhlDividend,
    G18RhlToken,
    G18RhlTrack,
    PrivateLay,
    SpecialToken,
)

if TYPE_CHECKING:
    from rhineland.engine.game import Game
    from rhineland.engine.legal.choices import Candidate
    from rhineland.engine.rounds.base import Round
    from rhineland.engine.rounds.operating import OperatingRound


def treasury_need(game: Game, entity: Any) -> int:
    """M the company's treasury lacks for the cheapest train on offer (0: none)."""
    price = cheapest_train_price(game)
    return max(0, price - entity.cash) if price is not None else 0


def treasury_certificates(game: Game, corp: Corporation) -> list[Certificate]:
    """``corp``'s own treasury shares it may sell now, in certificate order: its unsold
    ordinary IPO certificates (seed: "any unsold IPO shares move to the corporation's own
    Treasury") as many as fit in the market pool's limit (50%)."""
    if not isinstance(corp, Corporation) or not corp.floated or corp.share_price is None:
        return []
    room = int(game.data.rules.get("market_share_limit", 50)) - corp.percent_of(MARKET)
    out = []
    for cert in corp.certificates:
        if cert.owner == IPO and not cert.president and not cert.reserved and (
            cert.percent <= room
        ):
            out.append(cert)
            room -= cert.percent
    return out


def company_must_sell(game: Game, entity: Any) -> bool:
    """Whether ``entity``, obliged to buy a train it cannot pay, still has treasury shares
    to sell before its president may help."""
    return bool(game.title.must_buy_train(game, entity) and treasury_need(game, entity) > 0
                and treasury_certificates(game, entity))


def check_company_sale(game: Game, entity: Any, action: SellShares) -> list[Certificate]:
    """The certificates of a legal sale of ``entity``'s own treasury shares; raises
    ``GameError`` (``"train.company_sale"``, ``"train.company_sale_excess"``)."""
    if not game.title.must_buy_train(game, entity) or treasury_need(game, entity) <= 0:
        raise GameError(f"{entity.sym} is not short of a train it must buy: it sells no "
                        f"treasury shares", "train.company_sale")
    sellable = treasury_certificates(game, entity)
    by_id = {c.id: c for c in sellable}
    certs = [by_id.get(s) for s in action.shares]
    if any(c is None for c in certs) or len(set(action.shares)) != len(certs):
        raise GameError(f"{entity.sym} may sell only its own treasury shares that fit in "
                        f"the market ({', '.join(by_id) or 'none'})", "train.company_sale")
    chosen = [c for c in certs if c is not None]
    percent = sum(c.percent for c in chosen)
    if percent != action.percent:
        raise GameError(f"the certificates make {percent}%, not {action.percent}%",
                        "stock.sell_percent")
    if sum(c.percent for c in sellable) < percent:
        raise GameError("the market pool would hold more than its limit",
                        "stock.market_limit")
    assert entity.share_price is not None
    share = entity.share_price.price
    need = treasury_need(game, entity)
    if share * (percent - 10) // 10 >= need:
        raise GameError(
            f"{entity.sym} must sell only enough for the train: {need}M are missing, "
            f"{percent}% bring {share * percent // 10}M, one share less would do",
            "train.company_sale_excess")
    return chosen


def company_sale(game: Game, entity: Corporation, certs: list[Certificate]) -> None:
    """``entity`` sells ``certs`` from its treasury to the market: the bank pays the
    current price, then the price drops one row (seed 000: "Each sale drops one row")."""
    assert entity.share_price is not None
    percent = sum(c.percent for c in certs)
    total = entity.share_price.price * percent // 10
    for cert in certs:
        to_market(game, cert)
    game.pay(game.bank, entity, total)
    game.add_log(f"{entity.sym} sells {percent}% of its treasury shares for {total}M")
    move_price(game, entity, "down", 1)


def loan_need(game: Game, entity: Any, president: Any) -> int:
    """M the company and its president together lack for the cheapest train (0: none)."""
    return max(0, treasury_need(game, entity) - int(president.cash))


def check_loan(game: Game, entity: Any, action: TakeLoan) -> Any:
    """The president taking a legal loan; raises ``GameError`` (``"loan.who"``,
    ``"train.company_sells_first"``, ``"loan.not_needed"``, ``"loan.amount"``)."""
    owners = game.entity_owner_ids(entity)
    if not owners or action.entity != owners[0] or action.entity_type != "player":
        raise GameError(f"only {entity.sym}'s president may take a loan for its train",
                        "loan.who")
    if company_must_sell(game, entity):
        raise GameError(f"{entity.sym} must first sell its own treasury shares",
                        "train.company_sells_first")
    president = game.player(owners[0])
    need = loan_need(game, entity, president) if game.title.must_buy_train(game, entity) else 0
    if need <= 0:
        raise GameError(f"{president.name} and {entity.sym} can pay the cheapest train: no "
                        f"loan", "loan.not_needed")
    if action.amount != need:
        raise GameError(f"the loan is what is missing for the cheapest train: {need}M, not "
                        f"{action.amount}M", "loan.amount")
    return president


class SeedBuyTrain(G18RhlBuyTrain):
    """Buy trains, with the seed's forced purchase (module docstring): the company's
    own share sale, the president's loan; no bankruptcy."""

    def actions(self, game: Game, rnd: Round, entity: Any) -> frozenset[str]:
        """As the default, and ``take_loan``."""
        return super().actions(game, rnd, entity) | {TakeLoan.TYPE}

    def candidates(self, game: Game, rnd: Round, entity: Any) -> list[Candidate]:
        """As the default, and the company's treasury sales and the president's loan
        (:func:`seed_candidates`)."""
        out = super().candidates(game, rnd, entity)
        out.extend(seed_candidates(game, operating_round(rnd), entity))
        return out

    def check(self, game: Game, rnd: Round, entity: Any, action: Action) -> None:
        """No bankruptcy (``bankrupt.loan``); while the company must sell its own
        shares, no sale by the president nor a purchase beyond the treasury
        (``train.company_sells_first``); then the default's checks.  The company's sale
        and a loan are checked as they are applied."""
        if ((isinstance(action, SellShares) and action.entity_type == "corporation")
                or isinstance(action, TakeLoan)):
            return
        if isinstance(action, Bankrupt):
            raise GameError("nobody goes bankrupt: the president takes a bank loan for what "
                            "is missing", "bankrupt.loan")
        if company_must_sell(game, entity) and (
            isinstance(action, SellShares) or self._needs_help(game, entity, action)
        ):
            raise GameError(f"{entity.sym} must first sell its own treasury shares",
                            "train.company_sells_first")
        super().check(game, rnd, entity, action)

    def apply(self, game: Game, rnd: Round, entity: Any, action: Action) -> None:
        """The company's sale, a loan, or as the default (:meth:`check`)."""
        if isinstance(action, SellShares) and action.entity_type == "corporation":
            self.check_operator(game, rnd, entity, action)
            company_sale(game, entity, check_company_sale(game, entity, action))
            return
        if isinstance(action, TakeLoan):
            president = check_loan(game, entity, action)
            game.pay(game.bank, president, action.amount)
            loans = rhl_state(game).loans
            loans[president.id] = loans.get(president.id, 0) + action.amount
            game.add_log(f"{president.name} takes a bank loan of {action.amount}M for "
                         f"{entity.sym}'s train")
            return
        super().apply(game, rnd, entity, action)

    @staticmethod
    def _needs_help(game: Game, entity: Any, action: Action) -> bool:
        """Whether ``action`` is a train buy beyond the treasury (the president pays)."""
        return isinstance(action, BuyTrain) and action.price > entity.cash


SEED_STEPS: tuple[Step, ...] = (SpecialToken(), PrivateLay(), G18RhlTrack(), G18RhlToken(),
                                ROUTE, G18RhlDividend(), SeedBuyTrain())
"""An 18Rhl OR turn in the seed rule set: as the reference's, with
:class:`SeedBuyTrain`."""


def seed_candidates(game: Game, rnd: OperatingRound, entity: Any) -> list[Action]:
    """In the buy-train step: the company's treasury sales (its first 1, 2, ...
    sellable certificates) and the president's loan of what is missing."""
    out: list[Action] = []
    if not game.title.must_buy_train(game, entity) or treasury_need(game, entity) <= 0:
        return out
    certs = treasury_certificates(game, entity)
    for n in range(1, len(certs) + 1):
        out.append(SellShares(entity=entity.sym, entity_type="corporation",
                              shares=tuple(c.id for c in certs[:n]),
                              percent=sum(c.percent for c in certs[:n])))
    owners = game.entity_owner_ids(entity)
    if owners:
        need = loan_need(game, entity, game.player(owners[0]))
        if need > 0:
            out.append(TakeLoan(entity=owners[0], amount=need))
    return out
