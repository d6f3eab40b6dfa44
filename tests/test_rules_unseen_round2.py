"""Rules audit, round 2 (issue 9): rules where rhineland and the reference engine
disagreed in situations the reference games of ``../shared`` do not reach, each with
real values, built through the public API (a new game driven by actions) or, where
noted, by placing certificates by hand to reach a rare holding.

Rule sources are named per test: the reference engine's rule as read in
tobymao/18xx (never its code), the seeds' rules summaries and the title data.
"""

from __future__ import annotations

from play import play_packet_4p
from rhineland.engine.actions import BuyShares, Par, Pass
from rhineland.engine.entities import IPO
from rhineland.engine.game import Game
from rhineland.engine.shares import give, swap_certificates
from rhineland.titles import get_title

PLAYERS4 = [(1, "P1"), (2, "P2"), (3, "P3"), (4, "P4")]


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
