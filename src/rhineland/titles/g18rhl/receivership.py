"""18Rhl's bankruptcy and receivership, as the reference engine has them (the game goes on).

A president who cannot pay for the train their corporation must buy goes bankrupt
(:func:`bankrupt`): they sell what they may, the rest of their shares go to the market,
each corporation they presided passes to the player with the most shares or, with no one
at 20%, enters receivership (no president).  A corporation in receivership
(:func:`in_receivership`) lays no track and places no token (the title's steps ask
this module), always withholds, and buys the train it must have at once with the bank's
help (:func:`receivership_train`).  Source: reference engine (oracle traces); seed 000
describes a bank loan instead (``docs/rules-differences.md``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rhineland.engine.emergency import check_may_go_bankrupt, emergency_bundles
from rhineland.engine.entities import Corporation, Player, Train
from rhineland.engine.rounds.stock import sell_certificates
from rhineland.engine.shares import check_presidency, operating_order_key, to_market
from rhineland.errors import GameError

if TYPE_CHECKING:
    from rhineland.engine.game import Game

RECEIVERSHIP_LOAN_FEE = 100
"""M a company in receivership owes the bank on top of what the bank paid for its train."""


def in_receivership(entity: Any) -> bool:
    """Whether ``entity`` is a corporation in receivership (no president)."""
    return isinstance(entity, Corporation) and entity.receivership


def check_bankrupt(game: Game, rnd: Any, entity: Corporation) -> Player:
    """The checks of :func:`bankrupt`, before anything changes: the president, who
    may go bankrupt.  Raises ``GameError`` (``"bankrupt.not_needed"``,
    :func:`~rhineland.engine.emergency.check_may_go_bankrupt`'s rules)."""
    owners = game.entity_owner_ids(entity)
    if (rnd.step != "buy_train" or not game.title.must_buy_train(game, entity)
            or not owners):
        raise GameError(f"{entity.sym} is not obliged to buy a train it cannot pay",
                        "bankrupt.not_needed")
    player = game.player(owners[0])
    check_may_go_bankrupt(game, entity, player)
    return player


def bankrupt(game: Game, rnd: Any, entity: Corporation) -> bool:
    """The president cannot pay for the train the corporation must buy
    (:func:`check_bankrupt`).

    In the reference engine's order: the president sells what they may, the
    corporations taken in operating order as it stands when they go bankrupt (per
    corporation the largest bundle, :func:`~rhineland.engine.emergency.emergency_bundles`:
    with another company's president's certificate when another player holds
    enough to take it); the rest of their shares go to the market, per corporation
    in the order they acquired them (but for those of a corporation not yet parred,
    which stay with them), and each corporation they presided passes to the player
    with the most shares (ties: the first after them in player order) or, with no one
    at 20%, enters receivership; their privates close and their cash goes to the
    bank.  If ``entity`` itself is now in receivership it buys the cheapest depot
    train at once (:func:`receivership_train`) and its turn ends: the return value is
    True.  With a new president it stays in the buy-train step, now theirs.
    """
    title = game.title
    player = check_bankrupt(game, rnd, entity)
    cheapest = title.cheapest_depot_train(game)
    assert cheapest is not None
    game.add_log(f"{player.name} goes bankrupt")
    parred = sorted((c for c in game.corporations.values() if c.share_price is not None),
                    key=lambda c: operating_order_key(game, c))
    rank = {c.sym: i for i, c in enumerate(parred)}
    bundles = emergency_bundles(game, entity, player)
    for corp, certs, percent in sorted(bundles, key=lambda b: rank[b[0].sym]):
        sell_certificates(game, player, corp, certs, percent)
    contribution = player.cash
    for corp in parred:
        held = sorted(corp.certs_of(player.id), key=lambda c: c.pool_seq)  # as acquired
        if not held:
            continue
        president = corp.president
        for cert in held:
            to_market(game, cert)
        check_presidency(game, corp, previous=president)
        if president == player.id and corp.receivership:
            game.add_log(f"{corp.sym} enters receivership")
    for sym in list(player.companies):
        title.close_private(game, game.private(sym))
    game.pay(player, game.bank, player.cash)
    player.bankrupt = True
    rnd.turn_state.emergency_sold = False  # the new president may buy from anyone
    if not entity.receivership:
        return False
    receivership_train(game, rnd, entity, cheapest, contribution)
    return True


def receivership_train(game: Game, rnd: Any, entity: Corporation, train: Train,
                       contribution: int) -> None:
    """``entity``, in receivership after its president's bankruptcy, buys ``train``.

    The bankrupt president's cash (``contribution``, already paid to the bank),
    the treasury (when positive) and the bank pay for it; the company owes the
    bank what the bank paid plus a 100M fee.  The bank's share is the price less
    the treasury and the contribution, so a negative treasury counts twice: its
    debt stays and the bank's share grows by it (the reference engine's sums:
    g403 #496, BME -261M + 393M for a 500M train: -729M).
    """
    price = train.spec.price
    treasury = entity.cash
    lent = price - treasury - contribution
    if treasury > 0:
        game.pay(entity, game.bank, treasury)
    train.owner = entity.sym
    entity.trains.append(train)
    game.pay(entity, game.bank, lent + RECEIVERSHIP_LOAN_FEE)
    game.add_log(
        f"{entity.sym} buys a {train.name}-train for {price}M with {contribution}M of its "
        f"former president, {max(treasury, 0)}M of its treasury and {lent}M from the "
        f"bank, which it owes plus a {RECEIVERSHIP_LOAN_FEE}M fee"
    )
    game.title.after_train_bought(game, rnd, entity, train)
