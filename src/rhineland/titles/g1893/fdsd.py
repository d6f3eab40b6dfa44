"""1893's FdSD (Förderverein der Stadt-Dampfbahnen): its owner may have it pay for RAG's
par (the president's certificate, the bank pays) or exchange it in a stock round for
RAG shares from the market; it closes once the first 5-train has scheduled it, at its
owner's next share purchase.  Sources: seed ``001`` and the oracle traces
(docs/rules-differences.md 1893 (f)).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rhineland.engine.actions import Action, BuyShares, Par
from rhineland.engine.entities import MARKET, Certificate, Player
from rhineland.engine.shares import check_presidency, give
from rhineland.errors import GameError
from rhineland.titles.g1893.state import cologne_state

if TYPE_CHECKING:
    from rhineland.engine.game import Game
    from rhineland.engine.rounds.stock import StockRound


def owns_fdsd(game: Game, pid: Any) -> bool:
    """Whether player ``pid`` owns the open FdSD private."""
    fdsd = game.private("FdSD")
    return not fdsd.closed and fdsd.owner == pid


def exchange_fdsd_for_par(game: Game, player: Player, amount: int) -> None:
    """FdSD is exchanged for RAG's president's certificate: the bank pays the par."""
    game.title.close_private(game, game.private("FdSD"))
    game.pay(game.bank, player, amount)
    game.add_log(f"{player.name} exchanges FdSD to pay for RAG's par")


def resolve_rag_par(
    game: Game, rnd: StockRound, action: Action, pending: tuple[int, str]
) -> None:
    """After a RAG par by FdSD's owner: ``assign`` exchanges FdSD, ``pass`` pays cash.

    In the first SR the cash payment is refused: 18xx.games counts that pass as the
    player's first-SR pass before the par's certificate is bought, and a first-SR
    passer buys nothing more (bots-1202 #9: "Cannot buy a share of RAG").  Raises
    ``GameError`` [``fdsd.par``, ``fdsd.par_cash_first_sr``]."""
    pid, share_price = pending
    if action.entity != pid or action.type not in ("assign", "pass"):
        raise GameError(
            f"{game.player(pid).name} must decide whether FdSD pays for RAG's par "
            "(assign FdSD or pass)",
            "fdsd.par",
        )
    player = game.player(pid)
    if action.type == "pass" and game.state.turn == 1:
        raise GameError(
            f"{player.name} parred RAG in the first stock round: FdSD pays for the par "
            "(assign FdSD); paying cash is a first-SR pass",
            "fdsd.par_cash_first_sr",
        )
    cologne_state(game).rag_par_pending = None
    par = Par(entity=pid, corporation="RAG", share_price=share_price)
    if action.type == "assign":
        cell = game.title.par_cell(game, game.corporation("RAG"), share_price)
        exchange_fdsd_for_par(game, player, cell.price * 2)
    rnd.par(game, player, par)


def check_fdsd_exchange(game: Game, rnd: StockRound,
                        action: BuyShares) -> tuple[Player, list[Certificate]]:
    """The checks of :func:`fdsd_exchange`, before anything changes: FdSD's owner and
    the RAG certificates they take: the two that came to the market first (as
    18xx.games takes them, whichever market share the action names).  Raises ``GameError``
    (``"fdsd.exchange"``, ``"turn.order"``)."""
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
    market_ids = {c.id for c in in_market}
    if not action.shares or not set(action.shares) <= market_ids:
        raise GameError(f"FdSD is exchanged for RAG shares in the market "
                        f"({', '.join(sorted(market_ids))}), not {list(action.shares)}",
                        "fdsd.exchange")
    return player, sorted(in_market, key=lambda c: (c.percent, c.pool_seq))[:2]


def fdsd_exchange(game: Game, rnd: StockRound, action: BuyShares) -> None:
    """FdSD is exchanged for RAG shares from the market (20% if two are left).

    The exchange is the turn's buy, made by the private (closed by it): in the
    reference engine no player becomes the last to act, so the first player in order
    holds the priority deal (generated2 g500 #26, g513 #31, g503 #62).  Raises
    ``GameError`` (:func:`check_fdsd_exchange`)."""
    player, take = check_fdsd_exchange(game, rnd, action)
    rag = game.corporation("RAG")
    for c in take:
        give(game, c, player.id)
    game.title.close_private(game, game.private("FdSD"))
    game.add_log(f"{player.name} exchanges FdSD for {sum(c.percent for c in take)}% of RAG")
    check_presidency(game, rag)
    game.title.check_float(game, rag)
    rnd.bought_this_turn = True
    rnd.end_turn(game, player, passed=False, for_priority=False)
