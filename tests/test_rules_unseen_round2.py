"""Rules audit, round 2 (issue 9): rules where rhineland and the reference engine
disagreed in situations the reference games of ``../shared`` do not reach, each with
real values, built through the public API (a new game driven by actions) or, where
noted, by placing certificates by hand to reach a rare holding.

Rule sources are named per test: the reference engine's rule as read in
tobymao/18xx (never its code), the seeds' rules summaries and the title data.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from play import play_packet_4p, price
from reference import ReferenceGames, needs_shared
from rhineland import GameError
from rhineland.engine.actions import Bankrupt, BuyShares, BuyTrain, Par, Pass
from rhineland.engine.emergency import emergency_means
from rhineland.engine.entities import IPO, MARKET
from rhineland.engine.game import Game
from rhineland.engine.legal.choices import AmountRange
from rhineland.engine.shares import give, swap_certificates
from rhineland.io.export import load_export, replay
from rhineland.titles import get_title

PLAYERS4 = [(1, "P1"), (2, "P2"), (3, "P3"), (4, "P4")]
G1893 = ReferenceGames("1893")
SELFPLAY = Path(__file__).parent / "data" / "selfplay"


def rhl_game(options: tuple[str, ...] = ()) -> Game:
    return Game(get_title("18Rhl", options), PLAYERS4, seed=1)


def owners(game: Game, sym: str) -> dict[str, object]:
    return {c.id: c.owner for c in game.corporation(sym).certificates if c.owner != IPO}


# -- presidency swap: which certificates change hands ---------------------------------


def test_presidency_swap_gives_the_double_acquired_first() -> None:
    """18Rhl KEG (seed 000: the first two KEG certificates sold are the 20% ones).
    P1 pars KEG at 60M (KEG_0, 20%); P2 buys KEG_3 (20%), then KEG_2 (20%): 40% > 20%,
    P2 takes the presidency and, holding two certificates, hands over one double: the
    one P2 acquired first (KEG_3), not the lower-numbered KEG_2 (the reference's
    presidency swap walks the holder's certificates in the order they were acquired)."""
    game = rhl_game()
    play_packet_4p(game)
    game.process(Par(entity=1, corporation="KEG", share_price="60,3,0"))
    game.process(BuyShares(entity=2, shares=("KEG_3",), percent=20))
    for pid in (3, 4, 1):
        game.process(Pass(entity=pid))
    game.process(BuyShares(entity=2, shares=("KEG_2",), percent=20))
    keg = game.corporation("KEG")
    assert keg.floated and keg.president == 2
    assert owners(game, "KEG") == {"KEG_0": 2, "KEG_2": 2, "KEG_3": 1}
    assert (keg.percent_of(1), keg.percent_of(2)) == (20, 40)
    assert game.player(2).cash == 300 - 2 * 120


def test_presidency_swap_counts_certificates_not_percent() -> None:
    """The swap hands over as many certificates as the president's certificate is
    worth in 10% shares (two), from the new president's certificates in the order
    acquired; a double goes alone only when the holder has no more than two
    certificates, else the first double is kept and the next two certificates go,
    whatever their size.  A holder of KEG_2, KEG_3 (both 20%) and KEG_1 (10%), in that
    order, hands over KEG_3 and KEG_1: 30% for the 20% president's certificate (the
    reference engine's rule; a holding reached only through the market, so the
    certificates are placed by hand)."""
    game = rhl_game()
    play_packet_4p(game)
    game.process(Par(entity=1, corporation="KEG", share_price="60,3,0"))
    keg = game.corporation("KEG")
    cert = {c.id: c for c in keg.certificates}
    for cid in ("KEG_2", "KEG_3", "KEG_1"):
        give(game, cert[cid], 2)
    assert [c.id for c in swap_certificates(keg, 2, 20)] == ["KEG_3", "KEG_1"]
    # two certificates, one of them a double: the double alone
    give(game, cert["KEG_1"], IPO)
    assert [c.id for c in swap_certificates(keg, 2, 20)] == ["KEG_2"]
    # no double: the first two acquired
    for cid in ("KEG_4", "KEG_6", "KEG_5"):
        give(game, cert[cid], 3)
    assert [c.id for c in swap_certificates(keg, 3, 20)] == ["KEG_4", "KEG_6"]


# -- bankruptcy: the president first sells what they may ----------------------------------


@needs_shared
def test_1893_bankrupt_president_sells_the_largest_bundle_of_each_company_first() -> None:
    """1893 bankruptcy (reference engine's bankruptcy step; seed 001: the game ends at
    once): before their cash goes to the bank, the bankrupt president sells, per
    company, the largest bundle they may, each sale moving the price down a row.
    generated g17 before #536: DE (60M) must buy an 800M train; its president 1001
    (29M) holds RAG's president's certificate and three 10% (50%), 1004 holds 30%: the
    means are 60 + 29 + 300 = 389M < 800M.  Declaring bankruptcy at once, 1001 sells
    RAG's 50% in one sale (RAG 60M -> 55M), 1004 takes RAG's presidency and hands two
    10% certificates to the market (50% there), and the 29 + 300M go to the bank (the
    recorded game sold RAG share by share first; this is the same rule reached at
    once)."""
    game = G1893.position("generated/g17", 535)
    rag = game.corporation("RAG")
    assert (rag.percent_of(1001), rag.percent_of(1004), rag.president) == (50, 30, 1001)
    bank = game.bank.cash
    assert emergency_means(game, game.corporation("DE"), game.player(1001)) == 389
    game.process(Bankrupt(entity="DE", entity_type="corporation"))
    assert game.is_terminal and game.player(1001).bankrupt
    assert price(game, "RAG") == (55, 6, 1)
    assert (rag.percent_of(1001), rag.percent_of(1004), rag.percent_of(MARKET)) == (0, 30, 50)
    assert rag.president == 1004
    assert game.player(1001).cash == 0 and game.bank.cash == bank + 29


def test_1893_bonds_count_toward_the_means_in_the_bankruptcy_check() -> None:
    """1893 (reference engine: a player's liquidity adds 100M per bond, so bonds count
    in the bankruptcy check although they are not sold in an operating round).
    Self-play seed 5039, OR 4.1: RAG (85M, no train) must buy a train, the cheapest
    costs 300M; its president P2 has 150M and no share they may sell, but holds the
    bond AdSK-1: 85 + 150 + 100 = 335M >= 300M, so bankruptcy is refused (and not
    listed).  The way out the reference leaves is another company's train: RAG may
    buy one for 1M up to what RAG and P2 have."""
    game = replay(load_export(SELFPLAY / "1893_seed5039_bankrupt_bond.json"))
    rag, p2 = game.corporation("RAG"), game.player(2)
    assert (game.round.label, game.round.step_name(game)) == ("OR 4.1", "buy_train")
    assert (rag.cash, rag.trains, p2.cash) == (85, [], 150)
    assert "AdSK-1" in p2.companies
    assert emergency_means(game, rag, p2) == 235
    bankrupt = Bankrupt(entity="RAG", entity_type="corporation")
    assert not game.is_legal(bankrupt)
    assert not any(isinstance(a, Bankrupt) for a in game.legal_actions())
    with pytest.raises(GameError) as info:
        game.process(bankrupt)
    assert info.value.rule == "bankrupt.can_pay"
    spans = {a.action.train: (a.min, a.max) for a in game.legal_actions()
             if isinstance(a, AmountRange) and isinstance(a.action, BuyTrain)}
    assert spans and all(lo == 1 for lo, _ in spans.values())
    game.process(BuyTrain(entity="RAG", entity_type="corporation", train="3-0", price=1))
    assert rag.trains and rag.cash == 84


def test_1893_bonds_do_not_block_bankruptcy_where_no_other_train_may_be_bought() -> None:
    """Self-play seed 7099 (4 players, existing track), OR 6.2: DE (45M, no train) must
    buy a train; the only one it may buy is the depot's 5-0 at 450M; its president P2
    has 323M, no share to sell and the bond AdSK-2 (45 + 323 + 100 = 468M).  The
    reference engine refuses the bankruptcy ("DE's cash plus P2's cash and sellable
    shares total 468M") while its interface offers only the 5-0, which DE cannot pay:
    no legal action (the game cannot go on).  Here the bond does not count and the
    president goes bankrupt, so the game ends."""
    game = replay(load_export(SELFPLAY / "1893_seed7099_bond_no_way_out.json"))
    de, p2 = game.corporation("DE"), game.player(2)
    assert (game.round.label, de.cash, de.trains, p2.cash) == ("OR 6.2", 45, [], 323)
    assert game.entity_owner_ids(de) == [2] and "AdSK-2" in p2.companies
    assert game.title.bankruptcy_extra_means(game, de, p2) == 0
    assert game.legal_actions() == [Bankrupt(entity="DE", entity_type="corporation")]
    game.process(Bankrupt(entity="DE", entity_type="corporation"))
    assert game.is_terminal and p2.bankrupt
